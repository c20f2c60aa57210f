"""The labeled extraction-quality set (benchmarks/data/quality): valid gold, sound splits, reproducible bytes."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

import schemas

QUALITY = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "quality"
DOCUMENTS = QUALITY / "documents.jsonl"
LIST_FIELDS = ["skills", "experience", "line_items", "items", "requirements", "emails", "phones"]


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    assert DOCUMENTS.is_file(), "run benchmarks/data/quality/generate.py"
    return [json.loads(line) for line in DOCUMENTS.read_text(encoding="utf-8").splitlines()]


def test_ids_are_unique_and_every_gold_round_trips_through_its_schema(docs):
    assert len(docs) >= 150
    assert len({d["id"] for d in docs}) == len(docs)
    for d in docs:
        if d["gold"] is not None:
            model = getattr(schemas, d["target"])
            assert model.model_validate(d["gold"]).model_dump(mode="json") == d["gold"], d["id"]


def test_refusals_both_splits_and_list_lengths_from_empty_to_long(docs):
    assert sum(d["gold"] is None for d in docs) >= 25
    assert {d["split"] for d in docs} == {"dev", "test"}
    for field in LIST_FIELDS:
        lengths = {len(d["gold"][field]) for d in docs if d["gold"] and field in d["gold"]}
        assert min(lengths) == 0 and max(lengths) >= 8, (field, sorted(lengths))


def test_the_generator_reproduces_the_checked_in_file_byte_for_byte(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the generator puts its own folder first; undone afterwards
    spec = importlib.util.spec_from_file_location("quality_generate", QUALITY / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.main(tmp_path / "documents.jsonl")
    assert (tmp_path / "documents.jsonl").read_bytes() == DOCUMENTS.read_bytes()
