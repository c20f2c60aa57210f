"""`pipeline/choice.py`: the model's enum answer among the windows' values is the choice, with each candidate's
log-likelihood where the engine gives likelihoods."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from extractor import ExtractOptions
from extractor.pipeline.choice import Offered, decide
from extractor.tracing.record import Candidate

DRAFT = "A first draft of this brief was circulated on 26 November 2018."
DEADLINE = "Deadline. All deliverables must be handed over by 6 November 2024."
SCHEMA = {"type": "object", "properties": {"deadline": {
    "description": "Date the project must be delivered by, as YYYY-MM-DD; null if not stated",
    "enum": ["2018-11-26", "2024-11-06", None]}}, "required": ["deadline"], "additionalProperties": False}


def _offered() -> Offered:
    candidates = (Candidate("2018-11-26", 0), Candidate("2024-11-06", 3), Candidate(None, -1))
    return Offered("deadline", SCHEMA, candidates, ((0, "/deadline"), (1, "/deadline"), (-1, "")),
                   f"{DRAFT}\n[...]\n{DEADLINE}")


ANSWERS = [("2018-11-26", 0), ("2024-11-06", 1), (None, 2)]  # the model's answer -> the candidate chosen


def _answering(value: Any):
    """A read that answers `value` for the member, as the model's enum answer."""
    def read(schema, texts, opts, *, on_attempt, progress=None):
        on_attempt(0, SimpleNamespace(text=f'{{\n  "deadline": {json.dumps(value)}\n}}'))
        return [SimpleNamespace(result={"deadline": value})]
    return read


@pytest.mark.parametrize("answer, index", ANSWERS)
def test_without_likelihoods_the_models_answer_stands(answer, index):
    engine, kept = SimpleNamespace(), []
    chosen, candidates = decide(engine, _answering(answer), _offered(), ExtractOptions(),
                                kept.append)
    assert chosen == index and len(kept) == 1 and all(c.loglik is None for c in candidates)


@pytest.mark.parametrize("answer, index", ANSWERS)
def test_the_models_answer_stands_with_each_candidates_likelihood(model_extractor, answer, index):
    """The first value offered stays the model's choice (nothing ranks it again), and every candidate, null too,
    has its log-likelihood as the answer's value."""
    chosen, candidates = decide(model_extractor, _answering(answer), _offered(), ExtractOptions(), lambda a: None)
    assert chosen == index and all(c.loglik is not None and c.loglik < 0 for c in candidates)


AROUND_CASES = [  # (candidates' spans, document) -> the stretches of the choice's text, in order
    ([(0, 5)], "Alpha beta gamma", ["Alpha beta gamma"]),
    ([(0, 1), (1400, 1401)], "a" + " x" * 699 + " b" + " y" * 700, ["a" + " x" * 150, "x " * 150 + "b" + " y" * 150]),
    ([(0, 1), (500, 501)], "a" + " x" * 249 + " b" + " y" * 400, ["a" + " x" * 249 + " b" + " y" * 150]),  # overlapping: one
]


@pytest.mark.parametrize("spans, document, stretches", AROUND_CASES, ids=["one", "far apart", "near"])
def test_the_text_around_the_candidates_joins_far_stretches_with_a_gap(spans, document, stretches):
    from extractor.pipeline.choice import GAP, _around
    from extractor.tracing.record import Span

    assert _around([Span(a, b) for a, b in spans], document).split(GAP) == stretches
