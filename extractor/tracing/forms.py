"""Numbers, dates, times and digit strings read off a text, each as what it means, to find a value written
another way: `1500.0` where the text says `1.500,00`, `2017-01-05` for `05/01/17` or `5 January 2017`, `14:00`
for `2 pm`, `4155550192` for `(415) 555-0192`.

`index(text)` reads every such expression of the text once and files its span under each meaning it may have
(`05/01/17` is both the 5th of January and the 1st of May); `meanings(value)` reads a value the same way, so a
value is found where the two share a meaning. Both read with `lang.written`, the reader the grammar narrows number
and date fields with: a value the grammar offers from a text is one the trace finds in it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from decimal import Decimal, InvalidOperation
from typing import Any

from extractor.lang.written import MIN_DIGITS, Meaning, read, readings
from extractor.tracing.views import visible, visible_view

__all__ = ["MIN_DIGITS", "Meaning", "index", "meanings"]

_ISO_STAMP = re.compile(r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?")
_ISO_TIME = re.compile(r"(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})")
"""The normal forms the grammar writes a date-time (`2025-10-14T14:00:00Z`) and a time (`14:00:00Z`) in: their
offset, which the text does not write, is not read."""


def index(text: str) -> dict[Meaning, list[tuple[int, int]]]:
    """Every meaning the text's numbers, dates, times and digit strings may have, with their spans, in order;
    read with the text's invisible format characters left out (`5 Sep\u00adtember 2017`), each span covering
    those inside it."""
    view = visible_view(text)
    form = view.form if view.starts else text
    found: dict[Meaning, list[tuple[int, int]]] = defaultdict(list)
    for start, end, meaning in sorted(readings(form), key=lambda r: (r[0], r[1])):
        span = (view.starts[start], view.ends[end - 1]) if view.starts else (start, end)
        spans = found[meaning]
        if not spans or spans[-1] != span:  # in order, so a span read twice follows itself
            spans.append(span)
    return found


def meanings(value: Any) -> set[Meaning]:
    """What a value may mean: a JSON number is a number; a string, whatever one expression filling it (all but
    currency signs and spaces) means. A date also means its day without the year (which the index never holds:
    it only lets a span `Oct 14` agree with `2025-10-14`); a date-time means its date and its time."""
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
    stamp, clock = _ISO_STAMP.fullmatch(whole), _ISO_TIME.fullmatch(whole)
    parts = [stamp.group(1), stamp.group(2)] if stamp else [clock.group(1)] if clock else [whole]
    out = set().union(*map(_whole_meanings, parts))
    return out | {("day", m[2], m[3]) for m in out if m[0] == "date"}


def _whole_meanings(whole: str) -> set[Meaning]:
    """The meanings of the expressions that fill `whole` (nothing but `a`/`p`/`m` around a time)."""
    out = set()
    for start, end, meaning in read(whole):
        rest = whole[:start] + whole[end:]
        if not any(c.isalnum() for c in rest if c not in _AMPM_LETTERS or meaning[0] != "time"):
            out.add(meaning)
    return out


_AMPM_LETTERS = set("apmAPM")
