"""`benchmarks/maskbench.py`'s accounting of the cyclic collector's pauses inside mask calls."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from benchmarks.maskbench import CollectorClock, force, summarize


class Matcher:
    """Allows every token; its mask collects garbage at the steps named."""

    def __init__(self, collect_at: set[int]) -> None:
        self.collect_at, self.step = collect_at, 0

    def mask(self) -> np.ndarray:
        if self.step in self.collect_at:
            gc.collect()
        return np.ones(4, dtype=bool)

    def advance(self, token: int) -> None:
        self.step += 1

    def accepting(self) -> bool:
        return True


@pytest.mark.parametrize(("collect_at", "held"), [(set(), 0), ({1}, 1), ({0, 2}, 2)])
def test_collector_pauses_are_counted_in_the_masks_that_held_them(collect_at, held) -> None:
    timings: list[float] = []
    paused: list[float] = []
    with CollectorClock() as clock:
        result = force(Matcher(collect_at), [0, 1], [3], timings, (b"a", b"b", b"c", b""), paused, clock)
    assert result["accepted"] and len(timings) == len(paused) == 3
    assert [i for i, p in enumerate(paused) if p > 0] == sorted(collect_at)
    assert all(0 <= p <= t for t, p in zip(timings, paused))
    summary = summarize([], timings, paused)
    assert summary["masks_with_collector"] == held
    assert summary["mask_us_less_collector"]["max"] <= summary["mask_us"]["max"]


def test_reordering_a_test_instance_leaves_no_cycle_for_the_collector() -> None:
    """The harness's own key-order search (closures calling each other) frees what it made at once: cyclic garbage
    of its would be walked by a full collection inside some engine's timed mask."""
    from benchmarks.common import accepted_order
    from extractor.automata import build_automaton
    from extractor.grammar import compile_grammar
    from extractor.schema import target_ir

    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "array"}},
              "required": ["b", "a"], "additionalProperties": False}
    auto = build_automaton(compile_grammar(target_ir(schema, None)))
    gc.collect()
    gc.disable()
    try:
        assert accepted_order(auto, {"b": [1, {"c": 2}], "a": 3}) == '{"a":3,"b":[1,{"c":2}]}'
        assert gc.collect() == 0
    finally:
        gc.enable()
