"""`benchmarks/shared_prefix.py`: a smoke run on two tiny documents, both ways, outputs compared."""

from __future__ import annotations

import json

import pytest

from tests.benchmark_model import shared_model  # noqa: F401 - a fixture


def test_the_shared_prefix_benchmark_runs_on_two_documents(tmp_path, shared_model):
    pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")
    from benchmarks.shared_prefix import main

    out = tmp_path / "shared.json"
    main(["--target", "Event", "--docs", "2", "--batch", "2", "--max-tokens", "24", "--repeats", "1",
          "--json", str(out), "--md", str(tmp_path / "shared.md")])
    result = json.loads(out.read_text())
    assert result["docs"] == 2 and result["shared_prefix_tokens"] >= 64
    assert result["identical"] is True and result["seconds_shared"] > 0
