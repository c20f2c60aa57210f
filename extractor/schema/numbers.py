"""Numbers the text writes: the values a plain number field may take when it is filled from the text
(`ExtractOptions(verbatim="all")`), so a year or an amount is one the text holds, never one counted up."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from extractor.errors import InvalidSchemaError, UnsupportedSchemaError
from extractor.lang.written import written
from extractor.schema.values import read_bound, read_step
from extractor.schema.verbatim import ASKS_FORM, rewritten

_NAMED = ("enum", "const", "x-verbatim")
"""A number schema with any of these is left as it is: it names its values itself, or says it is free."""
COMPUTED = re.compile(r"\b(how many|number of|count\w*|comput\w*|calculat\w*|sum|average|estimat\w*)\b",
                       re.IGNORECASE)
"""A description asking for a value worked out from the text, which it need not write."""
MAX_VALUES = 4096
"""The most distinct values offered per kind; a text writing more leaves its number fields free."""
MAX_DIGITS = 30
"""Digits a number may have to be offered; a text writing a longer run of them (an id, a card number, a hash)
leaves its number fields free."""
_LONG = re.compile(r"\d(?:[.,']?\d){%d}" % MAX_DIGITS)


def text_numbers(text: str) -> tuple[list[int], list[int | float]]:
    """The integers and the numbers `text` writes, as the trace reads them (`lang.written`): each whole number token
    every way its marks allow (`1,234.56` as 1234.56, `1.500` as 1500 and 1.5), each part of a run spaces part
    (`12.50 150.00`), each run of digits of a token no number reading fits (`12.03.2018`: 12, 3 and 2018) — never
    the integer part of a decimal (`297` of `297.80`). Numbers of more than `MAX_DIGITS` digits, or that a float
    cannot hold exactly, are left out."""
    ints: set[int] = set()
    numbers: set[int | float] = set()
    for meaning in written(text):
        value = meaning[1] if meaning[0] == "number" else None
        if value is None or len(value.as_tuple().digits) > MAX_DIGITS:
            continue
        if value == value.to_integral_value():
            ints.add(int(value))
        elif Decimal(repr(float(value))) == value:
            numbers.add(float(value))
    numbers.update(ints)
    return sorted(ints), sorted(numbers)


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


def numbers_from_text(schema: dict[str, Any], text: str) -> dict[str, Any]:
    """A copy of `schema` in which every plain integer or number field (no enum or const, no description asking
    for a computed value) may take only values `text` writes that meet its bounds; the schema itself where the
    text writes more than `MAX_VALUES` numbers or one longer than `MAX_DIGITS`. Where it writes none within a
    field's bounds, an `Optional` field (a number beside `null` in an `anyOf`) is null, and a required one is
    left free — except in a window form (`"x-window": true`), where every field may be null: there such a field
    takes no value, so it is null."""
    ints, numbers = text_numbers(text)
    window = schema.get("x-window") is True
    if len(numbers) > MAX_VALUES or _LONG.search(text):
        return schema
    values: dict[str, list[Any]] = {"integer": ints, "number": numbers}

    def plain(node: Any, said: str, free: bool) -> bool:
        return isinstance(node, dict) and isinstance(node.get("type"), str) and node["type"] in values and \
            not free and not any(k in node for k in _NAMED) and not ASKS_FORM.search(said) and \
            not COMPUTED.search(said)  # (a list of types, `["integer", "null"]`, is left free)

    def narrowed(node: dict[str, Any], said: str, free: bool) -> dict[str, Any]:
        if plain(node, said, free):
            allowed = _admitted(node, values[node["type"]])
            if allowed or window:  # elsewhere, a text writing no number the bounds admit leaves the field free
                node["enum"] = allowed
        elif isinstance(node.get("anyOf"), list) and {"type": "null"} in node["anyOf"]:  # beside null: no value
            node["anyOf"] = [{**o, "enum": []} if plain(o, said, free) and not _admitted(o, values[o["type"]])
                             else o for o in node["anyOf"]]  # the text writes is null
        return node

    return rewritten(schema, narrowed)
