"""The structured-output backend vLLM's engine calls: one `ExtractorGrammar` per request, masks written into
vLLM's shared int32 bitmask, tokens accepted, validated and rolled back for speculative decoding."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from vllm.v1.structured_output.backend_types import (
    StructuredOutputBackend, StructuredOutputGrammar, StructuredOutputOptions,
)

from extractor.integrations.vllm.spec import CACHE_BYTES, GrammarCache
from extractor.decode.guards import Guard, GuardMark, Guards
from extractor.masks import CompiledGrammar, Matcher
from extractor.masks.bits import clear_bits, set_bits, write_rows
from extractor.masks.compiler import warm_trie
from extractor.masks.states import NOT_ALLOWED
from extractor.tokens import Vocabulary

ENV = "EXTRACTOR_VLLM"
"""Set to 1 in the environment of the vLLM process (its workers inherit it) to compile every structured
request with extractor."""

NAME = "extractor"
"""The backend's name in a request's `structured_outputs._backend`."""

TAG_VOCABULARIES = 4
"""Vocabularies kept for structural tags that write the model's special tokens, one per set of them written (a
server's tool-call format is one set), each with its own token tables, grammars and a quarter of the cache's bytes."""


@dataclass
class ExtractorGrammar(StructuredOutputGrammar):
    """One request's place in its grammar. Stop tokens other than the tokenizer's EOS (a model's second end
    token, a user's `stop_token_ids`) are allowed exactly where EOS is: where the output is complete. With
    `guards`, masks are narrowed as `extract` narrows them (loops stop; see `Guards`), and with a `budget` (the
    request's `max_tokens`, set by the plugin) and `Guards.wrap_up` the output ends complete within it."""

    grammar: CompiledGrammar
    stops: np.ndarray
    guards: Guards | None = None
    budget: int | None = None
    """Output tokens the request may have (None: unknown, nothing wraps up)."""
    drafts: int = 0
    """Speculative tokens per step (vLLM's `num_speculative_tokens`): with drafts, the guard's place is marked
    before each accept, so that the rollback after the drafts' masks restores it instead of feeding the whole
    output again."""
    matcher: Matcher = field(init=False)
    text_stops: list[int] = field(init=False)
    guard: Guard | None = field(default=None, init=False)
    marks: dict[int, GuardMark] = field(default_factory=dict, init=False)
    """The guard's place at these output lengths (bytes), before the last accepts."""
    stop_set: frozenset[int] = field(init=False)
    stopped: bool = field(default=False, init=False)
    """Ended by a stop token that is not the grammar's EOS (the matcher itself never saw it)."""

    def __post_init__(self) -> None:
        self.text_stops = [int(t) for t in self.stops if self.grammar.vocab.tokens[t]]
        """Stop tokens that are also text the grammar may allow mid-output: cleared there."""
        self.stop_set = frozenset(int(t) for t in self.stops)
        self.reset()

    def accept_tokens(self, request_id: str, tokens: list[int]) -> bool:
        matcher, guard = self.matcher, self.guard
        if guard is not None and self.drafts and tokens:
            size = len(matcher.output)
            if size not in self.marks:  # (one kept from before a rollback to here still holds)
                self.marks[size] = guard.mark()
                if len(self.marks) > self.drafts + 2:
                    del self.marks[min(self.marks)]
        stops, spelled = self.stop_set, self.grammar.vocab.tokens
        for token in tokens:
            if self.stopped or matcher.finished or token in stops:
                if not self._take(token):  # a stop token where the output may end (the guard sees nothing)
                    return False
                continue
            try:
                matcher.advance(token)
            except ValueError:
                return False
            if guard is not None and not matcher.finished:
                guard.feed(spelled[token])
        return True

    def validate_tokens(self, tokens: list[int]) -> list[int]:
        matcher = self.matcher
        if matcher.distinct is not None or self.is_terminated():
            taken = 0
            for token in tokens:  # vLLM pads speculative drafts with -1
                if token < 0 or not self._take(token):
                    break
                taken += 1
            self._undo(taken)  # the guard never saw them
            return list(tokens[:taken])
        states, state, taken = matcher.states, matcher.state, 0  # walked by id, the matcher left alone
        ends = self.grammar.vocab.eos_ids
        for token in tokens:
            if token < 0:
                break
            if token in self.stop_set or token in ends:  # ends the output where it may end; nothing after it
                taken += states.accepting(state)
                break
            state = states.step(state, token)
            if state == NOT_ALLOWED:
                break
            taken += 1
        return list(tokens[:taken])

    def rollback(self, num_tokens: int) -> None:
        if num_tokens > 0:
            self._undo(num_tokens)
            if self.guard is not None:
                size = len(self.matcher.output)
                for at in [at for at in self.marks if at > size]:
                    del self.marks[at]
                mark = self.marks.get(size)
                if mark is not None:  # back to where a mark was taken
                    self.guard.restore(mark)
                if mark is None or self.guard.json.data != self.matcher.output:  # rebuilt from what is left
                    self.guard, self.marks = Guard(self.guards, self.grammar), {}  # type: ignore[arg-type]
                    self.guard.feed(bytes(self.matcher.output))

    def fill_bitmask(self, bitmask: torch.Tensor, idx: int) -> None:
        words, rows = self.row(), _rows(bitmask)
        if rows is None:
            bitmask[idx, :len(words)].copy_(torch.from_numpy(words))
            bitmask[idx, len(words):] = 0
        else:
            write_rows(rows, [(idx, words)])

    def row(self) -> np.ndarray:
        """This step's mask packed as vLLM reads it (`fill_bitmask` writes it; `fill_batch` writes many at once):
        a kept array, never mutate it."""
        matcher, guard = self.matcher, self.guard
        ended = self.stopped or matcher.finished
        plan = None
        if guard is not None and not ended:
            left = None if self.budget is None else self.budget - self.generated
            plan = guard.plan(matcher.config, left)
        words = matcher.bitmask()  # most steps: the configuration's packed row as it stands
        if plan is not None:  # narrowed on the packed row (no bool mask made where the grammar needs none)
            words = guard.apply(plan, words, matcher.config)  # type: ignore[union-attr]
        if not self.stop_set:
            return words
        complete = not ended and matcher.accepting()
        change = self.stops if complete else self.text_stops
        if len(change):  # stops where the output is complete; never a stop that is also text
            words = words.copy()
            (set_bits if complete else clear_bits)(words, change)
        return words

    @property
    def generated(self) -> int:
        """Output tokens accepted so far: the matcher's steps, and a stop token it never saw."""
        return self.matcher.steps + self.stopped

    def is_terminated(self) -> bool:
        return self.stopped or self.matcher.finished

    def reset(self) -> None:
        self.matcher, self.stopped = self.grammar.matcher(), False
        self.guard = None if self.guards is None else Guard(self.guards, self.grammar)
        self.marks = {}

    def _take(self, token: int) -> bool:
        """Advance the matcher by one token (a stop token where the output may end); False where not allowed."""
        if self.is_terminated():
            return False
        if token in self.stop_set:
            if not self.matcher.accepting():
                return False
            self.stopped = True
            return True
        try:
            self.matcher.advance(token)
        except ValueError:
            return False
        return True

    def _undo(self, steps: int) -> None:
        if steps and self.stopped:  # the stop token was never fed to the matcher
            self.stopped, steps = False, steps - 1
        self.matcher.rollback(steps)


_VIEW: tuple[torch.Tensor | None, np.ndarray | None] = (None, None)


def _rows(bitmask: torch.Tensor) -> np.ndarray | None:
    """The bitmask as a NumPy array sharing its memory (None off the CPU); vLLM fills one tensor for every step,
    so the view made last is kept."""
    global _VIEW
    tensor, view = _VIEW
    if tensor is not bitmask:
        view = bitmask.numpy() if bitmask.device.type == "cpu" else None
        _VIEW = (bitmask, view)
    return view


@dataclass
class ExtractorBackend(StructuredOutputBackend):
    """Compiles each request's JSON Schema for the model's vocabulary (padded to vLLM's vocabulary size)."""

    def __post_init__(self) -> None:
        self.vocab = Vocabulary.from_hf(self.tokenizer, size=self.vocab_size)
        warm_trie(self.vocab)
        self.grammars = GrammarCache(self.vocab)
        self.specials = specials(self.tokenizer, self.vocab)
        self.tag_grammars: OrderedDict[tuple[int, ...], GrammarCache] = OrderedDict()
        self.lock = threading.Lock()  # vLLM compiles from a thread pool

    def compile_grammar(self, request_type: StructuredOutputOptions, grammar_spec: str,
                        stop_token_ids: set[int] | None = None) -> StructuredOutputGrammar:
        cache = self.tag_cache(grammar_spec) if request_type.name == "STRUCTURAL_TAG" else self.grammars
        grammar, spec = cache.get(request_type.name, grammar_spec)
        extra = sorted(t for t in (stop_token_ids or ()) if 0 <= t < self.vocab_size and t not in self.vocab.eos_ids)
        guards = spec.served_guards()
        spec_config = getattr(self.vllm_config, "speculative_config", None)
        drafts = getattr(spec_config, "num_speculative_tokens", None) or 0
        return ExtractorGrammar(grammar, np.array(extra, dtype=np.int64), guards, drafts=drafts)

    def tag_cache(self, text: str) -> GrammarCache:
        """The grammars of a structural tag: where the tag writes special tokens of the model (a tool-call format
        built around them, as Kimi's and DeepSeek's are), a vocabulary in which those tokens are their text, so the
        model writes them as it was trained to; elsewhere special tokens are never offered."""
        try:
            written = json.dumps(json.loads(text), ensure_ascii=False)
        except (ValueError, RecursionError):
            return self.grammars  # refused with a reason when compiled
        ids = tuple(sorted(i for i, content in self.specials.items() if content in written))
        if not ids:
            return self.grammars
        with self.lock:
            cache = self.tag_grammars.get(ids)
            if cache is None:
                tokens = list(self.vocab.tokens)
                for i in ids:
                    tokens[i] = self.specials[i].encode()
                cache = GrammarCache(Vocabulary(tuple(tokens), self.vocab.eos_ids), max_bytes=CACHE_BYTES // 4)
                self.tag_grammars[ids] = cache
                while len(self.tag_grammars) > TAG_VOCABULARIES:
                    self.tag_grammars.popitem(last=False)
            self.tag_grammars.move_to_end(ids)
            return cache

    def allocate_token_bitmask(self, max_num_seqs: int) -> torch.Tensor:
        return torch.full((max_num_seqs, (self.vocab_size + 31) // 32), -1, dtype=torch.int32)

    def destroy(self) -> None:
        self.grammars.items.clear()
        self.tag_grammars.clear()


def specials(tokenizer: Any, vocab: Vocabulary) -> dict[int, str]:
    """The model's special tokens that are not its ends, by id, with their text (`Vocabulary` offers none)."""
    added = getattr(tokenizer, "added_tokens_decoder", None) or {}
    return {i: t.content for i, t in added.items() if getattr(t, "special", False) and getattr(t, "content", "")
            and 0 <= i < vocab.size and not vocab.tokens[i] and i not in vocab.eos_ids}
