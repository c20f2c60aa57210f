"""`numbers_from_text`: which number fields `verbatim="all"` narrows to the numbers the text writes, and what
that stops (a year counted up, an amount the text does not print)."""

from __future__ import annotations

import json

import pytest

from extractor.automata import build_automaton
from extractor.grammar import compile_grammar
from extractor.schema import target_ir
from extractor.schema.numbers import MAX_VALUES, numbers_from_text, text_numbers
from tests.automata.helpers import runs


@pytest.mark.parametrize("text,ints,numbers", [
    ("2017-2019", {2017, 2019}, set()),  # a range, not minus 2019
    ("qty -5", {-5}, set()),  # a minus sign, as the trace reads it
    ("RM 1,234.56", set(), {1234.56}),  # one number: never its integer part, nor the groups around its marks
    ("Qty 297.80", set(), {297.8}),  # not 297: a whole number token, never the integer part of a decimal
    ("1.500,00", {1500}, set()),  # the decimal comma
    ("1.500", {1500}, {1.5}),  # thousands or a decimal point: both offered
    ("12.03.2018", {12, 3, 2018}, set()),  # a dotted date: no number, so its runs of digits
    ("v1.2.3", {1, 2, 3}, set()),
    ("1 000 000", {1, 0, 1000000}, set()),  # spaced groups: the number, and each group (a table's columns)
    ("+1 415 555 0192", {1, 415, 555, 192}, set()),
    ("12.50 150.00", {150}, {12.5}),  # two numbers a space parts
    ("Room 12 15", {12, 15}, set()),  # no number reading: each part
    ("2015 2016 2017", {2015, 2016, 2017}, set()),
    ("0.1 and 12345678901234567890.5", set(), {0.1}),  # a float cannot hold the second exactly
    ("9" * 5000, set(), set()),  # past MAX_DIGITS: no value, and no error
    ("no digits", set(), set()),
])
def test_numbers_are_read_every_way_their_marks_allow(text, ints, numbers):
    got_ints, got_numbers = text_numbers(text)
    assert set(got_ints) == ints
    assert set(got_numbers) == ints | numbers


def member(schema: dict, description: str | None = None) -> dict:
    return {"type": "object", "properties": {"x": {**schema, **({"description": description} if description else {})}},
            "required": ["x"]}


RESUME = "Acme 2017-2019, Globex 2019 - present. BSc 2016."


@pytest.mark.parametrize("schema,narrowed", [
    (member({"type": "integer"}), True),
    (member({"anyOf": [{"type": "integer"}, {"type": "null"}]}), True),
    (member({"type": "array", "items": {"type": "integer"}}), True),
    (member({"type": "number"}), True),
    (member({"type": "integer", "minimum": 1900}), True),  # the text's numbers within the bounds
    (member({"type": "integer", "minimum": 3000}), False),  # none within them: left free
    (member({"type": "integer", "enum": [1, 2]}), False),
    (member({"type": "integer"}, "How many jobs are listed"), False),  # a value worked out, not written
    (member({"type": "integer", "x-verbatim": False}), False),
    (member({"type": "string"}), False),
    (member({"type": ["integer", "null"]}), False),  # a list of types: left free, not a raw TypeError
    (member({"anyOf": [{"type": ["integer", "string"]}, {"type": "null"}]}), False),
])
def test_which_number_fields_are_narrowed(schema, narrowed):
    assert (numbers_from_text(schema, RESUME) != schema) is narrowed


@pytest.mark.parametrize("value,ok", [
    (2019, True),
    (2016, True),
    (2018, False),  # between two years the text writes: counted, not read
    (2020, False),
])
def test_a_narrowed_year_is_one_the_text_writes(value, ok):
    schema = numbers_from_text(member({"type": "integer"}), RESUME)
    auto = build_automaton(compile_grammar(target_ir(schema, None)))
    assert runs(auto, json.dumps({"x": value}, separators=(",", ":"))) is ok


@pytest.mark.parametrize("bounds,offered", [
    ({"minimum": 0, "exclusiveMinimum": True}, [1, 2]),  # draft 4: the flag qualifies `minimum`
    ({"exclusiveMaximum": 2}, [0, 1]),
    ({"multipleOf": 0.5}, [0, 1, 2]),
])
def test_bounds_are_read_as_the_normalizer_reads_them(bounds, offered):
    schema = numbers_from_text(member({"type": "integer", **bounds}), "0 1 2")
    assert schema["properties"]["x"]["enum"] == offered


def test_a_decimal_step_admits_the_decimals_it_divides():
    schema = numbers_from_text(member({"type": "number", "multipleOf": 0.01}), "12.5 and 1.234")
    assert 12.5 in schema["properties"]["x"]["enum"] and 1.234 not in schema["properties"]["x"]["enum"]


def test_the_bounds_filter_the_numbers_offered():
    schema = numbers_from_text(member({"type": "integer", "minimum": 1950, "maximum": 2100}), "from 12.03.2018 to 2019")
    assert schema["properties"]["x"]["enum"] == [2018, 2019]


def test_a_text_without_numbers_or_with_too_many_leaves_the_schema_free():
    schema = member({"type": "integer"})
    assert numbers_from_text(schema, "no digits here") == schema
    assert numbers_from_text(schema, " ".join(str(i) for i in range(MAX_VALUES + 1))) == schema
    assert numbers_from_text(schema, "order 12, card 4111111111111111111111111111111") == schema  # an id: left free


OPTIONAL = member({"anyOf": [{"type": "integer"}, {"type": "null"}]})


@pytest.mark.parametrize("schema,text,value,ok", [
    (OPTIONAL, "Weather: sunny.", None, True),
    (OPTIONAL, "Weather: sunny.", 25, False),  # what the embedded model wrote for a Person's age: no number there
    (member({"anyOf": [{"type": "integer", "minimum": 3000}, {"type": "null"}]}), RESUME, 2019, False),  # none in
    (member({"anyOf": [{"type": "integer", "minimum": 3000}, {"type": "null"}]}), RESUME, None, True),  # bounds
    (member({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "How many jobs"), "Weather: sunny.", 3, True),
    (member({"type": "integer"}), "Weather: sunny.", 25, True),  # required: left free
])
def test_an_optional_number_the_text_writes_no_value_for_is_null(schema, text, value, ok):
    auto = build_automaton(compile_grammar(target_ir(numbers_from_text(schema, text), None)))
    assert runs(auto, json.dumps({"x": value}, separators=(",", ":"))) is ok
