"""A result record's gaps carry each conflict whole: the value kept, whether the model chose it, and its candidates
as finite JSON (the review page and a corpus job's columns read them)."""

from __future__ import annotations

import json
import math

import pytest

from extractor.outputs.records import gaps
from extractor.tracing import Conflict, Span, Trace
from extractor.tracing.record import Candidate


@pytest.mark.parametrize("candidates, chosen, written", [
    ((Candidate(3, 0, Span(40, 41), -2.5), Candidate(120, 2, Span(900, 903), -0.25), Candidate(None, -1)), True,
     [{"value": 3, "window": 0, "span": [40, 41], "loglik": -2.5},
      {"value": 120, "window": 2, "span": [900, 903], "loglik": -0.25},
      {"value": None, "window": -1, "span": None, "loglik": None}]),
    ((Candidate("a", 0, None, -math.inf), Candidate("b", 1, Span(5, 6), math.nan)), True,
     [{"value": "a", "window": 0, "span": None, "loglik": None},
      {"value": "b", "window": 1, "span": [5, 6], "loglik": None}]),
    ((), False, []),
], ids=["chosen_with_logliks", "not_finite_as_null", "merge_pick"])
def test_a_conflicts_record_carries_its_choice_and_candidates_as_finite_json(candidates, chosen, written) -> None:
    conflict = Conflict("/notice_days", 120, 2, ((3, 0),), candidates, chosen)
    (record,) = gaps(Trace(conflicts=(conflict,)))["conflicts"]
    assert record == {"pointer": "/notice_days", "kept": 120, "window": 2, "others": [{"value": 3, "window": 0}],
                      "chosen": chosen, "candidates": written}
    json.dumps(record, allow_nan=False)  # raises on a value JSON cannot write
