"""One document being decoded: its matcher, guards, sampler state, output, and the tokens to feed next."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, replace

import numpy as np
import torch

from extractor.decode.copy import SourceDrafts
from extractor.decode.draft import NO_DRAFT, Draft, learn_split
from extractor.decode.forced import SpanTokenizer, forced_tokens
from extractor.decode.guards import NO_GUARDS, Guard, Guards
from extractor.decode.tracker import Tracker, tracker
from extractor.decode.head import PassLogits
from extractor.decode.sampling import SamplingOptions, choose, penalize, verify
from extractor.errors import UnsatisfiableSchemaError
from extractor.masks import Matcher
from extractor.masks.device import PackedMasks
from extractor.masks.matcher import CompiledGrammar, pack
from extractor.tokens import Vocabulary


@dataclass(frozen=True, kw_only=True)
class DecodeOptions:
    """How one generation runs; `generate` and `generate_many` take these as keywords."""

    max_tokens: int
    """Output tokens at most (forced ones count); the output is incomplete when it runs out."""
    sampling: SamplingOptions = SamplingOptions()
    jump_forward: bool = True
    """Feed forced spans without sampling, all their tokens in one forward pass."""
    verify: bool = True
    """Keep a forced token only where the model, seeing its logits in that same pass, would have picked it:
    output exactly as token-by-token decoding (greedy; the same distribution when sampling). False
    trusts the tokenizer's split of forced text: fewer passes, but the model sees token boundaries it
    might not have chosen, and its output may differ."""
    source_drafts: int = 12
    """Verified only, with a source text given: draft up to this many tokens copied from the source while a
    value is written (0: off). Verified like forced spans, so outputs do not change; see copy.py."""
    merge: bool = False
    """Unverified only: re-tokenize a forced span with the free token before it where the tokenizer merges them."""
    guards: Guards = NO_GUARDS
    """Mask rules against small models' loops (see guards.py); off unless asked for."""


class MaskTensors:
    """Masks as tensors on the model's device, without a full-vocabulary host copy per step.

    On CPU a bool mask is wrapped, not copied. On an accelerator each grammar's masks are kept packed
    (32 tokens per int32 word) per configuration in a bounded LRU (`masks.device.PackedMasks`): a mask
    seen before costs no transfer, a new one 1/32 of the vocabulary; they are unpacked on the device.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = torch.device(device)
        self._packed: weakref.WeakKeyDictionary[CompiledGrammar, PackedMasks] = weakref.WeakKeyDictionary()

    def get(self, matcher: Matcher, host: np.ndarray, cached: bool) -> torch.Tensor:
        """The tensor for `host` (the matcher's mask, or a guard's narrowing of it when not `cached`)."""
        if self.device.type == "cpu":
            return torch.from_numpy(host)
        if not cached or host is not matcher.grammar.mask(matcher.config):  # narrowed by a guard or repeats
            return torch.from_numpy(pack(host)).to(self.device, non_blocking=True)
        grammar = matcher.grammar
        packed = self._packed.get(grammar)
        if packed is None:
            packed = self._packed[grammar] = PackedMasks(grammar, self.device)
        return packed.get(matcher.config)


@dataclass
class Row:
    """The decoding state of one document; `step(logits)` picks tokens and sets what to feed next.

    After each chosen token the span the grammar forces is queued behind it (`pending`). Verified
    (the default), the span is a `Draft` (draft.py): the same forward pass gives the model's logits at each
    of its positions, and the tokens the model would not have picked are dropped from the cache (`discard`).
    Canonical, the span is taken as the tokenizer splits it, unverified.
    """

    prompt: list[int]
    matcher: Matcher | None
    vocab: Vocabulary
    options: DecodeOptions
    spans: SpanTokenizer | None = None
    generator: torch.Generator | None = None
    guards: Guards = NO_GUARDS
    copy: SourceDrafts | None = None
    source: bytes = b""
    """The text extracted from, UTF-8 (the guards let through a repetition it holds)."""
    splits: dict[int, int] | None = None
    tokens: list[int] = field(default_factory=list)
    output: bytearray = field(default_factory=bytearray)
    pending: list[int] = field(default_factory=list)
    draft: Draft = NO_DRAFT
    discard: int = 0
    forced: int = 0
    copied: int = 0
    copies: list[tuple[int, int, int]] = field(default_factory=list)
    """(output offset, source offset, length) in bytes of each run of output copied from the source and kept."""
    passes: int = 0
    cached: int = 0
    """Prompt tokens whose keys and values were kept from an earlier reading (`kept`), not fed."""
    complete: bool = False
    done: bool = False
    guard: Guard | None = None
    json: Tracker | None = None
    _allowed: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.matcher is not None and self.guards.active:
            self.guard = Guard(self.guards, self.matcher.grammar, self.source)
        if self.copy is not None and self.matcher is not None and self.options.verify:
            self.json = tracker()
        else:
            self.copy = None

    @property
    def positions(self) -> int:
        """How many of the last positions of the next pass this row needs logits for."""
        return len(self.draft.tokens) + 1

    def start(self) -> list[int]:
        """The ids of the first forward pass: the prompt and any span forced from the start."""
        self._queue(None, None)
        head, self.pending = self.pending, []
        return self.prompt + head

    def prepare(self, masks: MaskTensors) -> None:
        """Compute the first mask of the next step (called while an asynchronous forward pass runs)."""
        self._allowed = self._mask(masks)

    def step(self, logits: PassLogits, masks: MaskTensors) -> None:
        """Verify the draft and choose the next token from this row's logits (its last `positions` positions)."""
        token = self._verified(logits.last(self.positions), masks)
        if token is None:
            return
        if token in self.vocab.eos_ids:
            if self.matcher is not None:
                self.matcher.advance(token)
            self.complete = self.done = True
            return
        before = self.matcher.config if self.matcher is not None else None
        if self.matcher is not None:
            self._advance(token)
        self._emit([token])
        self._queue(token, before)

    def _advance(self, token: int) -> None:
        """The model's token into the matcher; where the grammar left no token at all to choose (a unique array
        whose items the text holds too few of, in a way the compiler does not count), a typed error saying so."""
        try:
            self.matcher.advance(token)  # type: ignore[union-attr]
        except ValueError:
            if self.matcher is None or self.matcher.mask().any():
                raise
            raise UnsatisfiableSchemaError(f"the output cannot go on after {bytes(self.matcher.output[-60:])!r}: no "
                                           "token is allowed there (a uniqueItems array whose items this text holds "
                                           "too few of)") from None

    def _verified(self, logits: PassLogits, masks: MaskTensors) -> int | None:
        """Take the draft as far as the model keeps it; the model's own token after that (None: the accepted
        draft filled the budget)."""
        draft, self.draft, self.discard = self.draft, NO_DRAFT, 0
        sampling, read = self.options.sampling, 0
        for j, drafted in enumerate(draft.tokens):
            kept, token = verify(self._scores(logits, j, masks), drafted, sampling, self.generator)
            if not kept:
                self.discard = len(draft.tokens) - j  # fed, but not the model's pick: dropped from the cache
                learn_split(self.splits, self.vocab.tokens, drafted, token)
                return token
            self.matcher.advance(token)
            if draft.copied:
                self._copied(draft, read, len(self.vocab.tokens[token]))
                read += len(self.vocab.tokens[token])
            self._emit([token])
            if draft.copied:
                self.copied += 1
            else:
                self.forced += 1
        if draft.tokens and len(self.tokens) >= self.options.max_tokens:
            self.done = True
            return None
        return choose(self._scores(logits, len(draft.tokens), masks), sampling, self.generator)

    def _scores(self, logits: PassLogits, j: int, masks: MaskTensors) -> torch.Tensor:
        """The masked (and penalized) scores at the `j`th of this step's positions."""
        allowed = self._allowed if j == 0 and self._allowed is not None else self._mask(masks)
        self._allowed = None
        scores = logits.at(j, allowed)
        if self.tokens and self.options.sampling.repetition_penalty != 1.0:
            scores = penalize(scores, torch.tensor(sorted(set(self.tokens)), device=scores.device),
                              self.options.sampling.repetition_penalty)
        return scores

    def _mask(self, masks: MaskTensors) -> torch.Tensor | None:
        if self.matcher is None:
            return None
        host = self.matcher.mask()
        left = self.options.max_tokens - len(self.tokens)
        restricted = self.guard.restrict(host, self.matcher.config, left) if self.guard is not None else host
        return masks.get(self.matcher, restricted, restricted is host)

    def _queue(self, token: int | None, before: object) -> None:
        """Queue `token` (if any) and the span forced after it; finish when nothing but EOS may follow."""
        self.pending = [] if token is None else [token]
        matcher = self.matcher
        if matcher is None:
            self.done = len(self.tokens) >= self.options.max_tokens
            return
        room = self.options.max_tokens - len(self.tokens)
        if self.options.jump_forward and self.spans is not None and room > 0:
            merge = self.options.merge and not self.options.verify
            span, merged = forced_tokens(matcher, self.spans, previous=token if merge else None, before=before,
                                         hold_back=not self.options.verify)  # a verified draft may run on
            if merged:  # the span's first token replaces `token`: same bytes so far, the tokenizer's own split
                first, span = span[0], span[1:]
                extra = self.vocab.tokens[first][len(self.vocab.tokens[token]):]
                matcher.advance_bytes(extra)
                self.tokens[-1] = self.pending[0] = first
                self._feed(extra)
            if self.options.verify and self.splits:
                span = self.spans.resplit(span, self.splits)
            span = span[:room]
            if self.options.verify and not self._ends_with(span):
                self.draft = Draft(span)
            else:  # canonical; or the span ends the output, where any split gives the same text
                for tid in span:
                    matcher.advance(tid)
                self._emit(span)
                self.forced += len(span)
            self.pending += span
            if not span and self.copy is not None:
                copied = self.copy.draft(matcher, self.json.value(), room, self.json.in_string)
                if self.splits and copied.tokens:
                    copied = replace(copied, tokens=self.spans.resplit(copied.tokens, self.splits)[:room])
                self.draft = copied
                self.pending += self.draft.tokens
        if self.draft.tokens:
            return
        if matcher.accepting() and not matcher.grammar.allowed_bytes(matcher.config):
            self.complete = self.done = True  # nothing may follow but EOS: no pass spent on choosing it
        elif len(self.tokens) >= self.options.max_tokens:
            self.done = True

    def _copied(self, draft: Draft, read: int, size: int) -> None:
        """Record that the next `size` output bytes, `read` bytes into a copied draft, are the source's (as far
        as the draft's source bytes go), joined to the run before where both sides continue it."""
        size = min(size, draft.source_bytes - read)
        if size <= 0:
            return
        out, src = len(self.output), draft.source + read
        if self.copies and (last := self.copies[-1])[0] + last[2] == out and last[1] + last[2] == src:
            self.copies[-1] = (last[0], last[1], last[2] + size)
        else:
            self.copies.append((out, src, size))

    def _ends_with(self, span: list[int]) -> bool:
        """True when the output is complete after `span` (walked, the matcher left where it is)."""
        if not span:
            return False
        grammar = self.matcher.grammar
        config = grammar.walk(self.matcher.config, b"".join(self.vocab.tokens[t] for t in span))
        return bool(config) and grammar.automaton.accepting(config) and not grammar.allowed_bytes(config)

    def _emit(self, ids: list[int]) -> None:
        for tid in ids:
            self.tokens.append(tid)
            self._feed(self.vocab.tokens[tid])

    def _feed(self, data: bytes) -> None:
        self.output += data
        if self.guard is not None:
            self.guard.feed(data)
        if self.json is not None:
            self.json.feed(data)
