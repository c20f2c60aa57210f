"""Jump-forward: the tokens of a forced span, chosen so that neither of its boundaries is unnatural.

Where the grammar admits exactly one continuation (`Matcher.forced_bytes()`), those bytes need no
sampling decision: they are tokenized and fed to the model in one forward pass. These rules keep
the token boundaries natural (and the decode loop, by default, also verifies each token against the
model's own pick in that same pass; see rows.Row):

- The span is tokenized the way the model's tokenizer writes that text (its canonical tokenization),
  and every token is checked against the grammar; a token the grammar rejects ends the span there.
- The span never ends on a token that a longer allowed token could extend into the free text that
  follows (`"` before a string value: `"Mar` may be one token). Such last tokens are held back and
  the model picks, under the mask, among the tokens that start there.
- Optionally (`merge=True`) the span is re-tokenized together with the free token just before it
  when the tokenizer would merge them (`"` then forced `,"email` → `","` `email`).
"""

from __future__ import annotations

from typing import Any

from extractor.automata import Config
from extractor.masks import Matcher
from extractor.masks.matcher import CompiledGrammar


class SpanTokenizer:
    """Token ids for byte strings: the HF tokenizer's canonical split, else greedy longest match."""

    def __init__(self, tokenizer: Any, grammar: CompiledGrammar) -> None:
        backend = getattr(tokenizer, "backend_tokenizer", None)
        self._encode = (lambda text: backend.encode(text, add_special_tokens=False).ids) if backend is not None \
            else (lambda text: tokenizer(text, add_special_tokens=False)["input_ids"])
        self.grammar = grammar

    def encode(self, data: bytes) -> list[int]:
        """Tokens whose bytes concatenate to exactly `data` (a cut UTF-8 character at the end is left out)."""
        text = _utf8_prefix(data)
        if not text:
            return []
        tokens = self.grammar.vocab.tokens
        try:
            ids = [int(i) for i in self._encode(text)]
        except Exception:  # noqa: BLE001 - any tokenizer failure: fall back to the vocabulary
            ids = []
        raw = text.encode()
        if ids and all(0 <= i < len(tokens) for i in ids) and b"".join(tokens[i] for i in ids) == raw:
            return ids
        return self._longest_match(raw)  # e.g. SentencePiece adds a leading "▁" the grammar never wants

    def resplit(self, ids: list[int], splits: dict[int, int]) -> list[int]:
        """`ids` with each token the model is known to write shorter (`splits`) split its way: same bytes."""
        tokens, out, work = self.grammar.vocab.tokens, [], list(ids)
        for _ in range(4 * len(ids) + 8):
            if not work:
                return out
            tid = work.pop(0)
            head = splits.get(tid)
            rest = tokens[tid][len(tokens[head]):] if head is not None else b""
            tail = self.encode(rest) if rest else []
            if head is None or b"".join(tokens[t] for t in tail) != rest:
                out.append(tid)
                continue
            out.append(head)
            work[0:0] = tail
        return out + work

    def _longest_match(self, data: bytes) -> list[int]:
        trie, out, pos = self.grammar.trie, [], 0
        while pos < len(data):
            node, best, best_end = 0, None, pos
            for end in range(pos, len(data)):
                node = trie.child(node, data[end])
                if node < 0:
                    break
                if trie.nends[node]:
                    best, best_end = int(trie.ends(node)[0]), end + 1
            if best is None:
                break
            out.append(best)
            pos = best_end
        return out


def forced_tokens(matcher: Matcher, spans: SpanTokenizer, *, previous: int | None = None, before: Config | None = None,
                  limit: int = 256, hold_back: bool = True) -> tuple[list[int], bool]:
    """Tokens to feed without sampling from the matcher's position, and whether `previous` was merged.

    With `previous` (the free token just advanced) and `before` (the configuration before it), the
    forced bytes are tokenized together with it when the tokenizer merges across the boundary; the
    result then starts with a token that replaces `previous` (same output bytes, one token fewer or
    equal), and the caller swaps it in. The matcher is left unchanged. `hold_back=False` keeps the
    last tokens even where a longer token could run on (for drafts the model verifies anyway).
    """
    data = matcher.forced_bytes(limit)
    if not data:
        return [], False
    grammar = matcher.grammar
    if previous is not None and before is not None:
        head = grammar.vocab.tokens[previous]
        ids = spans.encode(head + data)
        first = grammar.vocab.tokens[ids[0]] if ids else b""
        if len(first) > len(head) and first.startswith(head):  # merges across; never re-splits `previous`
            kept = _span(grammar, before, ids, head + data, hold_back)
            if kept and kept[0] == ids[0]:
                return kept, True
    return _span(grammar, matcher.config, spans.encode(data), data, hold_back), False


def _span(grammar: CompiledGrammar, config: Config, ids: list[int], data: bytes,
          hold_back: bool = True) -> list[int]:
    """The longest allowed prefix of `ids`, less trailing tokens a longer allowed token could extend."""
    tokens = grammar.vocab.tokens
    configs, starts, pos = [config], [0], 0
    for tid in ids:
        nxt = grammar.walk(config, tokens[tid])
        if not nxt:
            break
        config = nxt
        pos += len(tokens[tid])
        configs.append(config)
        starts.append(pos)
    kept = len(configs) - 1
    while hold_back and kept and crosses(grammar, configs[kept - 1], data[starts[kept - 1]:]):
        kept -= 1
    return ids[:kept]


def crosses(grammar: CompiledGrammar, config: Config, rest: bytes) -> bool:
    """True when some token allowed at `config` starts with `rest` (forced) and runs past it."""
    trie, node = grammar.trie, 0
    for byte in rest:
        node = trie.child(node, byte)
        if node < 0:
            return False
    tokens = grammar.vocab.tokens
    return any(grammar.walk(config, tokens[tid]) for tid in trie.longer_than(node).tolist())


def _utf8_prefix(data: bytes) -> str:
    """The longest prefix of `data` that is whole UTF-8 text ('' when it starts mid-character)."""
    for cut in range(len(data), max(len(data) - 4, -1), -1):
        try:
            return data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
    return ""
