"""The window form of a target, through the compiler: every member may be null and no list must be filled, so a
window says "not here"; what the target admits it still admits; numbers a window does not write are null."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from extractor.automata import build_automaton
from extractor.grammar import compile_grammar
from extractor.schema import json_schema, target_ir
from extractor.schema.numbers import numbers_from_text
from extractor.schema.window import admits_null, window_form
from tests.automata.helpers import runs


class Job(BaseModel):
    company: str
    start_year: int = Field(ge=1950, le=2100)


class Person(BaseModel):
    name: str
    age: int | None = None
    jobs: list[Job] = Field(min_length=1)
    tags: list[str] = []


FORM = window_form(json_schema(Person))


def accepted(schema: dict, value: object) -> bool:
    return runs(build_automaton(compile_grammar(target_ir(schema, None))), json.dumps(value, separators=(",", ":")))


@pytest.mark.parametrize("value, target, window", [
    ({"name": "Ann", "age": 3, "jobs": [{"company": "Acme", "start_year": 2001}], "tags": []}, True, True),
    ({"name": None, "age": None, "jobs": [], "tags": []}, False, True),  # "not here", said with nulls
    ({"name": "Ann", "age": None, "jobs": [{"company": None, "start_year": None}], "tags": []}, False, True),
    ({"name": 3, "age": None, "jobs": [], "tags": []}, False, False),  # types still hold
    ({"name": "Ann", "age": None, "jobs": [{"company": "Acme", "start_year": 1800}], "tags": []}, False, False),
    ({"age": None, "jobs": [], "tags": []}, False, False),  # a required member is still written (null or not)
])
def test_the_window_form_admits_absence_and_keeps_everything_else(value, target, window) -> None:
    assert accepted(json_schema(Person), value) is target
    assert accepted(FORM, value) is window


def test_descriptions_stay_beside_the_nullable_member() -> None:
    class Described(BaseModel):
        total: str = Field(description="the amount as printed")

    member = window_form(json_schema(Described))["properties"]["total"]
    assert member["description"] == "the amount as printed" and admits_null(member)


@pytest.mark.parametrize("text, year_ok, null_ok", [
    ("Acme since 2001", {2001: True, 2002: False}, True),
    ("Acme, no year written", {2001: False}, True),  # in a window, a year the text does not write is null
])
def test_in_a_window_a_number_field_takes_the_windows_numbers_or_null(text, year_ok, null_ok) -> None:
    schema = numbers_from_text(FORM, text)
    for year, ok in year_ok.items():
        value = {"name": None, "age": None, "jobs": [{"company": "Acme", "start_year": year}], "tags": []}
        assert accepted(schema, value) is ok
    assert accepted(schema, {"name": None, "age": None, "jobs": [{"company": "Acme", "start_year": None}],
                             "tags": []}) is null_ok
