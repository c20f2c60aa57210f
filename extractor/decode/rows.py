"""One document being decoded: its matcher, guards, sampler state, output, and the tokens to feed next."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np
import torch

from extractor.decode.forced import SpanTokenizer, forced_tokens
from extractor.decode.guards import NO_GUARDS, Guard, Guards
from extractor.decode.sampling import SamplingOptions, choose, masked, penalize
from extractor.masks import Matcher
from extractor.masks.device import DeviceMasks as PackedMasks
from extractor.masks.device import apply_token_bitmask
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
    merge: bool = False
    """Re-tokenize a forced span together with the free token before it where the tokenizer merges them."""
    guards: Guards = NO_GUARDS
    """Mask rules against small models' loops (see guards.py); off unless asked for."""


class DeviceMasks:
    """Masks as tensors on the model's device, without a full-vocabulary host copy per step.

    On CPU a bool mask is wrapped, not copied. On an accelerator each grammar's masks are kept packed
    (32 tokens per int32 word) per configuration in a bounded LRU (`masks.device.DeviceMasks`): a mask
    seen before costs no transfer, a new one 1/32 of the vocabulary; they are unpacked on the device.
    """

    def __init__(self, device: torch.device) -> None:
        self.device = torch.device(device)
        self._packed: weakref.WeakKeyDictionary[CompiledGrammar, PackedMasks] = weakref.WeakKeyDictionary()

    def get(self, matcher: Matcher, host: np.ndarray, cached: bool) -> torch.Tensor:
        """The tensor for `host` (the matcher's mask, or a guard's narrowing of it when not `cached`)."""
        if self.device.type == "cpu":
            return torch.from_numpy(host)
        if not cached:
            return torch.from_numpy(pack(host)).to(self.device, non_blocking=True)
        grammar = matcher.grammar
        packed = self._packed.get(grammar)
        if packed is None:
            packed = self._packed[grammar] = PackedMasks(grammar, self.device)
        return packed.get(matcher.config)


def apply_mask(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Logits with forbidden tokens at -inf: `allowed` is bool per token or packed int32 words."""
    if allowed.dtype == torch.int32:
        return apply_token_bitmask(logits.clone(), allowed)
    width = logits.shape[-1]
    if allowed.shape[-1] != width:  # a vocabulary narrower than the logits: the rest is never allowed
        allowed = torch.nn.functional.pad(allowed[:width], (0, max(width - allowed.shape[-1], 0)))
    return masked(logits, allowed)


@dataclass
class Row:
    """The decoding state of one document; `step(logits)` picks a token and sets what to feed next."""

    prompt: list[int]
    matcher: Matcher | None
    vocab: Vocabulary
    options: DecodeOptions
    spans: SpanTokenizer | None = None
    generator: torch.Generator | None = None
    guards: Guards = NO_GUARDS
    tokens: list[int] = field(default_factory=list)
    output: bytearray = field(default_factory=bytearray)
    pending: list[int] = field(default_factory=list)
    free: list[int] = field(default_factory=list)
    forced: int = 0
    passes: int = 0
    complete: bool = False
    done: bool = False
    guard: Guard | None = None
    _allowed: torch.Tensor | None = None

    def __post_init__(self) -> None:
        if self.matcher is not None and self.guards.active:
            self.guard = Guard(self.guards, self.matcher.grammar)

    def start(self) -> list[int]:
        """The ids of the first forward pass: the prompt and any span forced from the start."""
        self._jump(None, None)
        head, self.pending = self.pending, []
        return self.prompt + head

    def prepare(self, masks: DeviceMasks) -> None:
        """Compute this step's mask (called while the forward pass runs on an asynchronous device)."""
        if self.matcher is None:
            self._allowed = None
            return
        host = self.matcher.mask()
        restricted = self.guard.restrict(host) if self.guard is not None else host
        self._allowed = masks.get(self.matcher, restricted, restricted is host)

    def step(self, logits: torch.Tensor, masks: DeviceMasks) -> None:
        """Choose the next token from this row's last-position logits and queue what to feed next."""
        if self._allowed is None and self.matcher is not None:
            self.prepare(masks)
        sampling = self.options.sampling
        if self.free and sampling.repetition_penalty != 1.0:
            logits = penalize(logits, torch.tensor(sorted(set(self.free)), device=logits.device),
                              sampling.repetition_penalty)
        if self._allowed is not None:
            logits = apply_mask(logits, self._allowed)
        self._allowed = None
        token = choose(logits, sampling, self.generator)
        if token in self.vocab.eos_ids:
            if self.matcher is not None:
                self.matcher.advance(token)
            self.complete = self.done = True
            return
        before = self.matcher.config if self.matcher is not None else None
        if self.matcher is not None:
            self.matcher.advance(token)
        self._emit([token])
        self.free.append(token)
        self._jump(token, before)

    def _jump(self, token: int | None, before: object) -> None:
        """Queue `token` (if any) and the forced span after it; finish when nothing but EOS may follow."""
        self.pending = [] if token is None else [token]
        matcher = self.matcher
        if matcher is None:
            self.done = len(self.tokens) >= self.options.max_tokens
            return
        room = self.options.max_tokens - len(self.tokens)
        if self.options.jump_forward and self.spans is not None and room > 0:
            prev = token if self.options.merge else None
            span, merged = forced_tokens(matcher, self.spans, previous=prev, before=before)
            if merged:  # the span's first token replaces `token`: same bytes so far, the tokenizer's own split
                first, span = span[0], span[1:]
                extra = self.vocab.tokens[first][len(self.vocab.tokens[token]):]
                matcher.advance_bytes(extra)
                self.tokens[-1] = self.pending[0] = first
                self._feed(extra)
            span = span[:room]
            for tid in span:
                matcher.advance(tid)
            self._emit(span)
            self.forced += len(span)
            self.pending += span
        if matcher.accepting() and not matcher.grammar.allowed_bytes(matcher.config):
            self.complete = self.done = True  # nothing may follow but EOS: no pass spent on choosing it
        elif len(self.tokens) >= self.options.max_tokens:
            self.done = True

    def _emit(self, ids: list[int]) -> None:
        for tid in ids:
            self.tokens.append(tid)
            self._feed(self.vocab.tokens[tid])

    def _feed(self, data: bytes) -> None:
        self.output += data
        if self.guard is not None:
            self.guard.feed(data)
