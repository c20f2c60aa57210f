"""Small targets a new user writes first, on the embedded model with the default options, where the model used to
run on until the token budget: a map's keys invented ever longer (`description_id_type_id...` on a weather report),
and a list of numbers repeating the one number its text writes."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from extractor import IncompleteOutputError, Refusal, UnsatisfiableSchemaError


class Ages(BaseModel):
    age: int
    ages: list[int] = []


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


@pytest.mark.parametrize("text,most", [
    ("Zoe, age 29, lives in Oslo.", 1),  # was [29, 29, 29, ...] to the budget: 29 is the only item a number allows
    ("Zoe is 29 and Tom is 29.", 2),  # a text writing it twice lets it be written twice
])
def test_a_list_holds_a_number_no_more_often_than_its_text_writes_it(model_extractor, text, most):
    try:
        result = model_extractor.extract(Ages, text, max_tokens=160, refusal=False)
    except IncompleteOutputError as exc:
        pytest.fail(f"cut by the token budget: {exc}")
    assert set(result.ages) <= {29} and len(result.ages) <= most, result.ages


TAGS = {"title": "Tags", "type": "object", "required": ["tags"], "properties": {"tags": {
    "type": "array", "uniqueItems": True, "minItems": 3, "items": {"type": "string", "x-verbatim": True}}}}


def test_a_set_its_text_cannot_fill_is_a_typed_error(model_extractor):
    """Three distinct copies of "red" do not exist ("" and "red" do): the matcher is left with no token to allow,
    which the compiler does not foresee for copies; a raw ValueError came out of the decoding loop."""
    with pytest.raises(UnsatisfiableSchemaError, match="no token is allowed"):
        model_extractor.extract(TAGS, "red", max_tokens=60, refusal=False)
