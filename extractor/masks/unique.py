"""Token masks for arrays whose items are kept apart by value (`automata/items.py`): a token is removed
where it would finish a repeat, or leave the item under way no new value to end as. Only tokens that could
head toward a repeat are tried (the others give the item a string no earlier item holds)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol

import numpy as np

from extractor.automata import Config, Distinct
from extractor.automata.distinct import Quoted, closing_quote, fresh
from extractor.automata.items import WS, escape_at, unescape
from extractor.masks.bits import Row
from extractor.masks.trie import TokenTrie, along
from extractor.tokens import Vocabulary


class Grammar(Protocol):
    """What narrowing reads of a compiled grammar (`masks.matcher.CompiledGrammar` is one)."""

    vocab: Vocabulary
    trie: TokenTrie
    quoted: Quoted | None

TRY_ALL = 512
"""Outside strings, masks allowing at most this many tokens have each tried."""


class TokenKinds:
    """Per-vocabulary indexes of the tokens that can lead toward a repeat (built once per vocabulary)."""

    _cache: dict[str, TokenKinds] = {}

    def __init__(self, vocab: Vocabulary) -> None:
        tokens = vocab.tokens
        holding = _holding(tokens)
        self.escapes = np.array([i for i in holding(b"\\").tolist() if closing_quote(tokens[i]) < 0], dtype=np.int64)
        """Tokens with a backslash and no unescaped quote: inside a string they may respell what they add."""
        self.terminators = holding(b",]")
        """Tokens that may end an item (a `,` or `]`, outside a string)."""
        quoted = holding(b'"').tolist()  # the rest neither closes nor opens a string
        ids, rises, nests = [], [], []
        for i in quoted:
            t = tokens[i]
            tail = t[t.index(b'"') + 1:]
            nest = b"[" in tail or b"{" in tail
            if b"," in tail or nest:
                head = tail.split(b",", 1)[0] if b"," in tail else b""
                ids.append(i)
                rises.append(head.count(b"}") + head.count(b"]") if b"," in tail else -1)
                nests.append(nest)
        self.continues, self._rises, self._nests = np.array(ids, dtype=np.int64), np.array(rises), np.array(nests)
        """Tokens that close a string and go on past a `,` (how many `}`/`]` before it), or open a container."""
        openers: dict[bytes, list[int]] = {}
        self.opens_plain = np.zeros(len(tokens), dtype=bool)
        """Tokens that are whitespace, a quote and plain string content: they open a string and stay in it."""
        for i in quoted:
            rest = tokens[i].lstrip(WS)
            if rest[:1] == b'"' and b'"' not in rest[1:] and b"\\" not in rest:
                self.opens_plain[i] = True
                openers.setdefault(rest[1:], []).append(i)
        self.openers = {k: np.array(v, dtype=np.int64) for k, v in openers.items()}

    def onward(self, rise: int) -> np.ndarray:
        """The tokens that may close the open string and go on to another item of an array `rise` levels up
        (a `,` after at least that many `}`/`]`), or into a container that may hold such an array."""
        return self.continues[(self._rises >= rise) | self._nests]

    @classmethod
    def of(cls, vocab: Vocabulary) -> TokenKinds:
        if vocab.fingerprint not in cls._cache:
            cls._cache[vocab.fingerprint] = cls(vocab)
        return cls._cache[vocab.fingerprint]


def _holding(tokens: tuple[bytes, ...]) -> Callable[[bytes], np.ndarray]:
    """Ids of the tokens holding any of some bytes, found over all tokens at once (a per-token loop over a
    200k vocabulary costs a first visit 100 ms)."""
    blob = np.frombuffer(b"".join(tokens), dtype=np.uint8)
    owner = np.repeat(np.arange(len(tokens), dtype=np.int64), [len(t) for t in tokens])

    def ids(chars: bytes) -> np.ndarray:
        return np.unique(owner[np.isin(blob, np.frombuffer(chars, dtype=np.uint8))])

    return ids


def item_repeats(row: Row, config: Config, distinct: Distinct, grammar: Grammar) -> list[int]:
    """The allowed tokens after which the item under way can only repeat an earlier one (`row`: a bool mask or
    a packed row alike)."""
    items = distinct.items
    if items is None or not items.records:
        return []
    kinds = TokenKinds.of(grammar.vocab)
    rise = items.level - items.records[-1].level  # levels between the position and the innermost array
    if not items.watching:  # no item finished yet: only a token that finishes one can lead to a repeat
        candidates = _among(row, [kinds.onward(rise) if distinct.in_string else kinds.terminators], grammar)
    elif distinct.in_string:
        candidates = _among(row, _in_string(row, items.open_string(), items.strings(), rise, grammar), grammar)
    elif row.count() > TRY_ALL:
        candidates = _among(row, _outside(row, items.strings(), grammar), grammar)
    else:
        candidates = row.ids()
    out, tokens = [], grammar.vocab.tokens
    for token in candidates.tolist():
        after, fork = distinct.after(config, tokens[token])
        if not after or not fresh(fork, after):
            out.append(token)
    return out


def _among(row: Row, found: list[np.ndarray], grammar: Grammar) -> np.ndarray:
    """The allowed tokens among those found, ascending."""
    chosen = np.zeros(grammar.vocab.size, dtype=bool)
    for ids in found:
        chosen[ids] = True
    ids = np.flatnonzero(chosen)
    return ids[row.has(ids)]


def _in_string(row: Row, raw: bytes, strings: frozenset[bytes], rise: int, grammar: Grammar
               ) -> list[np.ndarray]:
    """The allowed tokens that may make the open string equal some string of an earlier item (or respell
    it): those that add a prefix of what such a string still lacks, close it equal to one, hold an escape,
    hold three quotes or more, or close it and go on to another item (which may have no new value left).
    Where no earlier string starts with the content so far, only the last two kinds."""
    kinds, quoted, tokens = TokenKinds.of(grammar.vocab), grammar.quoted, grammar.vocab.tokens
    assert quoted is not None
    found = [quoted.ids[quoted.counts >= 3], kinds.onward(rise)]
    cut = escape_at(raw)
    content = unescape(raw[:cut])
    live = frozenset(s for s in strings if content is None or s.startswith(content))
    if not live:
        return found
    if cut < len(raw) or content is None:  # inside an escape: each allowed token finishes it its own way
        if not _may_lead(raw, live):  # the escape cannot spell what any of them has next: no token can
            return found
        return found + [_leading(raw, row.ids(), tokens, live, lambda token: 1)]  # by their first byte
    for s in live:
        rest = s[len(content):]
        found.append(along(grammar.trie, rest))
        try:
            hit = quoted.by_head.get(rest.decode("utf-8"))
        except UnicodeDecodeError:
            hit = None
        if hit is not None:
            found.append(hit)
    if _partial_utf8(content):  # a quote token's head then starts mid-character: not in `by_head`
        found.append(quoted.ids)
    escapes = kinds.escapes[row.has(kinds.escapes)]
    found.append(_leading(raw, escapes, tokens, live, lambda token: token.index(b"\\")))
    return found


def _leading(raw: bytes, ids: np.ndarray, tokens: tuple[bytes, ...], live: frozenset[bytes],
             head: Callable[[bytes], int]) -> np.ndarray:
    """The `ids` whose tokens, written after `raw`, leave the open string able to become one of `live`, or close
    it where it may equal one. A token can only if its first `head(token)` bytes can (a string that may become one
    may before its end), so each distinct head is tried once and whole tokens only where theirs can: inside a
    `\\u` escape, 10k tokens share two dozen first bytes (hex digits), and most of those cannot spell what comes
    next. The content before an unfinished escape is read once, not once a token."""
    cut = escape_at(raw)
    done = unescape(raw[:cut])
    if done is not None and not _HIGH_SURROGATE_END.search(raw[:cut]):  # (a pair's half would join across)
        raw, live = raw[cut:], frozenset(s[len(done):] for s in live if s.startswith(done))
    tried: dict[bytes, bool] = {}

    def leads(data: bytes) -> bool:
        hit = tried.get(data)
        if hit is None:
            hit = tried[data] = _may_lead(raw + data, live)
        return hit

    keep = []
    for t in ids.tolist():
        token = tokens[t]
        first = head(token)
        if not leads(token[:first]):
            continue
        end = closing_quote(token[first:])  # after the head, which a quote cannot close: the string's end, if any
        body = token if end < 0 else token[:first + end]
        if len(body) <= first or leads(body[:first + 1]) and leads(body):  # one byte more, then the whole
            keep.append(t)
    return np.array(keep, dtype=np.int64)


_HIGH_SURROGATE_END = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}$")


def _outside(row: Row, strings: frozenset[bytes], grammar: Grammar) -> list[np.ndarray]:
    """The allowed tokens that do not just open a string, and those that open one with a prefix of some
    string of an earlier item."""
    kinds = TokenKinds.of(grammar.vocab)
    allowed = row.ids()
    found = [allowed[~kinds.opens_plain[allowed]]]
    for s in strings:
        for k in range(len(s) + 1):
            hit = kinds.openers.get(s[:k])
            if hit is not None:
                found.append(hit)
    return found


def _may_lead(raw: bytes, strings: frozenset[bytes]) -> bool:
    """Whether the open string, written as `raw`, may still become one of `strings` (its content a prefix of
    one, and an unfinished escape at the end able to spell that string's next character)."""
    cut = escape_at(raw)
    content, pending = unescape(raw[:cut]), raw[cut:]
    if content is None:
        return True
    for s in strings:
        if s.startswith(content):
            if not pending:
                return True
            following = s[len(content):].decode("utf-8", "ignore")[:1]
            if following and _spells(pending, following):
                return True
    return False


def _spells(pending: bytes, char: str) -> bool:
    """Whether an unfinished escape (`\\`, `\\u`, `\\u0`, ...) can go on to spell `char` (an astral one by
    its first surrogate)."""
    if pending == b"\\" or pending == b"\\u":
        return True
    code = ord(char) if ord(char) < 0x10000 else 0xD800 + ((ord(char) - 0x10000) >> 10)
    return f"{code:04x}".startswith(pending[2:].decode("ascii", "replace").lower())


def _partial_utf8(data: bytes) -> bool:
    """Whether `data` ends inside a multi-byte UTF-8 character."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return False
        if byte >= 0xC0:  # a lead byte: complete when it has all its continuation bytes
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return back < need
    return False
