"""The parts of a result record (`extractor extract`'s JSON lines, a corpus job's rows) that say what a long
text's result may lack, written once for both."""

from __future__ import annotations

from typing import Any

from extractor.tracing import Trace

GAPS = ("conflicts", "unread", "left_out")
"""The keys `gaps` may fill: a record's, and a corpus job's columns (JSON strings there, null where none)."""


def gaps(trace: Trace) -> dict[str, list[dict[str, Any]]]:
    """What a long text's result may lack, as the lists a record writes (only those the trace has): windows that
    disagreed (`conflicts`), windows cut even when halved (`unread`), list items no window completed (`left_out`)."""
    found = {"conflicts": [{"pointer": c.pointer, "kept": c.kept, "window": c.window,
                            "others": [{"value": v, "window": w} for v, w in c.others]} for c in trace.conflicts],
             "unread": [{"window": i, "start": trace.windows[i].start, "end": trace.windows[i].end}
                        for i in trace.unread],
             "left_out": [{"pointer": x.pointer, "item": x.item, "windows": list(x.windows),
                           "missing": list(x.missing)} for x in trace.left_out]}
    return {name: items for name, items in found.items() if items}
