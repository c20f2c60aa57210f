"""The benchmarks of tracing and refusal (benchmarks/calibrate_refusal.py --answers, quality_score.trace_figures,
trace_gold.py) on a few labeled documents with hand-made answers: no model."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.calibrate_refusal import _markdown, answers, figures, rates, rule_rates
from benchmarks.quality import documents


def test_figures_from_refusals():
    assert figures([(True, True), (True, False), (False, True), (False, False)]) == {
        "precision": 0.5, "recall": 0.5, "f1": 0.5, "false_refusal_rate": 0.5}


@pytest.mark.parametrize("split, given, title", [
    ("dev", True, "Threshold given"), ("dev", False, "Threshold chosen"), ("test", True, "Threshold given"),
    ("test", None, "Threshold given"), ("dev", None, "Threshold chosen")])  # None: a file written before `given`
def test_a_threshold_is_titled_as_given_or_chosen(split, given, title):
    scored = [(-9.0, True), (3.0, False)]
    result = {"split": split, "model": "m", "commit": "c", "auc": None, "chosen": rates(scored, 0.0),
              "short": None, "curve": [], "documents": [{"set": "generated"}] * 2}
    if given is not None:
        result["given"] = given
    assert title in _markdown(result)


def test_a_rule_refuses_below_the_screen_or_doubtful_and_unfounded_or_without_values():
    rows = [(-9.0, None, False, True), (-1.0, 1.0, False, True), (-1.0, 0.2, False, False),
            (3.0, 1.0, True, False), (-2.0, 0.0, True, True)]
    assert rule_rates(rows, (-5.0, 0.0, 1.0, None))["recall"] == 2 / 3
    assert rule_rates(rows, (-5.0, 0.0, 1.0, -1.0))["recall"] == 1.0  # the text writing no value asked for
    assert rule_rates(rows, (-5.0, 0.0, 1.0, -3.0))["recall"] == 2 / 3  # ... but not below -3
    assert rule_rates(rows, (-5.0, 0.0, 1.0, 4.0))["false_refusal_rate"] == 0.5
    assert rule_rates(rows, (-5.0, 4.0, 1.0, None))["false_refusal_rate"] == 0.5  # the plainly relevant refused


def test_the_joint_choice_runs_on_a_few_documents():
    docs = documents("dev", ["ContactCard"], 6)
    made_up = {"name": "Nobody Here", "title": None, "organization": None, "emails": ["x@nowhere.invalid"],
               "phones": [], "address": None}
    outcomes = {d["id"]: {"output": d["gold"] or made_up, "refused": False} for d in docs}
    rows = [{"id": d["id"], "score": 1.0 if d["gold"] else -1.0, "no_answer": d["gold"] is None} for d in docs]
    args = argparse.Namespace(rule=None, max_false=0.0, short_false=0, answers="inline", split="dev", model=None,
                              scores=None, limit=None)
    result = answers(rows, docs, {"commit": "test", "outcomes": {"m": outcomes}}, args)
    chosen = result["per_method"]["m"]["rule"]
    assert any(d["gold"] is None for d in docs), "the sample needs a no-answer document"
    assert chosen["recall"] == 1.0 and chosen["false_refusal_rate"] == 0.0


@pytest.mark.parametrize("rule", ["-5.56,0,1.0"])
def test_a_given_rule_is_reported_not_chosen(rule):
    docs = documents("dev", ["ContactCard"], 3)
    outcomes = {d["id"]: {"output": d["gold"], "refused": False} for d in docs}
    rows = [{"id": d["id"], "score": 5.0, "no_answer": d["gold"] is None} for d in docs]
    args = argparse.Namespace(rule=rule, max_false=0.05, answers="inline", split="dev", model=None, scores=None,
                              limit=None)
    result = answers(rows, docs, {"commit": "test", "outcomes": {"m": outcomes}}, args)
    assert result["given"] and result["chosen"]["rule"] == {"min_relevance": -5.56, "doubtful": 0.0,
                                                           "max_unfounded": 1.0, "valueless": None}


def test_the_quality_benchmark_counts_values_found_nowhere():
    from benchmarks.quality_score import Outcome, trace_figures

    [doc] = [d for d in documents("dev", ["ContactCard"], 6) if d["gold"]][:1]
    made_up = {**doc["gold"], "name": "Nobody Here At All"}
    rows = [(doc, Outcome(output=doc["gold"], refused=False, valid=True, cut=False, tokens=1, seconds=0.0)),
            (doc, Outcome(output=made_up, refused=False, valid=True, cut=False, tokens=1, seconds=0.0))]
    both, gold_only = trace_figures(rows), trace_figures(rows[:1])
    assert gold_only["spans_not_agreeing"] == 0 and both["spans_not_agreeing"] == 0
    assert both["values_written"] == 2 * gold_only["values_written"]
    assert gold_only["not_found_rate"] == 0.0  # every gold value is in its text, as written or written another way
    assert both["not_found_rate"] * both["values_written"] == pytest.approx(1, abs=0.01)  # the made-up name
    assert gold_only["verbatim_traced_exact"] == 1.0


def test_the_gold_tracing_benchmark_runs_on_a_few_documents(tmp_path):
    from benchmarks.trace_gold import main

    result = main(["--split", "dev", "--limit", "2", "--json", str(tmp_path / "g.json")])
    assert result["documents"] > 0 and result["spans_not_agreeing"] == 0 and result["found_rate"] > 0.9
    assert result["exact_strings"] > 0 and result["copyable"] > 0.9  # a copy can write the gold strings
