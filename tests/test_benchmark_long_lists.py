"""`benchmarks/long_lists.py`: the generated texts hold their gold, matching counts hits and repeats, and a smoke
run on one tiny statement and schedule read in small windows."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")

from tests.benchmark_model import shared_model  # noqa: E402,F401 - a fixture


@pytest.mark.parametrize("name", ["statement", "schedule"])
def test_every_gold_value_is_written_in_the_generated_text(name):
    from benchmarks.long_lists import SETS, leaves

    text, gold = SETS[name][2](random.Random(3), 25)
    assert len(gold[SETS[name][1]]) == 25
    for value in leaves(gold):
        assert (f"{value:.2f}" if isinstance(value, float) else str(value)) in text


@pytest.mark.parametrize("got, hits, repeats", [
    ([], 0, 0),
    ([{"t": "09:00", "r": "Hall A"}], 1, 0),
    ([{"t": "09:00", "r": "hall  a"}, {"t": "09:00", "r": "Hall A"}], 1, 1),
    ([{"t": "09:25", "r": "Hall B"}, {"t": "09:00", "r": "Hall B"}, {"t": "09:00", "r": "Hall B"}], 1, 1),
], ids=["none", "one", "normalized_repeat", "wrong_and_repeated"])
def test_matching_counts_gold_hits_and_repeats(got, hits, repeats):
    from benchmarks.long_lists import matched

    gold = [{"t": "09:00", "r": "Hall A"}, {"t": "09:25", "r": "Hall B"}]
    assert matched(gold, got) == (hits, repeats)


def test_the_long_list_benchmark_runs_on_a_tiny_input(tmp_path, shared_model):
    from benchmarks.long_lists import main

    out = tmp_path / "ll.json"
    main(["--docs", "1", "--sets", "schedule", "--sessions", "2", "--window", "40", "--max-tokens", "120",
          "--json", str(out), "--md", str(tmp_path / "ll.md")])
    summary = json.loads(out.read_text())["sets"]["schedule"]
    assert summary["documents"] == 1 and summary["windows_per_doc"] >= 2 and summary["recall_alone"] is not None
    assert "| schedule | 1 | 2 |" in (tmp_path / "ll.md").read_text()


@pytest.mark.parametrize("got, hits", [
    ([{"t": "09:00", "r": "101"}], 1),
    ([{"t": "09:00", "r": "101"}, {"t": "09:00", "r": "Hall A"}], 1),
    ([{"t": "10:00", "r": "101"}], 0),
    ([{"t": "09:25", "r": "x"}, {"t": "09:00", "r": "y"}], 2),
], ids=["one_field_off", "each_gold_once", "two_off", "both"])
def test_loose_matching_allows_one_field_off(got, hits):
    from benchmarks.long_lists import loose

    assert loose([{"t": "09:00", "r": "Hall A"}, {"t": "09:25", "r": "Hall B"}], got) == hits
