"""`benchmarks/needle.py`: documents buried whole at line breaks in the third asked, agreements that state their
gold, long-against-alone scores from a fake extractor, and a smoke run on the embedded model."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from benchmarks import needle
from benchmarks.quality_score import Outcome

DOCUMENT = "ACME Invoice\nNo. 17\nTotal 42.00 EUR"


@pytest.mark.parametrize("length, third", [(2_000, 0), (8_000, 1), (8_000, 2), (40_000, 1)])
def test_a_document_is_buried_whole_at_a_line_break_in_the_third_asked(length, third):
    long, at = needle.bury(random.Random(length + third), DOCUMENT, length, third)
    assert long[at:at + len(DOCUMENT)] == DOCUMENT and (at == 0 or long[at - 2:at] == "\n\n")
    assert length * 0.9 <= len(long) <= length
    assert needle.bucket(at, len(DOCUMENT), len(long)) == needle.BUCKETS[third]


@pytest.mark.parametrize("at, size, length, bucket", [
    (0, 100, 9_000, "start"), (4_000, 1_000, 9_000, "middle"), (8_900, 100, 9_000, "end"), (0, 9_000, 9_000, "middle"),
])
def test_a_documents_bucket_is_the_third_its_middle_fell_in(at, size, length, bucket):
    assert needle.bucket(at, size, length) == bucket


@pytest.mark.parametrize("seed", range(4))
def test_an_agreement_states_its_parties_and_date_first_and_its_term_notice_and_law_last(seed):
    opening, closing, gold = needle.agreement(random.Random(seed))
    assert all(p in opening for p in gold["parties"]) and str(int(gold["effective_date"][-2:])) in opening
    assert f"{gold['term_months']} months" in closing and f"{gold['notice_days']} days" in closing
    assert gold["governing_law"] in closing and needle.Agreement.model_validate(gold)


def test_needles_come_round_robin_from_several_kinds_and_sets():
    docs = needle.needles("test", 4, None, 0)
    assert len({(d["set"], d["target"]) for d in docs}) == 4 and len({d["set"] for d in docs}) == 3
    assert all(d["gold"] is not None and d["target"] != "NDA" for d in docs)


def test_scores_compare_the_long_text_with_the_document_alone(tmp_path, monkeypatch):
    args = argparse.Namespace(lengths=[20000], docs=3, facts=1, seed=0, split="test", targets=None)
    alone = {c["alone"]: c["gold"] for c in needle.cases(args)}

    def fake_run(method, ex, target, text, budget):
        """The gold for a document alone, nothing for a long text."""
        gold = alone.get(text)
        return Outcome(output=gold, refused=False, valid=gold is not None, cut=False, tokens=1, seconds=0.5)

    monkeypatch.setattr("extractor.Extractor", lambda model: None)
    monkeypatch.setattr(needle, "run", fake_run)
    needle.main(["--lengths", "20000", "--docs", "3", "--facts", "1", "--json", str(tmp_path / "n.json")])
    result = json.loads((tmp_path / "n.json").read_text())
    for kind, documents in (("needle", 3), ("facts", 1)):
        scores = result["kinds"][kind]["20000"]
        assert (scores["documents"], scores["long"]["field_f1"], scores["alone"]["field_f1"]) == (documents, 0.0, 1.0)
    assert set(result["kinds"]["needle"]["20000"]["buckets"]) == set(needle.BUCKETS)
    assert len(result["cases"]) == 4 and result["commit"]


def test_a_report_of_a_run_stopped_early_runs_nothing_and_lists_the_cases_left(tmp_path, monkeypatch):
    log, out = tmp_path / "outcomes.jsonl", tmp_path / "n.json"
    outcome = Outcome(output=None, refused=True, valid=True, cut=False, tokens=1, seconds=0.5)
    monkeypatch.setattr("extractor.Extractor", lambda model: None)
    monkeypatch.setattr(needle, "run", lambda *a: outcome)
    needle.main(["--lengths", "2000", "--docs", "1", "--facts", "1", "--resume", str(log)])
    monkeypatch.setattr(needle, "run", lambda *a: pytest.fail("a report-only run ran a case"))
    needle.main(["--lengths", "2000,9000", "--docs", "1", "--facts", "1", "--resume", str(log), "--report-only",
                 "--note", "a shared machine", "--json", str(out), "--md", str(tmp_path / "n.md")])
    result = json.loads(out.read_text())
    assert result["note"] == "a shared machine" and "\na shared machine\n" in (tmp_path / "n.md").read_text()
    assert [c["id"] for c in result["cases"]] == ["invoice-026@2000", "facts-0@2000"]
    assert result["unfinished"] == ["invoice-026@9000", "facts-0@9000"] and list(result["kinds"]["needle"]) == ["2000"]


def test_the_smoke_run_reads_a_needle_in_windows_on_the_embedded_model(tmp_path):
    pytest.importorskip("torch", reason="the smoke run decodes with the embedded model")
    out = tmp_path / "needle.json"
    needle.main(["--smoke", "--facts", "0", "--json", str(out), "--md", str(tmp_path / "needle.md")])
    result = json.loads(out.read_text())
    assert result["window"] == 192 and result["cases"][0]["chars"] <= 1_500
    assert "| needle | 1,500 | 1 |" in (tmp_path / "needle.md").read_text()


@pytest.mark.parametrize("beside", [0, 250])
def test_beside_reads_each_document_with_what_stands_beside_it_in_its_long_text(beside):
    whole = needle.cases(argparse.Namespace(lengths=[20000], docs=3, facts=0, seed=0, split="test", targets=None))
    cut = needle.cases(argparse.Namespace(lengths=[20000], docs=3, facts=0, seed=0, split="test", targets=None,
                                          beside=beside))
    for w, c in zip(whole, cut):
        at = w["long"].index(w["alone"])
        assert c["long"] == w["long"][max(0, at - beside):at + len(w["alone"]) + beside]
        assert c["bucket"] == w["bucket"]  # where it fell in the whole long text


def test_a_negative_beside_is_refused_before_anything_runs(capsys):
    with pytest.raises(SystemExit):
        needle.main(["--beside", "-5", "--docs", "1", "--facts", "0"])
    assert "--beside takes the characters read on each side" in capsys.readouterr().err
