"""Numbers the text writes: the values a plain number field may take when it is filled from the text
(`ExtractOptions(verbatim="all")`), so a year or an amount is one the text holds, never one counted up."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from extractor.errors import InvalidSchemaError, UnsupportedSchemaError
from extractor.schema.values import read_bound, read_step
from extractor.schema.verbatim import ASKS_FORM, rewritten

_RUN = re.compile(r"(?<![\d.,])(-?)(\d+(?:[.,']\d+| \d{3}(?!\d))*)")
"""A run of digits with the marks a number is written with inside it (`1,234.56`, `1.500,00`, `12.03.2018`), and
the minus before it where one is."""
_NAMED = ("enum", "const", "x-verbatim")
"""A number schema with any of these is left as it is: it names its values itself, or says it is free."""
_COMPUTED = re.compile(r"\b(how many|number of|count\w*|comput\w*|calculat\w*|sum|average|estimat\w*)\b",
                       re.IGNORECASE)
"""A description asking for a value worked out from the text, which it need not write."""
MAX_VALUES = 4096
"""The most distinct values offered per kind; a text writing more leaves its number fields free."""
MAX_DIGITS = 30
"""Digits a number may have to be offered; a text writing a longer run of them (an id, a card number, a hash)
leaves its number fields free."""
_LONG = re.compile(r"\d(?:[.,']?\d){%d}" % MAX_DIGITS)


def text_numbers(text: str) -> tuple[list[int], list[int | float]]:
    """The integers and the numbers `text` writes, each read every way its marks allow: `1,234.56` as 1234.56,
    `1.500` as 1500 and 1.5, `12.03.2018` also as 12, 3 and 2018 (each part is an integer the text writes).
    Runs of more than `MAX_DIGITS` digits are left out."""
    ints: set[int] = set()
    numbers: set[int | float] = set()
    for match in _RUN.finditer(text):
        sign = -1 if match.group(1) and not _after_word(text, match.start()) else 1
        run = match.group(2)
        _read(run, sign, ints, numbers)
        pieces = run.split(" ")
        for i, piece in enumerate(pieces if len(pieces) > 1 else []):  # `12.50 150.00`: one number, or two
            _read(piece, sign if i == 0 else 1, ints, numbers)
    numbers.update(ints)
    return sorted(ints), sorted(numbers)


def _read(run: str, sign: int, ints: set[int], numbers: set[int | float]) -> None:
    """Add the values one run of digits and marks can be read as."""
    parts = re.split(r"[.,' ]", run)
    if sum(map(len, parts)) > MAX_DIGITS:
        return
    marks = re.findall(r"[.,' ]", run)
    ints.update(int(p) for p in parts)  # each part alone
    if not marks:
        ints.add(sign * int(run))
    elif len(set(marks)) == 1 and all(len(p) == 3 for p in parts[1:]):
        ints.add(sign * int("".join(parts)))  # every mark groups thousands
    if marks and marks[-1] in ".," and len(set(marks[:-1])) <= 1 and marks[-1] not in marks[:-1] and \
            all(len(p) == 3 for p in parts[1:-1]):
        value = sign * float("".join(parts[:-1]) + "." + parts[-1])  # the last mark is the decimal point
        numbers.add(int(value) if value.is_integer() else value)


def _admitted(node: dict[str, Any], values: list[Any]) -> list[Any]:
    """The `values` that meet the schema's own bounds and `multipleOf`, read as the normalizer reads them (draft 4's
    boolean `exclusiveMinimum` too); none where they are malformed, which the normalizer then reports."""
    try:
        lo, lo_out = read_bound(node, "minimum", "exclusiveMinimum", max, "")
        hi, hi_out = read_bound(node, "maximum", "exclusiveMaximum", min, "")
        step = read_step(node, "")
    except (InvalidSchemaError, UnsupportedSchemaError):
        return []

    def meets(value: Any) -> bool:
        exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        return (lo is None or exact > lo or (exact == lo and not lo_out)) and \
            (hi is None or exact < hi or (exact == hi and not hi_out)) and (step is None or exact % step == 0)

    return [v for v in values if meets(v)]


def _after_word(text: str, at: int) -> bool:
    """Whether the `-` at `at` joins a word or number before it (`2017-2019`, `A-4`): then it is no minus."""
    return at > 0 and text[at - 1].isalnum()


def numbers_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` in which every plain integer or number field (no enum or const, no description asking
    for a computed value) may take only values `text` writes that meet its bounds; the schema itself where the
    text writes more than `MAX_VALUES` numbers or one longer than `MAX_DIGITS`, and a field left free where it
    writes none within the field's bounds — except in a window form (`"x-window": true`), where every field may
    be null: there such a field takes no value, so it is null."""
    ints, numbers = text_numbers(text)
    window = schema.get("x-window") is True
    if not (numbers or window) or len(numbers) > MAX_VALUES or _LONG.search(text):
        return schema
    values: dict[str, list[Any]] = {"integer": ints, "number": numbers}

    def narrowed(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
        kind = node.get("type")
        if kind in values and not free and not any(k in node for k in _NAMED) and \
                not ASKS_FORM.search(said) and not _COMPUTED.search(said):
            allowed = _admitted(node, values[kind])
            if allowed or window:  # elsewhere, a text writing no number the bounds admit leaves the field free
                node["enum"] = allowed
        return node

    return rewritten(schema, narrowed)
