"""Soundness: random models walking under the mask always emit JSON valid for the schema.

200 of 200 walks per schema, for ten schemas, over SmolLM2's tokenizer and two shared
families (byte-level BPE: Llama-3; SentencePiece with byte fallback: Llama-2)."""

from __future__ import annotations

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from extractor import Refusal, compile_schema
from extractor.schema import with_refusal
from extractor.tokens import Vocabulary
from tests.models_zoo import ZOO
from tests.walks import TOKENIZERS, closers, constrained_walk, free_walk, parses

WALKS = 200


def _smollm2() -> Vocabulary:
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from extractor.decode.model import ModelLoadError, _embedded

    try:
        folder = _embedded()
    except ModelLoadError as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    return Vocabulary.from_hf(AutoTokenizer.from_pretrained(folder))


def _shared(name: str) -> Vocabulary:
    path = TOKENIZERS / name / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is not beside this checkout)")
    return Vocabulary.from_tokenizer_file(path)


VOCABS = {"smollm2": _smollm2, "llama3": lambda: _shared("llama3"), "llama2": lambda: _shared("llama2")}
_LOADED: dict[str, Vocabulary] = {}


def vocab(name: str) -> Vocabulary:
    if name not in _LOADED:
        _LOADED[name] = VOCABS[name]()
    return _LOADED[name]


def _valid(model: type[BaseModel], validator: Draft202012Validator, text: bytes) -> str | None:
    """None when the JSON text passes both jsonschema and Pydantic (as the target or the refusal)."""
    value = parses(text)
    if value is None:
        return "not JSON"
    errors = [e.message for e in validator.iter_errors(value)]
    if errors:
        return f"jsonschema: {errors[:2]}"
    failures = []
    for candidate in (model, Refusal):
        try:
            candidate.model_validate_json(text)
            return None
        except ValidationError as exc:
            failures.append(str(exc)[:300])
    return f"pydantic: {failures}"


@pytest.mark.parametrize("tokenizer", list(VOCABS))
@pytest.mark.parametrize("model", ZOO, ids=lambda m: m.__name__)
def test_random_walks_are_valid(model: type[BaseModel], tokenizer: str) -> None:
    v = vocab(tokenizer)
    grammar = compile_schema(model, v, refusal=Refusal)
    validator = Draft202012Validator(with_refusal(model.model_json_schema(), Refusal.model_json_schema()))
    rng = np.random.default_rng(sum(map(ord, model.__name__ + tokenizer)))
    bonus = closers(v)
    failures, free_invalid, steps = [], 0, []
    for _ in range(WALKS):
        walk = constrained_walk(grammar, rng, bonus)
        steps.append(walk.steps)
        problem = "incomplete" if not walk.complete else _valid(model, validator, walk.text)
        if problem:
            failures.append((problem, walk.text[:300]))
        free = free_walk(v, rng, bonus, max(walk.steps, 1))
        if _valid(model, validator, free.text):
            free_invalid += 1
    print(f"\n{model.__name__}/{tokenizer}: constrained {WALKS - len(failures)}/{WALKS} valid, "
          f"mean {np.mean(steps):.0f} tokens; unconstrained invalid {free_invalid}/{WALKS}")
    assert not failures, failures[:3]
