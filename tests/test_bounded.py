"""Schemas of any width compile; schemas deeper than the limit are refused with a typed error, never a
RecursionError (or a panic from a library below)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import create_model

from extractor.automata import build_automaton
from extractor.errors import UnsupportedSchemaError
from extractor.grammar import compile_grammar
from extractor.schema import target_ir
from extractor.schema.normalize import MAX_SCHEMA_DEPTH


def compiles(target: Any) -> None:
    build_automaton(compile_grammar(target_ir(target, None)))


def ref_chain(n: int) -> dict[str, Any]:
    defs = {f"d{i}": {"type": "object", "properties": {"x": {"$ref": f"#/$defs/d{i + 1}"}}, "required": ["x"]}
            for i in range(n)}
    return {"$ref": "#/$defs/d0", "$defs": {**defs, f"d{n}": {"type": "integer"}}}


def nested(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(n):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


def any_of(n: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for i in range(n):
        schema = {"anyOf": [schema, {"const": f"c{i}"}]}
    return schema


@pytest.mark.parametrize("target", [
    create_model("Wide", **{f"f{i}": (int, ...) for i in range(400)}),
    {"type": "object", "properties": {f"f{i}": {"type": "integer"} for i in range(400)}},
    {"type": "object", "properties": {f"f{i}": {"type": "integer"} for i in range(330)},
     "required": [f"f{i}" for i in range(330)]},
], ids=["model_400_required", "400_optional", "330_required"])
def test_wide_schemas_compile(target):
    compiles(target)


# (shape, levels within the limit, levels past it)
DEPTH_ROWS = [(ref_chain, MAX_SCHEMA_DEPTH // 2 - 2, 500), (nested, MAX_SCHEMA_DEPTH - 2, 165),
              (any_of, MAX_SCHEMA_DEPTH - 2, 331)]


@pytest.mark.parametrize("shape,within,past", DEPTH_ROWS, ids=[r[0].__name__ for r in DEPTH_ROWS])
def test_deep_schemas_compile_to_the_limit_and_are_refused_past_it(shape, within, past):
    compiles(shape(within))
    for levels in (MAX_SCHEMA_DEPTH + 1, past):
        with pytest.raises(UnsupportedSchemaError, match=f"nest deeper than {MAX_SCHEMA_DEPTH}"):
            compiles(shape(levels))


def test_a_schema_document_nested_past_the_limit_is_refused_before_anything_recursive_reads_it():
    from extractor.schema import json_schema
    from extractor.schema.normalize import MAX_JSON_DEPTH

    deep: dict[str, Any] = {"type": "integer"}
    for _ in range(3000):  # json.dumps alone would raise RecursionError
        deep = {"type": "object", "properties": {"a": deep}}
    with pytest.raises(UnsupportedSchemaError, match=f"nests deeper than {MAX_JSON_DEPTH}"):
        json_schema(deep)


def test_the_prompt_describes_a_schema_as_deep_as_the_document_limit_allows():
    from extractor.decode.describe import describe
    from extractor.schema.normalize import MAX_JSON_DEPTH

    assert "a nested value" in describe(any_of(MAX_JSON_DEPTH // 2 - 1))  # anyOf: two JSON levels each
