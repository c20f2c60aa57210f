"""`benchmarks/long_scaling.py`: the generated contract has the length asked for and its answer at both ends, and a
smoke run reads a tiny one (whole: windows are tested in tests/documents) in a child process."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("chars", [300, 5_000, 100_000])
def test_the_contract_is_as_long_as_asked_with_its_answer_at_both_ends(chars):
    from benchmarks.long_scaling import contract

    text = contract(chars)
    assert chars <= len(text) < chars + 1_200
    assert "Northwind Analytics Ltd." in text[:200] and "State of Delaware" in text[-100:]
    assert contract(chars) == text  # a fixed seed


def test_the_scaling_benchmark_runs_on_a_tiny_text(tmp_path):
    pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")
    from benchmarks.long_scaling import main

    out = tmp_path / "scaling.json"
    main(["--sizes", "300", "--max-tokens", "96", "--json", str(out), "--md", str(tmp_path / "s.md")])
    [run] = json.loads(out.read_text())["runs"]
    assert run["windows"] == 0 and run["peak_rss_mib"] > 100 and run["tokens"] > 40 and run["chars"] >= 300
