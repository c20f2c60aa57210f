"""Every value of a result placed in the text it came from, or flagged as found nowhere (never dropped).

`trace(result, text, target)` returns a `Trace` (`record.py`): one `ValueTrace` per leaf value of the result, in
document order, with its JSON pointer, its spans (Python string indices of the text as passed), how it was known,
and a status: `copied` (the decoder copied its bytes from the text), `found` (the text holds it, as written or
written another way), `not_found` (a value the model made up or changed), `fixed` (the schema spells it: a boolean,
an enum or const member, and the text does not hold it) or `absent` (null or an empty string). The stage reads only
the schema's IR, never the model, so it sits just above `schema/`, and a result can be traced after the fact.

`leaves.py` lists the result's scalars beside the IR (whether each is fixed, `Verbatim`, or under a member marked
`FromText`), and where each one's text lies in the decoder's output bytes. `align.py` places each leaf:

- from the decoder's record of the runs it copied from the text (`Generation.copies`): a value inside such a run
  whose whole text the source holds at that place byte for byte is `copied`, at that one span;
- else by looking for it: as written, cutting no word in two; then in the normalized views of `views.py`,
  `folded` (Unicode compatibility forms, case and runs of whitespace ignored) and `words` (accents and punctuation
  ignored too), each built on the first search that needs it and mapped back to spans of the text (values of
  three characters or fewer skip these two views: `UK` is not `.uk`); then read as a number, date, time or
  digit string (`forms.py`: `1500.0` where the text says `1.500,00`, `2017-01-05` for `05/01/17`);
- else it is `not_found`, or `fixed` where the schema spells it.

`forms.py` reads with `lang.written`, the same reader the grammar narrows number and date fields with, so a value
the grammar offers from a text is one the trace finds in it. A `Verbatim` value found exactly is `copied` too (the
grammar let it be nothing but a substring of the text). The views leave out invisible format characters (soft
hyphens, zero-width spaces, as PDF text holds them inside words) and keep combining marks with their base
character, so a span never splits a character from its accents. `agrees(value, written, how)` is the check every
span passes: the text under it is the value under the normalization `how` names. `spans` lists at most 100
occurrences (`occurrences` counts them all). A long document's trace also carries the merge's conflicts and
left-out items and the windows read (`Conflict`, `Incomplete`, `Reading`, `Trace.windows`, `Trace.unread`); a
text read whole, the list items left out as repeats the text does not make (`Repeated`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from extractor.schema import ir, target_ir
from extractor.tracing.align import agrees, trace_value
from extractor.tracing.record import (STATUSES, Conflict, Incomplete, Reading, Repeated, Span, Status, Trace, Traced,
                                      ValueTrace)

__all__ = ["STATUSES", "agrees", "Conflict", "Incomplete", "Reading", "Repeated", "Span", "Status", "Trace", "Traced", "ValueTrace", "trace", "trace_value"]


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
