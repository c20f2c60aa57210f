"""`benchmarks/choice_orders.py`'s pure parts: the offer turned around, and what each rule returns."""

from __future__ import annotations

import pytest

from benchmarks.choice_orders import gold_at, reversed_offer, rules
from extractor.pipeline.choice import GAP, Offered
from extractor.tracing.record import Candidate

SCHEMA = {"type": "object", "properties": {"d": {"enum": ["a", "b", "c", None]}}, "required": ["d"]}


def test_the_offer_turned_around_keeps_null_last_and_reverses_the_text():
    offered = Offered("d", SCHEMA, (Candidate("a", 0), Candidate("b", 1), Candidate("c", 2), Candidate(None, -1)),
                      ((0, "/d"), (1, "/d"), (2, "/d"), (-1, "")), GAP.join(["A text", "B text", "C text"]))
    other = reversed_offer(offered)
    assert [c.value for c in other.candidates] == ["c", "b", "a", None]
    assert other.schema["properties"]["d"]["enum"] == ["c", "b", "a", None]
    assert other.sources == ((2, "/d"), (1, "/d"), (0, "/d"), (-1, ""))
    assert other.text == GAP.join(["C text", "B text", "A text"])
    assert offered.schema["properties"]["d"]["enum"] == ["a", "b", "c", None]  # the offer itself unchanged


ROW = {"merge": "b", "values": ["a", "b", None]}
RULES = [  # (the two answers, each candidate's log-likelihood in both orders) -> what the rules return
    (("a", "a"), [[-1, -1], [-3, -3], [0, 0]], {"offered": "a", "reversed": "a", "agreed, else merge": "a",
                                                  "likelihood": "a"}),
    (("a", "b"), [[-5, -1], [-2, -2], [0, 0]], {"agreed, else merge": "b", "likelihood": "b"}),  # null left out
    (("a", None), None, {"agreed, else merge": "b", "likelihood": None}),  # no likelihoods: no pick
]


@pytest.mark.parametrize("answers,loglik,want", RULES)
def test_each_rule_returns_its_pick(answers, loglik, want):
    got = rules({**ROW, "offered": answers[0], "reversed": answers[1], "loglik": loglik})
    assert got["merge"] == "b" and {k: got[k] for k in want} == want


GOLD = {"notice_days": 60, "a/b": "slashed", "items": [{"x": 1}]}


@pytest.mark.parametrize("pointer,want", [
    ("/notice_days", 60), ("/a~1b", "slashed"), ("/items/0/x", 1), ("/items/1/x", None), ("/items/x", None),
    ("/missing", None), ("/notice_days/0", None),
])
def test_the_gold_at_a_pointer(pointer, want):
    assert gold_at(GOLD, pointer) == want
