"""Soundness: random models walking under the mask always emit JSON valid for the schema.

200 of 200 walks per schema, for ten schemas, over SmolLM2's tokenizer and two shared
families (byte-level BPE: Llama-3; SentencePiece with byte fallback: Llama-2)."""

from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ValidationError

from extractor import Refusal, compile_schema
from extractor.schema import with_refusal
from extractor.tokens import Vocabulary
from tests.models_zoo import ZOO
from tests.vocabs import shared_vocab
from tests.walks import closers, constrained_walk, free_walk, parses

WALKS = 200


def _smollm2() -> Vocabulary:
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from extractor.decode.model import ModelLoadError, embedded_path

    try:
        folder = embedded_path()
    except ModelLoadError as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    return Vocabulary.from_hf(AutoTokenizer.from_pretrained(folder))


VOCABS = {"smollm2": _smollm2, "llama3": lambda: shared_vocab("llama3"), "llama2": lambda: shared_vocab("llama2")}
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


KEYWORD_SCHEMAS = {
    "contains": {"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}, "minContains": 1,
                 "maxContains": 2, "maxItems": 6},
    "unique": {"type": "array", "items": {"enum": ["a", "b", "c", 1, 2.0]}, "uniqueItems": True},
    "unique-objects": {"type": "array", "uniqueItems": True, "items": {  # four values: walks must stop in time
        "type": "object", "properties": {"on": {"type": "boolean"}, "k": {"enum": ["x", 1.0]}},
        "required": ["on", "k"], "additionalProperties": False}},
    "unique-numbers": {"type": "array", "uniqueItems": True, "minItems": 3,
                       "items": {"type": "number", "minimum": -1, "maximum": 2, "multipleOf": 1}},
    "unique-short-strings": {"type": "array", "uniqueItems": True, "minItems": 2,
                             "items": {"type": "string", "maxLength": 1, "pattern": "^[ab]*$"}},
    "one-of-overlapping": {"oneOf": [{"type": "string", "pattern": "^a"}, {"enum": ["ab", "b", 1]}]},
    "counted-length": {"type": "object", "properties": {"s": {"type": "string", "minLength": 70, "maxLength": 90}},
                       "required": ["s"]},
    "counted-items": {"type": "array", "items": {"type": "boolean"}, "minItems": 66, "maxItems": 70},
    "not-numbers": {"type": "number", "minimum": 0, "maximum": 3, "not": {"enum": [1, 2]}},
    "non-integers": {"type": "array", "items": {"type": "number", "not": {"type": "integer"}}, "minItems": 1},
    "if-then-else": {"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
                     "required": ["kind"], "additionalProperties": False, "if": {"properties": {"kind": {"const": "a"}}},
                     "then": {"required": ["n"]}, "else": {"not": {"required": ["n"]}}},
    "patterns-and-dependencies": {"type": "object", "patternProperties": {"^x": {"type": "integer"}},
                                  "additionalProperties": False, "dependentRequired": {"x1": ["x2"]}},
}


@pytest.mark.parametrize("name", list(KEYWORD_SCHEMAS))
def test_random_walks_honour_the_newer_keywords(name: str) -> None:
    """Counted lengths and items, contains, uniqueItems, overlapping oneOf, complements: every walk valid."""
    schema = KEYWORD_SCHEMAS[name]
    v = vocab("llama3")
    grammar = compile_schema(schema, v)
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    rng = np.random.default_rng(sum(map(ord, name)))
    bonus = closers(v)
    for _ in range(40):
        walk = constrained_walk(grammar, rng, bonus)
        assert walk.complete, walk.text[:200]
        value = json.loads(walk.text, parse_float=Decimal)  # exact: 400-digit fractions stay non-integers
        assert not list(validator.iter_errors(value)), (walk.text[:200], [e.message for e in validator.iter_errors(value)])
