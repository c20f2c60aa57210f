"""Values that must come from the text: an attempt whose FromText values are found nowhere fails, with errors the
retry reads; `grounding` picks the values checked."""

from __future__ import annotations

import json
from typing import Annotated

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions, FromText, InputError, Refusal, Trace
from extractor.decode.loop import Generation
from extractor.pipeline.grounding import Grounding
from extractor.pipeline.outcome import Invalid, outcome

TEXT = "Ada Lovelace, ada@example.org, London. Born 10 December 1815."


class Person(BaseModel):
    name: Annotated[str, FromText]
    email: str
    born: Annotated[str, FromText] | None = None  # marked inside an Optional
    city: str = ""
    languages: list[Annotated[str, FromText]] = []  # marked on the items


def _attempt(result: dict, mode: str = "marked", keep: bool = False, target=Person):
    data = json.dumps(result).encode()
    gen = Generation(data.decode(), data, complete=True)
    attempt, came = outcome(target, Refusal, gen, [], 100, [], None, Grounding(target, TEXT, mode, keep))
    if isinstance(came, Invalid):
        return None, None, attempt.errors
    return came.result, came.trace, attempt.errors


CASES = [  # (output, grounding, the pointers that fail)
    ({"name": "Ada Lovelace", "email": "x@y.z", "born": "1815-12-10"}, "marked", []),  # email is not marked
    ({"name": "Ada Byron", "email": "ada@example.org"}, "marked", [("name",)]),
    ({"name": "Ada Lovelace", "email": "ada@example.org", "born": "1816-12-10"}, "marked", [("born",)]),
    ({"name": "Ada Lovelace", "email": "x@y.z", "city": "Paris"}, "all", [("email",), ("city",)]),
    ({"name": "Ada Byron", "email": "x@y.z"}, "off", []),
    ({"name": "Ada Lovelace", "email": "x@y.z", "languages": ["English", "Ada"]}, "marked", [("languages", 0)]),
]


@pytest.mark.parametrize("output,mode,failing", CASES)
def test_values_found_nowhere_fail_where_they_must_come_from_the_text(output, mode, failing):
    value, found, errors = _attempt(output, mode)
    assert [e.loc for e in errors] == failing
    assert all(e.type == "not_found" and "occurs nowhere in the text" in e.msg for e in errors)
    assert (value is None) == bool(failing)


def test_the_trace_is_kept_only_when_asked_for():
    output = {"name": "Ada Lovelace", "email": "ada@example.org"}
    assert _attempt(output, "off", keep=False)[1] is None
    found = _attempt(output, "off", keep=True)[1]
    assert [v.status for v in found] == ["found", "found", "absent", "absent"]  # no languages: no leaf


def test_a_refusal_is_never_checked_and_its_trace_is_empty():
    value, found, errors = _attempt({"error": "no person here"}, "all", keep=True)
    assert isinstance(value, Refusal) and found == Trace() and errors == []


def test_an_unknown_grounding_mode_is_refused():
    with pytest.raises(InputError, match="grounding"):
        ExtractOptions(grounding="some")
