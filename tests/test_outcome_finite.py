"""An attempt whose result would hold NaN or an infinity is invalid, and retried: JSON cannot write such a number,
whatever let it through (an output the grammar did not make, a huge integer validated as a float, a validator)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from extractor.decode.loop import Generation
from extractor.pipeline.outcome import Invalid, Parsed, outcome


class Reading(BaseModel):
    value: float


class Series(BaseModel):
    readings: list[Reading]


@dataclass
class Point:
    x: float


class Scaled(BaseModel):
    value: float

    @field_validator("value")
    @classmethod
    def scale(cls, value: float) -> float:
        return value * 1e300


ROWS = [
    (Reading, '{"value":1e999}', "/value", "inf"),
    (Reading, '{"value":1' + "0" * 400 + "}", "/value", "inf"),
    (Series, '{"readings":[{"value":1},{"value":-1e999}]}', "/readings/1/value", "-inf"),
    ({"type": "object"}, '{"a/b":[1e999]}', "/a~1b/0", "inf"),
    (list[float], "[1,2e400]", "/1", "inf"),
    (list[Point], '[{"x":0},{"x":1e999}]', "/1/x", "inf"),
    (float, "1e999", "the top level", "inf"),
    (Scaled, '{"value":1e10}', "/value", "inf"),
]


@pytest.mark.parametrize("target, text, pointer, number", ROWS, ids=[r[1][:30] for r in ROWS])
def test_a_non_finite_number_makes_the_attempt_invalid(target: Any, text: str, pointer: str, number: str) -> None:
    attempt, came = outcome(target, None, Generation(text, text.encode(), complete=True), [], 100, [])
    assert isinstance(came, Invalid)
    assert [str(e) for e in attempt.errors] == [f"the number at {pointer} is {number}, which JSON cannot write: "
                                   f"write a finite number"]


@pytest.mark.parametrize("target, text", [(Reading, '{"value":1.7976931348623157e308}'), (list[float], "[-0.0]")])
def test_finite_numbers_are_kept(target: Any, text: str) -> None:
    assert isinstance(outcome(target, None, Generation(text, text.encode(), complete=True), [], 100, [])[1], Parsed)
