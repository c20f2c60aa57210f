"""Dates and times the text writes: the values a date, time or date-time field may take when it is filled from the
text (`ExtractOptions(verbatim="all")`), each in its normal form, so a date is one the text holds, never one made
up (`2102-01-21` for "Tuesday 14 October 2025")."""

from __future__ import annotations

import re
from typing import Any

from extractor.lang.written import written
from extractor.schema.numbers import COMPUTED, MAX_VALUES
from extractor.schema.verbatim import rewritten

FORMATS = ("date", "date-time", "time")
"""The string formats narrowed (pydantic's `date`, `datetime` and `time` fields have them)."""
_NAMED = ("enum", "const", "x-verbatim")
"""A date schema with any of these is left as it is: it names its values itself, or says whether it is free."""
_RELATIVE = re.compile(r"\b(?:days?|weeks?|months?|years?|business days?)\s+(?:after|before|from|later|earlier|prior)"
                       r"\b|\b(?:due|in|within)\s+(?:\d+|a|one|two|three|\w+teen|\w+ty)\s+(?:\w+\s+)?(?:days?|weeks?|"
                       r"months?|years?)\b|\b(?:relative|from now|ago|add(?:s|ed|ing)?|plus|minus|subtract\w*|"
                       r"next|following|previous)\b", re.IGNORECASE)
"""A description asking for a date worked out from another ("the date 30 days after the invoice date", "due in 14
days", "the following Monday"), which the text need not write."""
MIDNIGHT = "00:00:00Z"
"""The time a date-time takes where the text writes a date and no time."""


def text_dates(text: str) -> dict[str, list[str]]:
    """The values of each format `text` writes, in their normal (RFC 3339) forms: every date as `YYYY-MM-DD`, each
    way its form may be read (`05/01/17` as 2017-01-05 and 2017-05-01, `Oct 14` in each year the text writes);
    every time as `HH:MM:00Z` (the offset RFC 3339 asks for; the text's clock time, its zone not read); every
    date-time as each date at each time, or at midnight where the text writes no time (no date-time entry where
    that makes more than `MAX_VALUES`)."""
    meant = written(text)
    dates = sorted({"%04d-%02d-%02d" % m[1:] for m in meant if m[0] == "date"})
    times = sorted({"%02d:%02d:00Z" % divmod(m[1], 60) for m in meant if m[0] == "time"})
    if len(dates) * max(1, len(times)) > MAX_VALUES:  # a log's stamps: the product is never built, the field free
        return {"date": dates, "time": times}
    return {"date": dates, "time": times, "date-time": [f"{d}T{t}" for d in dates for t in times or [MIDNIGHT]]}


def dates_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` in which every plain date, time or date-time string field (no enum or const, not marked
    `x-verbatim`, under no member marked `"x-verbatim": false`, no description asking for a computed or relative
    date) may take only the values of its format `text` writes. Where the text writes none, the field cannot be
    filled, as a required `Verbatim` field with nothing to copy: the refusal branch, or its `Optional` null. A
    field whose format the text writes more than `MAX_VALUES` values of is left free (a date-time field too, its
    values never listed)."""
    values = text_dates(text)

    def narrowed(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
        kind, fmt = node.get("type", "string"), node.get("format")
        kinds = kind if isinstance(kind, list) else [kind]
        if fmt in values and "string" in kinds and set(kinds) <= {"string", "null"} and not free and \
                not any(k in node for k in _NAMED) and not COMPUTED.search(said) and not _RELATIVE.search(said) and \
                len(values[fmt]) <= MAX_VALUES:
            node["enum"] = values[fmt] + ([None] if "null" in kinds else [])
            del node["format"]  # each value is in the format already (and the normalizer takes no enum beside one)
        return node

    return rewritten(schema, narrowed)
