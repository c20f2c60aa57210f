"""A text longer than a window, on the embedded model: read in windows, merged, every value traced into the whole
text; texts that fit never take that path; `extract_many` mixes both in order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

import extractor.pipeline.rounds
import schemas
from extractor import ExtractOptions, ExtractorError, MissingFieldsError, Refusal
from extractor.pipeline.engine import Control
from extractor.tracing import Traced, agrees

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


class Contact(BaseModel):
    """A person and how to reach them."""

    name: str = Field(description="Full name")
    phones: list[str] = Field(description="Phone numbers as written; empty list if none")


FILLER = "\n\n".join(f"Paragraph {i}: the office moved its archive to the second floor and the lift was serviced."
                     for i in range(7))
LONG = f"Contact sheet\n\nName: Dana Reyes\n\n{FILLER}\n\nDana's mobile: +1 415 555 0192\n\n{FILLER}"


def test_a_long_text_is_read_in_windows_and_traced_into_the_whole_text(model_extractor) -> None:
    try:
        traced = model_extractor.extract(Contact, LONG, window=120, overlap=16, max_tokens=40, with_trace=True)
    except MissingFieldsError as exc:  # what the 135M model missed is named, the rest kept
        assert exc.missing and isinstance(exc.partial, dict)
        return
    assert isinstance(traced, Traced) and len(traced.trace.windows) >= 3
    assert traced.trace.windows[0].start == 0 and max(w.end for w in traced.trace.windows) == len(LONG.rstrip())
    if isinstance(traced.result, Refusal):
        return
    for value in traced.trace:
        for span in value.spans:
            assert agrees(value.value, span.of(LONG), value.how), (value, span.of(LONG))


def test_texts_that_fit_never_take_the_window_path(model_extractor, monkeypatch) -> None:
    def refuse(*args, **kw):
        raise AssertionError("a text that fits was read in windows")

    monkeypatch.setattr(extractor.pipeline.rounds, "read_in_windows", refuse)
    text = (DATA / "contact.txt").read_text()
    assert model_extractor.extract(schemas.ContactCard, text, max_tokens=40) == \
        model_extractor.extract(schemas.ContactCard, text, max_tokens=40, window=100_000)


def outcome(result: Any) -> Any:
    """A result, or an error as its type and message (two runs' errors are equal when they say the same)."""
    return (type(result), str(result)) if isinstance(result, ExtractorError) else result


def test_extract_many_reads_long_and_short_texts_in_order(model_extractor) -> None:
    short = "Call Dana Reyes on +1 415 555 0192."
    long = LONG[:LONG.index("\n\n", LONG.index("Dana's mobile"))]  # still a few windows of 120 tokens, half the reading
    results = model_extractor.extract_many(Contact, [short, long], window=120, overlap=16, max_tokens=30,
                                           max_retries=0)  # one attempt each: the order is checked, not the model
    try:
        alone = model_extractor.extract(Contact, short, window=120, max_tokens=30, max_retries=0)
    except ExtractorError as exc:  # what the 135M model writes does not matter here, only that both agree
        alone = exc
    assert outcome(results[0]) == outcome(alone)
    assert isinstance(results[1], (Contact, Refusal, ExtractorError))


def test_a_long_texts_windows_are_not_shown_to_the_calls_watcher(model_extractor) -> None:
    watched: list[Any] = []
    try:
        model_extractor.extract(Contact, LONG[:700], window=120, overlap=16, max_tokens=60, max_retries=0,
                                control=Control(watch=watched.append))
    except ExtractorError:
        pass  # what the 135M model reads does not matter here
    assert watched == []  # a stream shows the target's partials, never a window's (nor keeps its grammar)


AGREEMENT = ("SERVICES AGREEMENT\nThis Services Agreement is made as of 3 February 2024 by and between Acme Ltd and "
             "Bolt plc.\n[...]\nTermination. Either party may terminate this Agreement by giving 120 days' written "
             "notice to the other party.")
NOTICE = {"type": "object", "properties": {"notice_days": {
    "description": "Days of written notice either party must give to terminate; null if not stated",
    "enum": [3, 120, None]}}, "required": ["notice_days"], "additionalProperties": False}


def test_the_model_chooses_the_notice_period_among_the_windows_values_with_their_likelihoods(model_extractor) -> None:
    from extractor.pipeline.choice import Offered, decide
    from extractor.pipeline.engine import Control
    from extractor.pipeline.rounds import _windows
    from extractor.pipeline.windowed import _window_options
    from extractor.tracing.record import Candidate

    offered = Offered("notice_days", NOTICE, (Candidate(3, 0), Candidate(120, 1), Candidate(None, -1)),
                      ((0, "/notice_days"), (1, "/notice_days"), (-1, "")), AGREEMENT)
    attempts: list[Any] = []
    index, candidates = decide(model_extractor, _windows(model_extractor, Control()), offered,
                               _window_options(ExtractOptions()), attempts.append)
    assert candidates[index].value == 120 and len(attempts) == 1
    assert all(isinstance(c.loglik, float) and c.loglik < 0 for c in candidates)
    assert candidates[1].loglik > candidates[0].loglik > candidates[2].loglik
