"""A `number` the grammar accepts is one `float()` reads as finite, and every finite one is accepted: `1e999` would
reach the result as `inf`, which JSON cannot write. Checked against `float()` itself near the limit."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.errors import UnsupportedSchemaError
from extractor.grammar.numbers import FLOAT_LIMIT, MANTISSA_DIGITS
from tests.automata.helpers import accepts, automaton

SETTINGS = settings(deadline=None, max_examples=400, database=None, suppress_health_check=[HealthCheck.too_slow])
SYNTAX = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
LIMIT = str(FLOAT_LIMIT)


def finite(text: str) -> bool:
    """RFC 8259 syntax, a finite `float()`, and with an exponent at most MANTISSA_DIGITS mantissa digits."""
    if not SYNTAX.fullmatch(text):
        return False
    mantissa = re.split("[eE]", text.lstrip("-"))
    return math.isfinite(float(text)) and (len(mantissa) == 1 or len(mantissa[0].replace(".", "")) <= MANTISSA_DIGITS)


SCHEMAS: list[tuple[str, dict[str, Any], Any]] = [  # (name, schema, what else it asks of a number's spelling)
    ("free number", {"type": "number"}, lambda t: True),
    ("any value", {"type": "object", "additionalProperties": {}}, lambda t: True),
    ("bounded below", {"type": "number", "minimum": 0}, lambda t: "e" not in t.lower() and not t.startswith("-")),
    ("integral step", {"type": "number", "multipleOf": 5}, lambda t: INTEGER.fullmatch(t) and int(t) % 5 == 0),
    ("fractional step", {"type": "number", "multipleOf": 0.5},
     lambda t: re.fullmatch(r"-?(?:0|[1-9][0-9]*)(?:\.[05])?", t)),
    ("bounded above", {"type": "number", "maximum": 5},
     lambda t: "e" not in t.lower() and Decimal(t) <= 5 and not (t.startswith("-") and Decimal(t) == 0)),
]


def written(schema: dict[str, Any], text: str) -> str:
    """The output holding number `text` under `schema`."""
    return '{"a":' + text + "}" if schema.get("type") == "object" else text


@st.composite
def near_limit(draw: st.DrawFn) -> str:
    """Number spellings of about the limit's magnitude: its digits, one perhaps changed, plain or with an exponent
    that puts them just below, at or just above it."""
    digits = (LIMIT * 2)[:draw(st.integers(1, 330))]
    if draw(st.booleans()):
        at = draw(st.integers(0, len(digits) - 1))
        digits = digits[:at] + str(draw(st.integers(0, 9))) + digits[at + 1:]
    sign = draw(st.sampled_from(["", "-"]))
    if draw(st.booleans()):  # plain: the point somewhere after the limit's 309 digits, or none
        point = draw(st.integers(308, 310))
        head, tail = digits[:point].lstrip("0") or "0", digits[point:]
        return sign + head + ("." + tail if tail else "")
    order = draw(st.integers(-3, 26))  # the mantissa is 0.digits * 10**order
    mantissa = ("0." + "0" * -order + digits if order <= 0 else
                digits[:order] + "." + digits[order:] if order < len(digits) else digits + "0" * (order - len(digits)))
    mantissa = mantissa.rstrip(".")
    exponent = 309 - order + draw(st.integers(-1, 1))
    return (sign + mantissa + draw(st.sampled_from("eE")) + draw(st.sampled_from(["", "+", "+00", "0"]))
            + str(exponent))


NUMBER, STEP, ABOVE = {"type": "number"}, {"type": "number", "multipleOf": 5}, {"type": "number", "minimum": 0}
ROWS = [
    (NUMBER, "1e308", True), (NUMBER, "1.7976931348623157e308", True), (NUMBER, "1.7976931348623158e308", True),
    (NUMBER, "1.7976931348623159e308", False), (NUMBER, "1e309", False), (NUMBER, "-1e999", False),
    (NUMBER, "1E+0309", False), (NUMBER, "0.1e309", True), (NUMBER, "0.17976931348623159e310", False),
    (NUMBER, "1e-999", True), (NUMBER, "0e999", True), (NUMBER, "-0.0E+99999", True), (NUMBER, LIMIT, False),
    (NUMBER, str(FLOAT_LIMIT - 1), True), (NUMBER, str(FLOAT_LIMIT - 1) + ".999", True),
    (NUMBER, "-" + LIMIT + ".0", False), (NUMBER, "1" + "0" * 309, False), (NUMBER, "1" + "0" * 308, True),
    (NUMBER, "0." + "0" * 400 + "1", True), (NUMBER, "1." + "0" * (MANTISSA_DIGITS - 1) + "e5", True),
    (NUMBER, "1." + "0" * MANTISSA_DIGITS + "e5", False),
    (STEP, "1" + "0" * 309, False), (STEP, "-1" + "0" * 308, True), (STEP, str(FLOAT_LIMIT - 1)[:-1] + "0", True),
    (ABOVE, LIMIT, False), (ABOVE, str(FLOAT_LIMIT - 1) + ".5", True),
]


@pytest.mark.parametrize("schema, text, expected", ROWS, ids=[f"{s.get('multipleOf', s.get('minimum'))}-{t[:24]}"
                                                              for s, t, _ in ROWS])
def test_a_number_is_accepted_just_where_its_float_is_finite(schema: dict[str, Any], text: str,
                                                             expected: bool) -> None:
    assert finite(text) == expected
    assert accepts(schema, text) == expected


@pytest.mark.parametrize("name, schema, rest", SCHEMAS, ids=[s[0] for s in SCHEMAS])
@SETTINGS
@given(text=st.one_of(near_limit(), st.text(alphabet="-+.eE0123456789", max_size=12)))
def test_near_the_limit_the_grammar_agrees_with_float(name: str, schema: dict[str, Any], rest: Any,
                                                      text: str) -> None:
    assert accepts(schema, written(schema, text)) == bool(finite(text) and rest(text))



STEPS = [  # (schema, refused): a step's remainders times the float bound's 310 digit positions, or bounds instead
    ({"type": "number", "multipleOf": 97}, True), ({"type": "number", "multipleOf": 0.97, "minimum": 0}, True),
    ({"type": "number", "multipleOf": 31}, False), ({"type": "number", "multipleOf": 2500}, False),
    ({"type": "number", "multipleOf": 97, "minimum": -1000, "maximum": 1000}, False),
    ({"type": "integer", "multipleOf": 97}, False),
]


@pytest.mark.parametrize("schema, refused", STEPS, ids=[json.dumps(s) for s, _ in STEPS])
def test_a_step_too_large_to_bound_exactly_is_refused_naming_the_bounds(schema: dict[str, Any], refused: bool) -> None:
    if refused:
        with pytest.raises(UnsupportedSchemaError, match="give it a minimum and a maximum"):
            automaton(schema)
    else:
        assert accepts(schema, str(schema["multipleOf"] * 2))


ABOVE_ZERO = {"type": "number", "exclusiveMinimum": 0}
BELOW_FIVE = {"type": "number", "exclusiveMaximum": 5}
HALVES = {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}
EXCLUSIVE = [  # (schema, text, accepted): the exclusive bound on one side, the float limit on the other
    (ABOVE_ZERO, "0", False), (ABOVE_ZERO, "-0.0", False), (ABOVE_ZERO, "0.001", True),
    (ABOVE_ZERO, str(FLOAT_LIMIT - 1), True), (ABOVE_ZERO, LIMIT, False),
    (BELOW_FIVE, "5", False), (BELOW_FIVE, "5.0", False), (BELOW_FIVE, "4.999", True),
    (BELOW_FIVE, "-" + str(FLOAT_LIMIT - 1), True), (BELOW_FIVE, "-" + LIMIT, False),
    (HALVES, "0", False), (HALVES, "0.5", True), (HALVES, "0.25", False), (HALVES, "1" + "0" * 308, True),
    (HALVES, "1" + "0" * 309, False),
]


@pytest.mark.parametrize("schema, text, expected", EXCLUSIVE,
                         ids=[f"{json.dumps(s)}-{t[:12]}" for s, t, _ in EXCLUSIVE])
def test_an_exclusive_bound_on_one_side_holds_beside_the_float_limit(schema: dict[str, Any], text: str,
                                                                     expected: bool) -> None:
    assert accepts(schema, text) == expected


WHERE = [  # (schema, pointer the refusal names): where the step was written, through properties and allOf
    ({"type": "object", "properties": {"price": {"type": "number", "multipleOf": 97}}}, "/properties/price/multipleOf"),
    ({"type": "object", "properties": {"p": {"allOf": [{"type": "number"}, {"multipleOf": 97}]}}},
     "/properties/p/allOf/1/multipleOf"),
]


@pytest.mark.parametrize("schema, pointer", WHERE, ids=[p for _, p in WHERE])
def test_the_refused_step_names_where_it_was_written(schema: dict[str, Any], pointer: str) -> None:
    with pytest.raises(UnsupportedSchemaError) as refused:
        automaton(schema)
    assert refused.value.keyword == "multipleOf" and refused.value.pointer == pointer


def test_two_fractional_steps_name_the_second():
    with pytest.raises(UnsupportedSchemaError) as refused:
        automaton({"allOf": [{"type": "number", "multipleOf": 0.5}, {"multipleOf": 0.3}]})
    assert refused.value.pointer == "/allOf/1/multipleOf"
