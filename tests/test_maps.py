"""A map (`dict[str, X]`) under the default options: its keys are copies of the text, so a small model cannot run on
inventing ever longer keys until the token budget (it did: `description_id_type_id...` on a weather report)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from extractor import IncompleteOutputError, Refusal


class Survey(BaseModel):
    title: str
    votes: dict[str, int]


@pytest.mark.parametrize("text", [
    "Weather today: sunny, 21 degrees, light wind from the west.",  # no votes at all: looped to the budget before
    "The lunch poll closed on Friday: pizza 12 votes, sushi 7, tacos 3.",
])
def test_a_maps_keys_come_from_the_text(model_extractor, text):
    try:
        result = model_extractor.extract(Survey, text, max_tokens=160, refusal=False)
    except IncompleteOutputError as exc:  # the old free keys: every attempt cut by the budget
        pytest.fail(f"cut by the token budget: {exc}")
    assert not isinstance(result, Refusal)
    assert all(key in text for key in result.votes), result.votes
