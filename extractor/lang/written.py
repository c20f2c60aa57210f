"""Numbers, dates and times read off a text, each as what it means: one reader for the grammar, which lets a field
take only the values a text writes (`schema.numbers`, `schema.dates`), and for the trace, which finds where the
text writes a value (`tracing.forms`), so the two never disagree on what a text holds.

`read(text)` yields every expression with each meaning it may have (`05/01/17` is both the 5th of January and the
1st of May; `1.500` both 1500 and 1.5); `readings(text)` dates a day written without its year (`Oct 14`) in each
year the text writes; `written(text)` is the set of meanings a text holds, its invisible characters left out.
"""

from __future__ import annotations

import datetime
import functools
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

Meaning = tuple[Any, ...]
"""("number", Decimal), ("date", y, m, d), ("day", m, d) (a day written without its year), ("month", y, m),
("time", minutes), ("digits", str)."""
Reading = tuple[int, int, Meaning]
"""(start, end, meaning): an expression of the text and one thing it may mean."""

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
_WORDS = frozenset({"may", "mar", "set", "ago", "sept"})
"""Month names that are also common words: a day without a year is read beside them only where they are
capitalized (`May 5`, not `may 5`)."""

_NUMERIC_DATE = re.compile(r"(?<![\d.,/-])(\d{1,4})([./-])(\d{1,2})\2(\d{4}|\d{2})(?![\d]|[./-]\d)")
_DAY_MONTH = re.compile(rf"(?<![\w.])(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s*(?:day\s+of\s+|de\s+|of\s+)?({_M})\.?,?\s*(?:de\s+)?"
                        rf"{_YEAR}(?!\d)", re.IGNORECASE)
_DAY_MONTH_JOINED = re.compile(rf"(?<![\w.])(\d{{1,2}})[/.-]({_M})[/.-](\d{{4}}|\d{{2}})(?![\d]|[/.-]\d)", re.IGNORECASE)
"""A day, a month's name and a year joined by `/`, `-` or `.` (`25/FEB/2017`, `25-Feb-17`), as till slips print it."""
_MONTH_DAY = re.compile(rf"(?<!\w)({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR}(?!\d)", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"(?<!\w)({_M})\.?,?\s+(?:de\s+)?{_YEAR}(?!\d)", re.IGNORECASE)
_DAYS_MONTH = re.compile(rf"(?<![\w.])(?:del\s+)?(\d{{1,2}})\.?\s*(?:[–-]|al|to|bis|au)\s*\d{{1,2}}\.?\s*(?:de\s+)?({_M})\.?,?"
                         rf"\s*(?:de\s+)?{_YEAR}(?!\d)", re.IGNORECASE)
_MONTH_DAYS = re.compile(rf"(?<!\w)({_M})\.?\s+(\d{{1,2}})\s*[–-]\s*\d{{1,2}},?\s+{_YEAR}(?!\d)", re.IGNORECASE)
_DAY_MONTH_ONLY = re.compile(rf"(?<![\w.])(\d{{1,2}})(?:st|nd|rd|th|er|º|\.)?\s*(?:day\s+of\s+|de\s+|of\s+)?({_M})(?!\w)",
                             re.IGNORECASE)
_MONTH_DAY_ONLY = re.compile(rf"(?<!\w)({_M})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?![\w:.,]\d|\w)", re.IGNORECASE)
_COMPACT = re.compile(r"(?<![\d])(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:\d{2})?Z?)?(?![\d])")
_ISO_MONTH = re.compile(r"(?<![\d./-])(\d{4})[-/.](\d{1,2})(?![\d]|[-/.]\d)")
_MONTH_SLASH_YEAR = re.compile(r"(?<![\d./-])(\d{1,2})[/.-](\d{4})(?![\d]|[-/.]\d)")
_BARE_YEAR = re.compile(r"(?<![\d.,'])(19\d\d|20\d\d)(?![\d]|[.,]\d)")

_AMPM = r"([ap])(?:\.\s?m\.|\s?m\b)"
_CLOCK = re.compile(rf"(?<![\d:.,])(([01]?\d|2[0-3])[:h](\d{{2}})(?::\d{{2}})?)(?:\s*{_AMPM})?(?![\d])", re.IGNORECASE)
_HOUR_AMPM = re.compile(rf"(?<![\d:.,])(1[0-2]|0?\d)\s*{_AMPM}", re.IGNORECASE)
_DOTTED_H = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])\.(\d{2})\s*(?:h|uhr)(?![\w])", re.IGNORECASE)
_HOUR_H = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])\s*(?:uhr|h)(?![\w])", re.IGNORECASE)

_NUMBER = re.compile(r"(?<![\d])\d+(?:[.,'\u00a0\u202f ]\d+)*(?!\d)")
_PIECE = re.compile(r"[^ \u00a0\u202f]+")
_DIGITS = re.compile(r"\+?\(?\d[\d\s().\-/]*\d")
MIN_DIGITS = 6
"""Digit strings (phones, account numbers) are compared digit by digit from this many digits on."""


def read(text: str) -> Iterator[Reading]:
    """Every expression of `text` that writes a number, a date, a time or a digit string, once per meaning."""
    yield from _numbers(text)
    yield from _dates(text)
    yield from _times(text)
    for m in _DIGITS.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if len(digits) >= MIN_DIGITS:
            yield m.start(), m.end(), ("digits", digits)


def readings(text: str) -> list[Reading]:
    """`read(text)`, each day written without its year (`Oct 14`, `14 October`) dated in every year the text
    writes (in a date, beside a month, or alone from 1900 to 2099) and none where it writes no year."""
    found = list(read(text))
    years = {m[1] for _, _, m in found if m[0] in ("date", "month")}
    years.update(int(y.group()) for y in _BARE_YEAR.finditer(text))
    out = [r for r in found if r[2][0] != "day"]
    for start, end, (_, month, day) in (r for r in found if r[2][0] == "day"):
        out += [(start, end, meaning) for y in sorted(years) if (meaning := _date(y, month, day)) is not None]
    return out


@functools.lru_cache(maxsize=16)
def written(text: str) -> frozenset[Meaning]:
    """Every meaning `text` writes (its invisible format characters left out, as the trace reads it)."""
    gone = {ord(c): None for c in set(text) if unicodedata.category(c) == "Cf"}
    return frozenset(m for _, _, m in readings(text.translate(gone) if gone else text))


def _numbers(text: str) -> Iterator[Reading]:
    for m in _NUMBER.finditer(text):
        start = m.start()
        negative = start > 0 and text[start - 1] in "-\u2212" and (start < 2 or not text[start - 2].isalnum())
        for a, b, value in _token(m.group()):
            minus = negative and a == 0
            yield start + a - minus, start + b, ("number", -value if minus else value)


def _token(token: str) -> Iterator[tuple[int, int, Decimal]]:
    """The whole numbers one run of digits and marks writes, with their offsets in it: the run itself every way its
    marks allow; where spaces part it (`12.50 150.00`, `1 500`), each part too; where a part has no reading
    (`12.03.2018`, `1.2.3`), each of its runs of digits. Never the integer part of a decimal (`297` of `297.80`)."""
    values = _number_values(token)
    yield from ((0, len(token), v) for v in values)
    pieces = list(_PIECE.finditer(token))
    if len(pieces) > 1:
        for piece in pieces:
            yield from ((piece.start() + a, piece.start() + b, v) for a, b, v in _token(piece.group()))
    elif not values:
        yield from ((run.start(), run.end(), Decimal(run.group())) for run in re.finditer(r"\d+", token))


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


def _dates(text: str) -> Iterator[Reading]:
    dated: list[Reading] = list(_numeric_dates(text))
    for pattern, day, month in ((_DAY_MONTH, 1, 2), (_DAY_MONTH_JOINED, 1, 2), (_MONTH_DAY, 2, 1), (_DAYS_MONTH, 1, 2),
                               (_MONTH_DAYS, 2, 1)):
        for m in pattern.finditer(text):  # a range of days (`15-16 June 2026`): its first
            meaning = _date(_year(m.group(3)), _MONTH_OF[m.group(month).lower()], int(m.group(day)))
            if meaning is not None:
                dated.append((m.start(), m.end(), meaning))
    for m in _COMPACT.finditer(text):  # 20250208, 20250208T193000 (iCalendar)
        meaning = _date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if meaning is not None and 1900 <= meaning[1] <= 2100:
            dated.append((m.start(), m.end(), meaning))
    for m in _MONTH_YEAR.finditer(text):
        dated.append((m.start(), m.end(), ("month", _year(m.group(2)), _MONTH_OF[m.group(1).lower()])))
    for pattern, y, mo in ((_ISO_MONTH, 1, 2), (_MONTH_SLASH_YEAR, 2, 1)):
        for m in pattern.finditer(text):
            if 1 <= int(m.group(mo)) <= 12:
                dated.append((m.start(), m.end(), ("month", int(m.group(y)), int(m.group(mo)))))
    yield from dated
    yield from _days(text, [(a, b) for a, b, _ in dated])


def _numeric_dates(text: str) -> Iterator[Reading]:
    """`05/01/17` both day first and month first, `14.10.25`, `2025-10-14`."""
    for m in _NUMERIC_DATE.finditer(text):
        a, _, b, c = m.groups()
        if len(a) == 4:
            options = [_date(int(a), int(b), int(c))] if len(c) <= 2 else []
        elif len(a) <= 2:
            y = _year(c)
            options = [_date(y, int(b), int(a)), _date(y, int(a), int(b))]
        else:
            options = []
        yield from ((m.start(), m.end(), meaning) for meaning in options if meaning is not None)


def _days(text: str, dated: list[tuple[int, int]]) -> Iterator[Reading]:
    """Days written with a month name and no year (`Oct 14`, `14. Oktober`), outside every dated expression."""
    for pattern, day, month in ((_DAY_MONTH_ONLY, 1, 2), (_MONTH_DAY_ONLY, 2, 1)):
        for m in pattern.finditer(text):
            name = m.group(month)
            if (name.islower() and name in _WORDS) or any(a < m.end() and m.start() < b for a, b in dated):
                continue
            d, mo = int(m.group(day)), _MONTH_OF[name.lower()]
            if _date(2000, mo, d) is not None:  # a leap year: 29 February is a day
                yield m.start(), m.end(), ("day", mo, d)


def _times(text: str) -> Iterator[Reading]:
    for m in _CLOCK.finditer(text):
        hour, minute, half = int(m.group(2)), int(m.group(3)), (m.group(4) or "").lower()
        if minute < 60 and (not half or 1 <= hour <= 12):
            yield m.start(), m.end(), ("time", _clock(hour, half) * 60 + minute)
        elif minute < 60:  # `18h30 am Montag`: a 24-hour time, and a word after it
            yield m.start(), m.end(1), ("time", hour * 60 + minute)
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
