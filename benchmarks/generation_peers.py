"""Peer generators for the quality benchmark: llguidance and xgrammar, each driving `model.generate()` the way
a user of that library would, so outputs compare with ours on the same model, prompt, schema and budget.

Greedy decoding (`do_sample=False`), batch of one, one `LogitsProcessor` per call, every JSON option at the
peer's default:

- xgrammar (tested 0.2.9): its own `xgrammar.contrib.hf.LogitsProcessor` over `GrammarCompiler(TokenizerInfo
  .from_huggingface(tokenizer, vocab_size=..., stop_token_ids=...)).compile_json_schema(schema)`. Defaults:
  `any_whitespace=True` (separators "," and ":", any JSON whitespace around every token, unbounded),
  `strict_mode=True` (no properties beyond those listed, as if `additionalProperties: false`).
- llguidance (tested 1.9.1) ships no transformers `LogitsProcessor`; `LlguidanceProcessor` is the minimal one
  its documented Python API is built for: `llguidance.hf.from_tokenizer`, `LLMatcher(tokenizer,
  LLMatcher.grammar_from_json_schema(schema))` and the `llguidance.torch` bitmask helpers (allocate, fill,
  apply), consuming each sampled token. Defaults: `whitespace_flexible=True` (separators "," and ":", any JSON
  whitespace around every token, unbounded); additional properties allowed wherever the schema does not say
  `additionalProperties: false` (a Pydantic model says it only with `extra="forbid"`), so a model may invent
  keys; text the grammar forces (keys) is masked to its canonical tokenization only (`"emails"` as `em` `ails`,
  not the model's preferred `email` `s`), where xgrammar allows every tokenization.

On the embedded model both write pretty-printed JSON (`{\n  "name": "Dr. Kenji Watanabe",\n  "title": ...`):
the whitespace is the model's choice, which the flexible defaults leave it. Both keep the schema's property
order and enforce `format: date`, enums, `anyOf` (null, and the refusal branch) and minimum/maximum as our
schemas use them; neither needs a schema adapted.

The mask covers the model's logits width (its output layer's rows), which may differ from `len(tokenizer)`;
the grammar ends on the ids `generate()` stops on (the generation config's EOS, else the tokenizer's).
Compiled grammars are cached per (peer, tokenizer, schema) in-process; `compile_seconds` is the preparation
this call paid: on a peer's first use with a tokenizer its tokenizer setup (for llguidance also building its
torch.compile'd mask kernel), plus the schema's compile; 0.0 when both were cached.
"""

from __future__ import annotations

import importlib
import json
import time
from dataclasses import dataclass
from typing import Any, Callable

import torch
from transformers import LogitsProcessor, LogitsProcessorList


@dataclass
class PeerOutput:
    """One peer generation: the text, its tokens, whether the grammar completed, and what it cost."""

    text: str
    token_ids: list[int]
    complete: bool
    """The grammar accepted and a stop token ended generation (not cut by `max_tokens`)."""
    seconds: float
    """Wall time of `model.generate()`."""
    compile_seconds: float
    """Preparation this call paid (see the module docstring); 0.0 when cached."""


_CACHE: dict[tuple[Any, ...], tuple[Any, Any]] = {}


def _require(module: str) -> Any:
    """Import a peer package lazily, or fail with the install hint."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        package = module.split(".")[0]
        raise ImportError(f"peer {package!r} is not installed: pip install -e '.[bench]' (the `bench` extra; "
                          "see pyproject.toml for installing xgrammar next to a CPU torch)") from exc


def _cached(key: tuple[Any, ...], tokenizer: Any, build: Callable[[], Any]) -> tuple[Any, float]:
    """`build()` once per key and tokenizer, with the seconds this call spent on it (0.0 when cached)."""
    key = (*key, id(tokenizer))
    if key in _CACHE:
        return _CACHE[key][1], 0.0
    start = time.perf_counter()
    value = build()
    _CACHE[key] = (tokenizer, value)  # the tokenizer is held so its id is not reused by another
    return value, time.perf_counter() - start


def logits_width(model: Any) -> int:
    """Rows of the output layer: what the mask must cover, padded past `len(tokenizer)` on some models."""
    head = model.get_output_embeddings()
    return int(head.weight.shape[0]) if head is not None else int(model.config.vocab_size)


def stop_ids(model: Any, tokenizer: Any) -> list[int]:
    """The ids `generate()` stops on: the grammar must end on the same ones."""
    eos = model.generation_config.eos_token_id
    eos = tokenizer.eos_token_id if eos is None else eos
    return [eos] if isinstance(eos, int) else list(eos)


def _schema_key(schema: dict[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True)


def _generate(model: Any, prompt_ids: list[int], processor: Any, max_tokens: int) -> tuple[list[int], float]:
    """Greedy `generate()` under one logits processor: the new token ids and the wall time."""
    input_ids = torch.tensor([prompt_ids], device=model.device)
    start = time.perf_counter()
    with torch.inference_mode():
        out = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), do_sample=False,
                             logits_processor=LogitsProcessorList([processor]), max_new_tokens=max_tokens)
    return out[0, len(prompt_ids):].tolist(), time.perf_counter() - start


def _output(tokenizer: Any, ids: list[int], complete: bool, seconds: float, compile_seconds: float) -> PeerOutput:
    return PeerOutput(tokenizer.decode(ids, skip_special_tokens=True), ids, complete, seconds, compile_seconds)


class LlguidanceProcessor(LogitsProcessor):
    """llguidance ships no transformers processor: fill its bitmask per step, consuming each sampled token."""

    def __init__(self, matcher: Any, vocab_size: int) -> None:
        self.llg_torch = _require("llguidance.torch")
        self.matcher = matcher
        self.bitmask = self.llg_torch.allocate_token_bitmask(1, vocab_size)
        self.started = False

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        if input_ids.shape[0] != 1:
            raise ValueError("LlguidanceProcessor decodes a batch of one")
        if self.started and not self.matcher.consume_token(int(input_ids[0, -1])):
            raise RuntimeError(f"llguidance refused a masked token: {self.matcher.get_error()}")
        self.started = True
        self.llg_torch.fill_next_token_bitmask(self.matcher, self.bitmask)
        self.llg_torch.apply_token_bitmask_inplace(scores, self.bitmask.to(scores.device))
        return scores


def _llguidance_tokenizer(tokenizer: Any, width: int, stops: list[int], device: Any) -> Any:
    """The `LLTokenizer` (no narrower than the tokenizer: llguidance refuses that), and llguidance's
    torch.compile'd mask kernel built here (about 1.6 s on CPU) rather than inside the first timed generation."""
    llg_hf, llg_torch = _require("llguidance.hf"), _require("llguidance.torch")
    ll_tokenizer = llg_hf.from_tokenizer(tokenizer, n_vocab=max(width, len(tokenizer)), eos_token=stops)
    bitmask = llg_torch.allocate_token_bitmask(1, ll_tokenizer.vocab_size)
    llg_torch.apply_token_bitmask_inplace(torch.zeros(1, width, device=device), bitmask.to(device))
    return ll_tokenizer


def generate_llguidance(model: Any, tokenizer: Any, prompt_ids: list[int], schema: dict[str, Any],
                        max_tokens: int) -> PeerOutput:
    """llguidance's `LLMatcher` behind `LlguidanceProcessor`, its JSON options at their defaults."""
    llg = _require("llguidance")
    width, stops = logits_width(model), stop_ids(model, tokenizer)
    setup_key = ("llguidance", width, tuple(stops), str(model.device))
    ll_tokenizer, setup = _cached(setup_key, tokenizer,
                                  lambda: _llguidance_tokenizer(tokenizer, width, stops, model.device))

    def compile_schema() -> Any:
        matcher = llg.LLMatcher(ll_tokenizer, llg.LLMatcher.grammar_from_json_schema(schema), log_level=0)
        if matcher.is_error():
            raise ValueError(f"llguidance refused the schema: {matcher.get_error()}")
        return matcher

    template, compiled = _cached((*setup_key, _schema_key(schema)), tokenizer, compile_schema)
    processor = LlguidanceProcessor(template.deep_copy(), ll_tokenizer.vocab_size)
    ids, seconds = _generate(model, prompt_ids, processor, max_tokens)
    matcher = processor.matcher  # has consumed every token but the last, which generate() did not show it
    complete = bool(ids) and ids[-1] in stops and matcher.consume_token(ids[-1]) and matcher.is_stopped()
    return _output(tokenizer, ids, complete, seconds, setup + compiled)


def generate_xgrammar(model: Any, tokenizer: Any, prompt_ids: list[int], schema: dict[str, Any],
                      max_tokens: int) -> PeerOutput:
    """xgrammar's own `contrib.hf.LogitsProcessor` over `compile_json_schema` at its defaults."""
    xgr, xgr_hf = _require("xgrammar"), _require("xgrammar.contrib.hf")
    width, stops = logits_width(model), stop_ids(model, tokenizer)
    compiler, setup = _cached(("xgrammar", width, tuple(stops)), tokenizer, lambda: xgr.GrammarCompiler(
        xgr.TokenizerInfo.from_huggingface(tokenizer, vocab_size=width, stop_token_ids=stops)))
    grammar, compiled = _cached(("xgrammar", width, tuple(stops), _schema_key(schema)), tokenizer,
                                lambda: compiler.compile_json_schema(schema))
    processor = xgr_hf.LogitsProcessor(grammar)
    ids, seconds = _generate(model, prompt_ids, processor, max_tokens)
    matcher = processor.matchers[0]  # likewise: every token but the last
    complete = bool(ids) and ids[-1] in stops and matcher.accept_token(ids[-1]) and matcher.is_terminated()
    return _output(tokenizer, ids, complete, seconds, setup + compiled)


PEERS: dict[str, Callable[..., PeerOutput]] = {"llguidance": generate_llguidance, "xgrammar": generate_xgrammar}


def peer_generate(name: str, model: Any, tokenizer: Any, prompt_ids: list[int], schema: dict[str, Any],
                  max_tokens: int) -> PeerOutput:
    """Generate with the named peer (a key of `PEERS`)."""
    if name not in PEERS:
        raise ValueError(f"unknown peer {name!r}; one of {sorted(PEERS)}")
    return PEERS[name](model, tokenizer, prompt_ids, schema, max_tokens)
