"""The real labeled sets (benchmarks/data/real): well formed, both splits, and every gold value held by its text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import schemas
from extractor import trace

REAL = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "real"
SETS = sorted(p.parent.name for p in REAL.glob("*/documents.jsonl"))
KEYS = ["id", "set", "target", "split", "layout", "lang", "text", "gold", "source"]


def documents(name: str) -> list[dict]:
    return [json.loads(line) for line in (REAL / name / "documents.jsonl").read_text().splitlines() if line.strip()]


def test_the_three_sets_are_there():
    assert SETS == ["nda", "receipts", "resumes"]


@pytest.mark.parametrize("name", SETS)
def test_a_set_is_well_formed(name):
    docs = documents(name)
    assert all(list(d) == KEYS and d["set"] == name for d in docs)
    assert len({d["id"] for d in docs}) == len(docs) >= 40
    assert {d["split"] for d in docs} == {"dev", "test"}
    assert (REAL / name / "README.md").exists() and (REAL / name / "build.py").exists()


@pytest.mark.parametrize("name", SETS)
def test_every_gold_value_is_found_in_its_text(name):
    missed = [(d["id"], v.pointer) for d in documents(name) for v in trace(d["gold"], d["text"], getattr(schemas, d["target"]))
              if v.status == "not_found"]
    assert missed == []
