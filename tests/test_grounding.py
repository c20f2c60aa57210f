"""The opt-in report of extracted strings that the source text does not contain."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal, Optional

import pytest
from pydantic import BaseModel

from extractor import Refusal, Ungrounded, Verbatim, ungrounded

TEXT = "Invoice INV-7 from  Nordwind Coffee AG\nto ACME Ltd, dated 15 March 2024. Contact: ops@acme.test"


class Party(BaseModel):
    name: str
    email: Optional[str] = None


class Invoice(BaseModel):
    number: Annotated[str, Verbatim]
    kind: Literal["invoice", "credit note"]
    issued: date
    seller: Party
    buyer: Party
    notes: list[str] = []


CASES = [
    # (what the model wrote, the pointers reported)
    (dict(seller={"name": "Nordwind Coffee AG"}, buyer={"name": "ACME Ltd", "email": "ops@acme.test"}), []),
    (dict(seller={"name": "nordwind   coffee ag"}, buyer={"name": "Acme Ltd."}), ["/buyer/name"]),  # case and spaces fold
    (dict(seller={"name": "Nordwind"}, buyer={"name": "ACME Ltd", "email": "billing@acme.test"}), ["/buyer/email"]),
    (dict(seller={"name": "X"}, buyer={"name": "ACME"}, notes=["dated 15 March", "paid"]), ["/seller/name", "/notes/1"]),
]


@pytest.mark.parametrize("fields,expected", CASES)
def test_reports_strings_the_text_lacks(fields: dict, expected: list[str]) -> None:
    result = Invoice(number="INV-8", kind="credit note", issued=date(2024, 3, 15), **fields)
    found = ungrounded(result, TEXT)
    # number is Verbatim (enforced while decoding), kind is a Literal: neither is reported; the
    # date is reported since "2024-03-15" is not how the text writes it
    assert [u.path for u in found] == ["/issued", *expected]
    assert all(isinstance(u, Ungrounded) and u.value for u in found)


def test_plain_json_schema_results() -> None:
    schema = {"type": "object", "properties": {"a/b": {"type": "string"}, "c": {"enum": ["zzz"]},
                                                "d": {"$ref": "#/$defs/D"}},
              "$defs": {"D": {"type": "array", "items": {"type": "string"}}}}
    found = ungrounded({"a/b": "nowhere", "c": "zzz", "d": ["ACME", "gone"]}, TEXT, schema)
    assert found == [Ungrounded("/a~1b", "nowhere"), Ungrounded("/d/1", "gone")]


def test_a_refusal_has_nothing_to_ground() -> None:
    assert ungrounded(Refusal(error="no invoice here"), TEXT) == []


def test_the_schema_is_read_as_the_compiler_reads_it() -> None:
    """allOf parts merged, undeclared keys valued by additionalProperties or their pattern group, refs followed."""
    schema = {"type": "object", "allOf": [{"properties": {"a": {"type": "string"}}},
                                          {"properties": {"b": {"$ref": "#/definitions/Kind"}}}],
              "patternProperties": {"^x-": {"const": "fixed"}}, "additionalProperties": {"type": "string"},
              "definitions": {"Kind": {"enum": ["k1", "k2"]}}}
    found = ungrounded({"a": "gone", "b": "k2", "x-1": "fixed", "other": "ACME"}, TEXT, schema)
    assert found == [Ungrounded("/a", "gone")]


def test_a_dict_of_literals_is_fixed() -> None:
    class Tags(BaseModel):
        tags: dict[str, Literal["red", "blue"]]
        notes: dict[str, str]

    assert ungrounded(Tags(tags={"x": "red"}, notes={"y": "nowhere"}), TEXT) == [Ungrounded("/notes/y", "nowhere")]
