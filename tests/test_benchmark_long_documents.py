"""`benchmarks/long_documents.py`: Kleister's pairs and metric as a table, and a smoke run of the four methods on
one contract's opening, cut into small windows."""

from __future__ import annotations

import datetime
import json

import pytest

from schemas import NDA

pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")


@pytest.mark.parametrize("nda, pairs", [
    (NDA(parties=["JDA Software Group, Inc.", "RedPrairie Holding"], effective_date=datetime.date(2012, 9, 4),
         jurisdiction="New York", term="two (2) years"),
     ["EFFECTIVE_DATE=2012-09-04", "JURISDICTION=NEW_YORK", "PARTY=JDA_SOFTWARE_GROUP_INC.", "PARTY=REDPRAIRIE_HOLDING",
      "TERM=2_YEARS"]),
    (NDA(parties=[], term="1 year"), ["TERM=1_YEAR"]),
    (NDA(parties=["A"], term="eighteen months"), ["PARTY=A", "TERM=18_MONTHS"]),
    (NDA(parties=["A"], term="until terminated"), ["PARTY=A"]),
])
def test_results_are_read_as_kleisters_pairs(nda, pairs):
    from benchmarks.long_documents import pairs as read

    assert read(nda) == pairs


def test_the_metric_sums_counts_over_documents():
    from benchmarks.long_documents import score

    outcomes = [{"pairs": ["PARTY=A", "TERM=2_YEARS"], "gold": ["PARTY=A", "PARTY=B"], "valid": True, "values": 2,
                 "not_found": 0, "windows": 2, "seconds": 1.0},
                {"pairs": [], "gold": ["PARTY=C"], "valid": True, "values": 0, "not_found": 0, "windows": 1,
                 "seconds": 1.0}]
    got = score(outcomes)
    assert (got["precision"], got["recall"], got["f1"]) == (0.5, 0.3333, 0.4)
    assert got["per_key"]["party"] == 0.5 and got["per_key"]["term"] == 0.0


def test_the_long_document_benchmark_runs_on_a_tiny_input(tmp_path):
    from benchmarks.long_documents import main

    out = tmp_path / "long.json"
    main(["--split", "dev-0", "--limit", "1", "--chars", "600", "--window", "96", "--overlap", "8",
          "--max-tokens", "6", "--json", str(out), "--md", str(tmp_path / "long.md")])
    result = json.loads(out.read_text())
    assert set(result["methods"]) == {"extract", "first_window", "free_chunks", "no_window_form"}
    assert result["outcomes"]["extract"][0]["windows"] > 1
    assert result["methods"]["extract"]["valid_rate"] in (0.0, 1.0)


def test_a_resumed_run_reuses_the_outcomes_it_finds(tmp_path, monkeypatch):
    from benchmarks import long_documents

    log, out = tmp_path / "outcomes.jsonl", tmp_path / "long.json"
    argv = ["--limit", "1", "--chars", "400", "--methods", "first_window", "--max-tokens", "8", "--resume", str(log),
            "--json", str(out)]
    long_documents.main(argv)
    first = json.loads(out.read_text())["outcomes"]
    log.write_text(log.read_text() + '{"method": "first_window", "id"')  # a torn line, as a killed run leaves
    monkeypatch.setattr(long_documents.Runner, "run", lambda *a: pytest.fail("a finished outcome was run again"))
    long_documents.main(argv)
    assert json.loads(out.read_text())["outcomes"] == first


def test_the_first_window_of_a_contract_that_fits_one_is_extracts_own_call(tmp_path, monkeypatch):
    from benchmarks import long_documents

    calls = []
    run = long_documents.Runner.run
    monkeypatch.setattr(long_documents.Runner, "run", lambda self, m, doc: calls.append(m) or run(self, m, doc))
    out = tmp_path / "long.json"
    long_documents.main(["--limit", "1", "--chars", "400", "--methods", "extract,first_window", "--max-tokens", "8",
                         "--json", str(out)])
    outcomes = json.loads(out.read_text())["outcomes"]
    assert calls == ["extract"] and outcomes["first_window"][0]["same_call_as"] == "extract"
    assert outcomes["first_window"][0]["pairs"] == outcomes["extract"][0]["pairs"]
