"""Schema -> IR: what each schema becomes, and what is refused, rejected or warned about, and where."""

from __future__ import annotations

import warnings
from typing import Literal, Optional, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from extractor.errors import InvalidSchemaError, SchemaWarning, UnsupportedSchemaError
from extractor.grammar import compile_grammar
from extractor.schema import NormalizeOptions, normalize, target_ir
from extractor.schema.normalize import MAX_JSON_DEPTH, _plain, check_document
from extractor.schema.ir import (
    AnyValue, Array, Boolean, Const, Nothing, Null, Number, Object, Property, Ref, String, Union_,
)
from tests.automata.helpers import accepts, automaton

INT, NUM, STR = Number(integer=True), Number(), String()


class Maybe(BaseModel):
    a: Optional[int] = None
    b: str


class Tree(BaseModel):
    value: int
    children: list["Tree"] = []


class Cat(BaseModel):
    kind: Literal["cat"]
    lives: int


class Dog(BaseModel):
    kind: Literal["dog"]
    name: str


class Owner(BaseModel):
    pet: Union[Cat, Dog] = Field(discriminator="kind")


def ir_of(target):
    return normalize(target) if isinstance(target, (dict, bool)) else target_ir(target, refusal=None)


# (id, schema or model, expected root, expected defs)
IR_ROWS = [
    ("pydantic-optional", Maybe, Object((Property("a", Union_((INT, Null())), False), Property("b", STR, True))), {}),
    ("pydantic-recursive", Tree, Ref("Tree"),
     {"Tree": Object((Property("value", INT, True), Property("children", Array(items=Ref("Tree")), False)))}),
    ("enum-type-filter", {"type": "string", "enum": ["a", 1, None, "b"]}, Const(('"a"', '"b"')), {}),
    ("enum-type-list", {"type": ["integer", "null"], "enum": [1, 1.5, None, "x", True]}, Const(("1", "null")), {}),
    ("enum-number-keeps-int", {"type": "number", "enum": [1, 2.5, True]}, Const(("1", "2.5")), {}),
    ("enum-untyped-compact", {"enum": ["é", {"k": [1, 2]}, False]}, Const(('"é"', '{"k":[1,2]}', "false")), {}),
    ("enum-dedup", {"enum": ["a", "a"]}, Const(('"a"',)), {}),
    ("enum-empty", {"enum": []}, Nothing(), {}),
    ("const", {"const": "x"}, Const(('"x"',)), {}),
    ("const-null", {"const": None}, Const(("null",)), {}),
    ("const-wrong-type", {"type": "string", "const": 1}, Nothing(), {}),
    ("const-and-enum", {"const": 1, "enum": [1, 2]}, Const(("1",)), {}),
    ("const-not-in-enum", {"const": 3, "enum": [1, 2]}, Nothing(), {}),
    ("ref-defs", {"$defs": {"a": {"type": "string"}}, "$ref": "#/$defs/a"}, Ref("a"), {"a": STR}),
    ("ref-definitions", {"definitions": {"a": {"type": "null"}}, "properties": {"x": {"$ref": "#/definitions/a"}}},
     Object((Property("x", Ref("a"), False),)), {"a": Null()}),
    ("ref-shared-once", {"$defs": {"a": {"type": "boolean"}},
                         "prefixItems": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]},
     Array(prefix=(Ref("a"), Ref("a"))), {"a": Boolean()}),
    ("ref-to-boolean", {"$defs": {"b": True}, "$ref": "#/$defs/b"}, AnyValue(), {}),
    ("ref-under-id-with-empty-fragment", {"$id": "http://example.com/s.json#", "definitions": {"a": {"type": "null"}},
                                          "properties": {"x": {"$ref": "#/definitions/a"}}},
     Object((Property("x", Ref("a"), False),)), {"a": Null()}),
    ("items-list-draft4", {"items": [{"type": "string"}, {"type": "integer"}]}, Array(prefix=(STR, INT)), {}),
    ("prefix-closed", {"prefixItems": [{"type": "null"}], "items": False, "minItems": 1},
     Array(items=None, prefix=(Null(),), min_items=1), {}),
    ("array-bounds", {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 3.0},
     Array(items=NUM, min_items=1, max_items=3), {}),
    ("bool-true", True, AnyValue(), {}),
    ("bool-false", False, Nothing(), {}),
    ("bool-subschemas", {"properties": {"a": True, "b": False}},
     Object((Property("a", AnyValue(), False), Property("b", Nothing(), False))), {}),
    ("empty", {}, AnyValue(), {}),
    ("annotations-only", {"title": "t", "description": "d", "examples": [1], "default": 2}, AnyValue(), {}),
    ("type-list", {"type": ["string", "null"]}, Union_((STR, Null())), {}),
    ("integer-and-number", {"type": ["integer", "number"]}, NUM, {}),
    ("implied-string", {"minLength": 2}, String(min_length=2), {}),
    ("implied-array", {"maxItems": 3}, Array(max_items=3), {}),
    ("implied-object", {"properties": {}}, Object(), {}),
    ("string-bounds", {"type": "string", "minLength": 1, "maxLength": 4}, String(1, 4), {}),
    ("string-empty-range", {"type": "string", "minLength": 3, "maxLength": 2}, Nothing(), {}),
    ("format", {"type": "string", "format": "date-time"}, String(format="date-time"), {}),
    ("anyof-dedup", {"anyOf": [{"type": "string"}, {"type": "string"}]}, STR, {}),
    ("anyof-drops-false", {"anyOf": [False, {"type": "null"}]}, Null(), {}),
    ("allof-single", {"allOf": [{"type": "null"}], "description": "d"}, Null(), {}),
    ("allof-required-member-without-value", {"type": "object", "allOf": [{"properties": {"a": False}},
                                                                         {"required": ["a"]}]}, Nothing(), {}),
    ("required-member-without-value", {"type": "object", "required": ["a"], "properties": {"a": False}}, Nothing(),
     {}),
    ("allof-of-references-meeting-nothing", {"$defs": {"s": {"type": "string"}, "n": {"type": "integer"}},
                                             "allOf": [{"$ref": "#/$defs/s"}, {"$ref": "#/$defs/n"}]},
     Nothing(), {"s": String(pointer="/$defs/s"), "n": INT, "s&n#0": Nothing()}),
    ("not-closed-object-met-only-by-a-key-declared-here", {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "additionalProperties": False, "not": {"type": "object", "properties": {"a": {}}, "additionalProperties": False}},
     Object((Property("a", String(pointer="/properties/a"), False), Property("b", String(pointer="/properties/b"), True))),
     {}),
    ("dict", {"type": "object", "additionalProperties": {"type": "integer"}}, Object(additional=INT), {}),
    ("strict-objects-close-true", {"type": "object", "properties": {"a": {}}, "additionalProperties": True},
     Object((Property("a", AnyValue(), False),)), {}),
    ("closed-empty", {"type": "object", "additionalProperties": False}, Object(), {}),
    ("nested-object", {"type": "object", "properties": {"p": {"type": "object", "properties": {
        "x": {"type": "number"}}, "required": ["x"]}}, "required": ["p"]},
     Object((Property("p", Object((Property("x", NUM, True),)), True),)), {}),
]


@pytest.mark.parametrize("schema,root,defs", [r[1:] for r in IR_ROWS], ids=[r[0] for r in IR_ROWS])
def test_ir(schema, root, defs):
    result = ir_of(schema)
    assert result.root == root
    assert result.defs == defs


def test_recursion_through_root_ref():
    result = normalize({"type": "object", "properties": {"next": {"$ref": "#"}, "v": {"type": "null"}}})
    (name,) = result.defs
    assert result.root == Object((Property("next", Ref(name), False), Property("v", Null(), False)))
    assert result.defs[name] == result.root


def test_strict_objects_off_leaves_objects_open():
    loose = NormalizeOptions(strict_objects=False)
    assert normalize({"type": "object"}, loose).root == Object(additional=AnyValue())
    assert normalize({"type": "object", "properties": {"a": {}}}, loose).root == Object(
        (Property("a", AnyValue(), False),), additional=AnyValue())


def test_refusal_branch_is_a_union_by_default():
    assert target_ir({"type": "null"}).root == Union_((Null(), Object((Property("error", STR, True),))))


# (schema, keyword, pointer)
UNSUPPORTED_ROWS = [
    ({"properties": {"a": {"type": "string", "pattern": "(?=x)"}}}, "pattern", "/properties/a/pattern"),
    ({"type": "number", "multipleOf": 0.123456789}, "multipleOf", "/multipleOf"),
    ({"properties": {"a/b~c": {"multipleOf": 1.00001}}}, "multipleOf", "/properties/a~1b~0c/multipleOf"),
    ({"anyOf": [{"type": "string"}, {"type": "string", "pattern": "(a)\\1"}]}, "pattern", "/anyOf/1/pattern"),
    ({"type": "string", "pattern": "a\\b"}, "pattern", "/pattern"),
    ({"prefixItems": [{}, {"multipleOf": 2e9}]}, "multipleOf", "/prefixItems/1/multipleOf"),
    ({"not": {"minProperties": 1}}, "not", "/not"),
    ({"type": "array", "unevaluatedItems": False}, "unevaluatedItems", "/unevaluatedItems"),
    ({"type": "object", "propertyNames": {"format": "email"}}, "propertyNames", "/propertyNames"),
    ({"if": {"minProperties": 1}, "then": {}}, "if", "/if"),
    ({"oneOf": [{"type": "string"}, {"type": "string", "format": "email"}]}, "oneOf", ""),
    ({"properties": {"v": {"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "maxLength": 10}]}}},
     "oneOf", "/properties/v"),
    ({"type": "array", "contains": {"type": "string", "format": "email"}}, "contains", "/contains"),
    ({"type": "object", "not": {"propertyNames": {"maxLength": 3}}}, "not", "/not/propertyNames"),
    ({"type": "string", "format": "uri-template"}, "format", "/format"),
    ({"properties": {"id": {"type": "string", "format": "iri"}}}, "format", "/properties/id/format"),
    ({"properties": {}, "items": {}}, "type", ""),
    # numbers past what the digit automata are built for, and counts no output could meet
    ({"type": "integer", "minimum": 10**28}, "minimum", "/minimum"),
    ({"type": "integer", "maximum": 10**400}, "maximum", "/maximum"),
    ({"type": "number", "minimum": 1e250}, "minimum", "/minimum"),
    ({"properties": {"p": {"type": "number", "exclusiveMaximum": 1e-300}}}, "exclusiveMaximum",
     "/properties/p/exclusiveMaximum"),
    ({"type": "string", "minLength": 2**70}, "minLength", "/minLength"),
    ({"type": "array", "minItems": 2**70}, "minItems", "/minItems"),
]


@pytest.mark.parametrize("schema,keyword,pointer", UNSUPPORTED_ROWS)
def test_unsupported(schema, keyword, pointer):
    with pytest.raises(UnsupportedSchemaError) as err:
        normalize(schema)
    assert (err.value.keyword, err.value.pointer) == (keyword, pointer)


POINTER_BUGS = [
    pytest.param({"properties": {"x": {"items": [{"format": "iri"}]}}}, "format", "/properties/x/items/0/format"),
    pytest.param({"$defs": {"x": {"multipleOf": 0.000123457}}, "$ref": "#/$defs/x"}, "multipleOf", "/$defs/x/multipleOf"),
]


@pytest.mark.parametrize("schema,keyword,pointer", POINTER_BUGS)
def test_unsupported_pointer_bugs(schema, keyword, pointer):
    test_unsupported(schema, keyword, pointer)


@pytest.mark.parametrize("schema,keyword,pointer", [
    ({"type": "object", "maxProperties": 20000}, "maxProperties", "/maxProperties"),
    ({"type": "string", "pattern": "^(ab){20000}$"}, "pattern", "/pattern"),
])
def test_unsupported_bounds_at_compile_time(schema, keyword, pointer):
    with pytest.raises(UnsupportedSchemaError) as err:
        compile_grammar(normalize(schema))
    assert (err.value.keyword, err.value.pointer) == (keyword, pointer)


# (schema, pointer)
INVALID_ROWS = [
    ({"type": "foo"}, "/type"),
    ({"type": []}, "/type"),
    ({"type": ["string", "bar"]}, "/type"),
    ({"properties": {"a": {"type": "str"}}}, "/properties/a/type"),
    ({"$ref": "#/$defs/missing"}, ""),
    ({"properties": {"a": {"$ref": "#/$defs/nope"}}}, "/properties/a"),
    ({"$ref": "other.json"}, ""),
    ({"properties": {"a": 3}}, "/properties/a"),
    ({"properties": [1]}, ""),
    ({"enum": "abc"}, "/enum"),
    ({"$ref": 5}, "/$ref"),
    ({"properties": {"a": {"$ref": ["#"]}}}, "/properties/a/$ref"),
    ({"type": "string", "minLength": -1}, "/minLength"),
    ({"type": "string", "maxLength": 1.5}, "/maxLength"),
    ({"type": "array", "minItems": "2"}, "/minItems"),
    ({"$schema": 5}, ""),
    ({"type": "string", "format": ["email"]}, "/format"),
    ({"properties": {"a": {"type": "string"}}, "$defs": [1]}, "/$defs"),
    ({"type": "string", "definitions": "x"}, "/definitions"),
    ({"$ref": "#/$defs/a", "$defs": {"a": {"$schema": ["x"], "type": "string"}}}, "/$defs/a"),
    ({"$defs": {"a": {"$id": "a.json", "$schema": 1}}, "$ref": "a.json"}, ""),
    ("string", ""),
    (3, ""),
    (None, ""),
    ([{"type": "string"}], ""),
]


@pytest.mark.parametrize("schema,pointer", INVALID_ROWS)
def test_invalid(schema, pointer):
    with pytest.raises(InvalidSchemaError) as err:
        normalize(schema)
    assert err.value.pointer == pointer


def test_relative_ref_against_id():
    schema = {"$id": "http://example.com/root.json", "$defs": {"a": {"$id": "item.json", "type": "null"}},
              "$ref": "item.json"}
    assert normalize(schema).defs == {"item.json": Null()} or accepts(schema, "null")


@pytest.mark.parametrize("schema,pointer", [({"enum": ["a", "\ud800"]}, "/enum/1"),
                                            ({"properties": {"\udc00": {}}}, "/properties/\\udc00"),
                                            ({"const": {"k": ["x\udbff"]}}, "/const/k/0")])
def test_a_lone_surrogate_in_the_schema_is_refused(schema, pointer):
    with pytest.raises(InvalidSchemaError, match="lone surrogate") as err:
        normalize(schema)
    assert err.value.pointer == pointer


def _nested(levels: int) -> list:
    out: list = []
    for _ in range(levels - 1):
        out = [out]
    return out


def _cycle() -> dict:
    d: dict = {"type": "object"}
    d["properties"] = {"a": d}
    return d


class _Text(str):
    pass


# (document, whether the quick pass takes it, what the check raises or None): the quick pass says True only where
# the walk finds nothing; where it is unsure the check goes on as before
PLAIN_ROWS = [
    ({"type": "string", "enum": ["é", 1.5, None]}, True, None),
    ({"a": [{"b": 1}] * (MAX_JSON_DEPTH + 1)}, True, None),  # more brackets than levels: read level by level
    (_nested(MAX_JSON_DEPTH), True, None),
    (_nested(MAX_JSON_DEPTH + 1), False, None),  # the deepest item, an empty list, at depth MAX_JSON_DEPTH
    (_nested(MAX_JSON_DEPTH + 2), False, "nests deeper"),
    (_cycle(), False, "nests deeper"),  # marshal's format 2 keeps no back-references: a cycle fails
    ({"enum": [1.0000000023417783]}, False, None),  # its bytes hold ED A0: unsure, the JSON text clears it
    ({"enum": [_Text("x")]}, False, None),  # a str subclass marshal does not write
    ({"enum": ["\udfff"]}, False, "lone surrogate"),
    ({"properties": {"\ud800": {}}}, False, "lone surrogate"),
]


@pytest.mark.parametrize("document,plain,error", PLAIN_ROWS)
def test_the_quick_document_check_passes_only_what_the_walk_passes(document, plain, error):
    assert _plain(document) is plain
    if error is None:
        check_document(document)
    else:
        with pytest.raises((InvalidSchemaError, UnsupportedSchemaError), match=error):
            check_document(document)


def test_a_maximum_no_output_can_reach_is_no_bound():
    for key, kind in (("maxLength", "string"), ("maxItems", "array")):
        assert normalize({"type": kind, key: 2**70}) == normalize({"type": kind})


# (schema, warning text, expected root)
WARNING_ROWS = [
    ({"type": "string", "x-foo": 1}, "x-foo", STR),
    ({"properties": {"a": {"type": "null", "nullable": True}}}, "nullable", Object((Property("a", Null(), False),))),
    ({"type": "string", "format": "int32"}, "int32", STR),
    ({"properties": {"p": {"type": "string", "format": "phone"}}}, "phone", Object((Property("p", STR, False),))),
]


@pytest.mark.parametrize("schema,word,root", WARNING_ROWS)
def test_warning_and_still_compiles(schema, word, root):
    with pytest.warns(SchemaWarning, match=word):
        assert normalize(schema).root == root
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        automaton(schema)


@pytest.mark.parametrize("schema", [{"type": "integer", "format": "int64"}, {"type": "string", "format": "date"},
                                    {"title": "t", "$comment": "c", "type": "null"}])
def test_no_warning(schema):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normalize(schema)


def _recursive_oneof(ref_value: dict) -> dict:
    value = {"oneOf": [{"type": "number"}, {"$ref": "#/$defs/node"}, {"$ref": "#/$defs/ref"},
                       {"type": "array", "items": {"oneOf": [{"type": "number"}, {"$ref": "#/$defs/node"}]}}]}
    return {"$ref": "#/$defs/node", "$defs": {
        "node": {"type": "object", "patternProperties": {"^[a-z]+$": value}, "additionalProperties": False},
        "ref": {"type": "object", "properties": {"ref": ref_value}, "required": ["ref"], "additionalProperties": False}}}


RECURSIVE_ONEOF = _recursive_oneof({"const": True})


def test_recursive_oneof_options_that_may_overlap_are_refused_naming_them():
    with pytest.raises(UnsupportedSchemaError, match="options 1 and 2 may overlap") as info:
        normalize(_recursive_oneof({"type": "number"}))  # {"ref": 1} is a node and a reference
    assert info.value.keyword == "oneOf"


# (schema, accepted text, rejected text): oneOf whose options cannot overlap compiles to a union
CLOSED_OR_NOT = {
    "definitions": {
        "closed": {"type": "object", "properties": {"kind": {"type": "string", "pattern": "^c$"},
                                                    "id": {"type": "string"}},
                   "required": ["kind", "id"], "additionalProperties": False},
        "open": {"type": "object", "additionalProperties": False, "patternProperties": {
            "^[a-z]+$": {"oneOf": [{"type": "string"}, {"$ref": "#/definitions/open"}]}}}},
    "oneOf": [{"$ref": "#/definitions/closed"},
              {"allOf": [{"$ref": "#/definitions/open"}], "not": {"$ref": "#/definitions/closed"}}]}
DISJOINT_ROWS = [
    ({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}, '"a"', "true"),
    ({"oneOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}, {"type": "boolean"}]}, '"c"', '"d"'),
    ({"oneOf": [
        {"type": "object", "properties": {"t": {"const": "x"}, "v": {"type": "integer"}}, "required": ["t", "v"]},
        {"type": "object", "properties": {"t": {"const": "y"}, "v": {"type": "string"}}, "required": ["t"]}]},
     '{"t":"y","v":"s"}', '{"t":"x","v":"s"}'),
    (Owner, '{"pet":{"kind":"dog","name":"Rex"}}', '{"pet":{"kind":"cat","name":"Rex"}}'),
    # recursive: options referring to the definition being read, apart once every definition is read (a
    # reference needs "ref": true, which a node's values, matched by its pattern, never are)
    (RECURSIVE_ONEOF, '{"a":1,"b":{"ref":true},"c":{"d":{"ref":true},"e":[2,{"f":3}]}}', '{"a":true}'),
    # a closed object, and a recursive one that is not it: apart by what the complement asks of each member
    (CLOSED_OR_NOT, '{"kind":"c","id":"x"}', '{"kind":1}'),
    (CLOSED_OR_NOT, '{"kind":"d","id":"x"}', '{"Kind":"c"}'),
    (CLOSED_OR_NOT, '{"kind":"c","id":"x","z":{"y":"w"}}', '{"kind":"c","id":"x","z":1}'),
    (CLOSED_OR_NOT, '{"kind":"c"}', '{"kind":"c","id":1}'),
]


@pytest.mark.parametrize("schema,good,bad", DISJOINT_ROWS)
def test_disjoint_oneof_compiles(schema, good, bad):
    result = ir_of(schema)
    root = result.defs[result.root.name] if isinstance(result.root, Ref) else result.root
    assert isinstance(root, (Union_, Object))
    assert accepts(schema, good)
    assert not accepts(schema, bad)


def test_discriminated_union_ir():
    result = target_ir(Owner, refusal=None)
    assert result.root == Object((Property("pet", Union_((Ref("Cat"), Ref("Dog"))), True),))
    assert result.defs["Cat"].properties[0] == Property("kind", Const(('"cat"',)), True)
    assert accepts(Owner, '{"pet":{"kind":"cat","lives":9}}')


def test_an_intersection_given_up_on_leaves_no_definition_half_made():
    from extractor.schema import ir
    from extractor.schema.merge import Merger

    patterned = {name: ir.Object(pattern_groups=(((f"^{name}",), ir.AnyValue()),), additional=ir.AnyValue())
                 for name in ("p", "q")}
    defs: dict[str, ir.Node | None] = dict(patterned)
    merger = Merger(defs)
    with pytest.raises(UnsupportedSchemaError, match="both have patternProperties"):
        with merger.attempt():
            merger.both(ir.Ref("p"), ir.Ref("q"), "")
    assert defs == patterned and not merger.made
    with pytest.raises(UnsupportedSchemaError):  # without it, the definition the failure interrupted stays empty
        merger.both(ir.Ref("p"), ir.Ref("q"), "")
    assert None in defs.values()


def test_an_intersection_is_made_once_but_for_what_equality_leaves_out():
    """Intersections are kept by both sides, but two sides equal as languages may differ in their docs or in
    whether strict objects close them: each keeps its own (docs whose examples are unhashable included)."""
    from extractor.schema import ir
    from extractor.schema.merge import Merger

    merger = Merger({})
    other = ir.Object(additional=ir.AnyValue())
    first, second, closed = (ir.Object((ir.Property("x", ir.String(), False, ir.Doc(text, ({"an": "example"},))),),
                                       ir.AnyValue(),
                                       policy_closed=policy) for text, policy in (("first", False),
                                                                                  ("second", False),
                                                                                  ("first", True)))
    assert first == second == closed
    assert merger.both(first, other, "").properties[0].doc.description == "first"
    assert merger.both(second, other, "").properties[0].doc.description == "second"
    assert merger.both(closed, ir.Object(additional=ir.AnyValue(), policy_closed=True), "").policy_closed


def test_an_intersection_given_up_on_is_not_kept():
    """An attempt that fails forgets the definitions it made, and with them every intersection naming one."""
    from extractor.schema import ir
    from extractor.schema.merge import Merger

    defs: dict[str, ir.Node | None] = {"a": ir.Object(additional=ir.AnyValue())}
    merger = Merger(defs)
    pair = (ir.Union_((ir.Ref("a"), ir.Null())), ir.Object(additional=ir.String()))
    with pytest.raises(UnsupportedSchemaError):
        with merger.attempt():
            merger.both(*pair, "")
            raise UnsupportedSchemaError("not", "", "given up after the intersection was made")
    again = merger.both(*pair, "")
    assert isinstance(again, ir.Ref) and defs.get(again.name) is not None


_TAGGED_OPTIONS = st.one_of(
    st.builds(lambda v: {"const": v}, st.sampled_from([0, 1, 1.0, "a", True, None])),
    st.builds(lambda vs: {"enum": vs}, st.lists(st.sampled_from([0, 2, "a", "b"]), min_size=1, max_size=2)),
    st.builds(lambda k, v, extra: {"type": "object", "properties": {k: {"const": v}, **extra}, "required": [k]},
              st.sampled_from(["kind", "type"]), st.sampled_from([0, 1, "x"]),
              st.sampled_from([{}, {"kind": {"enum": [0, 1]}}, {"type": {"const": "x"}}])),
    st.sampled_from([{"type": "string"}, {"type": "null"}, {"type": "number"}]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_TAGGED_OPTIONS, min_size=1, max_size=6))
def test_options_shown_apart_by_values_are_apart_pair_by_pair(options):
    """Grouping oneOf options by type and telling constants and tagged objects apart by their values answers as
    comparing every pair does."""
    from extractor.schema.normalize import _Normalizer

    normalizer = _Normalizer({"oneOf": options}, NormalizeOptions())
    nodes = tuple(normalizer.node(o, "") for o in options)
    pairwise = all(normalizer.apart(a, b) for i, a in enumerate(nodes) for b in nodes[i + 1:])
    assert normalizer.disjoint(nodes) == pairwise


MARKED = {"type": "string", "x-from-text": True}
FROM_TEXT_ROWS = [  # (member's schema, whether the member reads as marked `x-from-text`)
    (MARKED, True),
    ({"type": "string", "x-from-text": "yes"}, False),
    ({"anyOf": [{"type": "null"}, MARKED]}, True),
    ({"oneOf": [{"type": "null"}, MARKED]}, True),
    ({"allOf": [MARKED]}, True),
    ({"type": "array", "items": MARKED}, True),
    ({"anyOf": [{"type": "null"}, {"type": "array", "items": {"allOf": [MARKED]}}]}, True),
    ({"type": "string", "not": {"x-from-text": True}}, False),
    ({"type": "object", "properties": {"y": MARKED}}, False),
    ({"anyOf": [{"type": "null"}, {"type": "string"}]}, False),
]


@pytest.mark.parametrize("member,marked", FROM_TEXT_ROWS)
def test_a_member_is_marked_from_text_through_what_wraps_its_values(member, marked):
    root = normalize({"type": "object", "properties": {"x": member}}).root
    assert root.properties[0].doc.from_text is marked
