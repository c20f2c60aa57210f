"""`pipeline/choice.py`: the model's enum answer among the windows' values, ranked again with each value read in its
own text where the engine gives likelihoods, and left as answered where it does not or where the answer is null."""

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


def _offered(contexts: tuple[str, ...]) -> Offered:
    candidates = (Candidate("2018-11-26", 0), Candidate("2024-11-06", 3), Candidate(None, -1))
    return Offered("deadline", SCHEMA, candidates, ((0, "/deadline"), (1, "/deadline"), (-1, "")),
                   f"{DRAFT}\n[...]\n{DEADLINE}", contexts)


def _answering(value: Any):
    """A read that answers `value` for the member, as the model's enum answer."""
    def read(schema, texts, opts, *, on_attempt, progress=None):
        on_attempt(0, SimpleNamespace(text=f'{{\n  "deadline": {json.dumps(value)}\n}}'))
        return [SimpleNamespace(result={"deadline": value})]
    return read


@pytest.mark.parametrize("answer, index", [("2018-11-26", 0), ("2024-11-06", 1), (None, 2)])
def test_without_likelihoods_the_models_answer_stands(answer, index):
    engine, kept = SimpleNamespace(), []
    chosen, candidates = decide(engine, _answering(answer), _offered((DRAFT, DEADLINE, "")), ExtractOptions(),
                                kept.append)
    assert chosen == index and len(kept) == 1 and all(c.loglik is None for c in candidates)


@pytest.mark.parametrize("answer, contexts, value", [
    ("2018-11-26", (DRAFT, DEADLINE, ""), "2024-11-06"),  # the first offered, ranked again in each one's sentence
    ("2024-11-06", (DRAFT, DEADLINE, ""), "2024-11-06"),
    (None, (DRAFT, DEADLINE, ""), None),  # null is the model's answer: no value to rank
    ("2018-11-26", (), "2018-11-26"),  # no text of their own: the answer stands
])
def test_a_value_the_model_chose_is_ranked_again_each_in_its_own_text(model_extractor, answer, contexts, value):
    chosen, candidates = decide(model_extractor, _answering(answer), _offered(contexts), ExtractOptions(),
                                lambda a: None)
    assert candidates[chosen].value == value
