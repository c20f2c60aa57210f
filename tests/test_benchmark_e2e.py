"""`benchmarks/e2e.py` on the four matched documents with a tiny budget: the decode-speed benchmark still runs."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")

from tests.benchmark_model import shared_model  # noqa: E402,F401 - a fixture


def test_the_decode_speed_benchmark_runs_on_a_tiny_budget(tmp_path, shared_model):
    from benchmarks.e2e import main

    out = tmp_path / "e2e.json"
    main(["--docs", "matched", "--max-tokens", "6", "--batches", "1", "--threads", "1", "--json", str(out),
          "--md", str(tmp_path / "e2e.md")])
    result = json.loads(out.read_text())
    assert result["output_tokens"] > 0 and result["forward_passes"] > 0
    assert result["greedy_identical_rate"] == 1.0  # jump-forward changes no output
