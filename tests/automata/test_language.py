"""The language of each schema's automaton: rows of (schema, accepted texts, rejected texts)."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.automata import build_automaton
from extractor.errors import ExtractorError, InvalidSchemaError, UnsupportedSchemaError
from extractor.grammar import compile_grammar
from extractor.schema import NormalizeOptions, target_ir
from tests.automata.helpers import accepts, automaton, runs

OBJ = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}, "c": {"type": "boolean"}},
       "required": ["b"]}
OPTIONAL3 = {"type": "object", "properties": {"x": {"type": "null"}, "y": {"type": "null"}, "z": {"type": "null"}}}
TREE = {"type": "object", "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["v"]}


def _tree(depth: int) -> str:
    node = {"v": depth}
    for d in range(depth - 1, 0, -1):
        node = {"v": d, "kids": [node, {"v": 0}]}
    return json.dumps(node, separators=(",", ":"))


_SUBSETS = [keys for n in range(4) for keys in itertools.combinations("xyz", n)]
_PERMS = [p for n in (2, 3) for p in itertools.permutations("xyz", n) if list(p) != sorted(p)]

# (id, schema, accepted, rejected)
ROWS = [
    ("object-required-optional", OBJ,
     ['{"b":"x"}', '{"a":1,"b":"x"}', '{"b":"x","c":true}', '{"a":-2,"b":"","c":false}'],
     ["{}", '{"a":1}', '{"c":true}', '{"a":1,"c":true}', '{"b":"x","a":1}', '{"c":true,"b":"x"}', '{"b":"x","d":1}',
      '{"d":1,"b":"x"}', '{"b":"x",}', '{,"b":"x"}', '{"b":"x","c":true,}', '{"b":1}', '{"a":1,"a":2,"b":"x"}',
      '{ "b":"x"}', '{"b": "x"}', '{"b":"x"} ', '{"b":"x"', '{"B":"x"}', "null"]),
    ("object-all-optional-every-subset", OPTIONAL3,
     ["{" + ",".join(f'"{k}":null' for k in keys) + "}" for keys in _SUBSETS],
     ["{" + ",".join(f'"{k}":null' for k in keys) + "}" for keys in _PERMS] + ['{"x":null,"x":null}', '{"w":null}']),
    ("object-nested", {"type": "object", "properties": {"p": {"type": "object", "properties": {
        "x": {"type": "number"}, "y": {"type": "array", "items": {"type": "string"}}}, "required": ["x"]}},
        "required": ["p"]},
     ['{"p":{"x":1}}', '{"p":{"x":-0.5,"y":[]}}', '{"p":{"x":1e9,"y":["a","b"]}}'],
     ['{"p":{}}', '{"p":{"y":[]}}', '{"p":{"x":1,"y":[1]}}', '{"p":{"x":1},"q":1}', '{"p":null}', '{"x":1}']),
    ("object-closed-empty", {"type": "object", "additionalProperties": False}, ["{}"], ['{"a":1}', "[]", "{ }"]),
    ("array-min-max", {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3},
     ["[1]", "[1,2]", "[1,2,3]", "[-7,0,7]"], ["[]", "[1,2,3,4]", "[1,]", "[,1]", "[1.5]", "[1 ,2]", "[", "[[1]]"]),
    ("array-any", {"type": "array"}, ["[]", '[1,"a",null,[],{}]', "[[[[]]]]"], ["[1,,2]", "[", "{}"]),
    ("array-prefix-closed", {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                             "items": False},
     ["[]", '["a"]', '["a",1]'], ['["a",1,2]', "[1]", '["a","b"]', '[1,"a"]']),
    ("array-prefix-rest-min", {"prefixItems": [{"type": "null"}], "items": {"type": "boolean"}, "minItems": 2},
     ["[null,true]", "[null,true,false,true]"], ["[]", "[null]", "[true,true]", "[null,null]"]),
    ("array-prefix-max", {"prefixItems": [{"type": "null"}, {"type": "null"}, {"type": "null"}], "minItems": 1,
                          "maxItems": 2},
     ["[null]", "[null,null]"], ["[]", "[null,null,null]"]),
    ("array-items-list-draft7", {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "null"}]}, ["[]", "[null]", '[null,{"a":[1]},2]'], ["[1]"]),
    ("enum-mixed", {"enum": [1, "a", None, True, [1, 2], {"k": "v"}, 2.5, "é"]},
     ["1", '"a"', "null", "true", "[1,2]", '{"k":"v"}', "2.5", '"é"'],
     ['"b"', "3", "false", "[1]", '{"k":"w"}', "[1, 2]", "1.0", '"\\u00e9"', "11", '"a"1', ""]),
    ("null", {"type": "null"}, ["null"], ["nul", "Null", "nulll", "", '"null"']),
    ("boolean", {"type": "boolean"}, ["true", "false"], ["True", "1", "tru", "truefalse", "null"]),
    ("integer", {"type": "integer"}, ["0", "-0", "7", "123", "-45", "9007199254740993"],
     ["01", "-01", "00", "1.5", "1.0", "1e3", "+1", "", "-", "--1", " 1", "1 ", "0x1"]),
    ("number", {"type": "number"}, ["0", "-0", "-0.0", "1.5", "1.5e-3", "1E+10", "0e0", "10", "-12.34e56"],
     ["01", ".5", "5.", "+1", "1e", "1.5e+", "--1", "0x1", "Infinity", "NaN", "00", "1.e3", "-", "1.5.2", "1e1.5"]),
    ("string-escapes", {"type": "string"},
     ['""', '"a b"', r'"\n"', r'"\u00e9"', r'"\ud83d\ude00"', r'"\uD83D\uDE00"', '"é"', '"😀"', r'"\/\"\\\b\f\r\t"',
      '"\x7f"', r'"\u0000"', r'"\uffff"'],
     [r'"\ud800"', r'"\ud800x"', r'"\udc00"', r'"\ude00\ud83d"', r'"\ud800\ud800"', '"a\nb"', '"\x01"', '"\x1f"',
      r'"\x"', r'"\u12"', r'"\U00e9"', r'"\a"', b'"\xff"', b'"\xc0\xaf"', b'"\xed\xa0\x80"', b'"\xf4\x90\x80\x80"',
      b'"\xe9"', '"abc', 'abc"', '"a"b"', "'a'"]),
    ("string-length-code-points", {"type": "string", "minLength": 2, "maxLength": 3},
     ['"ab"', '"abc"', '"éé"', '"😀😀😀"', r'"\n\n"', r'"\ud83d\ude00a"', r'"a\u00e9"', '"\u4e2d\u6587"'],
     ['"a"', '"é"', '"abcd"', '"😀"', r'"\ud83d\ude00"', '"éééé"', r'"\n"', '""']),
    ("string-exact-zero", {"type": "string", "maxLength": 0}, ['""'], ['"a"', r'"\n"']),
    ("dict", {"type": "object", "additionalProperties": {"type": "integer"}},
     ["{}", '{"a":1}', '{"a":1,"b":2}', '{"":0}', '{"é\\n":3}'],
     ['{"a":"x"}', '{"a":1,}', "{a:1}", '{"a":1 }', '{"a":1.5}', "[]"]),
    ("any-nested", {"type": "object", "properties": {"meta": {}}, "required": ["meta"]},
     ['{"meta":{"x":[1,{"y":null}],"z":"s"}}', '{"meta":[[[[]]]]}', '{"meta":-1.5e3}', '{"meta":{}}',
      '{"meta":[{"a":{"b":{"c":[true,false,null,"\\u00e9"]}}}]}'],
     ['{"meta":}', '{"meta":[1,]}', '{"meta":{"x"}}', '{"meta":{1:2}}', '{"meta":nul}', '{"meta":{"a":1,}}',
      '{"meta":01}', '{"meta":[1] }']),
    ("any-top", {}, ['"s"', "0", "null", "[{}]", '{"a":[{"b":[]}]}'], ["", "[", "{,}", "tru", "'a'"]),
    ("recursive-tree", TREE, ['{"v":1}', '{"v":1,"kids":[]}', _tree(6), _tree(40)],
     ['{"v":1,"kids":[{"kids":[]}]}', '{"v":1,"kids":[{"v":2,"w":3}]}', _tree(6)[:-1], _tree(6).replace('"v":3', '"v":"3"')]),
    ("format-date", {"type": "string", "format": "date"},
     ['"2024-02-29"', '"2000-02-29"', '"0001-01-01"', '"9999-12-31"', '"2023-04-30"', '"2023-12-31"'],
     ['"2023-02-29"', '"1900-02-29"', '"2024-13-01"', '"2024-00-10"', '"2024-04-31"', '"0000-01-01"', '"2024-1-01"',
      '"20240101"', '"2024-02-30"', '"2024-01-00"', '"2024-01-32"', "2024-01-01", '"2024-01-01T00:00:00Z"']),
    ("format-time", {"type": "string", "format": "time"},
     ['"12:34:56Z"', '"23:59:59.123+05:30"', '"00:00:00-00:00"', '"00:00:00.000001Z"', '"12:34:56z"',
      '"23:59:60Z"', '"23:59:60.5+00:00"'],
     ['"24:00:00Z"', '"12:60:00Z"', '"12:00:60Z"', '"12:34:56"', '"12:34Z"', '"12:34:56+5:30"', '"12:34:56.Z"',
      '"1:02:03Z"', '"12:34:56+24:00"']),
    ("format-date-time", {"type": "string", "format": "date-time"},
     ['"2024-01-02T03:04:05Z"', '"2024-01-02T03:04:05.5+01:00"', '"2024-02-29T23:59:59-12:00"'],
     ['"2024-01-02 03:04:05Z"', '"2024-01-02T03:04:05"', '"2024-01-02"', '"2024-02-30T00:00:00Z"', '"T03:04:05Z"']),
    ("nullable-union", {"anyOf": [{"type": "integer"}, {"type": "null"}, {"type": "string", "maxLength": 1}]},
     ["1", "null", '"a"', '""'], ['"ab"', "1.5", "true"]),
]


@pytest.mark.parametrize("schema,good,bad", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_language(schema, good, bad):
    for text in good:
        assert accepts(schema, text), text
    for text in bad:
        assert not accepts(schema, text), text


@pytest.mark.parametrize("schema,good", [(r[1], r[2]) for r in ROWS], ids=[r[0] for r in ROWS])
def test_accepted_texts_are_valid(schema, good):
    """The oracle agrees with the rows: every accepted text is JSON that the schema validates."""
    cls = jsonschema.validators.validator_for(schema)
    for text in good:
        value = json.loads(text)
        cls(schema, format_checker=cls.FORMAT_CHECKER).validate(value)
        if "format" in schema:
            _check_format(schema["format"], value)


def _check_format(fmt: str, text: str) -> None:
    """RFC 3339 through Python's ISO parser (jsonschema checks `time` only with an optional package).
    Python has no leap seconds: 23:59:60 UTC is checked as 23:59:59."""
    text = text.replace("z", "Z").replace("t", "T").replace("23:59:60", "23:59:59")
    text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text.replace("Z", "+00:00"))
    parsed = {"date": dt.date, "time": dt.time, "date-time": dt.datetime}[fmt].fromisoformat(text)
    assert fmt == "date" or parsed.tzinfo is not None


UNICODE_PROPERTY_ROWS = [
    # ECMA-262 `\p{...}` (general categories): Python's re, and so jsonschema, cannot read these
    ({"type": "string", "pattern": "^\\p{L}+$"}, ['"abc"', '"Ünïcødé"', '"日本"'], ['""', '"a1"', '"a b"']),
    ({"type": "string", "pattern": "^[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*$"}, ['"Key 1:é"', '""', '"a\u00a0b"'],
     ['"a!"', '"tab\\t"']),
    ({"type": "string", "pattern": "^\\P{C}*$"}, ['"plain text ✓"'], ['"a\\u0000"', '"\\u200b"']),
    ({"type": "string", "pattern": "^\\p{Lu}\\p{Ll}+$"}, ['"Ada"', '"Émile"'], ['"ada"', '"ADA"']),
    ({"type": "string", "pattern": "^\\p{gc=Nd}{2}$"}, ['"42"', '"٤٢"'], ['"4"', '"4a"']),
]


PATTERN_PART_ROWS = [
    # leading lookaheads become patterns the string must or must not also match; a long one-class repeat a length
    ({"type": "string", "pattern": "^(?!aws:)(?!db:)[a-z:]{1,128}$"}, ['"k"', '"aws"', '"awsx:"'],
     ['"aws:x"', '"db:a"', '""', '"K"']),
    ({"type": "string", "pattern": "^(?=.*[a-z])(?=.*[A-Z])(?=.*\\d)[^\\x00-\\x20]+$"}, ['"aB3"', '"3Ba"'],
     ['"ab3"', '"AB3"', '"aBc"', '"a B3"']),
    ({"type": "string", "pattern": "^(?=^[a-z0-9-]+$).{3,64}$"}, ['"abc"', '"a-9"'], ['"ab"', '"aBc"']),
    ({"type": "string", "pattern": "^(?!\\s*$).+"}, ['"a"', '" a"'], ['""', '"  "']),
    ({"type": "string", "pattern": "^(?!a|b)."}, ['"c"', '"ca"'], ['"a"', '"bc"']),
    ({"type": "string", "pattern": "^[^\\r\\n]{3,4357}$", "maxLength": 5000}, ['"abc"', '"' + "x" * 4357 + '"'],
     ['"ab"', '"' + "x" * 4358 + '"', '"ab\\n"']),
    ({"type": "string", "pattern": "x:[a-z]{2,900}"}, ['"x:ab"', '"yx:ab!"'], ['"x:a"', '"ab"']),
    # a lookahead after a literal prefix, and `$` closing the groups that end an alternative
    ({"type": "string", "pattern": "^/(?!.*\\.\\.)[a-z/.]+$"}, ['"/a/b.c"', '"/."'], ['"/a/../b"', '"a/b"']),
    ({"type": "string", "pattern": "^env-([0-9a-z]{3}$)"}, ['"env-ab1"'], ['"env-ab12"', '"xenv-ab1"']),
    ({"type": "string", "pattern": "^(a+$)|(b)"}, ['"aa"', '"xbx"'], ['"aax"', '"x"']),
    # a tempered repeat: one character at a time, none where the avoided pattern starts
    ({"type": "string", "pattern": "^(?:(?!ab)[a-z])+$"}, ['"a"', '"ba"', '"bba"'], ['"ab"', '"cab"', '""', '"A"']),
    ({"type": "string", "pattern": "^(?:(?!\\$\\{[a-z]+:)[^\\n])*$"}, ['""', '"${ab"', '"a${:"'],
     ['"x${ab:y"', '"${a:"']),
]


@pytest.mark.parametrize("schema,good,bad", PATTERN_PART_ROWS)
def test_pattern_lookaheads_and_long_repeats(schema, good, bad):
    _check(schema, good, bad)


@pytest.mark.parametrize("pattern", ["a(?=b)", "^a+(?!b)", "(?<=a)b", "^(?=a", "^(?=x)a|b", "a(?!b$)", "^(a|b$)"])
def test_lookarounds_elsewhere_are_refused(pattern):
    with pytest.raises(UnsupportedSchemaError, match="pattern"):
        accepts({"type": "string", "pattern": pattern}, '"a"')


@pytest.mark.parametrize("schema,good,bad", UNICODE_PROPERTY_ROWS)
def test_unicode_property_escapes(schema, good, bad):
    _check(schema, good, bad, validate=False)


@pytest.mark.parametrize("pattern", ["\\p{Script=Latin}", "\\p{Alphabetic}", "\\p{L"])
def test_unsupported_unicode_properties_are_refused(pattern):
    with pytest.raises(UnsupportedSchemaError, match="pattern"):
        accepts({"type": "string", "pattern": pattern}, '"a"')


# (id, schema): no JSON value can be generated, or generation could not terminate
REFUSED_ROWS = [
    ("left-recursive", {"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}}, "$ref": "#/$defs/a"}),
    ("self-alias", {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
    ("items-false-min-1", {"type": "array", "items": False, "minItems": 1}),
    ("prefix-too-short", {"prefixItems": [{}], "items": False, "minItems": 2}),
    ("empty-enum", {"enum": []}),
    ("string-min-over-max", {"type": "string", "minLength": 3, "maxLength": 2}),
    ("required-false", {"type": "object", "properties": {"a": False}, "required": ["a"]}),
    ("required-nothing-deep", {"type": "object", "properties": {"a": {"type": "array", "items": False,
                                                                      "minItems": 1}}, "required": ["a"]}),
    ("min-over-max", {"type": "array", "minItems": 3, "maxItems": 1}),
    ("one-of-every-value-matches-both-or-neither",
     {"oneOf": [{"not": {"required": ["error"]}}, {"properties": {"error": False}}]}),
]


@pytest.mark.parametrize("schema", [r[1] for r in REFUSED_ROWS], ids=[r[0] for r in REFUSED_ROWS])
def test_refused(schema):
    with pytest.raises(InvalidSchemaError):
        automaton(schema)


def test_optional_unsatisfiable_property_is_just_omitted():
    schema = {"type": "object", "properties": {"a": False, "b": {"type": "null"}}}
    assert accepts(schema, '{"b":null}') and accepts(schema, "{}")
    assert not accepts(schema, '{"a":null}')


# (schema, text the automaton accepts although jsonschema says the value is invalid)
UNSOUND = [
    pytest.param({"type": "object", "additionalProperties": {"type": "integer"}, "required": ["a"]}, "{}"),
    pytest.param({"prefixItems": [{"type": "null"}], "minItems": 2, "maxItems": 1}, "[null]"),
    pytest.param({"oneOf": [{"minLength": 1}, {"type": "integer"}]}, "5"),
    pytest.param({"oneOf": [{"const": 1}, {"const": 1.0}]}, "1"),
]


@pytest.mark.parametrize("schema,text", UNSOUND)
def test_no_invalid_value_accepted(schema, text):
    try:
        accepted = accepts(schema, text)
    except ExtractorError:
        return  # refusing the schema (unsatisfiable, or not enforceable exactly) is also correct
    assert not accepted or jsonschema.Draft202012Validator(schema).is_valid(json.loads(text))


OPEN_ROWS = [
    # undeclared keys: any slot, any value, never a declared name (in any spelling we generate)
    ({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}, "required": ["b"]},
     ['{"b":""}', '{"x":1,"b":""}', '{"a":1,"x":[],"b":"","y":{}}', '{"b":"","z":null}', '{"é\\n":0,"b":""}'],
     ['{"a":"s","b":""}', '{"x":1}', '{"b":"","a":1}', '{"a":1,"a":2,"b":""}', '{"b":"","b":""}',
      '{"\\u0061":"s","b":""}', '{"x":1,,"b":""}', '{,"b":""}']),
    ({"type": "object", "properties": {"a": {"type": "null"}}, "additionalProperties": {"type": "boolean"}},
     ['{}', '{"a":null}', '{"q":true,"a":null,"r":false}'], ['{"q":null}', '{"a":true}']),
]


@pytest.mark.parametrize("schema,good,bad", OPEN_ROWS)
def test_open_objects(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=False)



BOUNDED_ROWS = [
    ({"type": "integer", "minimum": 0}, ["0", "7", "120"], ["-1", "-0", "1.0", "01"]),
    ({"type": "integer", "exclusiveMinimum": -3, "maximum": 12}, ["-2", "0", "12"], ["-3", "13", "-10"]),
    ({"type": "integer", "minimum": 1.5, "exclusiveMaximum": 4.0}, ["2", "3"], ["1", "4"]),
    ({"type": "number", "minimum": 0, "maximum": 1}, ["0", "0.5", "1", "1.0", "0.999"], ["1.01", "-0.1", "2"]),
    ({"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 0.75},
     ["0.51", "0.7499", "0.6"], ["0.5", "0.50", "0.75", "0.750", "0.4"]),
    ({"type": "number", "minimum": -2.5}, ["-2.5", "-2.49", "0", "1"], ["-2.51", "-3", "1e9"]),
    ({"type": "number", "minimum": 3, "exclusiveMinimum": True}, ["3.0001", "4"], ["3", "3.0"]),  # draft 4
]


@pytest.mark.parametrize("schema,good,bad", BOUNDED_ROWS)
def test_numeric_bounds(schema, good, bad):
    _check(schema, good, bad, validate=schema.get("exclusiveMinimum") is not True)


def test_empty_numeric_range_is_refused():
    with pytest.raises(InvalidSchemaError):
        automaton({"type": "integer", "minimum": 5, "maximum": 4})


PATTERN_ROWS = [
    # (schema, accepted JSON texts, rejected JSON texts): ECMA semantics, search unless anchored
    ({"type": "string", "pattern": "^[a-z]{1,3}$"}, ['"a"', '"abc"'], ['""', '"abcd"', '"A"']),
    ({"type": "string", "pattern": "b+"}, ['"b"', '"abba"', '"\\nb"'], ['""', '"a"']),
    ({"type": "string", "pattern": "^\\d{3}-\\d{4}$"}, ['"555-0192"'], ['"555-019"', '"５５５-0192"']),
    ({"type": "string", "pattern": "^\\w+$"}, ['"a_1"'], ['"é"', '"a b"']),
    ({"type": "string", "pattern": "^[^\"]*$"}, ['"ab"', '"\\n"'], ['"\\""']),
    ({"type": "string", "pattern": "^a.c$"}, ['"abc"', '"a\\"c"', '"aéc"'], ['"a\\nc"', '"ac"']),
    ({"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 3}, ['"ab"', '"abc"'],
     ['"a"', '"abcd"', '"A1"']),
    ({"type": "string", "format": "date", "pattern": "^2024-"}, ['"2024-02-29"'], ['"2023-02-28"', '"2024-02-30"']),
]


@pytest.mark.parametrize("schema,good,bad", PATTERN_ROWS)
def test_patterns(schema, good, bad):
    _check(schema, good, bad, validate=True)


COUNT_ROWS = [
    ({"type": "object", "properties": {"a": {}, "b": {}, "c": {}}, "minProperties": 2, "maxProperties": 2},
     ['{"a":1,"b":2}', '{"a":1,"c":3}', '{"b":2,"c":3}'], ['{}', '{"a":1}', '{"a":1,"b":2,"c":3}']),
    ({"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2},
     ['{}', '{"x":1}', '{"x":1,"y":2}'], ['{"x":1,"y":2,"z":3}']),
    ({"type": "object", "properties": {"a": {}}, "additionalProperties": True, "minProperties": 1,
      "maxProperties": 3}, ['{"a":1}', '{"x":1}', '{"x":0,"a":1,"y":2}'], ['{}', '{"a":1,"x":1,"y":2,"z":3}']),
    ({"type": "object", "additionalProperties": {}, "minProperties": 2},  # undeclared keys count, never twice
     ['{"x":1,"y":2}', '{"x":1,"y":2,"z":3}'], ['{}', '{"x":1}', '{"x":1,"x":2}']),
    ({"items": [{"type": "integer"}], "additionalItems": {"type": "string"}},  # draft 2019 tuple form
     ['[]', '[1]', '[1,"a","b"]'], ['["a"]', '[1,2]']),
    ({"items": [{"type": "integer"}], "additionalItems": False}, ['[1]'], ['[1,2]']),
]


@pytest.mark.parametrize("schema,good,bad", COUNT_ROWS)
def test_property_counts_and_additional_items(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=False)


def test_min_properties_over_keys_that_cannot_be_kept_apart_is_refused():
    from extractor.errors import UnsupportedSchemaError
    schema = {"type": "object", "propertyNames": {"maxLength": 2}, "minProperties": 2}
    with pytest.raises(UnsupportedSchemaError, match="minProperties"):
        build_automaton(compile_grammar(target_ir(schema, None, NormalizeOptions(strict_objects=False))))


MERGE_ROWS = [
    # allOf and keywords beside $ref / anyOf / enum are intersected
    ({"allOf": [{"type": "string"}, {"type": "string", "maxLength": 2}]}, ['"ab"'], ['"abc"', "1"]),
    ({"allOf": [{"type": "integer", "minimum": 0}, {"maximum": 5}]}, ["0", "5"], ["6", "-1"]),
    ({"$defs": {"p": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}},
      "allOf": [{"$ref": "#/$defs/p"}, {"properties": {"b": {"type": "string"}}, "required": ["b"]}]},
     ['{"a":1,"b":""}'], ['{"a":1}', '{"b":""}', '{"a":"x","b":""}']),
    ({"allOf": [{"properties": {"a": {}}, "additionalProperties": False}, {"properties": {"b": {}}}]},
     ['{"a":1}', "{}"], ['{"b":1}', '{"a":1,"b":1}']),
    ({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "minLength": 2}, ['"ab"'], ['"a"']),
    ({"enum": ["a", "bb", 3], "type": "string", "minLength": 2}, ['"bb"'], ['"a"', "3"]),
    ({"anyOf": [{"type": "string"}, {"type": "integer"}], "minimum": 2}, ["2"], ["1"]),  # implied type: number
    ({"type": "object", "required": ["a"]}, ['{"a":[1]}'], ["{}", '{"b":1}']),
    ({"$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
      "allOf": [{"$ref": "#/$defs/n"}, {"properties": {"next": {"required": ["v"]}, "v": {}}}]},
     ['{}', '{"next":{"v":1}}', '{"next":{"next":{},"v":1},"v":2}'], ['{"next":{}}', '{"next":{"next":{}}}']),
]


@pytest.mark.parametrize("schema,good,bad", MERGE_ROWS)
def test_intersections(schema, good, bad):
    _check(schema, good, bad, loose=False, validate=True)


PATTERN_PROPERTY_ROWS = [
    ({"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
     ['{}', '{"x-a":1,"x-b":2}'], ['{"y":1}', '{"x-a":"s"}']),
    ({"type": "object", "properties": {"x-id": {"type": "string"}},
      "patternProperties": {"^x-": {"minLength": 2}}, "additionalProperties": {"type": "null"}},
     ['{"x-id":"ab"}', '{"x-id":"ab","x-q":"cd","z":null}'], ['{"x-id":"a"}', '{"z":1}', '{"x-q":"c"}']),
    ({"type": "object", "patternProperties": {"a": {"type": "integer"}, "b": {"minimum": 5}},
      "additionalProperties": False},
     ['{"a":1}', '{"b":7.5}', '{"ab":6}'], ['{"ab":4}', '{"ab":5.5}', '{"c":1}']),
]


@pytest.mark.parametrize("schema,good,bad", PATTERN_PROPERTY_ROWS)
def test_pattern_properties(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


NOT_ROWS = [
    ({"not": {"type": "string"}}, ["1", "null", "[]", '{"a":1}', "true"], ['"s"']),
    ({"not": {}}, [], []),
    ({"not": {"not": {"type": "null"}}}, ["null"], ["1"]),
    ({"type": "string", "not": {"enum": ["a", "b"]}}, ['"c"', '"ab"', '""'], ['"a"', '"b"', '"\\u0061"']),
    ({"not": {"enum": [None, True, "x"]}}, ["false", "0", '"y"'], ["null", "true", '"x"']),
    ({"type": "string", "not": {"pattern": "^x"}}, ['"ax"', '""'], ['"x"', '"xyz"', '"\\u0078"']),
    ({"not": {"anyOf": [{"type": "string"}, {"type": "null"}]}}, ["1", "[]"], ['"s"', "null"]),
    ({"allOf": [{"enum": [1, "a"]}, {"not": {"type": "string"}}]}, ["1"], ['"a"']),
    ({"type": "number", "not": {"type": "integer"}}, ["1.5", "-0.01", "1e-05", "2.5E-3"],
     ["1", "1.0", "0", "15e-1", "1e5", "1.5e1"]),
    ({"type": "number", "not": {"enum": [1, 2.5, -3]}}, ["0", "1.5", "2.6", "-3.5", "100"],
     ["1", "1.0", "2.5", "2.50", "-3", "-3e0", "10e-1"]),
    ({"not": {"type": "integer", "minimum": 3}}, ["2", "-7", "3.5", '"s"', "null", "[]"], ["3", "40"]),
    ({"not": {"type": "integer", "exclusiveMaximum": 3}}, ["3", "40", "2.5", "{}"], ["2", "-7"]),
    ({"not": {"type": "array", "items": {"type": "integer"}}}, ['["a"]', '[1,2,null]', "1", '"s"'],
     ["[]", "[1]", "[1,2,3]"]),
    ({"not": {"items": {"enum": [1, 2]}}}, ['[3]', '[1,"a"]'], ["[]", "[1,2,1]", "7", '"s"']),
    ({"not": {"oneOf": [{"type": "integer"}, {"minimum": 2}]}}, ["5", "1.5"], ['"s"', "null", "1", "2.5", "-3"]),
    ({"type": "string", "oneOf": [{"maxLength": 0}, {"minLength": 1, "pattern": "^a"}]}, ['""', '"ab"'],
     ['"b"', "1", "null"]),
    ({"type": "integer", "oneOf": [{"maximum": 0}, {"minimum": 1}]}, ["-3", "0", "7"], ["1.5", '"s"']),
    ({"type": "integer", "oneOf": [{"maximum": 5}, {"minimum": 1}]}, ["0", "6", "-2"], ["1", "3", "5"]),
    ({"not": {"multipleOf": 3}}, ["4", "-7", "1.5"], ["0", "3", "-9", '"s"', "null"]),
    ({"not": {"minLength": 2, "maxLength": 3}}, ['""', '"a"', '"abcd"'], ['"ab"', '"abc"', "3", "{}"]),
    ({"not": {"type": "array", "maxItems": 1}}, ["[1,2]", "3", '"s"'], ["[]", "[1]"]),
    ({"not": {"contains": {"type": "null"}}}, ["[]", "[1]", "[1,2]"], ["[null]", "[1,null]", "3"]),
    ({"type": "array", "not": {"contains": {"const": 1}, "minContains": 2, "maxContains": 3}},
     ["[]", "[1]", "[1,1,1,1]", "[1,null,1,1,1]"], ["[1,1]", "[1,2,1]", "[1,1,1]"]),
    ({"allOf": [{"multipleOf": 2}, {"not": {"type": "integer", "minimum": 0, "multipleOf": 4}}]}, ["2", "-4", "-6"],
     ["4", "8", "0", "3"]),
    ({"type": "object", "not": {"propertyNames": {"not": {"enum": ["a", "b", 1]}}}},
     ['{"a":1}', '{"x":1,"b":2}'], ["{}", '{"x":1}', '{"1":1}']),
    ({"type": "object", "not": {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]}},
     ["{}", '{"a":1,"b":2}', '{"c":1}'], ['{"a":1}', '{"b":2,"c":3}']),
    # a closed object fails by a key outside its properties, as well as by a missing or wrong one
    ({"not": {"properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": False}},
     ['{"a":1,"b":2}', '{"b":2}', '{"a":"x"}', "{}", '{"b":1,"a":1}'], ['{"a":1}', "3"]),
    ({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a"],
      "not": {"properties": {"a": {}}, "additionalProperties": False}},
     ['{"a":1,"b":2}', '{"a":1,"c":3}', '{"c":3,"a":1}'], ['{"a":1}', '{"b":2}']),
    ({"type": "object", "properties": {"a": {}}, "additionalProperties": False,
      "not": {"properties": {"a": {}}, "additionalProperties": False}}, [], ['{"a":1}', "{}"]),
    ({"allOf": [{"not": {"properties": {"a": {}}, "additionalProperties": False}},
                {"not": {"properties": {"b": {}}, "additionalProperties": False}}]},
     ['{"c":1}', '{"a":1,"b":2}', '{"a":1,"c":2}', '{"c":1,"b":2}'], ['{"a":1}', '{"b":1}', "{}", "3"]),
    ({"type": "object", "maxProperties": 2, "not": {"properties": {"a": {}, "b": {}}, "additionalProperties": False}},
     ['{"c":1}', '{"a":1,"c":1}', '{"c":1,"b":2}'], ["{}", '{"a":1,"b":2}', '{"a":1,"b":2,"c":3}']),
]


@pytest.mark.parametrize("schema,good,bad", NOT_ROWS)
def test_not(schema, good, bad):
    if not good:
        with pytest.raises(InvalidSchemaError):
            automaton(schema)
        return
    for text in good:
        assert accepts(schema, text), text
        jsonschema.validate(json.loads(text), schema)
    for text in bad:
        assert not accepts(schema, text), text


MULTIPLE_ROWS = [
    ({"type": "integer", "multipleOf": 3}, ["0", "-3", "3", "333"], ["1", "10", "3.0"]),
    ({"type": "integer", "multipleOf": 5, "minimum": 7, "maximum": 21}, ["10", "20"], ["5", "25", "12"]),
    ({"type": "number", "multipleOf": 2, "minimum": 0.5}, ["2", "4"], ["0", "3", "2.5"]),
    ({"type": "number", "multipleOf": 0.01}, ["1", "1.5", "-0.25"], ["0.001", "1e2"]),
    ({"type": "number", "multipleOf": 0.5, "minimum": 1}, ["1", "1.5", "20"], ["0.5", "1.2", "1.25"]),
    ({"type": "number", "multipleOf": 2.5}, ["0", "-2.5", "7.5", "25"], ["1", "2", "3.5"]),
    ({"type": "integer", "multipleOf": 0.25}, ["0", "7"], ["0.25", "0.5"]),
    ({"allOf": [{"type": "integer", "multipleOf": 4}, {"multipleOf": 6}]}, ["12", "24"], ["4", "6", "18"]),
]


@pytest.mark.parametrize("schema,good,bad", MULTIPLE_ROWS)
def test_multiple_of(schema, good, bad):
    _check(schema, good, bad, loose=False, validate=True)


def test_flexible_whitespace_is_bounded_and_off_by_default():
    from extractor.grammar import CompileOptions, Layout
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}},
              "required": ["a"]}
    flexible = build_automaton(compile_grammar(target_ir(schema, None), CompileOptions(layout=Layout(flexible=8))))
    value = {"a": [1, 2]}
    for text in (json.dumps(value), json.dumps(value, indent=2), ' {"a" : [ 1 ,2 ] }\n'):
        assert runs(flexible, text) and not accepts(schema, text), text
    assert runs(flexible, '{"a":[1,2]}') and accepts(schema, '{"a":[1,2]}')
    assert not runs(flexible, "{" + " " * 9 + "\"a\":[]}")  # nine spaces: past the bound
    assert not runs(flexible, '{"a":[1, 2]} x') and not runs(flexible, '{"a":[1,2 ]}x')


DEPENDENCY_ROWS = [
    ({"type": "object", "properties": {"a": {}, "b": {}}, "dependencies": {"a": ["b"]}},
     ['{}', '{"b":1}', '{"a":1,"b":2}'], ['{"a":1}']),
    ({"type": "object", "properties": {"a": {}, "b": {}}, "dependentRequired": {"b": ["a"]}},
     ['{"a":1}', '{"a":1,"b":2}'], ['{"b":2}']),
    ({"type": "object", "properties": {"a": {}, "b": {"type": "integer"}},
      "dependentSchemas": {"a": {"properties": {"b": {"minimum": 3}}, "required": ["b"]}}},
     ['{"b":1}', '{"a":0,"b":3}'], ['{"a":0}', '{"a":0,"b":2}']),
    ({"not": {"required": ["x", "y"]}}, ['{}', '{"x":1}', '{"y":1}'], ['{"x":1,"y":2}', "3"]),
    # one key under two dependency keywords: both demands hold
    ({"type": "object", "dependentRequired": {"a": ["b"]}, "dependentSchemas": {"a": {"required": ["c"]}}},
     ['{}', '{"a":1,"b":2,"c":3}', '{"b":1}'], ['{"a":1,"c":1}', '{"a":1,"b":1}']),
]


@pytest.mark.parametrize("schema,good,bad", DEPENDENCY_ROWS)
def test_dependencies_and_absent_keys(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


ONE_OF_ROWS = [
    # disjoint by a required key the other option forbids (closed objects)
    ({"oneOf": [{"type": "object", "properties": {"a": {}}, "required": ["a"], "additionalProperties": False},
                {"type": "object", "properties": {"b": {}}, "required": ["b"], "additionalProperties": False}]},
     ['{"a":1}', '{"b":2}'], ['{}', '{"a":1,"b":2}']),
    # disjoint by a key both require, valued apart
    ({"oneOf": [{"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
                {"type": "object", "properties": {"p": {"type": "object"}}, "required": ["p"]}]},
     ['{"p":"x"}', '{"p":{}}'], ["{}", '{"p":1}']),
    # a key one option requires and the other declares with another value
    ({"type": "object", "oneOf": [{"properties": {"op": {"enum": ["or"]}}, "required": ["v"]},
                                  {"properties": {"op": {"enum": ["eq"]}}, "required": ["op", "v"]}]},
     ['{"v":1}', '{"op":"or","v":1}', '{"op":"eq","v":1}'], ['{"op":"x","v":1}', '{"op":"eq"}', '"s"']),
    # no type declared, every option about objects only: any other value matches both, so none is valid
    ({"oneOf": [{"required": ["a"], "properties": {"a": {"type": "string"}}},
                {"required": ["a"], "properties": {"a": {"type": "integer"}}}]},
     ['{"a":"s"}', '{"a":1}'], ['"s"', "{}", '{"a":null}', "3"]),
    # an option that is itself a union, against another type
    ({"oneOf": [{"oneOf": [{"type": "null"}, {"enum": ["L", "R"], "type": "string"}]},
                {"type": "array", "items": {"type": "null"}}]}, ["null", '"L"', "[null]"], ['"X"', "[1]"]),
]


@pytest.mark.parametrize("schema,good,bad", ONE_OF_ROWS)
def test_one_of_disjoint(schema, good, bad):
    _check(schema, good, bad, loose=False, validate=True)


# overlapping options: "this one and none of the others", through exact complements
ONE_OF_OVERLAP_ROWS = [
    ({"oneOf": [{"type": "object", "properties": {"a": {}}, "required": ["a"]},
                {"type": "object", "properties": {"b": {}}, "required": ["b"]}]},
     ['{"a":1}', '{"b":2}', '{"a":1,"c":3}'], ['{"a":1,"b":2}', "{}", '{"c":1}']),
    ({"type": "string", "oneOf": [{"pattern": "^[0-9a-f]{2}$"}, {"pattern": "^[0-9A-F]{2}$"}]},
     ['"af"', '"AF"'], ['"12"', '"aF"', '"abc"']),
    ({"type": "string", "oneOf": [{"pattern": "^2"}, {"enum": ["latest", "2024"]}]},
     ['"latest"', '"2023"'], ['"2024"', '"x"']),
    ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, ["1.5"], ["1", "1.0", '"a"']),
    ({"oneOf": [{}, {"type": "null"}]}, ["1", '"a"'], ["null"]),
    ({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]}, ['"a"', '"c"'], ['"b"']),
    ({"$defs": {"n": {"type": "number", "maximum": 10}}, "oneOf": [{"$ref": "#/$defs/n"}, {"type": "number", "minimum": 5}]},
     ["3", "-1", "4.5", "10.5"], ["5", "7", "10", '"a"']),
    ({"oneOf": [{"type": "number", "exclusiveMaximum": 3}, {"minimum": 1}]},
     ["0", "-2.5", "3", "100"], ["1", "2.9"]),  # strings: implied-type policy
    ({"oneOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "array", "maxItems": 2}]},
     ["[1,2,3]", '["a"]', '["a","b"]'], ["[]", "[1]", "[1,2]", '["a",1,2]', "3"]),
]


@pytest.mark.parametrize("schema,good,bad", ONE_OF_OVERLAP_ROWS)
def test_one_of_overlapping(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


@pytest.mark.parametrize("schema", [
    {"oneOf": [{"type": "string", "format": "email"}, {"type": "string", "maxLength": 5}]},
])
def test_one_of_overlapping_without_complement_is_refused(schema):
    from extractor.errors import UnsupportedSchemaError
    with pytest.raises(UnsupportedSchemaError, match="oneOf"):
        target_ir(schema, None, NormalizeOptions(strict_objects=False))


def test_one_of_never_trusts_a_type_narrowed_by_sibling_keywords():
    """5 matches both options (minLength ignores integers), so no value is valid: refused or unsatisfiable,
    never the integers a narrowed first option would leave to the second."""
    from extractor.errors import UnsatisfiableSchemaError, UnsupportedSchemaError
    schema = {"oneOf": [{"anyOf": [{"type": "integer"}], "minLength": 3}, {"type": "integer"}]}
    with pytest.raises((UnsupportedSchemaError, UnsatisfiableSchemaError)):
        automaton(schema)


def _check(schema, good, bad, *, loose=False, validate=True):
    """Each good text accepted (and valid for jsonschema), each bad one rejected."""
    auto = build_automaton(compile_grammar(target_ir(schema, None, NormalizeOptions(strict_objects=not loose))))
    for text in good:
        assert runs(auto, text), text
        if validate:
            jsonschema.validate(json.loads(text), schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for text in bad:
        assert not runs(auto, text), text


PROPERTY_NAME_ROWS = [
    ({"type": "object", "propertyNames": {"maxLength": 2}}, ['{}', '{"ab":1,"c":[]}'], ['{"abc":1}']),
    ({"type": "object", "properties": {"long": {}}, "propertyNames": {"pattern": "^[a-z]{1,3}$"}},
     ['{"ab":1}'], ['{"long":1}', '{"AB":1}']),
    ({"type": "object", "propertyNames": {"enum": ["x", "y"]}}, ['{"x":1,"y":2}'], ['{"z":1}']),
    ({"type": "object", "propertyNames": False}, ['{}'], ['{"a":1}']),
    ({"type": "object", "propertyNames": {"not": {"pattern": "^_"}}}, ['{"a":1}'], ['{"_a":1}']),
]


@pytest.mark.parametrize("schema,good,bad", PROPERTY_NAME_ROWS)
def test_property_names(schema, good, bad):
    _check(schema, good, bad, loose=True)


IF_ROWS = [
    ({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"type": "integer"}},
     ['"ab"', "3"], ['"a"', "null", "1.5"]),
    ({"type": "object", "properties": {"kind": {"enum": ["a", "b"]}, "n": {"type": "integer"}},
      "if": {"properties": {"kind": {"const": "a"}}, "required": ["kind"]}, "then": {"required": ["n"]}},
     ['{"kind":"a","n":1}', '{"kind":"b"}', "{}"], ['{"kind":"a"}']),
]


@pytest.mark.parametrize("schema,good,bad", IF_ROWS)
def test_if_then_else(schema, good, bad):
    _check(schema, good, bad, loose=True)


def test_nested_id_is_the_base_of_refs_below_it():
    # before: "#/$defs/x" resolved against the root document, silently picking the string definition
    schema = {"$id": "http://example.com/root.json", "$defs": {"x": {"type": "string"}},
              "properties": {"a": {"$id": "http://example.com/sub/item.json", "$defs": {"x": {"type": "integer"}},
                                   "properties": {"b": {"$ref": "#/$defs/x"}}}}}
    _check(schema, ['{"a":{"b":1}}'], ['{"a":{"b":"s"}}'], loose=True)


ENUM_BESIDE_ROWS = [  # structured constants filtered by the keywords beside them
    ({"enum": [[1, "a"], [1, 2], ["a"], ["a", "b", "c"]], "contains": {"type": "string"}, "maxContains": 2},
     ['[1,"a"]', '["a"]'], ["[1,2]", '["a","b","c"]']),
    ({"enum": [3, 4, 6.0, "a"], "multipleOf": 2}, ["4", "6.0", '"a"'], ["3"]),
    ({"allOf": [{"enum": [{"foo": 1}, {"foo": "x"}, {"bar": 1}]},
                {"properties": {"foo": {"type": "integer"}}, "required": ["foo"]}]},
     ['{"foo":1}'], ['{"foo":"x"}', '{"bar":1}']),
    ({"enum": [[1, 2], [1, 2, 3], ["a"]], "items": {"type": "integer"}, "maxItems": 2},
     ["[1,2]"], ["[1,2,3]", '["a"]']),
    ({"enum": [{"a": 1, "b": 2}, {"a": 1}], "additionalProperties": False, "properties": {"a": {}}},
     ['{"a":1}'], ['{"a":1,"b":2}']),
    ({"enum": [{"x1": 1}, {"y": 1}, {}], "patternProperties": {"^x": {"type": "integer"}}, "minProperties": 1,
      "additionalProperties": False}, ['{"x1":1}'], ['{"y":1}', "{}"]),
]


@pytest.mark.parametrize("schema,good,bad", ENUM_BESIDE_ROWS)
def test_structured_enum_beside_keywords(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


CONTAINS_ROWS = [
    ({"type": "array", "contains": {"type": "array", "items": {"type": "null"}}},  # nested: its miss has one too
     ["[[]]", "[1,[null]]", "[[1],[null,null]]", "[3,[null],[1]]"], ["[]", "[1]", "[[1]]", "[[1],2]", "[[null,1]]"]),
    ({"type": "array", "contains": {"type": "integer"}}, ["[1]", '["a",1]', "[1,2]"], ["[]", '["a"]', "[1.5]"]),
    ({"type": "array", "contains": {"type": "integer"}, "minContains": 2, "maxContains": 3},
     ["[1,2]", '[1,"a",2,3]'], ["[1]", "[1,2,3,4]", '["a"]']),
    ({"type": "array", "items": {"type": "integer"}, "contains": {"minimum": 5}}, ["[5]", "[1,7]"], ["[1,2]", "[]"]),
    ({"type": "array", "prefixItems": [{"type": "string"}], "contains": {"type": "string"}, "maxContains": 1},
     ['["a"]', '["a",1]'], ['["a","b"]']),
    ({"type": "array", "contains": {"const": 1}, "minContains": 0, "maxContains": 1}, ["[]", "[1]", "[2,1]"],
     ["[1,1]"]),
    ({"type": "array", "contains": {"type": "integer"}, "maxItems": 3}, ["[1]", "[1,2,3]"], ["[1,2,3,4]", "[]"]),
    ({"type": "array", "contains": {"type": "object", "properties": {"k": {"const": 1}}, "required": ["k"]}},
     ['[{"k":1}]', '[{"k":2},{"k":1}]'], ['[{"k":2}]', "[{}]"]),
    ({"type": "array", "contains": {"type": "null"}, "maxContains": 1, "allOf": [{"contains": {"type": "null"},
      "maxContains": 1}]}, ["[null]"], ["[null,null]"]),
]


@pytest.mark.parametrize("schema,good,bad", CONTAINS_ROWS)
def test_contains(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


UNIQUE_ROWS = [
    ({"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True},
     ["[]", '["a"]', '["c","a"]', '["b","c","a"]'], ['["a","a"]', '["a","b","a"]', '["d"]']),
    ({"type": "array", "items": {"type": "boolean"}, "uniqueItems": True, "minItems": 2},
     ["[true,false]", "[false,true]"], ["[true]", "[true,true]", "[true,false,true]"]),
    ({"type": "array", "items": {"enum": [1, 1.0, 2, None]}, "uniqueItems": True, "maxItems": 2},
     ["[1,2]", "[1.0,null]"], ["[1,1.0]", "[1,2,null]"]),
    ({"type": "array", "prefixItems": [{"const": "x"}], "items": {"enum": ["x", "y"]}, "uniqueItems": True},
     ['["x"]', '["x","y"]'], ['["x","x"]', '["y"]']),
    ({"type": "array", "uniqueItems": True, "maxItems": 1}, ["[]", "[[1,1]]"], ["[1,2]"]),
]


@pytest.mark.parametrize("schema,good,bad", UNIQUE_ROWS)
def test_unique_items_over_finite_sets(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


UNIQUE_OPEN_ROWS = [  # items kept apart by value by the matcher: numbers, objects, bounded strings
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
     ["[]", "[1,2,10]", "[-1,1]"], ["[1,1]", "[1,2,1]", "[0,-0]"]),
    ({"type": "array", "items": {"type": "number"}, "uniqueItems": True},
     ["[1,1.5]", "[0.1,0.01]"], ["[1,1.0]", "[1.5,15e-1]", "[100,1e2]"]),
    ({"type": "array", "items": {"type": "object"}, "uniqueItems": True},
     ['[{"a":1},{"a":2}]', '[{"a":1},{"b":1}]', '[{"a":[1]},{"a":[1,1]}]'],
     ['[{"a":1},{"a":1}]', '[{"a":1,"b":2},{"b":2,"a":1}]', '[{},{}]']),
    ({"type": "array", "items": {"type": "string", "maxLength": 4}, "uniqueItems": True},
     ['["a","ab"]', '["a","A"]'], ['["a","a"]', '["ab","a","ab"]', '["a","\\u0061"]']),
    ({"type": "array", "items": {}, "uniqueItems": True},
     ['[1,true,"1",[1],{"1":1},null]', '[0,false]', '[[],{}]'], ['[1,true,1]', '[null,null]', '[[1,2],[1,2]]']),
    ({"type": "array", "items": {"enum": [f"v{i}" for i in range(20)]}, "uniqueItems": True},
     ['["v1","v2","v19"]'], ['["v1","v2","v1"]']),
]


@pytest.mark.parametrize("schema,good,bad", UNIQUE_OPEN_ROWS)
def test_unique_items_over_open_sets(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


ONE_SIDED_PATTERN_ROWS = [  # patternProperties/propertyNames on one side of an intersection
    ({"type": "object", "patternProperties": {"^x": {"type": "integer"}},
      "allOf": [{"properties": {"x1": {"minimum": 3}, "y": {"type": "string"}}}]},
     ['{"x1":3}', '{"x2":-1}', '{"y":"s","z":null}'], ['{"x1":1}', '{"x1":"a"}', '{"x2":"a"}', '{"y":1}']),
    ({"type": "object", "propertyNames": {"maxLength": 2}, "allOf": [{"properties": {"ab": {"type": "integer"}}}]},
     ['{"ab":1}', '{"c":"x"}'], ['{"ab":"x"}', '{"abc":1}']),
    ({"type": "object", "patternProperties": {"^[a-f]$": {"type": "integer"}}, "additionalProperties": False,
      "dependencies": {"a": ["b"], "b": ["c"], "c": ["d"], "d": ["e"], "e": ["f"]}},
     ['{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}', '{"f":1}', "{}"], ['{"a":1}', '{"e":1}', '{"g":1}']),
]


@pytest.mark.parametrize("schema,good,bad", ONE_SIDED_PATTERN_ROWS)
def test_one_sided_pattern_intersections_and_many_dependencies(schema, good, bad):
    _check(schema, good, bad, loose=True, validate=True)


@pytest.mark.parametrize("schema,good,bad", [
    ({"minLength": 2}, ['"ab"', "1", "null", "[]", "{}"], ['"a"']),
    ({"properties": {"a": {"type": "integer"}}, "maximum": 3}, ['{"a":1}', "2", '"s"', "[1]"], ['{"a":"x"}', "4"]),
])
def test_spec_reading_without_implied_types(schema, good, bad):
    auto = build_automaton(compile_grammar(target_ir(schema, None, NormalizeOptions(strict_objects=False,
                                                                                    implied_types=False))))
    for text in good:
        assert runs(auto, text), text
        jsonschema.validate(json.loads(text), schema)
    for text in bad:
        assert not runs(auto, text), text


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(), st.text(alphabet=st.sampled_from(["a", "\"", "\\", "\n", "\x7f", "\u2028", "é", "😀",
                                                              "\ud800", "\udfff"]))))
def test_a_string_is_written_as_json_dumps_writes_it(text: str) -> None:
    """`dumps` encodes strings directly with json's own encoders: the same text as json.dumps, lone
    surrogates (which UTF-8 cannot carry) escaped."""
    from extractor.lang.json_terms import dumps

    expected = json.dumps(text, ensure_ascii=False)
    try:
        expected.encode()
    except UnicodeEncodeError:
        expected = json.dumps(text)
    assert dumps(text) == expected


NESTED_OPEN = {"type": "object",
               "properties": {"a": {"type": "object", "properties": {"b": {}}}, "c": {"type": "array"}}}


@pytest.mark.parametrize("layout", ["compact", "spaced", "pretty", "free"])
def test_any_value_rules_built_once_equal_those_built_in_place(layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """Any value's rules are built once per process and layout: a grammar taking them from that store has the
    rules and leaves of a grammar building them in place, whichever indentation level filled the store."""
    from extractor.grammar import compile as grammar_compile
    from extractor.grammar.compile import CompileOptions, _Compiler
    from extractor.lang.regex import digest

    options = CompileOptions(layout=layout)
    schema = target_ir(NESTED_OPEN, None, NormalizeOptions(strict_objects=False))
    deeper = target_ir({"type": "object", "properties": {"x": NESTED_OPEN}}, None,
                       NormalizeOptions(strict_objects=False))
    monkeypatch.setattr(grammar_compile, "_ANY_VALUES", {})
    compile_grammar(deeper, options)  # the store filled from a deeper level first
    stored = compile_grammar(schema, options)
    monkeypatch.setattr(_Compiler, "any_value", _Compiler.build_any_value)
    in_place = compile_grammar(schema, options)
    assert {k: digest(v) for k, v in stored.rules.items()} == {k: digest(v) for k, v in in_place.rules.items()}
    assert stored.leaves == in_place.leaves and any(k.startswith("value") for k in stored.rules)
