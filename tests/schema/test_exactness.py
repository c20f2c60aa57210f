"""Where the normalizer may trust a subschema's IR as its language: a type implied by keywords narrows it, here or
in any subschema below, and oneOf and complements must not take the narrowed IR for the language."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings

from extractor.errors import InvalidSchemaError
from extractor.schema.exactness import Exactness, subschemas
from tests.fuzz.strategies import schemas

NARROW = {"maxItems": 3}  # read as an array; JSON Schema lets every non-array pass
ARRAY = {"type": "array", "maxItems": 3}
TREE = {"$defs": {"t": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/t"}}}}},
        "$ref": "#/$defs/t"}
NARROW_TREE = {"$defs": {"t": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/t"}}}}},
               "$ref": "#/$defs/t"}
TAGGED = {"type": "object", "dependencies": {"op": {"oneOf": [  # options of one type alone: cut to it, exactly
    {"properties": {"op": {"const": "or"}, "v": {"type": "array"}}, "required": ["v"]},
    {"properties": {"op": {"const": "eq"}, "v": {"type": "string"}}, "required": ["v"]}]}}}

# (schema, the type it is judged within, explicit?)
EXPLICIT_ROWS: list[tuple[Any, str | None, bool]] = [
    (True, None, True),
    (ARRAY, None, True),
    (NARROW, None, False),
    (NARROW, "array", True),  # within arrays the implied type narrows nothing
    (NARROW, "string", False),
    ({"minimum": 1}, "null", False),  # a type with no keywords of its own
    ({"enum": [1, 2]}, None, True),
    ({"type": "object", "properties": {"a": NARROW}}, None, False),  # narrowed below its own type
    ({"type": "object", "properties": {"a": ARRAY}}, None, True),
    ({"type": "object", "patternProperties": {"^x": NARROW}}, None, False),
    ({"type": "object", "additionalProperties": NARROW}, None, False),
    ({"type": "object", "propertyNames": {"maxLength": 2}}, None, False),  # keys are strings, but not judged so
    ({"type": "array", "items": NARROW}, None, False),
    ({"type": "array", "prefixItems": [ARRAY, NARROW]}, None, False),
    ({"type": "array", "contains": NARROW}, None, False),
    ({"type": "array", "contains": {"not": {"required": ["b"]}}}, None, False),  # its complement is narrowed
    ({"const": {"a": "x"}, "properties": {"a": NARROW}}, None, False),
    ({"anyOf": [ARRAY, {"type": "null"}]}, None, True),
    ({"anyOf": [ARRAY, NARROW]}, None, False),
    ({"type": "array", "anyOf": [NARROW, {"minItems": 1}]}, None, True),  # the parent's type holds below
    ({"type": "array", "allOf": [{"properties": {"a": NARROW}}]}, None, False),
    ({"oneOf": [NARROW, {"minItems": 5}]}, None, True),  # non-arrays match both: oneOf rejects them
    ({"oneOf": [NARROW, {"minLength": 5}]}, None, False),
    ({"oneOf": [{"not": {"required": ["b"]}}, True]}, None, False),  # cut by a complement that is not exact
    (TAGGED, None, True),
    ({"type": "object", "dependentSchemas": {"a": {"properties": {"b": NARROW}}}}, None, False),
    ({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, None, True),
    ({"type": "object", "if": {"properties": {"a": NARROW}}}, None, False),
    ({"$defs": {"n": NARROW}, "type": "array", "items": {"$ref": "#/$defs/n"}}, None, False),
    ({"$defs": {"n": ARRAY}, "$ref": "#/$defs/n", "maxLength": 2}, None, False),  # a sibling of $ref narrows
    ({"$defs": {"n": ARRAY}, "$ref": "#/$defs/n", "type": "array"}, None, True),
    ({"$ref": "#/$defs/missing"}, None, False),
    (TREE, None, True),  # a cycle is exact where every schema on it is
    (NARROW_TREE, None, False),
    ({"type": "array", "items": {"$id": "urn:other", "type": "string"}}, None, False),  # another base: not judged
    ({"not": NARROW}, None, True),  # a complement of keywords is exact (or refused)
    ({"not": {"not": NARROW}}, None, False),
    ({"not": {"contains": NARROW}}, None, False),  # counting reads the IR of what is contained
    ({"not": {"type": "object", "properties": {"a": NARROW}}}, None, True),  # only the value's complement
    ({"not": {"oneOf": [ARRAY, NARROW]}}, None, False),  # two options' IR both hold
    ({"not": {"anyOf": [{"not": NARROW}]}}, None, False),
]


def _exactness(schema: Any, implied_types: bool = True) -> Exactness:
    def lookup(ref: str) -> Any:
        if not ref.startswith("#/$defs/") or ref[8:] not in schema.get("$defs", {}):
            raise InvalidSchemaError(f"no {ref}")
        return schema["$defs"][ref[8:]]
    return Exactness(schema, lookup, implied_types)


@pytest.mark.parametrize("schema, kind, expected", EXPLICIT_ROWS)
def test_explicit(schema: Any, kind: str | None, expected: bool) -> None:
    assert _exactness(schema).explicit(schema, kind) is expected


@pytest.mark.parametrize("schema", [NARROW, {"type": "object", "properties": {"a": NARROW}}, NARROW_TREE])
def test_to_the_letter_nothing_narrows(schema: Any) -> None:
    assert _exactness(schema, implied_types=False).explicit(schema)


def test_a_schema_many_options_reach_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Options sharing a large definition do not judge it once each (which grows with options x definition)."""
    big = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(50)}}
    schema = {"$defs": {"big": big}, "oneOf": [{"allOf": [{"$ref": "#/$defs/big"}], "type": "object",
                                                "properties": {"tag": {"const": i}}} for i in range(20)]}
    exactness, judged = _exactness(schema), []
    explicit = Exactness._explicit
    monkeypatch.setattr(Exactness, "_explicit", lambda self, s, *rest: judged.append(id(s)) or explicit(self, s, *rest))
    assert all(exactness.explicit(option) for option in schema["oneOf"])
    assert judged.count(id(big)) == 1 and judged.count(id(big["properties"]["p0"])) == 1


def test_a_cycle_taken_on_trust_is_not_kept() -> None:
    """Judged inside a cycle, a schema's result rests on the cycle's start: judged again from elsewhere, it is
    worked out afresh (a narrowed schema further on the cycle makes both inexact)."""
    schema = {"$defs": {"a": {"type": "array", "items": {"$ref": "#/$defs/b"}, "contains": NARROW},  # after b
                        "b": {"type": "array", "items": {"$ref": "#/$defs/a"}}}}
    exactness = _exactness(schema)
    assert not exactness.explicit({"$ref": "#/$defs/a"})  # b judged on trust that a (being judged) is exact
    assert not exactness.explicit(schema["$defs"]["b"])


def test_a_one_of_read_without_complements_needs_none_of_its_options() -> None:
    """A oneOf the normalizer read without complements (or supposes it will, while judging its options) does not
    need its options' complements exact; a supposition withdrawn takes back what was judged under it, and a oneOf
    once read with complements stays so."""
    inner = {"oneOf": [{"not": {"required": ["b"]}}, True]}  # cut by the first option's complement: narrowed
    exactness = _exactness(inner)
    exactness.suppose_uncut(inner)
    assert exactness.explicit(inner)
    exactness.withdraw(inner)
    assert not exactness.explicit(inner)
    exactness.read_one_of(inner, complemented=True)
    exactness.suppose_uncut(inner)
    assert not exactness.explicit(inner)


class _TrustForgotten(Exactness):
    """Every result reached on trust worked out afresh each time it is met (exponential through recursive
    `$ref`s, but the plain reading of the judgements)."""

    def _judge(self, check: str, schema: Any, kind: str | None, depth: int) -> bool:
        self.provisional = {}
        return super()._judge(check, schema, kind, depth)


def _every_subschema(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The document, its definitions, and every subschema below them that is an object."""
    out = [schema, *(sub for sub in schema.get("$defs", {}).values() if isinstance(sub, dict))]
    for item in out:  # grows as it is read
        out.extend(sub for _, sub in subschemas(item) if isinstance(sub, dict))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas())
@example({"type": "null", "$defs": {"D0": True}})  # a boolean definition: judged through a `$ref`, not walked
def test_results_kept_within_a_question_change_no_answer(schema: dict[str, Any]) -> None:
    """Reading a result reached on trust back within one question (and keeping a yes's results) answers every
    question about every subschema as working each out afresh does."""
    def lookup(ref: str) -> Any:
        return schema.get("$defs", {})[ref.rsplit("/", 1)[-1]]

    kept, afresh = Exactness(schema, lookup, True), _TrustForgotten(schema, lookup, True)
    for sub in _every_subschema(schema):
        assert kept.explicit(sub) == afresh.explicit(sub)
        assert kept.exact_complement(sub) == afresh.exact_complement(sub)
