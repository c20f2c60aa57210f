"""`benchmarks/far_apart.py` and its data: each fact stated once at the span its gold names, decoys of the same type
around it, the stored splits holding their gold, a wrong value's stage told apart, and a smoke run on the embedded
model."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks import far_apart
from benchmarks.data.far_apart import generate
from tests.benchmark_model import shared_model  # noqa: F401 (the fixture)

FILLER = tuple(f"Clause {i}. The Recipient shall hold all Confidential Information in strict confidence, line {i}."
               for i in range(60))


def _written(value: object) -> str:
    """A gold value as the generated text writes it."""
    if isinstance(value, int):
        return f"{value:,}" if value >= 1000 else str(value)
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\d", value):
        year, month, day = map(int, value.split("-"))
        return f"{day} {generate.MONTHS[month - 1]} {year}"
    return str(value)


@pytest.mark.parametrize("kind", sorted(generate.KINDS))
@pytest.mark.parametrize("split", ["dev", "test"])
def test_each_fact_stands_once_at_its_span_among_decoys_of_its_type(kind, split, monkeypatch):
    monkeypatch.setattr(generate, "filler_lines", lambda: FILLER)
    doc = generate.document(kind, split, 5_000, f"{split}:{kind}")
    text, spec = doc["text"], generate.KINDS[kind]
    assert spec.target.model_validate(doc["gold"]) and 4_000 <= len(text) <= 5_400
    for field, (start, end) in doc["facts"].items():
        assert text[start:end] == _written(doc["gold"][field])
    starts = sorted(start for start, _ in doc["facts"].values())
    assert starts[0] < 200 and starts[-1] > 0.8 * len(text)  # first paragraph ... near the end
    decoys = [re.compile(re.sub(r"\\\{\w+\\\}", ".+", re.escape(t)) + "$") for t in spec.decoys[split]]
    assert sum(any(d.match(line) for d in decoys) for line in text.split("\n")) >= 4


@pytest.mark.parametrize("kind", sorted(generate.KINDS))
def test_the_splits_word_every_fact_and_decoy_differently(kind):
    spec = generate.KINDS[kind]
    assert not set(spec.wording["dev"]) & set(spec.wording["test"])
    assert not set(spec.decoys["dev"]) & set(spec.decoys["test"])


@pytest.mark.parametrize("split", ["dev", "test"])
def test_the_stored_split_holds_each_gold_value_where_its_fact_stands(split):
    rows = [json.loads(line) for line in (far_apart.DATA / f"{split}.jsonl").read_text().splitlines()]
    _, lengths, count = generate.SPLITS[split]
    assert [r["id"] for r in rows] == [f"{k}-{n // 1000}k-{i}" for n in lengths for i in range(count)
                                       for k in generate.KINDS]
    for row in rows:
        for field, (start, end) in row["facts"].items():
            assert row["text"][start:end] == _written(row["gold"][field]), (row["id"], field)


DOC = {"id": "d", "gold": {"notice_days": 120, "governing_law": "New York"},
       "facts": {"notice_days": [900, 903], "governing_law": [100, 108]}}


def _row(values, written, conflicts=(), unread=(), windows=([0, 600], [500, 1000])):
    return {"values": values, "windows": list(windows), "unread": list(unread),
            "conflicts": list(conflicts), "written": written}


CHOSEN = {"pointer": "/notice_days", "chosen": True, "candidates": [{"value": 3}, {"value": 120}]}


@pytest.mark.parametrize("row, stages", [
    (_row({"notice_days": 120, "governing_law": "the State of New York"}, []), ("right", "right")),
    (_row({"notice_days": 3, "governing_law": None}, [{"notice_days": 3, "governing_law": None}]),
     ("not written", "not written")),
    (_row({"notice_days": 3, "governing_law": "new york"}, [{"notice_days": 120, "governing_law": None}]),
     ("merge", "right")),
    (_row({"notice_days": 3, "governing_law": None}, [{"notice_days": 120, "governing_law": None}], [CHOSEN]),
     ("choice", "not written")),
    (_row({"notice_days": None, "governing_law": None}, [], unread=[1]), ("unread", "not written")),
    (_row({"notice_days": None, "governing_law": None}, [], windows=[[0, 600]]), ("unread", "not written")),
])
def test_a_wrong_values_stage_is_the_first_that_lost_it(row, stages):
    judged = far_apart.judge(DOC, row)
    assert (judged["notice_days"]["stage"], judged["governing_law"]["stage"]) == stages


def test_the_smoke_run_reads_a_short_lease_in_windows(tmp_path, monkeypatch, shared_model):
    """The merge's mode only: the model's choice costs a decode and likelihood passes per conflict (tested in
    tests/test_choice.py), too slow for the main suite."""
    monkeypatch.setattr(generate, "filler_lines", lambda: FILLER[:3])
    doc = {"id": "smoke", **generate.document("lease", "dev", 450, "smoke")}
    (tmp_path / "docs.jsonl").write_text(json.dumps(doc) + "\n")
    far_apart.main(["--data", str(tmp_path / "docs.jsonl"), "--window", "96", "--max-tokens", "40", "--conflicts",
                    "merge", "--json", str(tmp_path / "f.json"), "--md", str(tmp_path / "f.md")])
    result = json.loads((tmp_path / "f.json").read_text())
    assert list(result["cases"][0]["modes"]) == ["merge"] and len(result["cases"][0]["modes"]["merge"]["windows"]) > 1
    assert result["modes"]["merge"]["all"]["fields"] == 4 and result["commit"]
    assert "| lease.term_months | 1 |" in (tmp_path / "f.md").read_text()
