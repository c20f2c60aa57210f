"""The grammar and the trace read a text with one reader (`lang.written`): every number, date or time the rewritten
schema lets a field take is one the trace finds in the text, and neither takes a number cut from a longer one."""

from __future__ import annotations

import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.schema import values_from_text
from extractor.tracing import agrees, trace

ANY = {"type": "object", "properties": {"v": {}}}


@pytest.mark.parametrize("text,value,status", [
    ("Widget A  297.80", 297, "not_found"),  # the integer part of a decimal is no number of the text
    ("Widget A  297.80", 297.8, "found"),
    ("Widget A  297.80", 80, "not_found"),
    ("Total RM 1,234.56", 1234.56, "found"),
    ("Total RM 1,234.56", 234, "not_found"),
    ("Qty 2 100.00", 2, "found"),  # a space parts two numbers: each is read
    ("Signed 12.03.2018", 2018, "found"),  # no number reading: each run of digits
    ("Kickoff Oct 14; plan for 2025", "2025-10-14", "found"),  # a day without its year, in the year written
    ("Kickoff Oct 14; plan for 2025", "2024-10-14", "not_found"),
    ("Kickoff Oct 14, 2025 (after the 2024 review)", "2024-10-14", "not_found"),
    ("Doors 2 pm, 14 October 2025", "2025-10-14T14:00:00Z", "found"),  # a date-time, by its date
    ("Doors 2 pm, 14 October 2025", "14:00:00Z", "found"),  # a time in RFC 3339 form, its offset not read
    ("Beginn 18h30 am 14.10.25", "18:30", "found"),  # `am` here is a word, not a.m.
])
def test_the_trace_finds_whole_numbers_and_dates_only(text, value, status):
    found = trace({"v": value}, text, ANY)["/v"]
    assert found.status == status
    assert all(agrees(value, s.of(text), found.how) for s in found.spans)


def _date_forms(day: datetime.date) -> list[str]:
    return [f"{day.day} {day:%B %Y}", f"{day:%A}, {day:%B} {day.day}, {day.year}", f"{day:%d/%m/%y}",
            f"{day:%m/%d/%Y}", f"{day:%d.%m.%y}", day.isoformat(), f"{day:%b} {day.day}", f"{day.day} {day:%B}"]


DATES = st.builds(lambda day, k: _date_forms(day)[k], st.dates(datetime.date(1950, 1, 1), datetime.date(2099, 12, 31)),
                  st.integers(0, 7))
TIMES = st.builds(lambda h, m, k: [f"{h:02d}:{m:02d}", f"{h % 12 or 12} {'am' if h < 12 else 'pm'}", f"{h}h{m:02d}"][k],
                  st.integers(0, 23), st.integers(0, 59), st.integers(0, 2))
NUMBERS = st.one_of(st.integers(-99999, 10 ** 7).map(str), st.integers(0, 10 ** 7).map(lambda n: f"{n:,}"),
                    st.decimals(0, 10 ** 6, places=2).map(str),
                    st.decimals(0, 10 ** 6, places=2).map(lambda d: f"{d:,.2f}".replace(",", " ").replace(".", ",")))
WORDS = st.sampled_from(["Total", "qty", "on", "at", "and", "-", "Invoice", "due", "(", ")", "x"])
TEXTS = st.lists(st.one_of(DATES, TIMES, NUMBERS, WORDS), min_size=1, max_size=8).flatmap(
    lambda parts: st.lists(st.sampled_from([" ", ", ", "\n", "; ", "  "]), min_size=len(parts), max_size=len(parts))
    .map(lambda seps: "".join(p + s for p, s in zip(parts, seps))))
KINDS = [{"type": "integer"}, {"type": "number"}, {"type": "string", "format": "date"},
         {"type": "string", "format": "time"}, {"type": "string", "format": "date-time"}]


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_every_value_the_rewritten_schema_admits_the_trace_finds(text):
    for kind in KINDS:
        field = values_from_text({"type": "object", "properties": {"v": kind}}, text)["properties"]["v"]
        for value in field.get("enum", [])[:25]:
            found = trace({"v": value}, text, ANY)["/v"]
            assert found.status == "found", (kind, value)
            assert all(agrees(value, s.of(text), found.how) for s in found.spans), (kind, value)
