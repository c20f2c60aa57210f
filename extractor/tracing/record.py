"""What a trace says: for each leaf value of a result, where in the text it came from and how that was known."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

Status = Literal["copied", "found", "not_found", "fixed", "absent"]
"""copied: the decoder copied the value's bytes from the text (exact by construction; `Verbatim` values too);
found: the text holds the value, as written or written another way (`how` says which); not_found: the text holds
it nowhere, a value the model made up or changed; fixed: the schema spells the value (a boolean, an enum or
const member) and the text does not hold it; absent: null or an empty string."""

STATUSES: tuple[Status, ...] = ("copied", "found", "not_found", "fixed", "absent")


@dataclass(frozen=True)
class Span:
    """Characters `start:end` of the text (Python string indices of the text as it was passed)."""

    start: int
    end: int

    def of(self, text: str) -> str:
        """The text this span covers."""
        return text[self.start:self.end]


@dataclass(frozen=True)
class ValueTrace:
    """Where one leaf value of a result came from."""

    pointer: str
    """The value's JSON pointer in the result's JSON form (keys as the schema names them): `/jobs/0/company`."""
    value: Any
    status: Status
    spans: tuple[Span, ...] = ()
    """Where the text holds the value: the occurrence the decoder copied, else every occurrence in order (the
    first 100)."""
    how: str = ""
    """copied: "decoder" or "verbatim"; found: "exact", "folded" (case, spacing, Unicode forms), "words"
    (accents and punctuation too), "number", "date", "month", "time" or "digits" (written another way)."""
    occurrences: int = 0
    """How many places hold the value the way `how` says (`spans` lists at most 100 of them)."""
    marked: bool = False
    """The value is under a member marked `FromText`: not found fails validation (`ExtractOptions.grounding`)."""

    @property
    def grounded(self) -> bool:
        """The text holds the value (copied or found)."""
        return self.status in ("copied", "found")


@dataclass(frozen=True)
class Candidate:
    """One value the windows of a long document wrote for a member, offered back to the model as a choice."""

    value: Any
    window: int
    """The window that wrote it (an index into `Trace.windows`); -1 for null, which no window's value is."""
    span: Span | None = None
    """Where that window's text holds it, in the document (None where it holds it nowhere)."""
    loglik: float | None = None
    """The model's log-likelihood (nats) of writing this value as its choice; None where the engine gives none."""


@dataclass(frozen=True)
class Conflict:
    """Windows that wrote different values for one member: the value kept and the others, each with the window
    that wrote it. The value kept is the model's choice among the candidates where it was asked (`chosen`),
    else the value of the likeliest window whose text holds it, else of the first to write one."""

    pointer: str
    kept: Any
    window: int
    others: tuple[tuple[Any, int], ...]
    candidates: tuple[Candidate, ...] = ()
    """What the model chose among (each window's value, and null where the member allows it), in document
    order; empty where it was not asked."""
    chosen: bool = False
    """The value kept is the model's choice among `candidates`."""


@dataclass(frozen=True)
class Incomplete:
    """A list item some required member of which no window wrote: left out of the result, kept here."""

    pointer: str
    item: Any
    windows: tuple[int, ...]
    missing: tuple[str, ...]


@dataclass(frozen=True)
class Repeated:
    """A list item written more often than the text writes it, left out of the result (`ExtractOptions.fresh_items`):
    the decoder holds most such repeats back as they are written, and this one it could not (every other way on was
    closed there)."""

    pointer: str
    """Where it stood in the output as the model wrote it (`/jobs/2`); later items of its list moved up one."""
    item: Any


@dataclass(frozen=True)
class Reading:
    """How one window of a long document reads: as the target, or as another kind of document (the relevance
    screen's kinds, read on stretches of the window's text). A window whose every stretch reads as another kind
    by more than a margin gives nothing to the result (`dropped`); what it wrote is kept here."""

    window: int
    """An index into `Trace.windows`."""
    score: float
    """Nats by which the best of its stretches read is likelier announced as the target than as `kind` (stretches
    are read until one reads as the target; below 0, likelier as `kind`)."""
    kind: str
    """The likeliest other kind of document at that stretch."""
    dropped: bool = False
    wrote: Any = None
    """What a dropped window wrote (its object under the window form); None where it was kept or wrote nothing."""


@dataclass(frozen=True)
class Trace:
    """The leaf values of one result, in document order, each with its spans in the text."""

    values: tuple[ValueTrace, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    """Members the windows of a long document wrote differently: the value kept and the others (none for a text
    read whole)."""
    left_out: tuple[Incomplete, ...] = ()
    """List items of a long document left out of the result: no window wrote some required member of theirs."""
    windows: tuple[Span, ...] = ()
    """The stretches of a long document its windows read, in order, then the short stretches its scalar members were
    read in where their words stand (`Conflict.window` indexes them all); none for a text read whole."""
    unread: tuple[int, ...] = ()
    """The windows (indices into `windows`) whose answer could not be read: cut by max_tokens even when halved.
    What they hold is missing from the result."""
    readings: tuple[Reading, ...] = ()
    """Each window's reading as the target against other kinds of document, and which windows gave nothing for
    it (none where the text was read whole or the rule is off: `docs/long-documents.md`)."""
    repeated: tuple[Repeated, ...] = ()
    """List items the model wrote again where the text does not repeat them, left out of the result (on a text read
    whole; a long document's trace does not carry its windows' ones)."""

    def __iter__(self) -> Iterator[ValueTrace]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, pointer: str) -> ValueTrace:
        """The trace of the value at a JSON pointer (`trace["/email"]`)."""
        for value in self.values:
            if value.pointer == pointer:
                return value
        raise KeyError(pointer)

    @property
    def not_found(self) -> list[ValueTrace]:
        """The values the text holds nowhere: made up, or changed by the model."""
        return [v for v in self.values if v.status == "not_found"]

    def to_json(self) -> list[dict[str, Any]]:
        """The trace as JSON-able data (what the CLI writes and the review page reads)."""
        return [{"pointer": v.pointer, "value": v.value, "status": v.status,
                 "spans": [[s.start, s.end] for s in v.spans], "how": v.how, "occurrences": v.occurrences,
                 "marked": v.marked} for v in self.values]

    @classmethod
    def from_json(cls, data: list[dict[str, Any]]) -> Trace:
        """A trace back from `to_json`'s data."""
        return cls(tuple(ValueTrace(d["pointer"], d["value"], d["status"], tuple(Span(a, b) for a, b in d["spans"]),
                                    d.get("how", ""), d.get("occurrences", len(d["spans"])), d.get("marked", False))
                         for d in data))


@dataclass(frozen=True)
class Traced(Generic[T]):
    """A result with its trace: what `extract(..., with_trace=True)` returns."""

    result: T
    """The target instance, or a `Refusal` (whose trace is empty)."""
    trace: Trace = field(default_factory=Trace)
