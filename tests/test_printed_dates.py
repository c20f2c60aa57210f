"""A copied string field named as a date takes only the dates the text writes, as written (`printed_dates`); an
optional date field narrowed to the text's dates is asked, not left out (`asked`)."""

from __future__ import annotations

from typing import Optional

import pytest
from pydantic import BaseModel, Field

from extractor.pipeline.target import Target
from extractor.schema.printed import asked, printed_dates

RECEIPT = "RESTORAN WAN SHENG\nINV NO.: 1053110\nDATE : 19-03-2018 18:08:38\nTOTAL :\n6.00\n"
"""From the real receipts' dev split (receipt-real-031): copied freely, `date` came back `19-03-2018 18:08:38`."""


def _copied(description: str = "") -> dict:
    return {"type": "string", "x-verbatim": True, **({"description": description} if description else {})}


def _object(name: str, node: dict) -> dict:
    return {"type": "object", "properties": {name: node}, "required": [name]}


@pytest.mark.parametrize(("name", "node", "text", "values"), [
    ("date", _copied("Date of the purchase, exactly as printed"), RECEIPT, ["19-03-2018"]),
    ("purchase_date", _copied(), "Paid 13 MAY 2018 at 18:26", ["13 MAY 2018"]),
    ("dateOfBirth", _copied(), "born 05/01/17, moved on 1 June 2020", ["05/01/17", "1 June 2020"]),
    ("DATE", _copied(), "12-01-19 21:13", ["12-01-19"]),
    # not a date field, a date and time, a computed date, or not copied: left as they were
    ("update", _copied(), RECEIPT, None),
    ("date_time", _copied(), RECEIPT, None),
    ("datetime", _copied(), RECEIPT, None),
    ("date", _copied("Date and time of the visit"), RECEIPT, None),
    ("date", _copied("The date computed from the term"), RECEIPT, None),
    ("date", {"type": "string"}, RECEIPT, None),
    ("date", {"type": "string", "format": "date"}, RECEIPT, None),
    ("date", {"type": "integer"}, RECEIPT, None),
    # a text writing no date
    ("date", _copied(), "TOTAL 6.00 at 18:08", None),
])
def test_printed_dates(name: str, node: dict, text: str, values: list[str] | None) -> None:
    schema = _object(name, node)
    got = printed_dates(schema, text)["properties"][name]
    if values is None:
        assert got == node
    else:
        assert got == {**{k: v for k, v in node.items() if k != "x-verbatim"}, "enum": values}


class Visit(BaseModel):
    """A visit."""

    date: Optional[str] = Field(default=None, description="Date of the visit, as printed")
    place: str


class Stay(BaseModel):
    visits: list[Visit]


@pytest.mark.parametrize(("target", "path", "verbatim", "expected"), [
    (Visit, ("properties", "date", "anyOf"), "all", [{"type": "string", "enum": ["19-03-2018"]}, {"type": "null"}]),
    (Stay, ("$defs", "Visit", "properties", "date", "anyOf"), "all",
     [{"type": "string", "enum": ["19-03-2018"]}, {"type": "null"}]),
    (Visit, ("properties", "date", "anyOf"), "auto", [{"type": "string", "x-verbatim": True}, {"type": "null"}]),
])
def test_targets_narrowed_under_all_only(target: type[BaseModel], path: tuple[str, ...], verbatim: str,
                                         expected: list[dict]) -> None:
    node = Target(target).for_text(RECEIPT, verbatim).spec
    for key in path:
        node = node[key]
    assert node == expected


_DATE = {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}], "default": None}
_OFFERED = {"anyOf": [{"type": "string", "enum": ["2007-03-04"]}, {"type": "null"}], "default": None}


@pytest.mark.parametrize(("before", "after", "required"), [
    # narrowed to what the text writes, may be null: asked (the model closed the object before it and left out the
    # date the text writes: nda-real-002 in the real contracts' dev split)
    (_DATE, _OFFERED, ["parties", "when"]),
    ({**_DATE, "x-verbatim": False}, {**_DATE, "x-verbatim": False}, ["parties"]),  # not narrowed
    ({"type": ["string", "null"], "format": "time"}, {"type": ["string", "null"], "enum": ["09:30:00Z", None]},
     ["parties", "when"]),
    # a number narrowed so is not asked: asked in each of a résumé's degrees, the model added a degree
    ({"type": ["integer", "null"]}, {"type": ["integer", "null"], "enum": [3, None]}, ["parties"]),
    ({"type": "integer", "default": 5}, {"type": "integer", "enum": [3], "default": 5}, ["parties"]),  # not null
    ({**_DATE, "default": "2000-01-01"}, {**_OFFERED, "default": "2000-01-01"}, ["parties"]),  # a default of its own
])
def test_asked(before: dict, after: dict, required: list[str]) -> None:
    def schema(node: dict) -> dict:
        return {"type": "object", "properties": {"parties": {"type": "array"}, "when": node}, "required": ["parties"]}
    assert asked(schema(before), schema(after)) == {**schema(after), "required": required}


DATA_KEPT = [  # (schema, text): values under enum/const/default are data, never rewritten; odd keyword values raise nothing
    ({"type": "object", "properties": {"x": {"enum": [{"properties": {"date": {"type": "string", "x-verbatim": True}}}]}}},
     "Dated 14 October 2025"),
    ({"type": "object", "default": {"properties": {"date": {"type": "string", "x-verbatim": True}}}},
     "Dated 14 October 2025"),
    ({"type": "object", "properties": {"date": {"type": ["string", "null"], "format": "date", "enum": 5, "anyOf": 3}},
      "required": "date"}, "Dated 14 October 2025"),
]


@pytest.mark.parametrize("schema, text", DATA_KEPT)
def test_data_under_value_keywords_is_left_as_it_is(schema, text) -> None:
    assert asked(schema, printed_dates(schema, text)) == schema
