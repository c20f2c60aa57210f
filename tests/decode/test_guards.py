"""Guards: they only narrow the grammar's mask, and each stops the loop it is meant for."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.decode import Guards
from extractor.decode.guards import Guard, JsonTracker, looping
from tests.decode.fakes import hf_tokenizer


@pytest.fixture(scope="module")
def gpt2():
    return hf_tokenizer("gpt2")


def _at(schema, tok, data: bytes, guards: Guards):
    grammar = compile_schema(schema, tok, refusal=None)
    matcher = grammar.matcher()
    matcher.advance_bytes(data)
    guard = Guard(guards, grammar)
    guard.feed(data)
    mask = matcher.mask()
    return grammar.vocab, mask, guard.restrict(mask), guard


def _allowed(vocab, mask) -> set[bytes]:
    return {vocab.tokens[i] for i in np.flatnonzero(mask)}


def test_tracker_follows_strings_numbers_and_arrays():
    js = JsonTracker()
    js.feed(b'{"a":["x,]\\"y",12')
    assert not js.in_string and js.digits == 2
    assert js.stack[0] is None and js.stack[1].items == [b'"x,]\\"y"']
    js.feed(b',"q')
    assert js.in_string and len(js.data) - js.string_start == 1
    js.feed(b'"]}')
    assert js.stack == []


def test_a_repeated_item_cannot_be_followed_by_a_comma(gpt2):
    schema = {"type": "array", "items": {"type": "string"}}
    vocab, mask, out, guard = _at(schema, gpt2, b'["Python","SQL","Python"', Guards())
    assert any(t.startswith(b",") for t in _allowed(vocab, mask))
    assert not any(t.startswith(b",") for t in _allowed(vocab, out))
    assert b"]" in _allowed(vocab, out) and guard.fired == 1
    assert not (out & ~mask).any()
    # mid-item: tokens that would finish the repeat and go on are gone, others stay
    vocab, mask, out, _ = _at(schema, gpt2, b'["Python","SQL","Python', Guards())
    assert b'",' in _allowed(vocab, mask) and b'",' not in _allowed(vocab, out)
    assert {b'"', b'"]', b"s"} <= _allowed(vocab, out)


def test_a_new_item_is_untouched(gpt2):
    schema = {"type": "array", "items": {"type": "string"}}
    vocab, mask, out, guard = _at(schema, gpt2, b'["Python","SQL","Rust"', Guards())
    assert out is mask and guard.fired == 0


def test_numbers_end_after_max_digits(gpt2):
    schema = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
    vocab, mask, out, _ = _at(schema, gpt2, b'{"n":1.50000000000000000', Guards(max_number_digits=18))
    assert any(t[:1].isdigit() for t in _allowed(vocab, mask))
    assert _allowed(vocab, out) and not any(t[:1].isdigit() for t in _allowed(vocab, out))
    assert b"}" in _allowed(vocab, out)


def test_long_strings_must_close(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"abcdefgh', Guards(max_string_bytes=8))
    assert all(b'"' in t for t in _allowed(vocab, out)) and b'"}' in _allowed(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"abcdefg', Guards(max_string_bytes=8))
    assert out is mask


def test_a_guard_that_would_forbid_everything_stands_aside(gpt2):
    schema = {"type": "array", "items": {"const": "a"}, "minItems": 3}
    vocab, mask, out, guard = _at(schema, gpt2, b'["a","a"', Guards())
    assert out is mask and guard.fired == 0  # `]` is not allowed yet: the repeat must go on


@pytest.mark.parametrize(("text", "loops"), [
    (b"20457-Hafenweg 3, 20457-Hafenweg 3, ", True),     # 18 bytes, twice
    (b"skills_description_description_description", True),  # 12 bytes, three times
    (b"skills_description_description", False),            # 12 bytes, only twice
    (b"ha ha ha ha", False),                                # 3 bytes: too short to count
    (b"Factory Berlin, Rheinsberger Str. 76, Berlin", False),
    (b"+44 7700 900456", False),
])
def test_looping_strings(text, loops):
    data = bytearray(b'{"s":"' + text)
    assert looping(data, 6) is loops


def test_a_looping_string_must_close(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    vocab, mask, out, guard = _at(schema, gpt2, b'{"s":"Hafenweg 3, 20457-Hafenweg 3, 20457-', Guards())
    assert all(b'"' in t for t in _allowed(vocab, out)) and guard.fired == 1
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"Hafenweg 3, 20457-Hafenweg 3, 20457-', Guards(string_loops=False))
    assert out is mask
