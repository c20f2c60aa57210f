"""`verbatim_strings`: which string fields `verbatim="auto"` makes copies of the text, and what that stops."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

import schemas
from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, compile_grammar
from extractor.schema import target_ir
from extractor.schema.verbatim import verbatim_strings
from tests.automata.helpers import runs


def copied(schema: dict) -> set[str]:
    """JSON pointers of the subschemas marked `x-verbatim` in `schema`."""
    out, work = set(), [("", schema)]
    while work:
        ptr, node = work.pop()
        if isinstance(node, dict):
            if node.get("x-verbatim") is True:
                out.add(ptr)
            work += [(f"{ptr}/{k}", v) for k, v in node.items()]
        elif isinstance(node, list):
            work += [(f"{ptr}/{i}", v) for i, v in enumerate(node)]
    return out


def prop(schema: dict, description: str | None = None) -> dict:
    return {"type": "object", "properties": {"x": {**schema, **({"description": description} if description else {})}}}


@pytest.mark.parametrize("schema,marked", [
    (prop({"type": "string"}), {"/properties/x"}),
    (prop({"type": ["string", "null"]}), {"/properties/x"}),
    (prop({"anyOf": [{"type": "string"}, {"type": "null"}]}, "Name of the shop"), {"/properties/x/anyOf/0"}),
    (prop({"type": "array", "items": {"type": "string"}}, "Skills"), {"/properties/x/items"}),
    (prop({"type": "string", "format": "email"}), set()),
    (prop({"type": "string", "pattern": "^[A-Z]{3}$"}), set()),
    (prop({"type": "string", "maxLength": 20}), set()),
    (prop({"type": "string", "enum": ["a", "b"]}), set()),
    (prop({"type": "string", "x-verbatim": False}), set()),  # a field kept free on purpose
    (prop({"anyOf": [{"type": "string"}, {"type": "null"}], "x-verbatim": False}), set()),  # Optional, kept free
    (prop({"type": "string"}, "Time in 24-hour HH:MM format"), set()),
    (prop({"type": "string"}, "Date as YYYY-MM-DD"), set()),
    (prop({"type": "string"}, "The gist, in your own words"), set()),
    (prop({"type": "string"}, "Summarize the complaint"), set()),
    (prop({"type": "integer"}), set()),
    (prop({"type": "array", "items": {"type": "string"}, "uniqueItems": True}), {"/properties/x/items"}),
    (prop({"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 1}), {"/properties/x/items"}),
    (prop({"type": "array", "items": {"type": "string"}, "uniqueItems": True, "minItems": 3}), set()),  # a text
    # holding fewer than 3 copies would leave no way on
    (prop({"type": "object", "additionalProperties": {"type": "integer"}}), {"/properties/x/propertyNames"}),
    (prop({"type": "object", "additionalProperties": {"type": "string"}}),
     {"/properties/x/propertyNames", "/properties/x/additionalProperties"}),
    (prop({"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1}),
     {"/properties/x/propertyNames"}),
    (prop({"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 2}), set()),  # counted:
    # copied keys, a bounded language, cannot be counted toward it (the compile refuses them)
    (prop({"type": "object", "additionalProperties": True}), set()),  # any object: not a map of one kind
    (prop({"type": "object", "additionalProperties": {}}), set()),
    (prop({"type": "object", "additionalProperties": {"type": "integer"}, "properties": {"n": {"type": "integer"}}}),
     set()),  # propertyNames would hold the declared names too
    (prop({"type": "object", "additionalProperties": {"type": "integer"}, "propertyNames": {"maxLength": 8}}), set()),
    (prop({"type": "object", "additionalProperties": {"type": "integer"}, "x-verbatim": False}), set()),
    (prop({"type": "object", "additionalProperties": {"type": "integer"}}, "Counts keyed in your own words"), set()),
    ({"$defs": {"Job": {"type": "object", "properties": {"company": {"type": "string"}}}},
      "type": "object", "properties": {"jobs": {"type": "array", "items": {"$ref": "#/$defs/Job"}}}},
     {"/$defs/Job/properties/company"}),
])
def test_plain_strings_are_made_verbatim(schema, marked):
    assert copied(verbatim_strings(schema)) == marked


def test_the_schema_given_is_not_changed():
    schema = prop({"type": "string"})
    verbatim_strings(schema)
    assert copied(schema) == set()


def test_ready_made_targets():
    assert copied(verbatim_strings(schemas.Receipt.model_json_schema())) == {
        "/properties/merchant", "/$defs/ReceiptItem/properties/name"}  # `time` asks for HH:MM: written freely
    assert len(copied(verbatim_strings(schemas.Resume.model_json_schema()))) == 10


RECEIPT = "SYARIKAT PERNIAGAAN GIN KEE\nNO 290, JALAN AIR PANAS,\nSETAPAK\n05/01/17\nTOTAL 132.50\nCASH 12.50\nCHANGE 1.50\n"


def grammar():
    return build_automaton(compile_grammar(target_ir(verbatim_strings(schemas.ScannedReceipt.model_json_schema()),
                                                     None), CompileOptions(source=RECEIPT)))


@pytest.mark.parametrize("total,ok", [
    ("132.50", True),
    ("132.50, 12.50, 1.50", False),  # a list in a scalar: not a span of the text
    ("2022-01-01", False),  # a date the text does not print
    ("10.00", False),
    ("MALANANANANANANA", False),
])
def test_a_copied_scalar_is_one_span_of_the_text(total, ok):
    body = ('{"company":"SYARIKAT PERNIAGAAN GIN KEE","date":"05/01/17",'
            '"address":"NO 290, JALAN AIR PANAS, SETAPAK","total":"%s"}' % total)
    assert runs(grammar(), body) is ok


SURVEY = {"type": "object", "properties": {"votes": {"type": "object", "additionalProperties": {"type": "integer"}}},
          "required": ["votes"]}
WEATHER = "Weather today: sunny, 21 degrees, light wind from the west."


@pytest.mark.parametrize("body,ok", [
    ('{"votes":{"sunny":21}}', True),
    ('{"votes":{"light wind":21,"west":3}}', True),
    ('{"votes":{}}', True),
    ('{"votes":{"description_id":21}}', False),  # a key the text does not write: what a small model loops on
    ('{"votes":{"Sunny":21}}', False),
])
def test_a_maps_keys_are_copies_of_the_text(body, ok):
    made = build_automaton(compile_grammar(target_ir(verbatim_strings(SURVEY), None), CompileOptions(source=WEATHER)))
    assert runs(made, body) is ok


class Product(BaseModel):
    name: str
    tags: set[str] = set()


def test_a_set_of_strings_compiles_with_its_items_kept_apart():
    """Copies of the text are a bounded language, kept apart by value as bounded strings are: `set[str]` was
    refused."""
    source = "The Aero X2 kettle is tagged kitchen, electric."
    made = build_automaton(compile_grammar(target_ir(verbatim_strings(Product.model_json_schema()), None),
                                           CompileOptions(source=source)))
    assert runs(made, '{"name":"Aero X2","tags":["kitchen","electric"]}')
    assert not runs(made, '{"name":"Aero X2","tags":["kitchen","kitchen"]}')
