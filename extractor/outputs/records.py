"""The parts of a result record (`extractor extract`'s JSON lines, a corpus job's rows) that say what a result may
lack or what was taken out of it, written once for both."""

from __future__ import annotations

import math
from typing import Any

from extractor.tracing import Trace
from extractor.tracing.record import Candidate, Conflict

GAPS = ("conflicts", "unread", "left_out", "repeated")
"""The keys `gaps` may fill: a record's, and a corpus job's columns (JSON strings there, null where none)."""


def gaps(trace: Trace) -> dict[str, list[dict[str, Any]]]:
    """What a result may lack or had taken out, as the lists a record writes (only those the trace has): a long
    text's windows that disagreed (`conflicts`), windows cut even when halved (`unread`), list items no window
    completed (`left_out`); list items the model wrote again where the text does not repeat them (`repeated`)."""
    found = {"conflicts": [_conflict(c) for c in trace.conflicts],
             "unread": [{"window": i, "start": trace.windows[i].start, "end": trace.windows[i].end}
                        for i in trace.unread],
             "left_out": [{"pointer": x.pointer, "item": x.item, "windows": list(x.windows),
                           "missing": list(x.missing)} for x in trace.left_out],
             "repeated": [{"pointer": x.pointer, "item": x.item} for x in trace.repeated]}
    return {name: items for name, items in found.items() if items}


def _conflict(c: Conflict) -> dict[str, Any]:
    """A conflict as a record writes it: the value kept, the others, whether the model chose it and what among."""
    return {"pointer": c.pointer, "kept": c.kept, "window": c.window,
            "others": [{"value": v, "window": w} for v, w in c.others], "chosen": c.chosen,
            "candidates": [_candidate(x) for x in c.candidates]}


def _candidate(x: Candidate) -> dict[str, Any]:
    """A candidate as JSON: its span as [start, end], a log-likelihood that is not finite as null (JSON has none)."""
    finite = x.loglik is not None and math.isfinite(x.loglik)
    return {"value": x.value, "window": x.window, "span": [x.span.start, x.span.end] if x.span else None,
            "loglik": x.loglik if finite else None}
