"""Property tests: the automaton against independent oracles (json, datetime, an RFC 8259 regex, jsonschema)."""

from __future__ import annotations

import datetime as dt
import json
import math
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.automata.helpers import accepts

SETTINGS = settings(deadline=None, max_examples=300, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# --- strings -------------------------------------------------------------------------------------------

STRING = {"type": "string"}
PIECES = [
    b'"', b"\\", b"u", b"\\u", b'\\"', b"\\\\", b"\\n", b"\\/", b"\\x", b"0", b"7", b"9", b"a", b"F", b"d8", b"D8",
    b"dc", b"DE", b"\\ud83d", b"\\ude00", b"\\uD800", b"\\uDBFF\\uDFFF", b"\\u00e9", b"\x00", b"\x1f", b"\x7f",
    b" ", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"\xed\x9f\xbf", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf",
]
VALID = [b"a", b" ", b"\x7f", b"\\n", b"\\/", b'\\"', b"\\\\", b"\\u00e9", b"\\u0000", b"\\uFFFF", b"\\ud83d\\ude00",
         b"\\uDBFF\\uDFFF", b"\xc3\xa9", b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf"]
LEAD_AND_CONT = st.integers(0x80, 0xFF).map(lambda b: bytes([b]))
HAZARD = st.one_of(st.sampled_from(PIECES), LEAD_AND_CONT, st.binary(max_size=2))
INTERESTING = st.lists(st.one_of(HAZARD, st.sampled_from(VALID)), max_size=10).map(b"".join)
# valid pieces with at most one hazard spliced in: near misses on both sides of the boundary
NEAR_VALID = st.tuples(st.lists(st.sampled_from(VALID), max_size=6), st.just(b"") | HAZARD, st.integers(0, 6)).map(
    lambda t: b"".join(t[0][:t[2]]) + t[1] + b"".join(t[0][t[2]:]))


def json_string_ok(body: bytes) -> bool:
    """RFC 8259 + valid Unicode: strict UTF-8, json.loads succeeds, and the result has no lone surrogate."""
    try:
        value = json.loads((b'"' + body + b'"').decode("utf-8"))
        value.encode("utf-8")
    except (UnicodeError, json.JSONDecodeError):
        return False
    return isinstance(value, str)


@SETTINGS
@given(st.one_of(st.binary(max_size=16), INTERESTING, NEAR_VALID))
def test_string_matches_json_loads(body):
    assert accepts(STRING, b'"' + body + b'"') == json_string_ok(body)


@SETTINGS
@given(st.text(), st.booleans())
def test_any_text_dumped_is_accepted(text, ascii_only):
    assert accepts(STRING, json.dumps(text, ensure_ascii=ascii_only))


@SETTINGS
@given(st.text(max_size=6), st.booleans())
def test_length_counts_code_points(text, ascii_only):
    schema = {"type": "string", "minLength": 2, "maxLength": 4}
    assert accepts(schema, json.dumps(text, ensure_ascii=ascii_only)) == (2 <= len(text) <= 4)


# --- dates ---------------------------------------------------------------------------------------------

DATE = {"type": "string", "format": "date"}


@SETTINGS
@given(st.dates())
def test_every_date_is_accepted(day):
    assert accepts(DATE, f'"{day.isoformat()}"')


def _iso_date_ok(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


TWO = st.one_of(st.integers(0, 99), st.integers(0, 13), st.integers(28, 32))
YEAR = st.one_of(st.integers(0, 9999), st.sampled_from([0, 4, 100, 400, 1900, 2000, 2023, 2024, 9996, 9999]))


@SETTINGS
@given(YEAR, TWO, TWO)
def test_date_shape_matches_fromisoformat(year, month, day):
    text = f"{year:04d}-{month:02d}-{day:02d}"
    assert accepts(DATE, f'"{text}"') == _iso_date_ok(text)


OFFSETS = st.integers(-(24 * 60 - 1), 24 * 60 - 1).map(lambda m: dt.timezone(dt.timedelta(minutes=m)))


@SETTINGS
@given(st.datetimes(timezones=OFFSETS))
def test_aware_datetimes_are_accepted(moment):
    text = moment.isoformat()
    assert accepts({"type": "string", "format": "date-time"}, f'"{text}"')
    assert accepts({"type": "string", "format": "time"}, f'"{text.split("T", 1)[1]}"')


# --- numbers -------------------------------------------------------------------------------------------

NUMBER, INTEGER = {"type": "number"}, {"type": "integer"}
NUMBER_RE = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
INTEGER_RE = r"-?(?:0|[1-9][0-9]*)"
FINITE = st.floats(allow_nan=False, allow_infinity=False)


@SETTINGS
@given(FINITE)
def test_floats_are_numbers_not_integers(x):
    assert accepts(NUMBER, json.dumps(x))
    assert not accepts(INTEGER, json.dumps(x))  # repr of a float always has '.' or 'e'


@SETTINGS
@given(st.integers())
def test_ints_are_numbers_and_integers(n):
    assert accepts(NUMBER, json.dumps(n))
    assert accepts(INTEGER, json.dumps(n))


@SETTINGS
@given(st.text(alphabet="-+.eE0123456789", max_size=8))
def test_number_forms_match_rfc8259(text):
    assert accepts(NUMBER, text) == bool(re.fullmatch(NUMBER_RE, text) and math.isfinite(float(text)))  # no 1e999
    assert accepts(INTEGER, text) == bool(re.fullmatch(INTEGER_RE, text))


# --- structured schemas: valid instances are accepted --------------------------------------------------


def obj(order, required, optional=None):
    """Objects with keys in `order` (properties order); optional keys drawn present or absent."""
    return st.fixed_dictionaries(required, optional=optional or {}).map(lambda d: {k: d[k] for k in order if k in d})


NUMBERS = st.one_of(st.integers(), FINITE)
JSON = st.recursive(st.none() | st.booleans() | NUMBERS | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=12)

PERSON = {"type": "object", "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 8},
    "age": {"type": "integer"},
    "email": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 3},
    "address": {"type": "object", "properties": {
        "city": {"type": "string"}, "zip": {"type": "string", "maxLength": 5},
        "since": {"type": "string", "format": "date"}}, "required": ["city"]},
    "score": {"type": "number"}}, "required": ["name", "age"]}
PERSONS = obj(list(PERSON["properties"]), {"name": st.text(min_size=1, max_size=8), "age": st.integers()}, {
    "email": st.none() | st.text(), "tags": st.lists(st.sampled_from("abc"), max_size=3),
    "address": obj(["city", "zip", "since"], {"city": st.text()},
                   {"zip": st.text(max_size=5), "since": st.dates().map(dt.date.isoformat)}),
    "score": NUMBERS})

TUPLE = {"type": "array", "prefixItems": [{"type": "boolean"}, {"type": "null"}], "items": {"type": "number"},
         "minItems": 1, "maxItems": 5}
TUPLES = st.one_of(st.tuples(st.booleans()).map(list),
                   st.tuples(st.booleans(), st.none(), st.lists(NUMBERS, max_size=3)).map(lambda t: [t[0], t[1], *t[2]]))

ENUM_VALUES = [1, "two", None, True, [3, {"x": "é"}], {"k": "v"}, 2.5, "\n\"\\"]
ENUM = {"type": "array", "items": {"enum": ENUM_VALUES}}
ENUMS = st.lists(st.sampled_from(ENUM_VALUES), max_size=5)

TREE = {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["v"], "additionalProperties": False}
TREES = st.recursive(st.fixed_dictionaries({"v": st.integers()}),
                     lambda inner: obj(["v", "kids"], {"v": st.integers()}, {"kids": st.lists(inner, max_size=3)}),
                     max_leaves=15)

PETS = {"$defs": {
    "Cat": {"type": "object", "properties": {"kind": {"const": "cat"}, "lives": {"type": "integer"}},
            "required": ["kind", "lives"]},
    "Dog": {"type": "object", "properties": {"kind": {"const": "dog"}, "name": {"type": "string"},
                                             "tricks": {"type": "array", "items": {"type": "string"}}},
            "required": ["kind"]}},
    "type": "array", "items": {"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}}
PET_LISTS = st.lists(st.one_of(
    obj(["kind", "lives"], {"kind": st.just("cat"), "lives": st.integers()}),
    obj(["kind", "name", "tricks"], {"kind": st.just("dog")}, {"name": st.text(), "tricks": st.lists(st.text())})),
    max_size=3)

DICT = {"type": "object", "additionalProperties": {}}
DICTS = st.dictionaries(st.text(max_size=5), JSON, max_size=4)

# (id, schema, strategy of valid instances, whether ensure_ascii=True output is accepted too)
STRUCTURED = [
    ("person", PERSON, PERSONS, True),
    ("tuple", TUPLE, TUPLES, True),
    ("enum", ENUM, ENUMS, False),  # enum values are emitted as compact text, raw UTF-8 only
    ("tree", TREE, TREES, True),
    ("pets", PETS, PET_LISTS, True),
    ("dict-any", DICT, DICTS, True),
]


@pytest.mark.parametrize("schema,values,ascii_ok", [r[1:] for r in STRUCTURED], ids=[r[0] for r in STRUCTURED])
def test_valid_instances_are_accepted(schema, values, ascii_ok):
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)

    @settings(SETTINGS, max_examples=150)
    @given(values, st.booleans())
    def check(value, ascii_only):
        validator.validate(value)
        ascii_only = ascii_only and ascii_ok
        assert accepts(schema, json.dumps(value, separators=(",", ":"), ensure_ascii=ascii_only))

    check()
