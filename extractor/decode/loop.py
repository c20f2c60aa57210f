"""The generation loop: the prompt once, then one forward pass per free token on a kept KV cache.

A prefix every prompt of a batch begins with (the instruction and schema of one target) is fed once and its
cache copied to every row.

Each pass feeds a row's chosen token together with the span the grammar forces after it (jump-forward),
so forced tokens cost no pass of their own. Many rows decode as one batch: prompts left-padded, a
step's tokens left-padded per row (pads are masked out of attention and skipped by position ids), rows
leaving the batch (and the KV cache) as they finish.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TypeVar

import torch

from extractor.decode.copy import SourceDrafts
from extractor.decode.forced import SpanTokenizer
from extractor.decode.guards import NO_GUARDS, Guards
from extractor.decode.head import PassLogits
from extractor.decode.kept import Kept, kept_rows
from extractor.decode.model import LoadedModel
from extractor.decode.rows import DecodeOptions, MaskTensors, Row
from extractor.decode.sampling import SamplingOptions
from extractor.errors import Usage
from extractor.masks import Matcher
from extractor.tokens import Vocabulary


T = TypeVar("T")

PREFILL_CHUNK = 1024
"""Most prompt tokens one forward pass takes: a longer prompt (a window of a long document) is fed in parts, so
a pass's activations and attention mask stay bounded however long the context (a 7,500-token prompt of the
embedded model peaked 0.49 GB above the loaded model in parts of 2,048 tokens, 0.40 GB in parts of 1,024, and
took less time). Shorter prompts are one pass, as ever."""
RELEASE_AFTER = 1024
"""Prompt tokens of a batch after which the memory its passes freed is handed back to the system (see
`release_memory`); smaller batches leave too little to be worth the call."""
SHARED_PREFIX = 64
"""Fewest prompt tokens every row of a batch begins with (the instruction and the schema, for one target) that are
fed once, for one row, and their key-value cache copied to the others: the rows' prefill skips them."""


@dataclass
class Generation:
    """What one decoding run produced."""

    text: str
    data: bytes = b""
    token_ids: list[int] = field(default_factory=list)
    complete: bool = False
    usage: Usage = field(default_factory=Usage)
    forced_tokens: int = 0
    """Output tokens fed by jump-forward, without a sampling decision (included in token_ids)."""
    copied_tokens: int = 0
    """Output tokens drafted from the source text and kept by the model (included in token_ids)."""
    copies: tuple[tuple[int, int, int], ...] = ()
    """(output offset, source offset, length) in bytes of each run of output bytes copied from the source: where
    the decoder took a value from the text (what `extractor.trace` reports as copied)."""
    guard_steps: int = 0
    """Steps where a guard removed tokens from the mask."""


def generate(lm: LoadedModel, vocab: Vocabulary, prompt_ids: list[int], matcher: Matcher | None, *,
             max_tokens: int, sampling: SamplingOptions = SamplingOptions(), jump_forward: bool | str = True,
             guards: Guards = NO_GUARDS, merge: bool = False, source: str | bytes | None = None,
             source_drafts: int = 12) -> Generation:
    """Decode until the grammar is complete (or EOS when unconstrained), or max_tokens.

    `jump_forward`: True or "verified" (forced spans fed in one pass, each token kept only where the
    model would have picked it), "canonical" (the tokenizer's split, unverified), False (off).
    `source`: the text being extracted from; with verified jump-forward, up to `source_drafts` tokens
    copied from it are drafted while a value is written (verified too: the output does not change).
    """
    return drain(generating(lm, vocab, prompt_ids, matcher, max_tokens=max_tokens, sampling=sampling,
                            jump_forward=jump_forward, guards=guards, merge=merge, source=source,
                            source_drafts=source_drafts))


def generating(lm: LoadedModel, vocab: Vocabulary, prompt_ids: list[int], matcher: Matcher | None, *,
               max_tokens: int, sampling: SamplingOptions = SamplingOptions(), jump_forward: bool | str = True,
               guards: Guards = NO_GUARDS, merge: bool = False, source: str | bytes | None = None,
               source_drafts: int = 12) -> Generator[None, None, Generation]:
    """`generate` one step at a time: yields after each forward pass, returns the Generation; closing it
    stops the decoding there."""
    options = replace(jump_forward_options(jump_forward), max_tokens=max_tokens, sampling=sampling, guards=guards,
                      merge=merge, source_drafts=source_drafts)
    done = yield from _decoding(lm, vocab, [prompt_ids], [matcher], options, None,
                                None if source is None else [source], None)
    return done[0]


def generating_many(lm: LoadedModel, vocab: Vocabulary, prompts: Sequence[list[int]],
                    matchers: Sequence[Matcher | None], options: DecodeOptions, *,
                    guards: Sequence[Guards] | None = None,
                    sources: Sequence[str | bytes | None] | None = None) -> Generator[None, None, list[Generation]]:
    """`generate_many` one forward pass at a time: yields after each pass, returns every row's Generation."""
    return _decoding(lm, vocab, prompts, matchers, options, guards, sources, None)


def drain(steps: Generator[None, None, T]) -> T:
    """Run a stepping generator to its end and return what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def jump_forward_options(mode: bool | str) -> DecodeOptions:
    """DecodeOptions for a jump-forward mode: True / "verified", "canonical", or False."""
    if mode is True or mode == "verified":
        return DecodeOptions(max_tokens=0, jump_forward=True, verify=True)
    if mode == "canonical":
        return DecodeOptions(max_tokens=0, jump_forward=True, verify=False)
    if mode is False:
        return DecodeOptions(max_tokens=0, jump_forward=False)
    raise ValueError(f"jump_forward must be True, False, 'verified' or 'canonical', not {mode!r}")


def generate_many(lm: LoadedModel, vocab: Vocabulary, prompts: Sequence[list[int]],
                  matchers: Sequence[Matcher | None], options: DecodeOptions, *,
                  guards: Sequence[Guards] | None = None, sources: Sequence[str | bytes | None] | None = None,
                  on_done: Callable[[int], None] | None = None) -> list[Generation]:
    """Decode every prompt as one batch, each with its own matcher (and guards, else `options.guards`).

    `sources`: per row, the text extracted from (drafts copied from it; see `generate`).
    `on_done(i)` is called as row i finishes. Jump-forward works per row: a step feeds each row its
    chosen token and forced span, shorter rows padded on the left and masked out of attention.
    """
    return drain(_decoding(lm, vocab, prompts, matchers, options, guards, sources, on_done))


@torch.inference_mode()
def _decoding(lm: LoadedModel, vocab: Vocabulary, prompts: Sequence[list[int]], matchers: Sequence[Matcher | None],
              options: DecodeOptions, guards: Sequence[Guards] | None, sources: Sequence[str | bytes | None] | None,
              on_done: Callable[[int], None] | None) -> Generator[None, None, list[Generation]]:
    start = time.perf_counter()
    masks = _device_masks(lm.device)
    rows = _rows(lm, vocab, prompts, matchers, options, guards, sources)
    finished: dict[int, float] = {}
    batch = _Batch(lm, lm.device, pad=_pad_id(lm, vocab))
    if sum(map(len, prompts)) >= RELEASE_AFTER:
        map_large_blocks()
    inputs = [row.start() for row in rows]
    active = _leaving(list(range(len(rows))), rows, finished, start, on_done)
    batch = yield from _prefilling(lm, batch, rows, inputs, active)
    prefill = None
    while active:
        logits = batch.forward([inputs[i] for i in active], max(rows[i].positions for i in active))
        for i in active:
            rows[i].passes += 1
            rows[i].prepare(masks)  # on an asynchronous device this overlaps the forward pass
        if prefill is None:
            prefill = time.perf_counter() - start
        for slot, i in enumerate(active):
            rows[i].step(logits[slot], masks)
            inputs[i] = rows[i].pending
            if rows[i].discard and not rows[i].done:
                batch.discard(slot, rows[i].discard)
        keep = [slot for slot, i in enumerate(active) if not rows[i].done]
        _leaving(active, rows, finished, start, on_done)
        if len(keep) < len(active):
            batch.select(keep)
            active = [active[slot] for slot in keep]
        yield
    if sum(map(len, prompts)) >= RELEASE_AFTER:
        batch.cache = None
        release_memory()
    return _generations(rows, finished, start, prefill or 0.0)


def _leaving(active: list[int], rows: list[Row], finished: dict[int, float], start: float,
             on_done: Callable[[int], None] | None) -> list[int]:
    """The rows of `active` still decoding; each done one timed and reported (`on_done`)."""
    for i in active:
        if rows[i].done:
            finished[i] = time.perf_counter() - start
            if on_done is not None:
                on_done(i)
    return [i for i in active if not rows[i].done]


def _prefilling(lm: LoadedModel, batch: _Batch, rows: list[Row], inputs: list[list[int]],
                active: list[int]) -> Generator[None, None, _Batch]:
    """Feed the prompts up to the first real pass: the prefix every row shares once (its cache copied to each row),
    then prompts longer than `PREFILL_CHUNK` in parts; `inputs` keeps what is left to feed. The batch to go on
    with (a fresh one where the model's cache cannot be copied between rows)."""
    shared = _shared([inputs[i] for i in active], [rows[i].positions for i in active])
    if shared:  # the prefix every row begins with, fed once
        prefix, passes = inputs[active[0]][:shared], 0
        for at in range(0, shared, PREFILL_CHUNK):
            batch.forward([prefix[at:at + PREFILL_CHUNK]])
            passes += 1
            yield
        if batch.repeat(len(active)):
            for i in active:
                inputs[i], rows[i].passes = inputs[i][shared:], rows[i].passes + passes
        else:  # a cache that cannot be copied between rows: every row fed whole, as without a shared prefix
            batch = _Batch(lm, batch.device, pad=batch.pad)
    elif len(active) == 1:  # a row alone: the beginning of its prompt may be kept from an earlier reading
        i = active[0]
        kept, n = kept_rows(lm, "prompts").longest(inputs[i], len(inputs[i]) - rows[i].positions)
        if kept is not None and batch.seed(kept, n):
            inputs[i], rows[i].cached = inputs[i][n:], n
    while active and max(len(inputs[i]) - rows[i].positions for i in active) > PREFILL_CHUNK:  # fed in parts
        # every row's last tokens whose logits the first real pass reads (its prompt's last, drafts behind it)
        # are left for that pass
        parts = [max(0, min(PREFILL_CHUNK, len(inputs[i]) - rows[i].positions)) for i in active]
        batch.forward([inputs[i][:n] for i, n in zip(active, parts)])
        for i, n in zip(active, parts):
            inputs[i], rows[i].passes = inputs[i][n:], rows[i].passes + 1
        yield
    return batch


def _generations(rows: list[Row], finished: dict[int, float], start: float, prefill: float) -> list[Generation]:
    """What each row produced, with its usage."""
    out = []
    for i, row in enumerate(rows):
        usage = Usage(prompt_tokens=len(row.prompt), completion_tokens=len(row.tokens), forward_passes=row.passes,
                      seconds=finished.get(i, time.perf_counter() - start), prefill_seconds=prefill,
                      cached_tokens=row.cached)
        data = bytes(row.output)
        out.append(Generation(text=_text(data), data=data, token_ids=row.tokens, complete=row.complete,
                              usage=usage, forced_tokens=row.forced, copied_tokens=row.copied, copies=tuple(row.copies),
                              guard_steps=row.guard.fired if row.guard is not None else 0))
    return out


@lru_cache(maxsize=1)
def _trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL(None).malloc_trim  # glibc
    except (OSError, AttributeError):
        return None


MMAP_THRESHOLD = 4 << 20
"""Heap blocks of this many bytes or more are mapped apart, and unmapped when freed (`map_large_blocks`): a layer's
keys or values past about 5,000 tokens of the embedded model. A lower threshold would map the cache of every
decoding step of a short prompt apart too, each step then paying for fresh pages."""


@lru_cache(maxsize=1)
def map_large_blocks() -> bool:
    """Have glibc map every block of `MMAP_THRESHOLD` bytes or more apart and give it back when freed (once per
    process, where the variable MALLOC_MMAP_THRESHOLD_ does not set it already). By default glibc raises that
    threshold each time a large block is freed, so a long prompt's key-value cache, grown a part at a time, ends
    up in the heap, and each larger copy leaves the smaller ones as holes no later block fits, the peak climbing
    window after window of a long document. True where the setting was made."""
    if "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # glibc
    except (OSError, AttributeError):
        return False
    return bool(mallopt(-3, MMAP_THRESHOLD))  # M_MMAP_THRESHOLD


def release_memory() -> None:
    """Hand the pages a batch's passes freed back to the system: glibc keeps them otherwise, and a long document's
    windows, one after another, would each leave their largest passes' memory held (0.4 GB a window of the
    embedded model)."""
    trim = _trim()
    if trim is not None:
        trim(0)


def _shared(prompts: list[list[int]], keep: list[int] | None = None) -> int:
    """Tokens every prompt begins with, where there are two prompts or more and at least `SHARED_PREFIX` of them;
    else 0. Each row keeps its last `keep` tokens (1 by default) of its own: the first real pass reads their
    logits (the prompt's last token, and the drafts fed behind it)."""
    if len(prompts) < 2:
        return 0
    first = prompts[0]
    n = min(len(p) - k for p, k in zip(prompts, keep or [1] * len(prompts)))
    for p in prompts[1:]:
        n = next((k for k in range(n) if p[k] != first[k]), n)
    return n if n >= SHARED_PREFIX else 0


def _rows(lm: LoadedModel, vocab: Vocabulary, prompts: Sequence[list[int]], matchers: Sequence[Matcher | None],
          options: DecodeOptions, guards: Sequence[Guards] | None,
          sources: Sequence[str | bytes | None] | None) -> list[Row]:
    """One Row per prompt: its matcher, guards, sampler seed, span tokenizer and source drafts."""
    spans: dict[int, SpanTokenizer] = {}
    rows = []
    for n, (prompt, matcher) in enumerate(zip(prompts, matchers)):
        span = copy = generator = None
        if matcher is not None and options.jump_forward:
            key = id(matcher.grammar)
            if key not in spans:
                spans[key] = SpanTokenizer(lm.tokenizer, matcher.grammar)
            span = spans[key]
        if options.sampling.seed is not None:
            generator = torch.Generator(device=lm.device).manual_seed(options.sampling.seed)
        source = sources[n] if sources is not None else None
        data = (source.encode() if isinstance(source, str) else source) or b""
        if span is not None and data and options.source_drafts > 0:
            copy = SourceDrafts(data, span, max_tokens=options.source_drafts)
        rows.append(Row(list(prompt), matcher, vocab, options, span, generator,
                        guards=guards[n] if guards is not None else options.guards, copy=copy, source=data,
                        # learned splits only steer greedy drafts: with sampling, drafts decide which random
                        # draws are made, and a seed must replay the same run
                        splits=lm.splits if options.verify and options.sampling.temperature == 0 else None))
    return rows


class _Batch:
    """The model's side of the batch: KV cache, attention mask and positions for rows of unequal length."""

    def __init__(self, lm: LoadedModel, device: torch.device, pad: int) -> None:
        self.lm, self.device, self.pad = lm, device, pad
        self.cache: object = None
        self.attention: torch.Tensor | None = None  # [rows, cached length]; None while nothing was padded
        self.lengths: list[int] = []  # real (unpadded) tokens per row so far

    def forward(self, ids: list[list[int]], keep: int = 1) -> list[PassLogits]:
        """Extend each row by its ids (one pass); per row, the logits of its last `keep` positions."""
        width = max(len(x) for x in ids)
        padded = any(len(x) != width for x in ids)
        if not self.lengths:
            self.lengths = [0] * len(ids)
        rows = torch.tensor([[self.pad] * (width - len(x)) + x for x in ids], device=self.device)
        if self.cache is None:  # grown in place, not copied whole at every pass (None: the model's own)
            self.cache = _growing_cache(self.lm.model)
        kwargs = {"input_ids": rows, "use_cache": True, self.lm.cache_kwarg: self.cache}
        # CPU only: on an accelerator the whole output layer is cheap, and a sparse one needs a host sync
        head = self.lm.head if self.device.type == "cpu" else None
        if self.lm.logits_kwarg and head is None:
            kwargs[self.lm.logits_kwarg] = keep
        if padded or self.attention is not None:
            new = torch.tensor([[0] * (width - len(x)) + [1] * len(x) for x in ids], device=self.device)
            if self.attention is None:
                past = max(self.lengths)
                self.attention = torch.ones((len(ids), past), dtype=torch.long, device=self.device)
            self.attention = torch.cat([self.attention, new], dim=1)
            kwargs["attention_mask"] = self.attention
            kwargs["position_ids"] = torch.tensor(
                [[0] * (width - len(x)) + list(range(n, n + len(x))) for x, n in zip(ids, self.lengths)],
                device=self.device)
        out = (self.lm.model.base_model if head is not None else self.lm.model)(**kwargs)
        self.cache = getattr(out, self.lm.cache_kwarg)
        self.lengths = [n + len(x) for x, n in zip(ids, self.lengths)]
        states = out.last_hidden_state if head is not None else out.logits
        return [PassLogits(row, head) for row in states[:, -keep:]]

    def seed(self, kept: Kept, n: int) -> bool:
        """Begin the one row with the first `n` positions of a kept reading (copied: the kept one stays as it was);
        False where this model's cache is not one this loop grows (nothing changed: the row is fed whole)."""
        cache = _growing_cache(self.lm.model)
        if cache is None or self.lengths:
            return False
        for layer, (keys, values) in enumerate(kept[0]):
            cache.update(keys[:, :, :n], values[:, :, :n], layer)  # type: ignore[attr-defined]
        self.cache, self.lengths = cache, [n]
        return True

    def repeat(self, n: int) -> bool:
        """The one row fed so far (a prefix every row shares) copied to `n` rows; False where the model's cache
        cannot be copied (nothing changed: the caller starts again without it)."""
        copy = getattr(self.cache, "batch_repeat_interleave", None)
        if copy is None or len(self.lengths) != 1 or self.attention is not None:
            return False
        copy(n)
        self.lengths = self.lengths * n
        return True

    def discard(self, slot: int, n: int) -> None:
        """Drop the last `n` tokens of one row: cropped alone, masked out of attention in a batch."""
        if self.attention is None and len(self.lengths) == 1 and getattr(self.cache, "is_croppable", True):
            self.cache.crop(-n)  # type: ignore[union-attr]  (-n: remove n, in transformers 4 and 5)
        else:
            if self.attention is None:
                self.attention = torch.ones((len(self.lengths), max(self.lengths)), dtype=torch.long,
                                            device=self.device)
            self.attention[slot, self.attention.shape[1] - n:] = 0
        self.lengths[slot] -= n

    def select(self, keep: list[int]) -> None:
        """Drop finished rows from the cache, the attention mask and the positions."""
        if not keep:
            self.cache = None
            return
        index = torch.tensor(keep, device=self.device)
        self.cache.batch_select_indices(index)  # type: ignore[union-attr]
        if self.attention is not None:
            self.attention = self.attention[index]
        self.lengths = [self.lengths[i] for i in keep]


_MASKS: dict[str, MaskTensors] = {}


def _growing_cache(model: object) -> object:
    """`cache.growing_cache`, imported once a model runs (transformers' cache classes); None where this transformers
    has no layered caches (the model then makes its own)."""
    try:
        from extractor.decode import cache
    except ImportError:
        return None
    return cache.growing_cache(model)


def _device_masks(device: torch.device) -> MaskTensors:
    """One set of device mask caches per device, kept across generations."""
    key = str(device)
    if key not in _MASKS:
        _MASKS[key] = MaskTensors(device)
    return _MASKS[key]


def _pad_id(lm: LoadedModel, vocab: Vocabulary) -> int:
    """Left padding's token (masked out of attention, so any id will do): the tokenizer's pad, else an end of
    sequence, else 0 — a vocabulary with EOS taken out (free generation to a set length) has none of its own."""
    pad = getattr(lm.tokenizer, "pad_token_id", None)
    if pad is None:
        pad = getattr(lm.tokenizer, "eos_token_id", None)
    return int(pad) if pad is not None else min(vocab.eos_ids, default=0)


def _text(data: bytes) -> str:
    """The output as text: a character cut in half at the end is left out, not replaced."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.end == len(data) and exc.reason == "unexpected end of data":
            return data[: exc.start].decode("utf-8", errors="replace")
        return data.decode("utf-8", errors="replace")
