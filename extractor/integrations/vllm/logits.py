"""The logits-processor route: no plugin, no environment variable, for deployments that cannot install one.
Pass `LLM(logits_processors=[ExtractorLogitsProcessor])` and, per request,
`SamplingParams(extra_args={"extractor": {"schema": {...}}})`. vLLM does not allow custom logits processors
with speculative decoding; the backend (backend.py) has no such limit and runs beside vLLM's own."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

from extractor.decode.guards import Guard
from extractor.integrations.vllm.spec import GrammarCache, Spec
from extractor.masks import Matcher
from extractor.tokens import Vocabulary

ARG = "extractor"
"""The key of `SamplingParams.extra_args` holding {"schema": a JSON Schema (dict or JSON text)}."""


@dataclass
class _Row:
    matcher: Matcher
    output: list[int]
    """vLLM's live list of the request's output tokens."""
    guard: Guard | None
    budget: int | None
    """The request's `max_tokens`: the guard wraps the output up within it."""
    seen: int = field(default=0)


class ExtractorLogitsProcessor(LogitsProcessor):
    """Masks the logits of each request that carries a schema in `extra_args["extractor"]`."""

    @classmethod
    def validate_params(cls, sampling_params: Any) -> None:
        spec = _spec(sampling_params)
        if spec is not None:
            spec.check()

    def __init__(self, vllm_config: Any, device: torch.device, is_pin_memory: bool) -> None:
        from vllm.tokenizers import cached_tokenizer_from_config

        tokenizer = cached_tokenizer_from_config(model_config=vllm_config.model_config)
        self.vocab = Vocabulary.from_hf(tokenizer, size=vllm_config.model_config.get_vocab_size())
        self.grammars = GrammarCache(self.vocab)
        self.rows: dict[int, _Row] = {}

    def is_argmax_invariant(self) -> bool:
        return False

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if batch_update is None:
            return
        for index in batch_update.removed:
            self.rows.pop(index, None)
        for index, params, _, output in batch_update.added:
            text = _text(params)
            if text is None:
                self.rows.pop(index, None)
            else:
                grammar, spec = self.grammars.get("JSON", text)
                guard = None if (guards := spec.served_guards()) is None else Guard(guards, grammar)
                self.rows[index] = _Row(grammar.matcher(), output, guard, getattr(params, "max_tokens", None))
        for a, b, how in batch_update.moved:
            first, second = self.rows.pop(a, None), self.rows.pop(b, None)
            if first is not None:
                self.rows[b] = first
            if how == MoveDirectionality.SWAP and second is not None:
                self.rows[a] = second

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        for index, row in self.rows.items():
            for token in row.output[row.seen:]:
                if not row.matcher.finished:
                    row.matcher.advance(token)
                    if row.guard is not None:
                        row.guard.feed(self.vocab.tokens[token])
            row.seen = len(row.output)
            mask = row.matcher.mask()
            if row.guard is not None and not row.matcher.finished:
                left = None if row.budget is None else row.budget - len(row.output)
                mask = row.guard.restrict(mask, row.matcher.config, left)
            allowed = torch.from_numpy(mask[:logits.shape[1]]).to(logits.device)
            logits[index].masked_fill_(~allowed, float("-inf"))
        return logits


def _text(params: Any) -> str | None:
    """The request's schema as JSON text (key order kept), or None for a request without one."""
    args = getattr(params, "extra_args", None) or {}
    if ARG not in args:
        return None
    entry = args[ARG]
    if not isinstance(entry, dict) or "schema" not in entry:
        raise ValueError(f'extra_args["{ARG}"] takes {{"schema": <JSON Schema>}}, not {entry!r}')
    schema = entry["schema"]
    return schema if isinstance(schema, str) else json.dumps(schema)


def _spec(params: Any) -> Spec | None:
    text = _text(params)
    return None if text is None else Spec.parse("JSON", text)
