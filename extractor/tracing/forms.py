"""Numbers, dates, times and digit strings read off a text, each as what it means, to find a value written
another way: `1500.0` where the text says `1.500,00`, `2017-01-05` for `05/01/17` or `5 January 2017`, `14:00`
for `2 pm`, `4155550192` for `(415) 555-0192`.

`index(text)` reads every such expression of the text once and files its span under each meaning it may have
(`05/01/17` is both the 5th of January and the 1st of May); `meanings(value)` reads a value the same way, so a
value is found where the two share a meaning.
"""

from __future__ import annotations

import datetime
import re
from collections import defaultdict
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from extractor.tracing.views import visible, visible_view

Meaning = tuple[Any, ...]
"""("number", Decimal), ("date", y, m, d), ("month", y, m), ("time", minutes), ("digits", str)."""

_MONTHS = {
    1: "january jan januar janv janvier enero ene", 2: "february feb februar fév fev févr fevr février fevrier "
    "febrero", 3: "march mar märz marz mär mars marzo", 4: "april apr avril avr abril abr", 5: "may mai mayo",
    6: "june jun juni juin junio", 7: "july jul juli juil juillet julio", 8: "august aug août aout agosto ago",
    9: "september sep sept septembre septiembre set", 10: "october oct oktober okt octobre octubre",
    11: "november nov novembre noviembre", 12: "december dec dezember dez décembre decembre déc diciembre dic",
}
_MONTH_OF = {name: number for number, names in _MONTHS.items() for name in names.split()}
_M = "|".join(sorted(map(re.escape, _MONTH_OF), key=len, reverse=True))
_YEAR = r"(\d{4}|'\d{2})"

_NUMERIC_DATE = re.compile(r"(?<![\d.,/-])(\d{1,4})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d]|[./-]\d)")
_DAY_MONTH = re.compile(rf"(?<![\w.])(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s*(?:day\s+of\s+|de\s+|of\s+)?({_M})\.?,?\s*(?:de\s+)?"
                        rf"{_YEAR}(?!\d)", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"(?<!\w)({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}(?!\d)", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"(?<!\w)({_M})\.?,?\s+(?:de\s+)?{_YEAR}(?!\d)", re.IGNORECASE)
_DAYS_MONTH = re.compile(rf"(?<![\w.])(?:del\s+)?(\d{{1,2}})\.?\s*(?:[–-]|al|to|bis|au)\s*\d{{1,2}}\.?\s*(?:de\s+)?({_M})\.?,?"
                         rf"\s*(?:de\s+)?{_YEAR}(?!\d)", re.IGNORECASE)
_MONTH_DAYS = re.compile(rf"(?<!\w)({_M})\.?\s+(\d{{1,2}})\s*[–-]\s*\d{{1,2}},?\s+{_YEAR}(?!\d)", re.IGNORECASE)
_COMPACT = re.compile(r"(?<![\d])(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:\d{2})?Z?)?(?![\d])")
_ISO_MONTH = re.compile(r"(?<![\d./-])(\d{4})[-/.](\d{1,2})(?![\d]|[-/.]\d)")
_MONTH_SLASH_YEAR = re.compile(r"(?<![\d./-])(\d{1,2})[/.-](\d{4})(?![\d]|[-/.]\d)")

_AMPM = r"([ap])(?:\.\s?m\.|\s?m\b)"
_CLOCK = re.compile(rf"(?<![\d:.,])([01]?\d|2[0-3])[:h](\d{{2}})(?::\d{{2}})?(?:\s*{_AMPM})?(?![\d])", re.IGNORECASE)
_HOUR_AMPM = re.compile(rf"(?<![\d:.,])(1[0-2]|0?\d)\s*{_AMPM}", re.IGNORECASE)
_DOTTED_H = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])\.(\d{2})\s*(?:h|uhr)(?![\w])", re.IGNORECASE)
_HOUR_H = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])\s*(?:uhr|h)(?![\w])", re.IGNORECASE)

_NUMBER = re.compile(r"(?<![\d])\d+(?:[.,'\u00a0\u202f ]\d+)*(?!\d)")
_DIGITS = re.compile(r"\+?\(?\d[\d\s().\-/]*\d")
MIN_DIGITS = 6
"""Digit strings (phones, account numbers) are compared digit by digit from this many digits on."""


def index(text: str) -> dict[Meaning, list[tuple[int, int]]]:
    """Every meaning the text's numbers, dates, times and digit strings may have, with their spans, in order;
    read with the text's invisible format characters left out (`5 Sep\u00adtember 2017`), each span covering
    those inside it."""
    view = visible_view(text)
    read = view.form if view.starts else text
    found: dict[Meaning, list[tuple[int, int]]] = defaultdict(list)
    for start, end, meaning in sorted(_read(read), key=lambda r: (r[0], r[1])):
        span = (view.starts[start], view.ends[end - 1]) if view.starts else (start, end)
        spans = found[meaning]
        if not spans or spans[-1] != span:  # in order, so a span read twice follows itself
            spans.append(span)
    return found


def meanings(value: Any) -> set[Meaning]:
    """What a value may mean: a JSON number is a number; a string, whatever one expression filling it (all but
    currency signs and spaces) means."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, (int, float)):
        try:
            return {("number", Decimal(repr(value)))}
        except InvalidOperation:
            return set()
    if not isinstance(value, str) or len(value) > 64:
        return set()
    whole = visible(value).strip()
    out = set()
    for start, end, meaning in _read(whole):
        rest = whole[:start] + whole[end:]
        if not any(c.isalnum() for c in rest if c not in _AMPM_LETTERS or meaning[0] != "time"):
            out.add(meaning)
    return out


_AMPM_LETTERS = set("apmAPM")


def _read(text: str) -> Iterator[tuple[int, int, Meaning]]:
    yield from _numbers(text)
    yield from _dates(text)
    yield from _times(text)
    for m in _DIGITS.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if len(digits) >= MIN_DIGITS:
            yield m.start(), m.end(), ("digits", digits)


def _numbers(text: str) -> Iterator[tuple[int, int, Meaning]]:
    for m in _NUMBER.finditer(text):
        start, token = m.start(), m.group()
        negative = start > 0 and text[start - 1] in "-\u2212" and (start < 2 or not text[start - 2].isalnum())
        values = _number_values(token)
        if values:
            for v in values:
                yield start - negative, m.end(), ("number", -v if negative else v)
            continue
        for part in re.finditer(r"\d+(?:[.,]\d+)?", token):  # `12 15`: two numbers, not one
            for v in _number_values(part.group()):
                yield start + part.start(), start + part.end(), ("number", v)


def _number_values(token: str) -> set[Decimal]:
    """The values a number token may be: `1,500` is 1500 or 1.5; `1.234,56` only 1234.56; `12 15` none."""
    seps = [c for c in token if not c.isdigit()]
    groups = re.split(r"[^\d]", token)
    if not seps:
        return {Decimal(token)}
    out = set()
    if len(set(seps)) == 1 and 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]):
        out.add(Decimal("".join(groups)))  # every separator groups thousands
    point = seps[-1]
    if point in ".," and seps.count(point) == 1 and len(set(seps[:-1])) <= 1 and point not in seps[:-1] and (
            len(groups) == 2 or (1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:-1]))):
        out.add(Decimal("".join(groups[:-1]) + "." + groups[-1]))  # the last separator is the decimal point
    return out


def _year(text: str) -> int:
    digits = int(text.lstrip("'"))
    return digits if len(text.lstrip("'")) == 4 else 2000 + digits if digits < 70 else 1900 + digits


def _date(y: int, m: int, d: int) -> Meaning | None:
    try:
        datetime.date(y, m, d)
    except ValueError:
        return None
    return ("date", y, m, d)


def _dates(text: str) -> Iterator[tuple[int, int, Meaning]]:
    for m in _NUMERIC_DATE.finditer(text):
        a, _, b, c = m.groups()
        if len(a) == 4:
            options = [_date(int(a), int(b), int(c))] if len(c) <= 2 else []
        elif len(a) <= 2:
            y = _year(c)
            options = [_date(y, int(b), int(a)), _date(y, int(a), int(b))]
        else:
            options = []
        for meaning in options:
            if meaning is not None:
                yield m.start(), m.end(), meaning
    for m in _DAY_MONTH.finditer(text):
        meaning = _date(_year(m.group(3)), _MONTH_OF[m.group(2).lower()], int(m.group(1)))
        if meaning is not None:
            yield m.start(), m.end(), meaning
    for m in _MONTH_DAY.finditer(text):
        meaning = _date(_year(m.group(3)), _MONTH_OF[m.group(1).lower()], int(m.group(2)))
        if meaning is not None:
            yield m.start(), m.end(), meaning
    for m in _DAYS_MONTH.finditer(text):  # a range of days: its first
        meaning = _date(_year(m.group(3)), _MONTH_OF[m.group(2).lower()], int(m.group(1)))
        if meaning is not None:
            yield m.start(), m.end(), meaning
    for m in _MONTH_DAYS.finditer(text):
        meaning = _date(_year(m.group(3)), _MONTH_OF[m.group(1).lower()], int(m.group(2)))
        if meaning is not None:
            yield m.start(), m.end(), meaning
    for m in _COMPACT.finditer(text):  # 20250208, 20250208T193000 (iCalendar)
        meaning = _date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if meaning is not None and 1900 <= meaning[1] <= 2100:
            yield m.start(), m.end(), meaning
    for m in _MONTH_YEAR.finditer(text):
        yield m.start(), m.end(), ("month", _year(m.group(2)), _MONTH_OF[m.group(1).lower()])
    for pattern, y, mo in ((_ISO_MONTH, 1, 2), (_MONTH_SLASH_YEAR, 2, 1)):
        for m in pattern.finditer(text):
            if 1 <= int(m.group(mo)) <= 12:
                yield m.start(), m.end(), ("month", int(m.group(y)), int(m.group(mo)))


def _times(text: str) -> Iterator[tuple[int, int, Meaning]]:
    for m in _CLOCK.finditer(text):
        hour, minute, half = int(m.group(1)), int(m.group(2)), (m.group(3) or "").lower()
        if minute < 60 and (not half or 1 <= hour <= 12):
            yield m.start(), m.end(), ("time", _clock(hour, half) * 60 + minute)
    for m in _HOUR_AMPM.finditer(text):
        hour = int(m.group(1))
        if 1 <= hour <= 12:
            yield m.start(), m.end(), ("time", _clock(hour, m.group(2).lower()) * 60)
    for m in _COMPACT.finditer(text):
        if m.group(4) is not None and int(m.group(4)) < 24 and int(m.group(5)) < 60:
            yield m.start(), m.end(), ("time", int(m.group(4)) * 60 + int(m.group(5)))
    for m in _DOTTED_H.finditer(text):
        if int(m.group(2)) < 60:
            yield m.start(), m.end(), ("time", int(m.group(1)) * 60 + int(m.group(2)))
    for m in _HOUR_H.finditer(text):
        yield m.start(), m.end(), ("time", int(m.group(1)) * 60)


def _clock(hour: int, half: str) -> int:
    """The 24-hour hour of `hour` with an `a`/`p` marker (or none)."""
    if half == "a":
        return 0 if hour == 12 else hour
    if half == "p":
        return hour if hour == 12 else hour + 12
    return hour
