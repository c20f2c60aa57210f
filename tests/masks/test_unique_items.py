"""`uniqueItems` over items no automaton can enumerate (objects, numbers, bounded strings): the matcher keeps
each finished item's value, its mask forbids a token that would finish a repeat or leave only repeats to
write, and advancing refuses a repeat."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from extractor import compile_schema
from extractor.grammar import CompileOptions
from extractor.tokens import Vocabulary
from tests.masks.test_distinct import long_walk, same_packed
from tests.vocabs import shared_vocab

TAGS = {"type": "array", "uniqueItems": True, "items": {
    "type": "object", "properties": {"Key": {"type": "string", "minLength": 1, "maxLength": 2, "pattern": "^[ab]+$"},
                                     "Value": {"type": "string", "maxLength": 2}},
    "required": ["Key", "Value"], "additionalProperties": False}}


class Point(BaseModel, frozen=True):
    x: int
    y: int


class Shape(BaseModel):
    corners: set[Point]
    sizes: frozenset[int]


@pytest.mark.parametrize("name", ["llama3"])
@pytest.mark.parametrize("target", [TAGS, Shape, {"type": "array", "uniqueItems": True, "items": {}}],
                         ids=["tags", "pydantic_sets", "any_values"])
def test_random_walks_write_unique_items_and_never_run_out(name, target):
    grammar = compile_schema(target, shared_vocab(name))
    schema = target if isinstance(target, dict) else target.model_json_schema()
    validator = Draft202012Validator(schema)
    rng = np.random.default_rng(5)
    for _ in range(2):
        matcher = grammar.matcher()
        text = long_walk(matcher, rng, keep_open=20)
        if matcher.finished:
            value = json.loads(text)
            assert not list(validator.iter_errors(value)), text[:300]
            if not isinstance(target, dict):
                target.model_validate(value)


def test_a_repeated_item_is_masked_and_refused():
    vocab = shared_vocab("llama3")
    matcher = compile_schema(TAGS, vocab).matcher()
    matcher.advance_bytes(b'[{"Key":"ab","Value":"x"},{"Key":"ab","Value":"')
    quote = vocab.tokens.index(b'"')
    assert matcher.mask()[quote]  # "" is a new value
    matcher.advance_bytes(b"x")
    assert not matcher.mask()[quote]  # closing now can only repeat the first item
    with pytest.raises(ValueError):
        matcher.advance_bytes(b'"}')  # the object would be whole, and a repeat
    matcher.advance_bytes(b'y"}]')
    assert matcher.accepting()


def test_items_equal_as_json_values_are_repeats():
    item = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "array"}}, "required": ["a"]}
    matcher = compile_schema({"type": "array", "uniqueItems": True, "items": item}, shared_vocab("llama3")).matcher()
    matcher.advance_bytes(b'[{"a":1,"b":[true]},{"a":1.0,"b":[true')
    with pytest.raises(ValueError):
        matcher.advance_bytes(b"]}")  # 1.0 is 1
    matcher.advance_bytes(b",false]}]")


def test_when_every_value_is_used_the_array_must_close():
    vocab = shared_vocab("llama3")
    schema = {"type": "array", "uniqueItems": True,
              "items": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"],
                        "additionalProperties": False}}
    matcher = compile_schema(schema, vocab).matcher()
    matcher.advance_bytes(b'[{"on":true}')
    assert {vocab.tokens[i] for i in np.flatnonzero(matcher.mask())} >= {b",", b"]"}
    matcher.advance_bytes(b',{"on":false}')
    assert {vocab.tokens[i] for i in np.flatnonzero(matcher.mask())} == {b"]"}


def test_a_byte_that_leaves_only_repeats_is_refused():
    matcher = compile_schema(TAGS, shared_vocab("llama3")).matcher()
    matcher.advance_bytes(b'[{"Key":"ab","Value":"xy"},{"Key":"ab","Value":"x')
    with pytest.raises(ValueError):
        matcher.advance_bytes(b"y")  # "xy" is as long as Value may be: only the first item could follow


def test_a_new_outer_item_does_not_hide_an_inner_array_with_no_value_left():
    vocab = shared_vocab("llama3")
    inner = {"type": "array", "uniqueItems": True, "items": {"type": "object", "properties": {
        "on": {"type": "boolean"}}, "required": ["on"], "additionalProperties": False}}
    outer = {"type": "array", "uniqueItems": True, "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "flags": inner}, "required": ["name", "flags"], "additionalProperties": False}}
    matcher = compile_schema(outer, vocab).matcher()
    matcher.advance_bytes(b'[{"name":"a","flags":[]},{"name":"new","flags":[{"on":true},{"on":false}')
    allowed = {vocab.tokens[i] for i in np.flatnonzero(matcher.mask())}
    assert b"]" in allowed and all(t.startswith(b"]") for t in allowed)  # no `,`: no flag value is left


def test_an_escaped_quote_that_leaves_only_repeats_is_masked():
    """`\\"` stays inside the string (its quote is escaped): a token the mask must still try, since the
    character it adds can leave only the first item to write."""
    vocab = shared_vocab("llama3")
    schema = {"type": "array", "uniqueItems": True, "items": {
        "type": "object", "properties": {"k": {"type": "string", "maxLength": 1}}, "required": ["k"],
        "additionalProperties": False}}
    matcher = compile_schema(schema, vocab).matcher()
    matcher.advance_bytes(b'[{"k":"\\""},{"k":"')
    escaped_quote = vocab.tokens.index(b'\\"')
    assert not matcher.mask()[escaped_quote]  # "\"" again would be a repeat, and the string is full
    with pytest.raises(ValueError):
        matcher.advance(escaped_quote)
    matcher.advance_bytes(b'a"}]')
    assert matcher.accepting()


FLAG = {"type": "object", "properties": {"on": {"type": "boolean"}}, "additionalProperties": False}  # 3 values


@pytest.mark.parametrize("items, fewest", [
    (FLAG, 3),  # {}, {"on": true}, {"on": false}
    ({"type": "integer", "minimum": 1, "maximum": 4}, 4),
    ({"anyOf": [{"type": "null"}, {"enum": ["a", "b"]}, FLAG]}, 6),
    ({"type": "object", "properties": {"a": {"type": "null"}}, "patternProperties": {"^x": False},
      "propertyNames": {"maxLength": 2}}, 2),  # no undeclared key can appear (strict objects)
    ({"anyOf": [FLAG, {"type": "object", "properties": {"on": {"const": True}}, "additionalProperties": False}]},
     3),  # the options share two values
    ({"type": "object", "properties": {"a": {"type": "boolean"}, "b": {"type": "boolean"}},
      "additionalProperties": False, "maxProperties": 1}, 5),  # {}, or one member of two values
    ({"type": "object", "properties": {"a": {"enum": [1, 2]}, "b": {"type": "null"}}, "additionalProperties": False,
      "minProperties": 2}, 2),  # both members
    ({"type": "object", "properties": {"n": {"enum": [1, 1.0, 2]}}, "required": ["n"], "additionalProperties": False},
     2),  # 1.0 is 1
])
def test_a_unique_array_needing_more_items_than_exist_has_no_value(items, fewest):
    """An array of at least n distinct items, where fewer than n values exist, would let the matcher write items
    until none is fresh and the array still cannot close: it is taken as having no value, so the schema is
    unsatisfiable (or, inside an optional property, that property is never written)."""
    from extractor.errors import UnsatisfiableSchemaError

    vocab = shared_vocab("llama3")
    matcher = compile_schema({"type": "array", "uniqueItems": True, "items": items, "minItems": fewest},
                             vocab).matcher()
    assert matcher.mask().any()  # exactly as many as exist: they can all be written
    with pytest.raises(UnsatisfiableSchemaError):
        compile_schema({"type": "array", "uniqueItems": True, "items": items, "minItems": fewest + 1}, vocab)
    holder = {"type": "object", "properties": {"list": {"type": "array", "uniqueItems": True, "items": items,
                                                        "minItems": fewest + 1}, "n": {"type": "null"}}}
    matcher = compile_schema(holder, vocab).matcher()
    with pytest.raises(ValueError):
        matcher.advance_bytes(b'{"list":')
    matcher.advance_bytes(b'{"n":null}')


@pytest.mark.parametrize("items", [{"type": "string"}, {"type": "integer", "minimum": 0},
                                   {"type": "object", "additionalProperties": {"type": "null"}},
                                   {"type": "integer", "minimum": 1, "maximum": 50}])
def test_unique_arrays_of_enough_items_keep_their_minimum(items):
    matcher = compile_schema({"type": "array", "uniqueItems": True, "items": items, "minItems": 50},
                             shared_vocab("llama3")).matcher()
    assert matcher.mask().any()


POOL = [None, True, False, 0, 1, 2]
"""Every value the generated item schemas below admit (their scalars are drawn from it)."""

_scalars = st.sampled_from([{"type": "boolean"}, {"type": "null"}, {"type": "integer", "minimum": 0, "maximum": 2},
                            {"type": "integer", "minimum": 1, "maximum": 1.5}, {"const": 1.0}]) | st.builds(
    lambda vs: {"enum": vs}, st.lists(st.sampled_from(POOL), min_size=1, max_size=3))


@st.composite
def _closed_objects(draw: st.DrawFn) -> dict:
    names = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True))
    schema = {"type": "object", "properties": {n: draw(_scalars) for n in names}, "additionalProperties": False,
              "required": draw(st.lists(st.sampled_from(names), unique=True))}
    for key in ("minProperties", "maxProperties"):
        if draw(st.booleans()):
            schema[key] = draw(st.integers(0, 3))
    return schema


@settings(max_examples=60, deadline=None)
@given(st.one_of(_scalars, _closed_objects(), st.builds(lambda a, b: {"anyOf": [a, b]}, _closed_objects(),
                                                        _closed_objects() | _scalars)))
def test_the_values_counted_for_unique_items_are_exactly_the_valid_ones(items):
    """The values an item schema admits, as `uniqueItems` arrays count them to find too few: every valid value
    is among them (else an array of valid items would be cut), and here, where every keyword is one it reads,
    nothing else is."""
    from extractor.grammar.compile import _values_below
    from extractor.schema import NormalizeOptions, target_ir
    from extractor.schema.merge import canonical

    validator = Draft202012Validator(items)
    candidates = POOL + [dict(zip(names, values)) for names in _subsets("abc")
                         for values in itertools.product(POOL, repeat=len(names))]
    valid = {canonical(v) for v in candidates if validator.is_valid(v)}
    schema = target_ir(items, None, NormalizeOptions(strict_objects=False))
    assert _values_below(schema.root, schema.defs, 10**6) == valid


def _subsets(names: str) -> list[tuple[str, ...]]:
    return [c for k in range(len(names) + 1) for c in itertools.combinations(names, k)]


ESCAPE_TOKENS = (b"",) + tuple(bytes([b]) for b in range(256)) + (
    b"1b", b"1B", b"1c", b"bA", b'bA"}', b'bA"},', b'B"}', b"001", b"001b", b"e9", b"E9", b'e9"}', b'E9x"}',
    b"\\u00", b"\\u001", b"\\u0062", b'\\u0062"}', b'\\n"}', b'\\\\"}', b'\\"', b'"}', b'"},{"', b'{"n":"',
    b'":"', b"ab", b'b"}')
"""Single bytes, and tokens that finish a `\\u` escape, go on past it, or hold escapes of their own."""

ESCAPED = {"type": "array", "uniqueItems": True,
           "items": {"type": "object", "properties": {"n": {"type": "string"}}, "additionalProperties": False}}


@pytest.mark.parametrize("document", [
    '[{"n":"\\u001bA"},{"n":"\\u001cA"},{"n":"\\u001BB"},{"n":"\\u001bAb"}]',  # a \u escape's last digits
    '[{"n":"a\\u0062"},{"n":"a\\\\"},{"n":"\\u00e9"},{"n":"ab\\n"},{"n":"\\u00E9x"}]',  # escapes after content
], ids=["in_escape", "escape_tokens"])
def test_masks_inside_and_around_escapes_equal_every_token_tried(document: str) -> None:
    """Where an earlier item's string is being spelled with escapes, the mask tries only the tokens whose first
    bytes may lead to it; it equals trying every token: allowed where its bytes are and the item may still end
    as a new value."""
    from extractor.automata.distinct import fresh

    grammar = compile_schema(ESCAPED, Vocabulary(tokens=ESCAPE_TOKENS, eos_ids=frozenset({0})))
    matcher, tokens = grammar.matcher(), grammar.vocab.tokens
    for byte in document.encode():
        fast = matcher.mask()
        allowed = np.flatnonzero(grammar.mask(matcher.config))
        slow = np.zeros_like(fast)
        for t in allowed.tolist():
            after, fork = matcher.distinct.after(matcher.config, tokens[t]) if tokens[t] else (frozenset(), None)
            slow[t] = bool(after) and fresh(fork, after)
        slow[list(grammar.vocab.eos_ids)] = fast[list(grammar.vocab.eos_ids)]
        assert np.array_equal(fast, slow), (bytes(matcher.output), [tokens[t] for t in np.flatnonzero(fast != slow)[:5]])
        assert same_packed(matcher, fast), bytes(matcher.output)
        matcher.advance_bytes(bytes([byte]))


COPIES = {"type": "array", "uniqueItems": True, "items": {"type": "string", "x-verbatim": True}}


@pytest.mark.parametrize("source", ["red, green red", "a b", "tea; tea. Tea"])
def test_unique_copies_of_the_text_never_repeat_and_never_run_out(source):
    """Copies of the source (`set[str]` under `extract`'s defaults) are a bounded language: kept apart by value, the
    walk held open until none is left must close the array rather than find no way on."""
    grammar = compile_schema(COPIES, shared_vocab("llama3"), options=CompileOptions(source=source))
    rng = np.random.default_rng(3)
    for _ in range(3):
        matcher = grammar.matcher()
        text = long_walk(matcher, rng, keep_open=40)
        assert matcher.finished, text
        items = json.loads(text)
        assert len(items) == len(set(items)) and all(item in source for item in items), items
