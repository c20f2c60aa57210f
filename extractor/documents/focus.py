"""Where a window's values stand in its text, and a window's object kept to the values that stand in stretches
reading as the target: a window of other text (a contract around a buried invoice) writes values too, copied from
its own text, and those must give nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from extractor.documents.merge import escape
from extractor.tracing.record import Trace

SPANS = 3
"""Spans of a value looked at (the first ones: the one the decoder copied, else the first places the text holds
it)."""


def stretches(trace: Trace, length: int, size: int) -> dict[int, list[str]]:
    """The stretches of a window's text (a grid of `size` characters over its `length`) holding a grounded value
    of its trace, each with those values' pointers, in text order."""
    if size < 1:
        raise ValueError(f"a stretch of {size} characters holds nothing")
    found: dict[int, list[str]] = {}
    for value in trace:
        if not value.grounded:
            continue
        for span in value.spans[:SPANS]:
            if 0 <= span.start <= length:
                found.setdefault(span.start // size, []).append(value.pointer)
    return {k: list(dict.fromkeys(found[k])) for k in sorted(found)}


def narrowed(value: Any, trace: Trace, keep: Callable[[str], bool]) -> tuple[Any, Trace]:
    """A window's object with every leaf whose pointer `keep` refuses made null, list items that keep nothing
    left out (later items' pointers moved up), and its trace moved with it: values of leaves left out dropped."""
    moved: list[tuple[str, str]] = []
    out = _narrow(value, "", "", keep, moved)
    to = dict(moved)
    values = tuple(replace(v, pointer=to[v.pointer]) for v in trace if v.pointer in to)
    return out, replace(trace, values=values)


def _narrow(value: Any, old: str, new: str, keep: Callable[[str], bool], moved: list[tuple[str, str]]) -> Any:
    """`value` (at `old` in the window's object, at `new` in the narrowed one) narrowed to `keep`; the leaves
    kept recorded in `moved` (old pointer → new). Recursion as deep as the window's object, which its schema
    bounds."""
    if isinstance(value, dict):
        return {k: _narrow(v, f"{old}/{escape(k)}", f"{new}/{escape(k)}", keep, moved) for k, v in value.items()}
    if isinstance(value, list):
        items = []
        for i, item in enumerate(value):
            mark = len(moved)
            narrowed_item = _narrow(item, f"{old}/{i}", f"{new}/{len(items)}", keep, moved)
            if _holds(narrowed_item):
                items.append(narrowed_item)
            else:
                del moved[mark:]
        return items
    if keep(old):
        moved.append((old, new))
        return value
    return None


def _holds(value: Any) -> bool:
    """Whether a narrowed value keeps anything: a leaf that is not null."""
    if isinstance(value, dict):
        return any(_holds(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds(v) for v in value)
    return value is not None
