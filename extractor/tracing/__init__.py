"""Every value of a result placed in the text it came from: copied by the decoder, found written the same or
another way, or found nowhere (flagged, never dropped)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from extractor.schema import ir, target_ir
from extractor.tracing.align import agrees, trace_value
from extractor.tracing.record import STATUSES, Conflict, Incomplete, Span, Status, Trace, Traced, ValueTrace

__all__ = ["STATUSES", "agrees", "Conflict", "Incomplete", "Span", "Status", "Trace", "Traced", "ValueTrace", "trace", "trace_value"]


def trace(result: Any, text: str, target: Any = None, *, output: bytes = b"",
          copies: Sequence[tuple[int, int, int]] = ()) -> Trace:
    """Where in `text` each leaf value of `result` is: its spans (string indices of `text`) and how they were found.

    `result` is what `extract` returned (a model instance, or the JSON value of a dict target); `target` the model
    or JSON Schema it came from (a model result's own class when omitted). A refusal has an empty trace.
    `output` and `copies` are the decoder's output bytes and its record of the runs it copied from the text
    (`Generation.copies`); without them every value is looked for instead, none is reported as copied."""
    from extractor.schema import Refusal

    if isinstance(result, Refusal):
        return Trace()
    if isinstance(result, BaseModel):
        target = type(result) if target is None else target
        result = result.model_dump(mode="json", by_alias=True)
    schema = target_ir(target, None) if target is not None else ir.Schema(ir.AnyValue())
    return trace_value(result, text, schema, output=output, copies=copies)
