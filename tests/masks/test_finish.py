"""The shortest way to a complete output: as short as the breadth-first search where that finds one, and
found where it gives up (deep stacks, free-form values)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from extractor import compile_schema
from extractor.masks.exits import shortest_path
from extractor.masks.finish import finishing_path
from tests.masks.test_masks import small_vocab

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
                                      "age": {"type": "integer", "minimum": 10}}, "required": ["name", "tags", "age"]},
    {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]},
     "minItems": 2},
    {"type": "object", "properties": {"x": {"type": "array"}, "s": {"type": "string", "pattern": "^[a-z]+@[a-z]+$"}},
     "required": ["s"]},
    {"anyOf": [{"type": "string", "minLength": 3}, {"type": "object", "additionalProperties": {"type": "boolean"}}]},
]


def _grammar(schema: dict):
    return compile_schema(schema, small_vocab("llama3"), refusal=None)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_as_short_as_the_search_and_always_a_complete_output(schema: dict) -> None:
    grammar, rng = _grammar(schema), np.random.default_rng(11)
    aut = grammar.automaton
    for _ in range(30):
        config, data = aut.start(), b""
        for _ in range(int(rng.integers(0, 40))):  # a random prefix under the grammar
            allowed = sorted(grammar.allowed_bytes(config))
            if not allowed:
                break
            byte = int(rng.choice(allowed))
            config, data = aut.step(config, byte), data + bytes([byte])
        way = finishing_path(aut, config)
        assert way is not None
        end = config
        for byte in way:
            end = aut.step(end, byte)
        assert aut.accepting(end), (data, way)
        json.loads(data + way)
        searched = shortest_path(grammar, config, aut.accepting)
        if searched is not None:
            assert len(way) == len(searched), (data, way, searched)


def test_found_at_depth_where_the_search_gives_up() -> None:
    grammar = _grammar({"type": "object", "properties": {"x": {"type": "array"}}})
    data = b'{"x":[' + b'{"a":[' * 30 + b'{"k":"abc'
    config = grammar.automaton.start()
    for byte in data:
        config = grammar.automaton.step(config, byte)
    assert shortest_path(grammar, config, grammar.automaton.accepting) is None  # every string byte branches
    assert finishing_path(grammar.automaton, config) == b'"}' + b"]}" * 30 + b"]}"


def test_ways_prepared_out_of_time_keep_nothing_and_in_time_give_the_same_paths() -> None:
    from extractor.masks.finish import _WAYS, prepare_ways

    grammar = _grammar(SCHEMAS[0])
    aut = grammar.automaton
    assert not prepare_ways(aut, 0.0) and _WAYS[aut].whole is None  # past its time at once: nothing kept
    assert prepare_ways(aut, 60.0) and _WAYS[aut].whole is not None
    fresh = _grammar(SCHEMAS[0]).automaton  # worked out on first need instead
    assert finishing_path(aut, grammar.start) == finishing_path(fresh, fresh.start())
