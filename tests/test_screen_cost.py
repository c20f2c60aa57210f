"""The relevance screen's short texts are what their generator writes (the cost and calibration scripts' smoke runs
are rows of tests/test_benchmark_smokes.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

SHORT = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "short"


def _generator():
    spec = importlib.util.spec_from_file_location("short_generate", SHORT / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_short_texts_are_what_the_generator_writes_and_each_split_has_both_labels(tmp_path):
    generator = _generator()
    generator.main(tmp_path / "documents.jsonl")
    assert (tmp_path / "documents.jsonl").read_bytes() == (SHORT / "documents.jsonl").read_bytes()
    docs = [json.loads(line) for line in (SHORT / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len({d["id"] for d in docs}) == len(docs)
    for split in ("dev", "test"):
        assert {d["answerable"] for d in docs if d["split"] == split} == {True, False}
    assert all(not any("description" in f for f in d["schema"]["properties"].values()) for d in docs)
