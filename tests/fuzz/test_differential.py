"""Differential fuzzing: the compiler's automata against jsonschema on random schemas and instances, and
random token walks under the mask on real tokenizers. The generators and the oracle (with the documented
policies that excuse a reject) are in tests/fuzz/strategies.py; benchmarks/fuzz.py runs the same for minutes.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from extractor import compile_schema
from extractor.errors import ExtractorError, UnsupportedSchemaError
from tests.fuzz.strategies import COMPILE, WRONG, Oracle, Reference, Verdict, instances, read_exact, schemas
from tests.vocabs import shared_vocab
from tests.data import missing, tokenizer_file
from tests.walks import closers, constrained_walk

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def _shown(schema: dict[str, Any], verdict: Verdict) -> str:
    return (f"{verdict.kind}: schema {json.dumps(schema, ensure_ascii=False)} instance "
            f"{json.dumps(verdict.instance, ensure_ascii=False)} engine {verdict.engine} jsonschema {verdict.reference}")


@settings(derandomize=True, max_examples=150, deadline=None, database=None, suppress_health_check=QUIET)
@given(schema=schemas(), data=st.data())
def test_engine_agrees_with_jsonschema(schema: dict[str, Any], data: st.DataObject) -> None:
    """No wrong accept ever; no reject of a valid value that no documented policy explains."""
    values = data.draw(instances(schema))  # first, so that what is drawn never depends on the engine
    try:
        oracle = Oracle(schema)
    except ExtractorError:
        return  # a documented refusal (Unsatisfiable is not one: the oracle checks it against instances)
    for instance in values:
        verdict = oracle.verdict(instance)
        assert verdict.kind not in WRONG, _shown(schema, verdict)


# (schema, instance, what went wrong): disagreements the fuzzer found, shrunk, kept once fixed
REGRESSIONS = [
    ({"type": "object", "required": ["x1"], "patternProperties": {"^x": {"type": "null"}}}, {"x1": 0},
     "wrong accept: a required key missing from `properties` was valued by additionalProperties alone"),
    ({"type": "object", "required": ["x1"], "patternProperties": {"^x": {"type": "null"}},
      "additionalProperties": False}, {"x1": None},
     "UnsatisfiableSchemaError: the required key was valued by additionalProperties: false"),
    ({"type": "object", "required": ["x1"], "additionalProperties": {"type": "array"},
      "patternProperties": {"[0-9]$": {}}}, {"x1": False},
     "wrong reject: additionalProperties applied to a required key a pattern matches"),
    ({"properties": {"id": {"if": {"type": "number"}, "else": {"format": "idn-email"}}}}, {"id": "£x!@:7"},
     "wrong reject: idn-email's documented strictness was not among the excused policies"),
    ({"oneOf": [{"maxItems": 64}, {"not": {"not": {"required": []}}}]}, [],
     "wrong accept: a complement of a complement counted as exact though its implied type narrowed it"),
    ({"oneOf": [{"maxItems": 64}, {"not": {"anyOf": [{"not": {"required": []}}]}}]}, [],
     "wrong accept (anyOf): the same through an anyOf inside the complement"),
    ({"$defs": {"n": {"not": {"required": []}}}, "oneOf": [{"maxItems": 64}, {"not": {"$ref": "#/$defs/n"}}]}, [],
     "wrong accept ($ref): the same through a $ref inside the complement"),
    ({"oneOf": [{"type": "object", "properties": {"a": {"maxItems": 3}}},
                {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}]}, {"a": "x"},
     "wrong accept (nested): options taken as apart by a property's value, whose implied type narrowed it"),
    ({"type": "object", "oneOf": [{"properties": {"a": {"maxItems": 3}}},
                                  {"required": ["a"], "properties": {"a": {"type": "string"}}}]}, {"a": "x"},
     "wrong accept (cut to a type): the same, the options cut to the type declared beside them"),
    ({"$defs": {"t": {"type": "object"}}, "oneOf": [{"$ref": "#/$defs/t", "properties": {"a": {"maxItems": 3}}},
                                                    {"type": "object", "required": ["a"],
                                                     "properties": {"a": {"type": "string"}}}]}, {"a": "x"},
     "wrong accept (beside $ref): the same, the option judged by its $ref's target alone"),
    ({"oneOf": [{"oneOf": [{"not": {"required": ["b"]}}, {}]}, {"type": "null"}]}, None,
     "wrong accept (inner oneOf): an inner oneOf cut by an option's complement, narrowed (`required` read as an "
     "object), taken as exact"),
    ({"anyOf": [{"oneOf": [{"oneOf": [True, {"$ref": "#/$defs/D0"}]}, {"allOf": [{"type": "integer"}]}]}],
      "$defs": {"D0": {"not": {"required": ["b"]}}}}, 14, "wrong accept (inner oneOf, $ref): the same through a $ref"),
]

_FILTER = {"$defs": {"f": {"type": "object", "properties": {"op": {"enum": ["or", "eq"]}}, "required": ["op"],
                           "dependentSchemas": {"op": {"oneOf": [
                               {"properties": {"op": {"enum": ["or"]}, "v": {"type": "array",
                                                                            "items": {"$ref": "#/$defs/f"}}},
                                "additionalProperties": False, "required": ["v"]},
                               {"properties": {"op": {"enum": ["eq"]}, "v": {"type": "string"}},
                                "additionalProperties": False, "required": ["op", "v"]}]}}}},
           "$ref": "#/$defs/f"}
# (schema, instances): oneOf schemas once refused as "may overlap", read exactly now
EXACT_ONE_OF = [
    (_FILTER, [{"op": "or", "v": [{"op": "eq", "v": "x"}]}, {"op": "eq", "v": "x"}, {"op": "or", "v": "x"},
               {"op": "eq", "v": [{"op": "eq", "v": "x"}]}, {"op": "or", "v": [{"op": "or", "v": "x"}]},
               {"op": "eq", "v": "x", "w": 1}, {"v": "x"}]),
]

_NARROWED = {"type": "object", "patternProperties": {"[0-9]$": {"oneOf": [{"required": []}]}, "^x": {"maxItems": 65}},
             "anyOf": [{"required": ["x1"]}]}
REFUSED_REGRESSIONS = [  # wrong accepts once, now refused: the overlap cannot be excluded exactly
    ({"oneOf": [{"not": {"type": "integer"}}, _NARROWED]},
     "options apart by a required key whose value implied types made empty (`x1` both object and array)"),
    ({"anyOf": [{"$defs": {"b": _NARROWED}, "oneOf": [{"not": {"type": "integer"}}, {"$ref": "#/anyOf/0/$defs/b"}]}]},
     "the same inside anyOf, the option reached through a $ref"),
]


@pytest.mark.parametrize("schema, instance, defect", REGRESSIONS, ids=[r[2].split(":")[0] for r in REGRESSIONS])
def test_stored_disagreements(schema: dict[str, Any], instance: Any, defect: str) -> None:
    verdict = Oracle(schema).verdict(instance)
    assert verdict.kind not in WRONG, _shown(schema, verdict)


@pytest.mark.parametrize("schema, instances", EXACT_ONE_OF, ids=["recursive-tagged"])
def test_one_of_reached_again_through_its_options(schema: dict[str, Any], instances: list[Any]) -> None:
    """A oneOf its own options reach again through a `$ref` (a tree of tagged filters, as in MaskBench): judged as
    read without complements while they are judged, which holds (its options are cut to objects), so it compiles;
    and its verdicts agree with jsonschema."""
    oracle = Oracle(schema)  # raises where refused
    for instance in instances:
        verdict = oracle.verdict(instance)
        assert verdict.kind not in WRONG, _shown(schema, verdict)


@pytest.mark.parametrize("schema, defect", REFUSED_REGRESSIONS, ids=[f"refused-{i}" for i in range(len(REFUSED_REGRESSIONS))])
def test_stored_refusals(schema: dict[str, Any], defect: str) -> None:
    with pytest.raises(UnsupportedSchemaError, match="oneOf"):
        Oracle(schema)


FAMILIES = [pytest.param(name, marks=pytest.mark.skipif(not tokenizer_file(name).exists(),
                                                        reason=missing(tokenizer_file(name))))
            for name in ("gpt2", "llama3", "qwen3")]


@pytest.mark.parametrize("family", FAMILIES)
@settings(derandomize=True, max_examples=3, deadline=None, database=None, suppress_health_check=QUIET)
@given(schema=schemas())
def test_random_walks_under_the_mask_are_valid(family: str, schema: dict[str, Any]) -> None:
    """Byte-level BPE vocabularies of three sizes: each walk that ends is JSON valid for the schema."""
    body = json.dumps({k: v for k, v in schema.items() if k != "$defs"})
    assume(any(word in body for word in ('"properties"', '"items"', '"$ref"')))  # structure, not a lone scalar
    vocab = shared_vocab(family)
    try:
        grammar = compile_schema(schema, vocab, options=COMPILE)
    except ExtractorError:
        reject()  # walks need a compiled schema: draw another
    validator = Reference(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    rng = np.random.default_rng(zlib.crc32(json.dumps(schema).encode() + family.encode()))
    bonus = closers(vocab)
    for _ in range(6):
        walk = constrained_walk(grammar, rng, bonus, max_steps=300)
        if walk.complete:
            value = read_exact(walk.text)
            assert validator.is_valid(value), (schema, walk.text, [e.message for e in validator.iter_errors(value)])
