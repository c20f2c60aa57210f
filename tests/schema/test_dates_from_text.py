"""`dates_from_text`: which date, time and date-time fields `verbatim="all"` narrows to the values the text writes,
each date read every way its form allows, and what a text writing no date leaves a field."""

from __future__ import annotations

import datetime
import json

import pytest
from pydantic import BaseModel, Field

from extractor.automata import build_automaton
from extractor.grammar import compile_grammar
from extractor.schema import json_schema, target_ir, values_from_text
from extractor.schema.dates import dates_from_text, text_dates
from tests.automata.helpers import runs


@pytest.mark.parametrize("text,dates", [
    ("Tuesday 14 October 2025", ["2025-10-14"]),
    ("Tuesday, October 14th, 2025", ["2025-10-14"]),
    ("le 14 octobre 2025", ["2025-10-14"]),
    ("2025-10-14", ["2025-10-14"]),
    ("Dated 14.10.25", ["2025-10-14"]),  # month 14 does not exist: one reading
    ("Invoice 05/01/17", ["2017-01-05", "2017-05-01"]),  # day first and month first
    ("made this 15th day of November, 2018", ["2018-11-15"]),
    ("Meet Oct 14; budget for 2025", ["2025-10-14"]),  # a day without its year: in the year the text writes
    ("Oct 14 or 3 March, in 2024 or 2025", ["2024-03-03", "2024-10-14", "2025-03-03", "2025-10-14"]),
    ("Oct 14, 2025; the 2024 figures", ["2025-10-14"]),  # a dated day takes its own year only
    ("29 Feb, in 2023 or 2024", ["2024-02-29"]),  # a day that no other year has
    ("Lunch on Friday 7 November", []),  # no year written: no date
    ("you may 5 times", []),  # `may` is a word here
    ("Total 297.80, 3 items", []),
    ("DTSTART:20250208T193000", ["2025-02-08"]),
    ("25/FEB/2017 07:43:54", ["2017-02-25"]),  # a month's name between separators, as a till slip prints it
    ("25-Feb-17, 3.MAR.2018", ["2017-02-25", "2018-03-03"]),
    ("ref 125/FEB/20171", []),  # inside longer digits: no date
])
def test_each_date_form_is_read_every_way_it_allows(text, dates):
    assert text_dates(text)["date"] == dates


@pytest.mark.parametrize("text,times,stamps", [
    ("Doors 2 pm, 14 October 2025", ["14:00:00Z"], ["2025-10-14T14:00:00Z"]),
    ("Beginn 18h30 am 14.10.25 oder 8.30 h", ["08:30:00Z", "18:30:00Z"],
     ["2025-10-14T08:30:00Z", "2025-10-14T18:30:00Z"]),  # every date at every time
    ("14 October 2025", [], ["2025-10-14T00:00:00Z"]),  # no time written: the date at midnight
    ("at 10:00 sharp", ["10:00:00Z"], []),  # no date written: no date-time
])
def test_times_and_date_times_are_the_texts(text, times, stamps):
    assert (text_dates(text)["time"], text_dates(text)["date-time"]) == (times, stamps)


def member(schema: dict, description: str | None = None, **extra) -> dict:
    field = {**schema, **({"description": description} if description else {}), **extra}
    return {"type": "object", "properties": {"x": field}, "required": ["x"]}


DATE = {"type": "string", "format": "date"}
TEXT = "Signed 05/01/17 in Oslo at 9 am."


@pytest.mark.parametrize("schema,narrowed", [
    (member(DATE), ["2017-01-05", "2017-05-01"]),
    (member(DATE, "Date the invoice was issued, as YYYY-MM-DD"), ["2017-01-05", "2017-05-01"]),  # its own form
    (member({"type": "string", "format": "date-time"}), ["2017-01-05T09:00:00Z", "2017-05-01T09:00:00Z"]),
    (member({"type": "string", "format": "time"}), ["09:00:00Z"]),
    (member({"type": ["string", "null"], "format": "date"}), ["2017-01-05", "2017-05-01", None]),
    (member({"anyOf": [DATE, {"type": "null"}]}), None),  # narrowed inside: see the test below
    (member(DATE, "The payment date: 30 days after the invoice date"), False),  # worked out, not written
    (member(DATE, "When payment is due in 14 days from issue"), False),
    (member(DATE, "Date computed from the term"), False),
    (member(DATE, **{"x-verbatim": False}), False),  # marked free
    (member({"anyOf": [DATE, {"type": "null"}]}, **{"x-verbatim": False}), False),  # `Optional` marked free
    (member({**DATE, "enum": ["2017-01-05"]}), False),  # its values named
    (member({"type": "string", "format": "email"}), False),
    (member({"type": "string"}), False),
])
def test_which_date_fields_are_narrowed(schema, narrowed):
    field = dates_from_text(schema, TEXT)["properties"]["x"]
    if narrowed is None:
        assert field["anyOf"][0]["enum"] == ["2017-01-05", "2017-05-01"]
    elif narrowed is False:
        assert field == schema["properties"]["x"]
    else:
        assert field["enum"] == narrowed and "format" not in field


class Meeting(BaseModel):
    title: str
    held_on: datetime.date
    follow_up: datetime.date | None = None
    starts: datetime.time | None = None


def grammar_admits(schema: dict, value: object, refusal: bool = True) -> bool:
    auto = build_automaton(compile_grammar(target_ir(schema, None) if not refusal else target_ir(schema)))
    return runs(auto, json.dumps(value, separators=(",", ":")))


@pytest.mark.parametrize("text,value,admitted", [
    ("Tuesday 14 October 2025: kickoff", {"title": "Kickoff", "held_on": "2025-10-14"}, True),
    ("Tuesday 14 October 2025: kickoff", {"title": "Kickoff", "held_on": "2102-01-21"}, False),  # invented
    ("Tuesday 14 October 2025: kickoff", {"title": "Kickoff", "held_on": "2025-10-14", "follow_up": None}, True),
    ("Tuesday 14 October 2025: kickoff", {"title": "K", "held_on": "2025-10-14", "starts": "14:00:00Z"}, False),
    ("Kickoff at 2 pm, 14 October 2025", {"title": "K", "held_on": "2025-10-14", "starts": "14:00:00Z"}, True),
    ("OCR: invoice dated 05/01/17", {"title": "I", "held_on": "0501-01-01"}, False),
    ("OCR: invoice dated 05/01/17", {"title": "I", "held_on": "2017-05-01"}, True),
    ("Kickoff next week", {"title": "Kickoff", "held_on": "2025-10-14"}, False),  # no date: it cannot be filled
    ("Kickoff next week", {"error": "no date in the text"}, True),  # so the refusal branch is what is left
])
def test_the_grammar_admits_only_the_dates_the_text_writes(text, value, admitted):
    assert grammar_admits(values_from_text(json_schema(Meeting), text), value) is admitted


def test_a_text_writing_no_date_leaves_an_optional_date_null():
    schema = values_from_text(json_schema(Meeting), "Kickoff on 14 October 2025")
    assert grammar_admits(schema, {"title": "K", "held_on": "2025-10-14", "follow_up": None}, refusal=False)
    schema = values_from_text({**json_schema(Meeting), "required": ["title"]}, "Kickoff next week")
    assert grammar_admits(schema, {"title": "K", "held_on": None}, refusal=False) is False  # not nullable
    assert grammar_admits(schema, {"title": "K", "follow_up": None}, refusal=False)


class Line(BaseModel):
    item: str
    quantity: int
    price: float = Field(description="Unit price")


INVOICE = "Widget A    297.80\nWidget B    372.25\nTotal  670.05\nInvoice 2025/118, 2 lines"


@pytest.mark.parametrize("value,admitted", [
    ({"item": "Widget A", "quantity": 297, "price": 297.8}, False),  # the integer part of 297.80
    ({"item": "Widget B", "quantity": 372, "price": 372.25}, False),
    ({"item": "Widget A", "quantity": 2, "price": 297.8}, True),
    ({"item": "Widget A", "quantity": 2, "price": 297.0}, False),
])
def test_a_number_from_the_text_is_a_whole_number_token(value, admitted):
    assert grammar_admits(values_from_text(json_schema(Line), INVOICE), value, refusal=False) is admitted


def test_a_text_of_many_dates_and_times_leaves_a_date_time_field_free_without_listing_them():
    text = " ".join(f"2025-{1 + d // 28:02d}-{1 + d % 28:02d} {d % 24:02d}:{d % 60:02d}" for d in range(70))
    text += " " + " ".join(f"{h:02d}:{m:02d}" for h in range(24) for m in range(0, 60, 20))
    found = text_dates(text)
    assert len(found["date"]) * len(found["time"]) > 4096 and "date-time" not in found
    schema = {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"},
                                               "on": {"type": "string", "format": "date"}}}
    out = dates_from_text(schema, text)["properties"]
    assert out["at"] == {"type": "string", "format": "date-time"} and len(out["on"]["enum"]) == 70
