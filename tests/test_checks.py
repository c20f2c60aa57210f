"""User checks: messages from returns and raises, and the @check decorator on models."""

from __future__ import annotations

from pydantic import BaseModel

from extractor.errors import Problem
from extractor.pipeline.checks import check, model_checks, run_checks


class Order(BaseModel):
    items: list[int]
    total: int

    @check
    def total_matches(self) -> str | None:
        return None if sum(self.items) == self.total else f"total {self.total} is not the sum of items"


def positive(order: Order) -> list[str]:
    return [f"item {i} is not positive" for i in order.items if i <= 0]


def not_empty(order: Order) -> None:
    if not order.items:
        raise ValueError("no items")


def test_messages_from_returns_raises_and_decorated_methods():
    bad = Order(items=[0, 2], total=5)
    messages = [p.msg for p in run_checks(bad, [positive, not_empty, *model_checks(Order)])]
    assert messages == ["positive: item 0 is not positive", "total_matches: total 5 is not the sum of items"]
    assert run_checks(Order(items=[], total=0), [not_empty]) == [Problem("not_empty: no items")]
    assert run_checks(Order(items=[1, 2], total=3), [positive, not_empty, *model_checks(Order)]) == []
    assert model_checks(dict) == [] and model_checks({"type": "object"}) == []
