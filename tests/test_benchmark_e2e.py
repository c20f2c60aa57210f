"""`benchmarks/e2e.py` on one matched document with a tiny budget: the decode-speed benchmark still runs (each
document is decoded seven ways, each paying its prompt's prefill: one is enough to prove the script)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")

from tests.benchmark_model import shared_model  # noqa: E402,F401 - a fixture


def test_the_decode_speed_benchmark_runs_on_a_tiny_budget(tmp_path, shared_model):
    from benchmarks.e2e import main

    out = tmp_path / "e2e.json"
    main(["--docs", "matched", "--schemas", "Event", "--max-tokens", "6", "--batches", "1", "--threads", "1",
          "--json", str(out), "--md", str(tmp_path / "e2e.md")])
    result = json.loads(out.read_text())
    assert result["setup"]["documents"] == 1 and result["output_tokens"] > 0 and result["forward_passes"] > 0
    assert result["greedy_identical_rate"] == 1.0  # jump-forward changes no output


@pytest.mark.parametrize(("which", "only", "expected"), [
    ("matched", None, ["Resume", "Invoice", "ContactCard", "Event"]),
    ("matched", "Event,Resume", ["Resume", "Event"]),
    ("all", "Event", ["Event"] * 5),
], ids=["all_four", "two_in_order", "one_on_every_text"])
def test_documents_keep_the_named_schemas_in_order(which, only, expected):
    from benchmarks.e2e import documents

    assert [model.__name__ for model, _ in documents(which, only)] == expected


def test_an_unknown_schema_name_is_refused():
    from benchmarks.e2e import documents

    with pytest.raises(SystemExit, match="unknown schema 'Evnt'"):
        documents("matched", "Evnt")
