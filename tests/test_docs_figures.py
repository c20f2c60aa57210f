"""A figure in the docs is its result file's: each row below names a phrase of a page, the benchmarks/results file
it quotes and where in that file each figure stands, and the page must read the phrase with the file's figures;
a table a page copies from a result's .md is that table as the file has it.

When a benchmark is rerun, `DOCS_UPDATE=1 .venv/bin/python -m pytest tests/test_docs_figures.py` writes the new
figures into the pages (then read the diff: the words around them may need to change too)."""

from __future__ import annotations

import json
import os
import re
import string
from pathlib import Path
from typing import Any, Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
UPDATE = os.environ.get("DOCS_UPDATE") == "1"

Where = str | Callable[[dict[str, Any]], Any]
"""Where a figure stands: a `/`-separated path of keys and list indices (a list at its end gives its length), or a
function of the file."""

TRACING = [  # (phrase, one format field per figure, result file, where each figure stands)
    ("of {:,} written values in {:,} documents, {:.2%} found ({:,} as written, {:,} as numbers written another way, "
     "{:,} dates, {:,} folded, {:,} as words, {:,} times); the {:,} not found", "trace_gold.json",
     ["looked_for", "documents", "found_rate", "found_by/exact", "found_by/number", "found_by/date",
      "found_by/folded", "found_by/words", "found_by/time", "missed"]),
    ("{:,} of {:,} spans disagree", "trace_gold.json", ["spans_not_agreeing", "spans"]),
    ("Of the {:,} found as written, {:.1%} can be written by a copy", "trace_gold.json", ["exact_strings", "copyable"]),
    ("the other {:,} are joined", "trace_gold.json", ["uncopyable"]),
    ("test split, {:,} documents", "quality.json", ["documents"]),
    ("of the {:,} values `extract` wrote", "quality.json", ["methods/extract/values_written"]),
    ("{:.1%} were copied by the decoder's drafts and **{:.1%} are found nowhere in their text** ({:.1%} with "
     "strings written freely", "quality.json", ["methods/extract/copied_rate", "methods/extract/not_found_rate",
                                               "methods/extract[verbatim=marked]/not_found_rate"]),
    ("every one of the {:,} string values the text holds as written is traced to exact spans ({:.1%}), and {:,} "
     "spans disagree", "quality.json", ["methods/extract/verbatim_values", "methods/extract/verbatim_traced_exact",
                                        "methods/extract/spans_not_agreeing"]),
    ("{:.1%} of receipt values, {:.1%} of résumé values and {:.1%} of contract values are found nowhere",
     "quality_real.json", ["per_set/extract/receipts/not_found_rate", "per_set/extract/resumes/not_found_rate",
                           "per_set/extract/nda/not_found_rate"]),
    ("a page of {:,} documents ({:.1f} MB, one file)", "review_page.json",
     ["documents", lambda r: r["page_bytes"] / 1e6]),
    ("first paint at {:.0f} ms and its list built and first document shown at {:.0f} ms", "review_page.json",
     ["first_paint_ms/median", "script_done_ms/median"]),
    ("showing another document takes {:.0f} ms", "review_page.json", ["switch_ms_p50"]),
    ("refusal recall {:.3f} → {:.3f} at precision {:.3f} → {:.3f} ({:.3f} without descriptions)",
     "refusal_rule_dev_values.json", [f"per_method/extract[min_relevance=-1000000000]/{k}" for k in
                                      ("screen_only/recall", "rule/recall", "screen_only/precision", "rule/precision")]
     + ["per_method/extract[min_relevance=-1000000000,strip=true]/rule/precision"]),
    ("test split ({:,} documents, {:,} with no answer)", "quality_test_values.json",
     ["documents", "no_answer_documents"]),
    ("| with descriptions | {:.3f} | {:.3f} | {:.3f} |", "quality_test_values.json",
     [f"methods/extract/{k}" for k in ("refusal_precision", "refusal_recall", "field_f1")]),
]

RELIABILITY = [
    ("{:,} schemas ({:,} refused", "fuzz.json", ["counts/schemas", lambda r: sum(r["refused"].values())]),
    ("UnsatisfiableSchemaError {:,}, UnsupportedSchemaError {:,};", "fuzz.json",
     ["refused/UnsatisfiableSchemaError", "refused/UnsupportedSchemaError"]),
    ("{:,} instances, {:,} verdicts equal to jsonschema's", "fuzz.json", ["counts/instances", "counts/agree"]),
    ("one wrong accept in {:,} schemas", "fuzz_seed2036.json", ["counts/schemas"]),
    ("at 1924f3a ({:,} schemas", "fuzz_seed2038.json", ["counts/schemas"]),
    ("at 50b216c: {:,} schemas", "fuzz_seed2041.json", ["counts/schemas"]),
    *[(f"[fuzz_seed{seed}.md](../benchmarks/results/fuzz_seed{seed}.md){between}{{:,}} schemas, {{:,}} instances",
       f"fuzz_seed{seed}.json", ["counts/schemas", "counts/instances"])
      for seed, between in [(2039, ", commit in the file): "), (2040, "): "), (2043, ", commit in the file): "),
                            (2044, "): "), (2045, "): "), (2047, ", commit in the file): "), (2048, "): ")]],
    *[(f"| {label} | {{:,}} of {{:,}} ({{:{share}}}) | {{:,}} | {{:,}} | {{:,}} |", "realworld.json",
       [f"engines/{engine}/passing", f"engines/{engine}/schemas",
        lambda r, e=engine: r["engines"][e]["passing"] / r["engines"][e]["schemas"],
        lambda r, e=engine: r["engines"][e]["unsupported"] + r["engines"][e]["invalid"],
        f"engines/{engine}/wrong_accept", f"engines/{engine}/wrong_reject"])
      for label, engine, share in [("extractor, schemas read to the letter (`implied_types=False`)",
                                    "extractor-letter", ".1%"),
                                   ("extractor, defaults (implied types)", "extractor", ".0%"),
                                   ("llguidance", "llguidance", ".0%")]],
]

METHODS = [("`extract` (windows, window form, merge)", "extract"), ("the first window only", "first_window"),
           ("free generation per window, merged first-wins", "free_chunks"),
           ("windows under the target's own schema", "no_window_form")]
def _share(result: dict[str, Any], share: float | None = None) -> dict[str, Any]:
    """window_signals' row for a share of the best stretch (the one the commit reads by default)."""
    return next(m for m in result["shares"] if m["share"] == (result["focus_share"] if share is None else share))


def _peak(text: dict[str, Any]) -> float:
    """window_signals' best stretch score of a text over its mean (as `windowed.PEAK` reads it)."""
    from extractor.documents.lexical import peak

    return peak([s["score"] for s in text["stretches"]])


def _needles(result: dict[str, Any]) -> list[dict[str, Any]]:
    """window_signals' cases of a document buried in contract text (not a contract read whole)."""
    return [c for c in result["cases"] if c["target"] != "NDA"]


LONG = [
    *[(f"| {label} | {{:.3f}} | {{:.3f}} | {{:.3f}} | {{:.3f}} | {valid} | {{:.0f}} |", file,
       [f"methods/{key}/{k}" for k in ("f1", "precision", "recall", "per_key/party")]
       + ([] if valid.startswith("(") else [f"methods/{key}/valid_rate"]) + [f"methods/{key}/seconds_per_doc"])
      for file in ("long_documents_dev_long.json", "long_documents_dev.json") for label, key in METHODS
      for valid in ["(parsed leniently)" if (file, key) == ("long_documents_dev.json", "free_chunks") else "{:.0%}"]],
    ("{:,} characters at the median", "long_documents_dev.json", ["characters_median"]),
    ("field F1 is {:.3f} without it", "long_documents_dev_long_unfocused.json", ["methods/extract/f1"]),
    ("and {:.3f} with it — it nulled", "long_documents_dev_long_focus.json", ["methods/extract/f1"]),
    ("windows as large as the context, F1 {:.3f},", "long_documents_train_context.json", ["methods/extract/f1"]),
    ("windows of 1,024 tokens, F1 {:.3f} —", "long_documents_train_window1024.json", ["methods/extract/f1"]),
    *[(f"| {label}, {{:,}} items | {{:.3f}} | {{:.3f}} | {{:.3f}} | {{:.3f}} | {{:,}} |", "long_lists.json",
       [f"sets/{key}/{k}" for k in ("items", "recall", "recall_alone", "recall_loose")]
       + [lambda r, key=key: r["documents"][key][0]["found_alone_loose"] / r["sets"][key]["items"],
          f"sets/{key}/duplicates"]) for label, key in [("statement", "statement"), ("schedule", "schedule")]],
    ("| {:,} | {:,} | {:,} | {:.0f} | {:.0f} | {:,.0f} | " * 2, "long_scaling.json",  # the table's two rows
     [f"runs/{i}/{k}" for i in (0, 1) for k in ("chars", "tokens", "windows", "seconds", "seconds_per_100k",
                                                 "peak_rss_mib")]),
    ("({:.2f}× linear", "long_scaling.json", ["linearity"]),
    ("Field F1\nfrom the long text is {:.3f} at 8,000 characters and {:.3f} at 40,000, against {:.3f} for the same "
     "documents alone;\nthe agreements give {:.3f} long against {:.3f} alone", "needle.json",
     ["kinds/needle/8000/long/field_f1", "kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1",
      "kinds/facts/40000/long/field_f1", "kinds/facts/40000/alone/field_f1"]),
    ("gives F1 {:.3f} with windows from the context, {:.3f} with windows of 1,024 tokens, against {:.3f}\nfor the "
     "invoice alone", "needle_focus_context.json",
     ["kinds/needle/40000/long/field_f1",
      lambda r: _file("needle_focus_w1024.json")["kinds"]["needle"]["40000"]["long"]["field_f1"],
      "kinds/needle/40000/alone/field_f1"]),
    ("the same invoice gives F1 {:.3f} against {:.3f} alone", "needle_relative.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1"]),
    ("an invoice number `{}`", "needle_relative.json", ["cases/0/long/output/invoice_number"]),
    ("It took {:.0f} s against {:.0f} s alone", "needle_relative.json",
     ["kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc"]),
    ("within {:.1f} nats (`RELEVANCE_MARGIN`)", "window_signals_dev.json", ["chosen"]),
    ("a contract stretch scored {:.3f} against a receipt target", "window_signals_dev.json",
     ["cases/1/best_contract"]),
    ("in {} of {} cases the document's best stretch outscored the best stretch of contract around it, by {:.2f} to "
     "{:.2f} nats", "window_signals_dev.json",
     [lambda r: sum(c["gap"] > 0 for c in r["cases"]), "cases", lambda r: min(c["gap"] for c in r["cases"]),
      lambda r: max(c["gap"] for c in r["cases"])]),
    ("(from {:.3f} to {:.3f} against a résumé target in one case)", "window_signals_dev.json",
     [lambda r: min(x["score"] for x in r["rows"] if x["case"] == "resume-033@8000" and x["kind"] == "contract"),
      lambda r: max(x["score"] for x in r["rows"] if x["case"] == "resume-033@8000" and x["kind"] == "contract")]),
    ("the time ({:,.0f} s and {:,.0f} s against {:.0f} s alone)", "needle_focus_context.json",
     ["kinds/needle/40000/long/seconds_per_doc",
      lambda r: _file("needle_focus_w1024.json")["kinds"]["needle"]["40000"]["long"]["seconds_per_doc"],
      "kinds/needle/40000/alone/seconds_per_doc"]),
    ("field F1 {:.3f} from the long\ntexts against {:.3f} for the documents alone", "needle_focus_test.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1"]),
    ("A long text took {:.0f} s against {:.0f} s alone (the invoice {:.0f} s against {:.0f} s)",
     "needle_focus_test.json", ["kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
                                "cases/0/long/seconds", "cases/0/alone/seconds"]),
    ("with the model deciding conflicts the right value\nfor {:.3f} of the facts, with the merge's pick {:.3f}. Most",
     "far_apart_test.json", ["modes/model/all/rate", "modes/merge/all/rate"]),
    ("for {} of {} facts no\nwindow wrote the right value", "far_apart_test.json",
     ["modes/model/all/stages/not written", "modes/model/all/fields"]),
    ("windows of 512 tokens returned the right\nvalue for {} of {} facts against {} of {} with 1,024",
     "far_apart_dev_w512.json", ["modes/model/all/right", "modes/model/all/fields",
                                 lambda r: figure(_file("far_apart_dev_w1024.json"), "modes/model/all/right"),
                                 lambda r: figure(_file("far_apart_dev_w1024.json"), "modes/model/all/fields")]),
    ("same commit): {} of {}, as with 1,024", "far_apart_test_w512.json",
     ["modes/model/all/right", "modes/model/all/fields"]),
    ("{} of {} facts came back right\nagainst {} of {} with every window read, in {:.1f} s a document against {:.1f}: {} "
     "facts stood in no region read", "far_apart_dev_lexical_on.json",
     ["modes/model/all/right", "modes/model/all/fields",
      lambda r: figure(_file("far_apart_dev_lexical_off.json"), "modes/model/all/right"),
      lambda r: figure(_file("far_apart_dev_lexical_off.json"), "modes/model/all/fields"),
      "modes/model/seconds_per_doc",
      lambda r: figure(_file("far_apart_dev_lexical_off.json"), "modes/model/seconds_per_doc"),
      "modes/model/all/stages/unread"]),
    ("field F1 {:.3f}\nfrom the long texts at 40,000 characters against {:.3f} for the same documents alone ({:.3f}×), "
     "in {:.1f} s a text\nagainst {:.1f} s alone; at 200,000 characters {:.3f} ({:.3f}×), in {:.1f} s",
     "needle_lexical_dev.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1", "kinds/needle/40000/f1_ratio",
      "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
      "kinds/needle/200000/long/field_f1", "kinds/needle/200000/f1_ratio", "kinds/needle/200000/long/seconds_per_doc"]),
    ("needles at 40,000\ncharacters gave {:.3f} against {:.3f} alone (the first measurement above)", "needle.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1"]),
    ("F1 is\n{:.3f} with it against {:.3f} without: a contract", "long_documents_dev_long_lexical_on.json",
     ["methods/extract/f1",
      lambda r: figure(_file("long_documents_dev_long_lexical_off.json"), "methods/extract/f1")]),
    ("the\nburied document is read in {} of {} dev needles at 40,000 characters and {} of {} at 200,000 (test: {} of {} "
     "and {}\nof {})", "window_signals_lexical_dev.json",
     [lambda r: _share(r)["needles"]["40000"]["document_read"], lambda r: _share(r)["needles"]["40000"]["cases"],
      lambda r: _share(r)["needles"]["200000"]["document_read"], lambda r: _share(r)["needles"]["200000"]["cases"],
      lambda r: _share(_file("window_signals_lexical_test.json"))["needles"]["40000"]["document_read"],
      lambda r: _share(_file("window_signals_lexical_test.json"))["needles"]["40000"]["cases"],
      lambda r: _share(_file("window_signals_lexical_test.json"))["needles"]["200000"]["document_read"],
      lambda r: _share(_file("window_signals_lexical_test.json"))["needles"]["200000"]["cases"]]),
    ("{} of the {} dev\nfar-apart facts stand in what is read; {} of the {} long train contracts read for an `NDA` "
     "stand out enough to be\nread in part", "window_signals_lexical_dev.json",
     [lambda r: _share(r)["far_facts_read"], lambda r: _share(r)["far_facts"],
      lambda r: sum(_peak(t) >= r["peak"] for t in r["contracts"]), lambda r: len(r["contracts"])]),
    ("one dev needle whose best\nstretch scores {:.1f} times the mean is read whole", "window_signals_lexical_dev.json",
     [lambda r: _peak(next(c for c in r["needles"] if c["case"] == "receipt-025@40000"))]),
    ("Under `PEAK` both are read whole: their best\nstretches score {:.2f} and {:.2f} times their mean",
     "window_signals_lexical_dev0.json", [lambda r: min(_peak(t) for t in r["contracts"]),
                                          lambda r: max(_peak(t) for t in r["contracts"])]),
    ("{:.3f} at 40,000 characters ({:.3f}×)", "needle_lexical_peak_dev.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/f1_ratio"]),
    ("{:.3f} against {:.3f} alone at 40,000 characters ({:.3f}×), in {:.1f} s\nagainst {:.1f} s, and {:.3f} ({:.3f}×) "
     "at 200,000", "needle_lexical_test.json",
     ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1", "kinds/needle/40000/f1_ratio",
      "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
      "kinds/needle/200000/long/field_f1", "kinds/needle/200000/f1_ratio"]),
    ("F1 {:.3f} with `focus`\nagainst {:.3f} without", "long_documents_train_peak_on.json",
     ["methods/extract/f1", lambda r: figure(_file("long_documents_train_peak_off.json"), "methods/extract/f1")]),
    ("{} of {} right, as before\n`PEAK`, in {:.1f} s a document", "far_apart_dev_lexical_peak.json",
     ["modes/model/all/right", "modes/model/all/fields", "modes/model/seconds_per_doc"]),
    ("is {:.3f} with it against {:.3f} without", "long_documents_dev_long_regions.json",
     ["methods/extract/f1", lambda r: figure(_file("long_documents_dev_long_regions_off.json"), "methods/extract/f1")]),
]

CORPUS_CLI = [("two actors did {:.2f}× one actor's documents", "ray_cli.json", ["two_over_one_steady"]),
              ("each command left {:,} Ray", "ray_cli.json", [lambda r: len(r["runs"]["2"]["left_running"])])]
CORPUS = [
    *[(f"| one process, {n} torch thread{'s' * (n > 1)} | {{:.3f}} | {{:.0f}} (load {{:.0f}}) | {{:.3f}} |",
       "ray_corpus.json", [f"in_process/{n}/docs_per_s", lambda r, n=n: r["in_process"][str(n)]["load_s"]
                           + r["in_process"][str(n)]["extract_s"], f"in_process/{n}/load_s",
                           lambda r, n=n: r["docs"] / r["in_process"][str(n)]["extract_s"]]) for n in (1, 2)],
    *[(f"| Ray Data, {n} actor{'s' * (n > 1)} of 1 thread | {{:.3f}} | {{:.0f}} (first batch back at {{:.0f}}) | "
       "{:.3f} |", "ray_corpus.json", [f"ray/{n}/{k}" for k in ("docs_per_s", "seconds", "first_batch_s",
                                                                 "steady_docs_per_s")]) for n in (1, 2)],
    ("Two actors do {:.2f}× one actor's documents per second over the whole job ({:.2f}× once started), and {:.2f}× "
     "one process using both cores", "ray_corpus.json",
     ["two_over_one", "two_over_one_steady",
      lambda r: r["ray"]["2"]["docs_per_s"] / r["in_process"]["2"]["docs_per_s"]]),
    ("The first batch came back {:.0f} s (two actors) and {:.0f} s (one)", "ray_corpus.json",
     ["ray/2/first_batch_s", "ray/1/first_batch_s"]),
]

SCREEN = [
    ("the screen costs **{:.2f}×** the extraction (median), **{:.2f}×** on the worst text", "screen_cost.json",
     ["median_ratio", "worst_ratio"]),
    ("and the `Person` sentence {:.2f}×, against {:.2f}× when it read all 21 rows", "screen_cost.json",
     ["person_ratio", lambda r: _file("screen_cost_all_rows.json")["person_ratio"]]),
    ("`--threads 2` the median is {:.2f}×", "screen_cost_threads2.json", ["median_ratio"]),
    ("so that run's worst text ({:.2f}×)", "screen_cost_threads2.json", ["worst_ratio"]),
    ("refusing **{:.2f}** of the no-answer dev texts and {:,} of the {:,} answerable", "refusal_short_dev.json",
     ["short/recall", lambda r: _refused(r), lambda r: _answerable(r)]),
    ("**{:,} of the {:,} answerable short texts are refused**, and {:.2f} of the {:,} no-answer ones (precision "
     "{:.2f})", "refusal_short_test.json", [lambda r: _refused(r), lambda r: _answerable(r), "short/recall",
                                             lambda r: len(r["documents"]) - _answerable(r), "short/precision"]),
    ("refusal recall {:.3f} → {:.3f} at precision {:.3f} → {:.3f} ({:.3f} without descriptions)",
     "refusal_rule_dev_short.json", [f"per_method/extract[min_relevance=-1000000000]/{k}" for k in
                                     ("screen_only/recall", "rule/recall", "screen_only/precision", "rule/precision")]
     + ["per_method/extract[min_relevance=-1000000000,strip=true]/rule/precision"]),
    ("refuses with recall **{:.3f}** at precision **{:.3f}** ({:.3f} at {:.3f} without descriptions), {:.3f} of the "
     "answerable documents refused", "refusal_rule_test.json",
     [f"per_method/extract[min_relevance=-1000000000{m}]/rule/{k}" for m, k in
      (("", "recall"), ("", "precision"), (",strip=true", "recall"), (",strip=true", "precision"),
       ("", "false_refusal_rate"))]),
]
VALUES = "per_method/extract[min_relevance=-1000000000]"
"""The answers decoded under the target alone, with descriptions, in calibrate_refusal's files."""
SCREEN += [
    ("On dev the\ndecision's recall went {:.3f} → {:.3f} at precision {:.3f} → {:.3f} ({:.3f} without descriptions)",
     "refusal_rule_dev_values.json", [f"{VALUES}/screen_only/recall", f"{VALUES}/rule/recall",
                                      f"{VALUES}/screen_only/precision", f"{VALUES}/rule/precision",
                                      "per_method/extract[min_relevance=-1000000000,strip=true]/rule/precision"]),
    ("the decision over answers decoded under the target alone went {:.3f} → {:.3f} at precision {:.3f} → {:.3f}, no",
     "refusal_rule_test_values.json", [f"{VALUES}/screen_only/recall", f"{VALUES}/rule/recall",
                                       f"{VALUES}/screen_only/precision", f"{VALUES}/rule/precision"]),
    ("refused with recall **{:.3f}** at\nprecision **{:.3f}**, one answerable", "quality_test_values.json",
     ["methods/extract/refusal_recall", "methods/extract/refusal_precision"]),
    ("against {:.3f} at\n{:.3f} at the commit before", "quality_test_before_values.json",
     ["methods/extract/refusal_recall", "methods/extract/refusal_precision"]),
    ("and field\nF1 stayed {:.3f}. The test", "quality_test_before_values.json", ["methods/extract/field_f1"]),
    ("and field\nF1 stayed {:.3f}. The test", "quality_test_values.json", ["methods/extract/field_f1"]),
    ("refused with recall {:.3f} at\nprecision {:.3f} too, field F1 {:.3f}.\n\n### Guards", "quality_dev_guards_before.json",
     ["methods/extract/refusal_recall", "methods/extract/refusal_precision", "methods/extract/field_f1"]),
    ("and which writes no year scores {:.2f};", "refusal_real_valueless.json",
     [lambda r: next(d["score"] for d in r["documents"] if d["id"] == "resume-real-015")]),
]
OWN = "per_method/extract[min_relevance=-1000000000]"
"""Where a refusal rule's figures stand in calibrate_refusal's file."""
SCREEN += [("refusing below −{:.3f}, or below 0 where half", "refusal_rule_dev_own.json",
            [lambda r: -r["chosen"]["rule"]["min_relevance"]]),
           ("recall **{:.3f}** at precision **{:.3f}** against {:.3f} at {:.3f} for the rule in force",
            "refusal_rule_dev_own.json",
            [f"{OWN}/rule/recall", f"{OWN}/rule/precision",
             lambda r: figure(_file("refusal_rule_dev_48.json"), f"{OWN}/rule/recall"),
             lambda r: figure(_file("refusal_rule_dev_48.json"), f"{OWN}/rule/precision")]),
           ("and {:.3f} of the no-answer ones ({:.3f})", "refusal_rule_dev_own.json",
            ["short/recall", lambda r: _file("refusal_rule_dev_48.json")["short"]["recall"]]),
           ("refused with recall **{:.3f}** at precision **{:.3f}**", "refusal_rule_test_own.json",
            [f"{OWN}/rule/recall", f"{OWN}/rule/precision"])]
TRACING += [("on those four receipts fell from {:.3f} to {:.3f} (", "quality_dev_blanks_before.json",
             ["methods/extract/field_f1",
              lambda r: figure(_file("quality_dev_blanks_missing.json"), "methods/extract/field_f1")]),
             ("the same command gives field F1 {:.3f} ([filled]", "quality_dev_blanks_filled.json", ["methods/extract/field_f1"]),
             ("gave {:.3f}, no total right, at twice the tokens", "quality_dev_blanks_retried.json",
              ["methods/extract/field_f1"]),
             ("On every dev receipt field F1 went from {:.3f} to {:.3f} (", "quality_dev_blanks_receipts_before.json",
              ["methods/extract/field_f1",
               lambda r: figure(_file("quality_dev_blanks_receipts_filled.json"), "methods/extract/field_f1")]),
             ("none moved: field F1 {:.3f} both", "quality_dev_blanks_generated_filled.json",
              ["methods/extract/field_f1"])]

FAQ = [("well under half an extraction of it: {:.2f}× the whole extraction", "screen_cost.json", ["median_ratio"]),
       ("{:.2f}× on the costliest", "screen_cost.json", ["worst_ratio"])]


def _answerable(result: dict[str, Any]) -> int:
    """The answerable texts a relevance result scored."""
    return sum(not d["no_answer"] for d in result["documents"])


def _refused(result: dict[str, Any]) -> int:
    """The answerable texts its threshold refuses."""
    return round(result["short"]["false_refusal_rate"] * _answerable(result))


GUARDS_ALONE = [  # docs/decoding.md, "Tried: guards standing aside one at a time"
    ("on dev, repeated items {:,} → {:,}, cut attempts\n{:.3f} → {:.3f} of the documents, output tokens {:.0f} → {:.0f} a"
     " document, field F1 {:.3f} → {:.3f};", "quality_dev_guards_after.json",
     [lambda r: _file("repeated_items_dev_guards_before.json")["per_method"]["extract"]["generated"]["repeated"],
      lambda r: _file("repeated_items_dev_guards_after.json")["per_method"]["extract"]["generated"]["repeated"],
      lambda r: _file("quality_dev_guards_before.json")["methods"]["extract"]["loop_rate"], "methods/extract/loop_rate",
      lambda r: _file("quality_dev_guards_before.json")["methods"]["extract"]["tokens_per_doc"],
      "methods/extract/tokens_per_doc",
      lambda r: _file("quality_dev_guards_before.json")["methods"]["extract"]["field_f1"], "methods/extract/field_f1"]),
    ("on test, repeated items\n{:,} → {:,} on the generated set and {:,} → {:,} on the real résumés, field F1 {:.3f} →"
     " {:.3f} and {:.3f} → {:.3f}. It ends", "quality_test_guards.json",
     [lambda r: _file("repeated_items_test_values.json")["per_method"]["extract"]["generated"]["repeated"],
      lambda r: _file("repeated_items_test_guards.json")["per_method"]["extract"]["generated"]["repeated"],
      lambda r: _file("repeated_items_test_real_values.json")["per_method"]["extract"]["resumes"]["repeated"],
      lambda r: _file("repeated_items_test_real_guards.json")["per_method"]["extract"]["resumes"]["repeated"],
      lambda r: _file("quality_test_values.json")["methods"]["extract"]["field_f1"], "methods/extract/field_f1",
      lambda r: _file("quality_test_real_values.json")["per_set"]["extract"]["resumes"]["field_f1"],
      lambda r: _file("quality_test_real_guards.json")["per_set"]["extract"]["resumes"]["field_f1"]]),
]
_REPEATS = "per_method/extract/{}/{}"
_VARIANTS = "quality_dev_nulls_variants_before{}.json"
NULL_VARIANTS = [  # docs/decoding.md, an object item equal to an earlier one but for its nulls
    ("[with it](../benchmarks/results/quality_dev_nulls_reverse.md), field F1 {:.3f} both)", "quality_dev_nulls_reverse.json",
     [lambda r: figure(r, "per_set/extract/resumes/field_f1")  # (None, failing the row, where an answer differs)
      if _same_answers("quality_dev_nulls_reverse_before.json", r) else None]),
    ("on the résumés, repeated items as written {:,} → {:,}, answers cut at the budget {:.2f} → {:.2f} of the documents, "
     "output tokens {:.0f} → {:.0f} a document, field F1 {:.3f} → {:.3f}; the receipts and contracts gave the same "
     "answers (F1 {:.3f} and {:.3f}).", "quality_dev_nulls_variants.json",
     [lambda r: _file(_VARIANTS.format("_repeats"))["per_method"]["extract"]["resumes"]["repeated_as_written"],
      lambda r: _file("quality_dev_nulls_variants_repeats.json")["per_method"]["extract"]["resumes"]["repeated_as_written"],
      lambda r: _file(_VARIANTS.format(""))["per_set"]["extract"]["resumes"]["loop_rate"],
      "per_set/extract/resumes/loop_rate",
      lambda r: _file(_VARIANTS.format(""))["per_set"]["extract"]["resumes"]["tokens_per_doc"],
      "per_set/extract/resumes/tokens_per_doc",
      lambda r: _file(_VARIANTS.format(""))["per_set"]["extract"]["resumes"]["field_f1"],
      "per_set/extract/resumes/field_f1", "per_set/extract/receipts/field_f1", "per_set/extract/nda/field_f1"]),
    ("repeated items as written {:,} → {:,}, output tokens {:.0f} → {:.0f} a document, field F1 {:.3f} → {:.3f}, unchanged.",
     "quality_test_nulls_variants.json",
     [lambda r: _file("quality_test_nulls_variants_before_repeats.json")["per_method"]["extract"]["resumes"][
         "repeated_as_written"],
      lambda r: _file("quality_test_nulls_variants_repeats.json")["per_method"]["extract"]["resumes"]["repeated_as_written"],
      lambda r: _file("quality_test_nulls_variants_before.json")["per_set"]["extract"]["resumes"]["tokens_per_doc"],
      "per_set/extract/resumes/tokens_per_doc",
      lambda r: _file("quality_test_nulls_variants_before.json")["per_set"]["extract"]["resumes"]["field_f1"],
      "per_set/extract/resumes/field_f1"]),
]
LEFT_OUT = [  # docs/decoding.md, "After decoding, what the rule could not hold back is left out"
    ("no set's answers hold a repeated item,\nwhere as written the dev résumés held {:,}, and on test the generated set"
     " {:,} and the résumés {:,}; field F1 {:.3f} both on\nthe dev résumés, {:.3f} both on the generated test set and"
     " {:.3f} → {:.3f} on the test résumés, every", "repeated_items_test_repeats.json",
     [lambda r: _file("repeated_items_dev_repeats.json")["per_method"]["extract"]["resumes"]["repeated_as_written"],
      _REPEATS.format("generated", "repeated_as_written"), _REPEATS.format("resumes", "repeated_as_written"),
      lambda r: _file("repeated_items_dev_repeats.json")["per_method"]["extract"]["resumes"]["field_f1"],
      _REPEATS.format("generated", "field_f1"), _REPEATS.format("resumes", "field_f1_as_written"),
      _REPEATS.format("resumes", "field_f1")]),
]


FRESH = [(f"| {name} | {{:,}} | {{:,}} | {{:,}} | {{:.3f}} | {{:.3f}} |", file,
          [f"per_method/extract/{name}/documents", f"per_method/extract/{name}/repeated",
           f"per_method/extract[fresh_items=false]/{name}/repeated", f"per_method/extract/{name}/field_f1",
           f"per_method/extract[fresh_items=false]/{name}/field_f1"])
         for name, file in [("generated", "repeated_items_dev.json"), ("nda", "repeated_items_dev.json"),
                            ("receipts", "repeated_items_dev.json"), ("resumes", "repeated_items_dev_resumes.json"),
                            ("generated", "repeated_items_test.json"), ("nda", "repeated_items_test.json"),
                            ("receipts", "repeated_items_test.json"), ("resumes", "repeated_items_test_resumes.json")]]
DATES = [("none of the {:,} date values the embedded model wrote is one its", "dates_test.json",
          [lambda r: -1 if any(v["not_written"] for v in r["per_method"]["extract"].values())  # "none" is false
           else sum(v["date_values"] for v in r["per_method"]["extract"].values())])]

FIELDS = [(f"| {name} | {{:,}} | {{:.3f}} | {{:.3f}} | {{:.3f}} |", "quality_fields_dev.json",
           [f"sets/{name}", *(f"per_set/{m}/{name}/field_f1"
                              for m in ("extract", "extract[fields=apart]", "extract[prompt=text-first]"))])
          for name in ("receipts", "resumes", "nda")]
FIELDS += [(f"| {name} | {{:,}} | {{:.3f}} | {{:.3f}} |", "quality_fields_test.json",
            [f"sets/{name}", *(f"per_set/{m}/{name}/field_f1" for m in ("extract", "extract[fields=apart]"))])
           for name in ("receipts", "resumes", "nda")]
FIELDS += [(f"| {split} | {{:,}} | {{:.3f}} | {{:.3f}} |", f"quality_fields_generated_{split}.json",
            ["sets/generated", *(f"per_set/{m}/generated/field_f1" for m in ("extract", "extract[fields=apart]"))])
           for split in ("dev", "test")]

KV_CACHE = [("A step costs {:.1f} ms at 512 tokens and {:.1f} ms at 8,000 with the model's own cache; grown in place, {:.1f} "
             "and {:.1f} ms ({:.2f}× at 8,000, {:.2f}× at 4,096), with the same logits", "kv_cache.json",
             ["rows/0/own_ms", "rows/3/own_ms", "rows/0/grown_ms", "rows/3/grown_ms", "rows/3/ratio", "rows/2/ratio"])]
"""docs/performance.md: a decoding step against the context, both caches (the logits' largest difference is 0)."""


PERFORMANCE = [("a loaded machine) had a largest mask of {:.0f} ms", "realworld_peers_tuning_before.json",
                [lambda r: r["parts"]["tuning"]["extractor"]["mask_us"]["max"] / 1e3])]

def _step(rows: int, part: str, backend: str = "extractor") -> Callable[[dict[str, Any]], float]:
    """A backend's mean request step (µs) at `rows` rows in the serving replay, cold or warm."""
    return lambda r: r["runs"][f"batch {rows}, drafts 0"][backend][part]["request_step_us"]["mean"]


def _ratio(rows: int, part: str) -> Callable[[dict[str, Any]], float]:
    """Our mean step over XGrammar's at `rows` rows, cold or warm."""
    return lambda r: _step(rows, part)(r) / _step(rows, part, "xgrammar")(r)


def _mix(backend: str) -> Callable[[dict[str, Any]], float]:
    """A backend's mean request step (µs) over the serving mix."""
    return lambda r: r["mix"]["batch 64, drafts 0"][backend]["mix"]["request_step_us"]["mean"]


BATCHES = (16, 64, 256)
SERVING = [("our mean step is {:.2f}×, {:.2f}× and {:.2f}× XGrammar's at 16, 64 and 256 rows; cold, {:.2f}×, "
            "{:.2f}× and {:.2f}×", "backend_replay_serving.json",
            [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES]),
           ("other work, load average {:.1f} to {:.1f})", "backend_replay_serving.json", ["load_average/0", "load_average/1"])]
SERVING_MIX = [("the serving mix {:.2f}×.", "backend_replay_serving.json",
                [lambda r: _mix("extractor")(r) / _mix("xgrammar")(r)])]
SERVING_US = [("({:.0f}, {:.0f} and {:.0f} µs against {:.0f}, {:.0f} and {:.0f}); the serving mix {:.0f} µs "
               "against {:.0f} ({:.2f}×)", "backend_replay_serving.json",
               [_step(n, "cold") for n in BATCHES] + [_step(n, "cold", "xgrammar") for n in BATCHES]
               + [_mix("extractor"), _mix("xgrammar"), lambda r: _mix("extractor")(r) / _mix("xgrammar")(r)])]


LONG += [("reads as the target by {:.3f} and {:.3f} nats", "window_kinds_dev.json",
          ["texts/1/margins/0/scores/1/0", "texts/3/margins/0/scores/1/0"]),
         ("field F1 is {:.3f} against {:.3f} without the rule ({:.3f} for the résumé alone)", "needle_kinds_dev_0.json",
          ["kinds/needle/40000/long/field_f1",
           lambda r: figure(_file("needle_kinds_dev_off.json"), "kinds/needle/40000/long/field_f1"),
           "kinds/needle/40000/alone/field_f1"]),
         ("the needle took {:.0f} s against {:.0f} s without", "needle_kinds_dev_0.json",
          ["kinds/needle/40000/long/seconds_per_doc",
           lambda r: figure(_file("needle_kinds_dev_off.json"), "kinds/needle/40000/long/seconds_per_doc")]),
         ("0 to {:.0f} s a text in window_signals", "window_kinds_dev.json",
          [lambda r: max(m["seconds"] for t in r["texts"] for m in t["margins"])]),
         ("field F1 {:.3f} against {:.3f} alone; a long text took {:.0f} s with the rule against {:.0f} s without and "
          "{:.0f} s alone (", "needle_kinds_test_0.json",
          ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1",
           "kinds/needle/40000/long/seconds_per_doc",
           lambda r: figure(_file("needle_kinds_test_off.json"), "kinds/needle/40000/long/seconds_per_doc"),
           "kinds/needle/40000/alone/seconds_per_doc"])]


LONG += [(f"| {label} ([md](../benchmarks/results/needle_window_{key}_dev.md)) | {{:.3f}} | {{:.3f}} | {{:.0f}} | "
          "{:.3f} | {:.3f} |", f"needle_window_{key}_dev.json",
          [f"kinds/needle/8000/{w}" for w in ("long/field_f1", "alone/field_f1", "long/seconds_per_doc")]
          + [f"kinds/facts/8000/{w}/field_f1" for w in ("long", "alone")])
         for label, key in [("512 tokens", "512"), ("1,024", "1024"), ("2,048", "2048"), ("the context", "context")]]


def _case_f1(name: str, case: int, which: str) -> Callable[[dict[str, Any]], float]:
    """One needle case's field F1 (long or alone), scored as needle.py's per-case table scores it."""
    from benchmarks.quality_score import Outcome, summarize

    def read(_: dict[str, Any]) -> float:
        c = _file(name)["cases"][case]
        return summarize([(c["gold"], Outcome(**c[which]))])["field_f1"]
    return read


LONG += [("a generated résumé went from {:.3f} to {:.3f} with", "needle_window_512_dev.json",
          [_case_f1("needle_window_context_dev.json", 0, "long"), _case_f1("needle_window_512_dev.json", 0, "long")]),
         ("the invoice fell from {:.3f} to {:.3f};", "needle_window_512_dev.json",
          [_case_f1("needle_window_context_dev.json", 3, "long"), _case_f1("needle_window_512_dev.json", 3, "long")]),
         ("scored {:.3f} with windows of 1,024 tokens or the context's and {:.3f} in windows of 512.",
          "needle_window_512_dev.json",
          [_case_f1("needle_window_context_dev.json", 2, "alone"), _case_f1("needle_window_512_dev.json", 2, "alone")]),
         ("cost {:.0f} to {:.0f} times the time:", "needle_window_512_dev.json",
          [lambda r: figure(_file("needle_window_1024_dev.json"), "kinds/needle/8000/long/seconds_per_doc")
           / figure(_file("needle_window_context_dev.json"), "kinds/needle/8000/long/seconds_per_doc"),
           lambda r: r["kinds"]["needle"]["8000"]["long"]["seconds_per_doc"]
           / figure(_file("needle_window_context_dev.json"), "kinds/needle/8000/long/seconds_per_doc")]),
         ("buried documents: F1 {:.3f} against {:.3f} from the context ({:.3f} and {:.3f} alone), the agreements {:.3f} "
          "both ways, at {:.0f} s a long text against {:.0f}.", "needle_window_1024_test.json",
          ["kinds/needle/8000/long/field_f1",
           lambda r: figure(_file("needle_window_context_test.json"), "kinds/needle/8000/long/field_f1"),
           "kinds/needle/8000/alone/field_f1",
           lambda r: figure(_file("needle_window_context_test.json"), "kinds/needle/8000/alone/field_f1"),
           "kinds/facts/8000/long/field_f1", "kinds/needle/8000/long/seconds_per_doc",
           lambda r: figure(_file("needle_window_context_test.json"), "kinds/needle/8000/long/seconds_per_doc")]),
         ("list clause words as parties (F1 {:.3f} against {:.3f} from the context)", "long_documents_train_window1024.json",
          ["methods/extract/f1",
           lambda r: figure(_file("long_documents_train_context.json"), "methods/extract/f1")]),
         ("({:.0f} attempts a text at 512 tokens,", "needle_window_512_dev.json",
          ["kinds/needle/8000/long/attempts_per_doc"])]
LONG += [("field F1 is {:.3f} long against {:.3f} alone ({:.2f}× against", "needle_200k_test.json",
          ["kinds/needle/200000/long/field_f1", "kinds/needle/200000/alone/field_f1",
           lambda r: r["kinds"]["needle"]["200000"]["long"]["field_f1"] / r["kinds"]["needle"]["200000"]["alone"]["field_f1"]]),
         ("a long text took {:,.0f} s against {:.0f} s alone on a shared machine", "needle_200k_test.json",
          ["kinds/needle/200000/long/seconds_per_doc", "kinds/needle/200000/alone/seconds_per_doc"])]


def _on_off(split: str) -> list[Where]:
    """far_apart's figures with members located and without: right with the model's choice (of all), with the merge's
    pick, seconds a document; each on then off."""
    off = f"far_apart_{split}_located_off.json"
    return ["modes/model/all/right", "modes/model/all/fields",
            lambda r: figure(_file(off), "modes/model/all/right"), lambda r: figure(_file(off), "modes/model/all/fields"),
            "modes/merge/all/right", lambda r: figure(_file(off), "modes/merge/all/right"),
            "modes/model/seconds_per_doc", lambda r: figure(_file(off), "modes/model/seconds_per_doc")]


LONG += [("the right value came back for {} of {} facts against {} of {} without, with the model deciding conflicts ({} "
          "against {} with the merge's pick), in {:.1f} s a document against {:.1f}. Read once",
          "far_apart_dev_located_on.json", _on_off("dev")),
         ("{} of {} against {} of {} ({} against {} with the merge's pick), in {:.1f} s against {:.1f}. Each member",
          "far_apart_test_located_on.json", _on_off("test")),
         ("came back right twice as often, {} of {} against {} of {} on the test split.",
          "far_apart_test_located_on.json", _on_off("test")[:4]),
         ("at 93e26e7 ([dev](../benchmarks/results/far_apart_dev_located_alone.md), "
          "[test](../benchmarks/results/far_apart_test_located_alone.md)): {} and {} of {}.",
          "far_apart_dev_located_alone.json",
          ["modes/model/all/right",
           lambda r: figure(_file("far_apart_test_located_alone.json"), "modes/model/all/right"),
           "modes/model/all/fields"]),
         ("passed over the right value among the candidates for {} of the {} ({} on dev)",
          "far_apart_test_located_on.json",
          ["modes/model/all/stages/choice", "modes/model/all/fields",
           lambda r: figure(_file("far_apart_dev_located_on.json"), "modes/model/all/stages/choice")])]


LONG += [("field F1 {:.3f} from the long texts against {:.3f} without, the documents alone {:.3f} ({:.3f}× alone against "
          "{:.3f}×), in {:.0f} s a long text against {:.0f} s.", "needle_located_test_on.json",
          ["kinds/needle/40000/long/field_f1",
           lambda r: figure(_file("needle_located_test_off.json"), "kinds/needle/40000/long/field_f1"),
           "kinds/needle/40000/alone/field_f1", "kinds/needle/40000/f1_ratio",
           lambda r: figure(_file("needle_located_test_off.json"), "kinds/needle/40000/f1_ratio"),
           "kinds/needle/40000/long/seconds_per_doc",
           lambda r: figure(_file("needle_located_test_off.json"), "kinds/needle/40000/long/seconds_per_doc")]),
         ("the generated receipt gained ({:.3f} against {:.3f}) and the scanned receipt lost what it had ({:.3f} "
          "against {:.3f}):", "needle_located_test_on.json",
          [lambda r: _case(r, "receipt-013@40000"),
           lambda r: _case(_file("needle_located_test_off.json"), "receipt-013@40000"),
           lambda r: _case(r, "receipt-real-017@40000"),
           lambda r: _case(_file("needle_located_test_off.json"), "receipt-real-017@40000")])]


def _replay_means(side: str, kind: str) -> list[float]:
    """Our mean step over XGrammar's in the three replays run on one side of the reverse null search."""
    runs = [_file(f"backend_replay_nulls_reverse_{side}_{i}.json")["runs"]["batch 64, drafts 0"] for i in (1, 2, 3)]
    return [r["extractor"][kind]["request_step_us"]["mean"] / r["xgrammar"][kind]["request_step_us"]["mean"] for r in runs]


NULL_VARIANTS += [("our warm mean step was {:.2f}–{:.2f}×\nXGrammar's without it and {:.2f}–{:.2f}× with it. Not kept.",
                   "backend_replay_nulls_reverse_after_1.json",
                   [lambda r: min(_replay_means("before", "warm")), lambda r: max(_replay_means("before", "warm")),
                    lambda r: min(_replay_means("after", "warm")), lambda r: max(_replay_means("after", "warm"))])]


def _same_answers(before: str, after: dict[str, Any]) -> bool:
    """Whether two quality runs wrote the same output for every document."""
    old = _file(before)["outcomes"]["extract"]
    return {k: v["output"] for k, v in old.items()} == {k: v["output"] for k, v in after["outcomes"]["extract"].items()}


def _long(name: str, key: str) -> Callable[[dict[str, Any]], float]:
    """The one case of a needle run: a figure of its long text's outcome."""
    return lambda r: _file(name)["cases"][0]["long"][key]


LONG += [("{:.0f} s against {:.0f} s for the long text ({} readings and {:,} tokens against {} and {:,}), the résumé alone {:.0f} "
          "and {:.0f} s; field F1 from the long text {:.3f} before and {:.3f} after.", "needle_resume_nulls.json",
          [_long("needle_resume_nulls_before.json", "seconds"), _long("needle_resume_nulls.json", "seconds"),
           _long("needle_resume_nulls_before.json", "attempts"), _long("needle_resume_nulls_before.json", "tokens"),
           _long("needle_resume_nulls.json", "attempts"), _long("needle_resume_nulls.json", "tokens"),
           lambda r: _file("needle_resume_nulls_before.json")["cases"][0]["alone"]["seconds"],
           lambda r: r["cases"][0]["alone"]["seconds"],
           lambda r: _case(_file("needle_resume_nulls_before.json"), "resume-real-025@40000"),
           lambda r: _case(r, "resume-real-025@40000")])]


LONG += [("field F1 {:.3f} from the long texts against {:.3f} alone ({:.3f}× alone, where the run above gave {:.3f}×), in {:.0f} s "
          "a long text against {:.0f} s alone ({:.1f}× the time, where it was {:.1f}×).", "needle_nulls_test.json",
          ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1", "kinds/needle/40000/f1_ratio",
           lambda r: figure(_file("needle_located_test_on.json"), "kinds/needle/40000/f1_ratio"),
           "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
           lambda r: figure(r, "kinds/needle/40000/long/seconds_per_doc") / figure(r, "kinds/needle/40000/alone/seconds_per_doc"),
           lambda r: figure(_file("needle_located_test_on.json"), "kinds/needle/40000/long/seconds_per_doc")
           / figure(_file("needle_located_test_on.json"), "kinds/needle/40000/alone/seconds_per_doc")])]


LONG += [("field F1 {:.3f} from the long texts against {:.3f} alone, in {:.0f} s a long text against {:.0f} s alone: on "
          "those", "needle_nulls_dev.json",
          ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1",
           "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc"])]


LONG += [("A long text took {:.0f} s against {:.0f} s, the documents alone {:.1f} and {:.1f} s; three of the four answers",
          "needle_salvage_dev.json",
          ["kinds/needle/40000/long/seconds_per_doc",
           lambda r: figure(_file("needle_salvage_dev_before.json"), "kinds/needle/40000/long/seconds_per_doc"),
           "kinds/needle/40000/alone/seconds_per_doc",
           lambda r: figure(_file("needle_salvage_dev_before.json"), "kinds/needle/40000/alone/seconds_per_doc")]),
         ("as wrong as the one it replaced): field F1 {:.3f} both", "needle_salvage_dev.json",
          ["kinds/needle/40000/long/field_f1"])]


LONG += [("field F1 {:.3f} against {:.3f} alone, in {:.0f} s a long text against {:.0f} s alone — {:.1f}× the time, as before",
          "needle_cache_test.json",
          ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1",
           "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
           lambda r: figure(r, "kinds/needle/40000/long/seconds_per_doc")
           / figure(r, "kinds/needle/40000/alone/seconds_per_doc")])]


LONG += [("[without](../benchmarks/results/needle_choice_dev_after.md)): field F1 {:.3f} from the long texts with the step, "
          "{:.3f} without ({:.3f} alone);", "needle_choice_dev_after.json",
          [lambda r: figure(_file("needle_choice_dev_before.json"), "kinds/needle/40000/long/field_f1"),
           "kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1"]),
         ("[without](../benchmarks/results/far_apart_dev_choice_after.md)): {} of {} facts right with it, {} without.",
          "far_apart_dev_choice_after.json",
          [lambda r: figure(_file("far_apart_dev_choice_before.json"), "modes/model/all/right"),
           "modes/model/all/fields", "modes/model/all/right"]),
         ("gave field F1 {:.3f} from the long texts against {:.3f} alone ({:.3f}× alone; {:.3f}× in", "needle_choice_test.json",
          ["kinds/needle/40000/long/field_f1", "kinds/needle/40000/alone/field_f1",
           lambda r: figure(r, "kinds/needle/40000/long/field_f1") / figure(r, "kinds/needle/40000/alone/field_f1"),
           lambda r: figure(_file("needle_cache_test.json"), "kinds/needle/40000/long/field_f1")
           / figure(_file("needle_cache_test.json"), "kinds/needle/40000/alone/field_f1")]),
         ("in {:.0f} s a long text against {:.0f} s alone ({:.1f}× the time; the long texts took as long as before, {:.0f} s, "
          "and the documents alone longer than before, {:.0f} s:", "needle_choice_test.json",
          ["kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
           lambda r: figure(r, "kinds/needle/40000/long/seconds_per_doc")
           / figure(r, "kinds/needle/40000/alone/seconds_per_doc"),
           lambda r: figure(_file("needle_cache_test.json"), "kinds/needle/40000/long/seconds_per_doc"),
           lambda r: figure(_file("needle_cache_test.json"), "kinds/needle/40000/alone/seconds_per_doc")]),
         ("gave the same answers in {:.0f} s a long text against {:.0f} s alone, {:.1f}×: the time", "needle_choice_test_2.json",
          ["kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
           lambda r: figure(r, "kinds/needle/40000/long/seconds_per_doc")
           / figure(r, "kinds/needle/40000/alone/seconds_per_doc")]),
         ("[without](../benchmarks/results/far_apart_test_choice.md)): {} of {} right with the step, {} without.",
          "far_apart_test_choice.json",
          [lambda r: figure(_file("far_apart_test_choice_before.json"), "modes/model/all/right"),
           "modes/model/all/fields", "modes/model/all/right"])]

LONG += [("[after](../benchmarks/results/needle_prompt_once_dev_after.md)): the same answers, {:.1f} s a long text before and",
          "needle_prompt_once_dev_after.json",
          [lambda r: figure(_file("needle_prompt_once_dev_before.json"), "kinds/needle/40000/long/seconds_per_doc")]),
         ("{:.1f} s after. Most of a long text's time is reading its windows", "needle_prompt_once_dev_after.json",
          ["kinds/needle/40000/long/seconds_per_doc"]),
         ("on one thread the long texts take {:.1f}× the time of their documents alone.", "needle_prompt_once_dev_after.json",
          [lambda r: figure(r, "kinds/needle/40000/long/seconds_per_doc")
           / figure(r, "kinds/needle/40000/alone/seconds_per_doc")])]

_ORDERS = "sets/{}/{}"
LONG += [("| far apart | {} | {} | {} | {} | {} | {} | {} |", "choice_orders_dev.json",
          [_ORDERS.format("far_apart", k) for k in ("conflicts", "agree", "gold_offered", "right/offered",
                                                      "right/reversed", "right/merge", "right/likelihood")]),
         ("| needles | {} | {} | {} | {} | {} | {} | {} |", "choice_orders_dev.json",
          [_ORDERS.format("needle", k) for k in ("conflicts", "agree", "gold_offered", "right/offered",
                                                   "right/reversed", "right/merge", "right/likelihood")]),
         ("the reverse does ({} right against {}):", "choice_orders_dev.json",
          ["sets/needle/right/offered", "sets/needle/right/reversed"]),
         ("once more on the facts, {} against {} of {}:", "choice_orders_dev.json",
          ["sets/far_apart/right/likelihood", "sets/far_apart/right/offered", "sets/far_apart/conflicts"])]

_TEST_ORDERS = ("conflicts", "agree", "gold_offered", "right/offered", "right/reversed", "right/merge",
                "right/agreed, else merge", "right/likelihood")
LONG += [("| far apart | {} | {} | {} | {} | {} | {} | {} | {} |", "choice_orders_test.json",
          [_ORDERS.format("far_apart", k) for k in _TEST_ORDERS]),
         ("| needles | {} | {} | {} | {} | {} | {} | {} | {} |", "choice_orders_test.json",
          [_ORDERS.format("needle", k) for k in _TEST_ORDERS]),
         ("is right more often than the choice on both sets ({} against {}, {} against {}), where on dev it was "
          "level ({} against {} over both sets)", "choice_orders_test.json",
          ["sets/far_apart/right/agreed, else merge", "sets/far_apart/right/offered",
           "sets/needle/right/agreed, else merge", "sets/needle/right/offered",
           lambda r: figure(_file("choice_orders_dev.json"), "sets/far_apart/right/agreed, else merge")
           + figure(_file("choice_orders_dev.json"), "sets/needle/right/agreed, else merge"),
           lambda r: figure(_file("choice_orders_dev.json"), "sets/far_apart/right/offered")
           + figure(_file("choice_orders_dev.json"), "sets/needle/right/offered")])]

LONG += [("Of {} conflicts, {} got the same answer both ways; right as offered {}, reversed {}, the merge's pick {}, "
          "agreed else the merge's pick {}, the likelihood over both orders {}.", "choice_orders_dev_all.json",
          [_ORDERS.format("far_apart", k) for k in _TEST_ORDERS if k != "gold_offered"])]

LONG += [("windows of 2,048 tokens gave field F1 {:.3f} from the long texts against {:.3f} from the context ({:.3f} alone), "
          "in {:.0f} s a long text against {:.0f} s. More", "needle_window_2048_dev_nulls.json",
          ["kinds/needle/40000/long/field_f1",
           lambda r: figure(_file("needle_window_context_dev_nulls.json"), "kinds/needle/40000/long/field_f1"),
           "kinds/needle/40000/alone/field_f1", "kinds/needle/40000/long/seconds_per_doc",
           lambda r: figure(_file("needle_window_context_dev_nulls.json"), "kinds/needle/40000/long/seconds_per_doc")])]


LONG += [("[long_documents_dev_long_located_off.md](../benchmarks/results/long_documents_dev_long_located_off.md)): F1 "
          "{:.3f} against {:.3f}, in {:.0f} s a contract against {:.0f}. The term was found (its F1 {:.3f} against "
          "{:.3f}) and the date lost ({:.3f} against {:.3f}):", "long_documents_dev_long_located_on.json",
          ["methods/extract/f1",
           lambda r: figure(_file("long_documents_dev_long_located_off.json"), "methods/extract/f1"),
           "methods/extract/seconds_per_doc",
           lambda r: figure(_file("long_documents_dev_long_located_off.json"), "methods/extract/seconds_per_doc"),
           "methods/extract/per_key/term",
           lambda r: figure(_file("long_documents_dev_long_located_off.json"), "methods/extract/per_key/term"),
           "methods/extract/per_key/effective_date",
           lambda r: figure(_file("long_documents_dev_long_located_off.json"), "methods/extract/per_key/effective_date")])]


LONG += [("windows of 2,048 tokens gave F1 {:.3f} against {:.3f} without it, both below the contracts read whole "
          "({:.3f}; all six fit", "long_documents_train_w2048_located_on.json",
          ["methods/extract/f1",
           lambda r: figure(_file("long_documents_train_w2048_located_off.json"), "methods/extract/f1"),
           lambda r: figure(_file("long_documents_train_wctx_located_on.json"), "methods/extract/f1")])]


LONG += [("the effective date's F1 is {:.3f} on train's first six, in the window-size run above, where the earlier "
          "run had {:.3f}.)", "long_documents_train_wctx_located_on.json",
          ["methods/extract/per_key/effective_date",
           lambda r: figure(_file("long_documents_train_context.json"), "methods/extract/per_key/effective_date")])]


def _case(r: dict[str, Any], case: str) -> float:
    """A needle case's field F1 from its long text, as the result's Markdown rounds it."""
    from benchmarks.quality_score import Outcome, summarize

    (c,) = [c for c in r["cases"] if c["id"] == case]
    return summarize([(c["gold"], Outcome(**c["long"]))])["field_f1"]


def _runs(r: dict[str, Any], backend: str = "extractor") -> list[dict[str, Any]]:
    """Per batch size, a backend's cold run (the serving replay)."""
    return [r["runs"][f"batch {n}, drafts 0"][backend]["cold"] for n in BATCHES]


SERVING_MORE = [  # docs/performance.md
    ("Our compile: {:.0f} to {:.0f} ms at p50, {:.0f} to {:.0f} ms at p99", "backend_replay_serving.json",
     [lambda r: min(c["compile_ms"]["p50"] for c in _runs(r)), lambda r: max(c["compile_ms"]["p50"] for c in _runs(r)),
      lambda r: min(c["compile_ms"]["p99"] for c in _runs(r)), lambda r: max(c["compile_ms"]["p99"] for c in _runs(r))]),
    ("XGrammar's fast run, {:.0f} µs against its {:.0f} to {:.0f} at 16 and 256 rows; ours is {:.0f}.",
     "backend_replay_serving.json",
     [_step(64, "warm", "xgrammar"), lambda r: min(_step(n, "warm", "xgrammar")(r) for n in (16, 256)),
      lambda r: max(_step(n, "warm", "xgrammar")(r) for n in (16, 256)), _step(64, "warm")]),
    ("warm {:.2f}×, {:.2f}× and {:.2f}×; cold {:.2f}×, {:.2f}× and {:.2f}× ({:.0f}, {:.0f} and {:.0f} µs against "
     "{:.0f}, {:.0f} and {:.0f}); the serving mix {:.2f}×.", "backend_replay_serving_cpu.json",
     [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_step(n, "cold") for n in BATCHES]
     + [_step(n, "cold", "xgrammar") for n in BATCHES] + [lambda r: _mix("extractor")(r) / _mix("xgrammar")(r)]),
    ("gave cold {:.2f}×, {:.2f}× and {:.2f}× by CPU time, and the serving mix {:.2f}×",
     "backend_replay_serving_cpu_before.json",
     [_ratio(n, "cold") for n in BATCHES] + [lambda r: _mix("extractor")(r) / _mix("xgrammar")(r)]),
    ("cold {:.2f}×, {:.2f}× and {:.2f}×, the mix {:.2f}×", "backend_replay_serving_before.json",
     [_ratio(n, "cold") for n in BATCHES] + [lambda r: _mix("extractor")(r) / _mix("xgrammar")(r)]),
    ("our compile's max by the wall fell from {:.0f}-{:,.0f} ms to {:.0f}-{:.0f})", "backend_replay_serving.json",
     [lambda r: min(c["compile_ms"]["max"] for c in _runs(_file("backend_replay_serving_before.json"))),
      lambda r: max(c["compile_ms"]["max"] for c in _runs(_file("backend_replay_serving_before.json"))),
      lambda r: min(c["compile_ms"]["max"] for c in _runs(r)), lambda r: max(c["compile_ms"]["max"] for c in _runs(r))]),
    ("step costs {:.0f} to {:.0f} µs more than a warm one", "backend_replay_serving_cpu.json",
     [lambda r: min(_step(n, "cold")(r) - _step(n, "warm")(r) for n in BATCHES),
      lambda r: max(_step(n, "cold")(r) - _step(n, "warm")(r) for n in BATCHES)]),
    ("largest mask is {:.1f} ms on the tuning part but {:.1f} ms on the held-out part", "realworld_peers.json",
     [lambda r: r["parts"]["tuning"]["extractor"]["mask_us"]["max"] / 1e3,
      lambda r: r["parts"]["held-out"]["extractor"]["mask_us"]["max"] / 1e3]),
    ("(llguidance's {:.1f} and {:.1f} ms)", "realworld_peers.json",
     [lambda r: r["parts"]["tuning"]["llguidance"]["mask_us"]["max"] / 1e3,
      lambda r: r["parts"]["held-out"]["llguidance"]["mask_us"]["max"] / 1e3]),
    ("though closer: {:.2f} ms against {:.2f} on the tuning part, {:.2f} against {:.2f} on the held-out part",
     "realworld_peers.json",
     [lambda r: r["parts"]["tuning"]["extractor"]["compile_ms"]["p50"], lambda r: r["parts"]["tuning"]["llguidance"]["compile_ms"]["p50"],
      lambda r: r["parts"]["held-out"]["extractor"]["compile_ms"]["p50"], lambda r: r["parts"]["held-out"]["llguidance"]["compile_ms"]["p50"]]),
    ("ms): {:.1f} ms of it is the mask's own work", "realworld_peers.json",
     [lambda r: r["parts"]["held-out"]["extractor"]["mask_us_less_collector"]["max"] / 1e3]),
    *[(phrase, file, [lambda r, p=p: r["parts"][p]["extractor"]["compile_ms"]["p50"]
                      / r["parts"][p]["llguidance"]["compile_ms"]["p50"] for p in ("tuning", "held-out")])
      for phrase, file in [("part ({:.2f}× and {:.2f}×;", "realworld_peers.json"),
                           ("{:.2f}× and {:.2f}× in the second run)", "realworld_peers_repeat.json")]],
    ("schemas both compile is {:.2f} ms p50 against llguidance's {:.2f}, the three", "compile_profile_realworld.json",
     ["first_mask_ms_both/extractor/p50", "first_mask_ms_both/llguidance/p50"]),
]
SERVING_CPU_VLLM = [("cold is {:.2f}×, {:.2f}× and {:.2f}×", "backend_replay_serving_cpu.json",
                     [_ratio(n, "cold") for n in BATCHES])]  # docs/vllm.md


def _compile(at: str) -> Callable[[dict[str, Any]], float]:
    """Our compile's percentile `at` (ms, cold) at 16 rows."""
    return lambda r: r["runs"]["batch 16, drafts 0"]["extractor"]["cold"]["compile_ms"][at]


def _warm_p50(r: dict[str, Any]) -> float:
    run = r["runs"]["batch 16, drafts 0"]
    return run["extractor"]["warm"]["request_step_us"]["p50"] / run["xgrammar"]["warm"]["request_step_us"]["p50"]


PREPARE = [  # docs/vllm.md: what the preparation budget buys
    ("with nothing prepared our compile is {:.2f} ms at the median (XGrammar's {:.2f}) and a cold step {:.2f}× XGrammar's",
     "backend_replay_prepare_0_cpu.json",
     [_compile("p50"), lambda r: r["runs"]["batch 16, drafts 0"]["xgrammar"]["cold"]["compile_ms"]["p50"], _ratio(16, "cold")]),
    ("with the default 50 ms, compile {:.1f} ms at the median and {:.0f} ms at p99, a cold step {:.2f}×",
     "backend_replay_prepare_50_cpu.json", [_compile("p50"), _compile("p99"), _ratio(16, "cold")]),
    ("with 500 ms, a cold step {:.2f}× and compile {:.0f} ms at p99", "backend_replay_prepare_500_cpu.json",
     [_ratio(16, "cold"), _compile("p99")]),
    ("The warm step is the same in all three ({:.2f}×,", "backend_replay_prepare_0_cpu.json", [_warm_p50]),
    ("all three (0.74×, {:.2f}×", "backend_replay_prepare_50_cpu.json", [_warm_p50]),
    ("0.75× and {:.2f}× XGrammar's median)", "backend_replay_prepare_500_cpu.json", [_warm_p50]),
]

def _mix_ratio(r: dict[str, Any]) -> float:
    return _mix("extractor")(r) / _mix("xgrammar")(r)


FRESH_SERVING = [  # docs/performance.md, Serving
    ("grammar alone, warm {:.2f}×, {:.2f}× and {:.2f}×, **cold {:.2f}×, {:.2f}× and {:.2f}×** XGrammar's mean step, the serving mix\n"
     "{:.2f}×, its largest cold step {:.2f}, {:.2f} and {:.2f} ms; with the guards, cold {:.2f}×, {:.2f}× and {:.2f}×, the serving mix\n"
     "{:.2f}×, its largest cold steps {:.0f} and {:.0f} ms at 64 and 256 rows", "backend_replay_untracked_cpu.json",
     [lambda r, n=n, k=k: _step(n, k, "extractor-unguarded")(r) / _step(n, k, "xgrammar")(r)
      for k in ("warm", "cold") for n in BATCHES]
     + [lambda r: _mix("extractor-unguarded")(r) / _mix("xgrammar")(r)]
     + [lambda r, n=n: r["runs"][f"batch {n}, drafts 0"]["extractor-unguarded"]["cold"]["request_step_us"]["max"] / 1e3
        for n in BATCHES]
     + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]
     + [lambda r, n=n: r["runs"][f"batch {n}, drafts 0"]["extractor"]["cold"]["request_step_us"]["max"] / 1e3
        for n in (64, 256)]),
    ("with the guards, warm\n{:.2f}×, {:.2f}× and {:.2f}× XGrammar's mean step at 16, 64 and 256 rows, cold {:.2f}×, "
     "{:.2f}× and {:.2f}×, the serving mix\n{:.2f}×;", "backend_replay_unguarded_cpu.json",
     [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]),
    ("the grammar alone, warm {:.2f}×, {:.2f}× and {:.2f}×, cold {:.2f}×, {:.2f}× and {:.2f}×, the serving mix {:.2f}×.",
     "backend_replay_unguarded_cpu.json",
     [lambda r, n=n, k=k: _step(n, k, "extractor-unguarded")(r) / _step(n, k, "xgrammar")(r)
      for k in ("warm", "cold") for n in BATCHES]
     + [lambda r: _mix("extractor-unguarded")(r) / _mix("xgrammar")(r)]),
    ("the grammar alone is {:.0f} ms at 16 rows and {:.0f} ms at 64,\nwhere its median is {:.1f} and {:.1f} µs). Among",
     "backend_replay_unguarded_cpu.json",
     [lambda r, n=n: r["runs"][f"batch {n}, drafts 0"]["extractor-unguarded"]["cold"]["request_step_us"]["max"] / 1e3
      for n in (16, 64)]
     + [lambda r, n=n: r["runs"][f"batch {n}, drafts 0"]["extractor-unguarded"]["cold"]["request_step_us"]["p50"]
        for n in (16, 64)]),
    ("warm {:.2f}×, {:.2f}× and {:.2f}× XGrammar's mean step at 16, 64 and 256 rows; cold {:.2f}×, {:.2f}× and {:.2f}×",
     "backend_replay_serving_fresh_cpu.json", [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES]),
    ("({:.0f}, {:.0f} and {:.0f} µs against {:.0f}, {:.0f} and {:.0f}); the serving mix {:.2f}×. The commit",
     "backend_replay_serving_fresh_cpu.json",
     [_step(n, "cold") for n in BATCHES] + [_step(n, "cold", "xgrammar") for n in BATCHES] + [_mix_ratio]),
    ("warm {:.2f}×, {:.2f}× and {:.2f}×; cold {:.2f}×, {:.2f}× and {:.2f}×; the mix {:.2f}×. By the",
     "backend_replay_serving_fresh_cpu_before.json",
     [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]),
    ("warm {:.2f}×, {:.2f}× and {:.2f}×; cold {:.2f}×, {:.2f}× and {:.2f}×; the mix {:.2f}×. Warm,",
     "backend_replay_serving_fresh.json",
     [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]),
    ("still costs {:.0f} to {:.0f} µs more than a warm one by CPU time", "backend_replay_serving_fresh_cpu.json",
     [lambda r: min(_step(n, "cold")(r) - _step(n, "warm")(r) for n in BATCHES),
      lambda r: max(_step(n, "cold")(r) - _step(n, "warm")(r) for n in BATCHES)]),
]
def _apart(rows: int, part: str) -> Callable[[dict[str, Any]], float]:
    """The unguarded backend's mean step over the XGrammar run in its own process, at `rows` rows."""
    return lambda r: _step(rows, part, "extractor-unguarded")(r) / r["runs"][f"batch {rows}, drafts 0"][
        "extractor-unguarded"]["reference"][part]["request_step_us"]["mean"]


def _apart_mix(r: dict[str, Any]) -> float:
    ours = r["mix"]["batch 64, drafts 0"]["extractor-unguarded"]
    return ours["mix"]["request_step_us"]["mean"] / ours["reference"]["mix"]["request_step_us"]["mean"]


def _compile_p50(backend: str) -> Callable[[dict[str, Any]], float]:
    return lambda r: r["runs"]["batch 16, drafts 0"][backend]["cold"]["compile_ms"]["p50"]


def _p50(backend: str) -> Callable[[dict[str, Any]], float]:
    return lambda r: r["runs"]["batch 16, drafts 0"][backend]["cold"]["request_step_us"]["p50"]


APART = [  # docs/performance.md and docs/vllm.md: each of our backends in a process of its own
    ("docs/performance.md", "the grammar alone, cold **{:.2f}×, {:.2f}× and {:.2f}×** XGrammar's mean step at 16, 64 and "
     "256 rows (warm {:.2f}×, {:.2f}× and {:.2f}×), the serving mix {:.2f}×, its compile p50 at 16 rows {:.1f} ms",
     "backend_replay_apart_cpu.json", [_apart(n, "cold") for n in BATCHES] + [_apart(n, "warm") for n in BATCHES]
     + [_apart_mix, _compile_p50("extractor-unguarded")]),
    ("docs/performance.md", "where it had read {:.1f}; with the guards", "backend_replay_untracked_cpu.json",
     [_compile_p50("extractor-unguarded")]),
    ("docs/performance.md", "with the guards, cold {:.2f}×, {:.2f}× and {:.2f}×, the serving mix {:.2f}×. So neither",
     "backend_replay_apart_cpu.json", [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]),
    ("docs/performance.md", "their cold p50 is about XGrammar's, {:.1f} µs against {:.1f} at 16 rows",
     "backend_replay_apart_cpu.json", [_p50("extractor"), _p50("xgrammar")]),
    ("docs/vllm.md", "the grammar alone's cold step is {:.2f}×, {:.2f}× and {:.2f}× XGrammar's at 16, 64 and 256 rows "
     "and the serving mix {:.2f}×; with the guards {:.2f}×, {:.2f}× and {:.2f}×, and {:.2f}×.",
     "backend_replay_apart_cpu.json", [_apart(n, "cold") for n in BATCHES] + [_apart_mix]
     + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio]),
]
FRESH_VLLM = [
              ("the serving mix costs {:.2f}× XGrammar's where the guards' costs {:.2f}×", "backend_replay_unguarded_cpu.json",
               [lambda r: _mix("extractor-unguarded")(r) / _mix("xgrammar")(r), _mix_ratio]),
              ("warm {:.2f}×, {:.2f}× and {:.2f}× XGrammar's at 16, 64 and 256 rows, cold {:.2f}×, {:.2f}× and {:.2f}×, "
               "the serving mix {:.2f}×,", "backend_replay_serving_fresh_cpu.json",
               [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_mix_ratio])]


def _rw(part: str, engine: str, figure_: str, key: str) -> Callable[[dict[str, Any]], float]:
    """A figure of realworld_peers' summary: part, engine, figure and statistic."""
    return lambda r: r["parts"][part][engine][figure_][key]


REALWORLD = [  # docs/performance.md
    ("gives a mask p99 of {:.0f} µs against\n{:.0f} and {:.0f} against {:.0f}, the largest mask {:.1f} and {:.1f} ms, and compile p50 "
     "{:.2f} against {:.2f} ms and {:.2f} against\n{:.2f}: the largest", "realworld_peers_narrowed.json",
     [_rw(p, e, "mask_us", "p99") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]
     + [lambda r, p=p: _rw(p, "extractor", "mask_us", "max")(r) / 1e3 for p in ("tuning", "held-out")]
     + [_rw(p, e, "compile_ms", "p50") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
    ("mask p99 ({:.2f}× and {:.2f}×) and\ncompile p50 ({:.2f}× and {:.2f}×) are not.", "realworld_peers_narrowed.json",
     [lambda r, p=p, f=f, k=k: _rw(p, "extractor", f, k)(r) / _rw(p, "llguidance", f, k)(r)
      for f, k in (("mask_us", "p99"), ("compile_ms", "p50")) for p in ("tuning", "held-out")]),
    ("mask is {:.1f} ms on the tuning part and {:.1f} ms on the held-out part ({:.1f} ms of it its own work)",
     "realworld_peers_history.json",
     [lambda r: _rw("tuning", "extractor", "mask_us", "max")(r) / 1e3,
      lambda r: _rw("held-out", "extractor", "mask_us", "max")(r) / 1e3,
      lambda r: _rw("held-out", "extractor", "mask_us_less_collector", "max")(r) / 1e3]),
    ("had {:.1f} ms on\nthe held-out part.", "realworld_peers_frozen.json",
     [lambda r: _rw("held-out", "extractor", "mask_us", "max")(r) / 1e3]),
    ("the largest is {:.1f} and {:.1f} ms:", "realworld_peers_history_unfrozen.json",
     [lambda r, p=p: _rw(p, "extractor", "mask_us", "max")(r) / 1e3 for p in ("tuning", "held-out")]),
    ("compile p50 is {:.2f} against {:.2f} ms and {:.2f} against {:.2f} (not met), and the mask p99 {:.0f} µs against "
     "{:.0f} and {:.0f}\nagainst {:.0f} (not met; the average is, {:.1f} µs against {:.1f} and {:.1f} against {:.1f}).",
     "realworld_peers_history.json",
     [_rw(p, e, "compile_ms", "p50") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]
     + [_rw(p, e, "mask_us", "p99") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]
     + [_rw(p, e, "mask_us", "avg") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
    ("(masks {:.1f} µs against {:.1f} and {:.1f} against {:.1f} on average)", "realworld_peers.json",
     [_rw(p, e, "mask_us", "avg") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
    ("nor is the mask p99: {:.0f} µs against {:.0f} and {:.0f} against {:.0f}.", "realworld_peers.json",
     [_rw(p, e, "mask_us", "p99") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
    ("gave {:.2f} against {:.2f} ms and {:.2f} against {:.2f} at p50,", "realworld_peers_loaded.json",
     [_rw(p, e, "compile_ms", "p50") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
    ("the largest held-out mask is {:.1f} ms, {:.1f} ms of it its own work:", "realworld_peers_nocycles.json",
     [lambda r: _rw("held-out", "extractor", "mask_us", "max")(r) / 1e3,
      lambda r: _rw("held-out", "extractor", "mask_us_less_collector", "max")(r) / 1e3]),
    ("That run's mask p99 is {:.0f} µs against {:.0f} on the tuning part and {:.0f} against {:.0f} on the\nheld-out part;"
     " compile p50 {:.2f} against {:.2f} ms and {:.2f} against {:.2f}. In the first run", "realworld_peers_nocycles.json",
     [_rw(p, e, "mask_us", "p99") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]
     + [_rw(p, e, "compile_ms", "p50") for p in ("tuning", "held-out") for e in ("extractor", "llguidance")]),
]


QUIET_SERVING = [  # docs/performance.md
    ("warm {:.2f}×, {:.2f}× and {:.2f}× XGrammar's mean step at 16, 64 and 256 rows; cold {:.2f}×, {:.2f}× and {:.2f}× "
     "({:.1f}, {:.1f} and {:.1f} µs against {:.1f}, {:.1f} and {:.1f}); the serving mix {:.2f}×. The cold",
     "backend_replay_serving_quiet.json",
     [_ratio(n, "warm") for n in BATCHES] + [_ratio(n, "cold") for n in BATCHES] + [_step(n, "cold") for n in BATCHES]
     + [_step(n, "cold", "xgrammar") for n in BATCHES] + [_mix_ratio])]


STAGES_AB = [("normalize {:.2f}× and the grammar {:.2f}× at p50, {:.2f}× and {:.2f}× on the mean;", "compile_stages_ab.json",
              [f"summary/{stage}/{key}_ratio" for key in ("p50", "avg") for stage in ("normalize", "grammar")])]

OBJECTS_HELD = [("résumés {:.3f} → {:.3f}, the generated set", "quality_dev_objects_after.json",
                 [lambda r: _file("quality_dev_objects_before_resumes.json")["per_set"]["extract"]["resumes"]["field_f1"],
                  "per_set/extract/resumes/field_f1"]),
                ("the generated set {:.3f} → {:.3f}; on", "quality_dev_objects_after_generated.json",
                 [lambda r: _file("quality_dev_objects_before_generated.json")["methods"]["extract"]["field_f1"],
                  "methods/extract/field_f1"])]

PROFILE_REALWORLD = [  # docs/performance.md
    ("the three runs' ratios {:.2f}x, {:.2f}x and {:.2f}x: no stage", "compile_profile_realworld.json",
     [f"runs/{i}/ratio" for i in range(3)]),
    ("(at p50 normalize {:.2f} ms, the grammar {:.2f}, rule automata {:.2f}, the rest of the automaton stage {:.2f}, "
     "the first mask {:.2f}, over", "compile_profile_realworld.json",
     [f"stages_ms/{k}/p50" for k in ("normalize", "grammar", "rule automata", "automaton other", "first mask")])]


DATES_PRINTED = [  # docs/quality.md, "Dates as printed, and date fields asked"
    *[(f"| {label} | {{:.3f}} → {{:.3f}} |", "quality_dev_dates_real.json",
       [lambda r, s=key: _file("quality_dev_dates_before_real.json")["per_set"]["extract"][s]["field_f1"],
        f"per_set/extract/{key}/field_f1"])
      for label, key in [("receipts (25)", "receipts"), ("resumes (20)", "resumes"), ("nda (25)", "nda")]],
    ("| generated (12) | {:.3f} → {:.3f} |", "quality_dev_dates_generated.json",
     [lambda r: _file("quality_dev_dates_before_generated.json")["methods"]["extract"]["field_f1"],
      "methods/extract/field_f1"]),
    ("receipts {:.3f} → {:.3f}, contracts {:.3f} → {:.3f}, résumés {:.3f} → {:.3f} (the", "quality_test_dates_real.json",
     [w for key in ("receipts", "nda", "resumes")
      for w in (lambda r, s=key: _file("quality_real_before_dates.json")["per_set"]["extract"][s]["field_f1"],
                f"per_set/extract/{key}/field_f1")]),
    ("job postings went {:.3f} → {:.3f} and events", "quality_dev_dates_jobs.json",
     [lambda r: _file("quality_dev_dates_before_jobs.json")["per_target"]["extract"]["JobPosting"]["field_f1"],
      "per_target/extract/JobPosting/field_f1"]),
    ("and events stayed at {:.3f}. Both rules", "quality_dev_dates_jobs.json", ["per_target/extract/Event/field_f1"]),
]

def _focus(name: str, key: str) -> Callable[[dict[str, Any]], Any]:
    """A figure of the run before the change that looks for what focus left empty."""
    return lambda r: figure(_file(name), key)


def _same(before: str, key: str, shown: str) -> Callable[[dict[str, Any]], Any]:
    """The figure at `shown`, where the run before gave the same F1 at `key` (else a figure no page quotes)."""
    return lambda r: figure(r, shown) if figure(_file(before), key) == figure(r, key) else float("nan")


_D40, _T = "needle_focus_located_dev_before_40k.json", "needle_focus_located_test_before.json"
LONG += [  # docs/long-documents.md, what the part found left empty, looked for in the whole text
    ("F1 {:.3f} against {:.3f} from the long texts\n({:.3f}× and {:.3f}× alone;", "needle_focus_located_dev.json",
     [_focus(_D40, "kinds/needle/40000/long/field_f1"), "kinds/needle/40000/long/field_f1",
      _focus(_D40, "kinds/needle/40000/f1_ratio"), "kinds/needle/40000/f1_ratio"]),
    ("a long text in {:.1f} s against {:.1f} s alone ({:.2f}×);", "needle_focus_located_dev.json",
     ["kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
      lambda r: _long_over_alone(r, "40000")]),
    ("at 200,000 characters the same answers, {:.3f}× alone", "needle_focus_located_dev.json",
     [_same("needle_focus_located_dev_before_200k.json", "kinds/needle/200000/long/field_f1",
            "kinds/needle/200000/f1_ratio")]),
    ("facts stated far apart {} and {} of {}\nright", "far_apart_dev_focus_located.json",
     [_focus("far_apart_dev_focus_located_before.json", "modes/model/all/right"), "modes/model/all/right",
      "modes/model/all/fields"]),
    ("in {:.1f} s a document: as many as without", "far_apart_dev_focus_located.json",
     ["modes/model/seconds_per_doc"]),
    ("contracts that stand out gave F1 {:.3f} as before", "long_documents_train_focus_located.json",
     ["methods/extract/f1"]),
    ("needles at 40,000 characters the same answers, {:.3f}× alone, in {:.1f} s a long text against {:.1f} s alone\n"
     "({:.2f}×)", "needle_focus_located_test.json",
     [_same(_T, "kinds/needle/40000/long/field_f1", "kinds/needle/40000/f1_ratio"),
      "kinds/needle/40000/long/seconds_per_doc", "kinds/needle/40000/alone/seconds_per_doc",
      lambda r: _long_over_alone(r, "40000")]),
    ("and at 200,000 characters {:.3f}× both ways", "needle_focus_located_test.json",
     [_same(_T, "kinds/needle/200000/long/field_f1", "kinds/needle/200000/f1_ratio")]),
    ("facts stated far apart {} and {} of {} right (`python", "far_apart_test_focus_located.json",
     [_focus("far_apart_test_focus_located_before.json", "modes/model/all/right"), "modes/model/all/right",
      "modes/model/all/fields"]),
    ("another lost one), in {:.1f} s\nagainst {:.1f} (", "needle_focus_located_test.json",
     ["kinds/needle/200000/long/seconds_per_doc", _focus(_T, "kinds/needle/200000/long/seconds_per_doc")]),
]


def _under(group: str, pick: Callable[..., int]) -> Callable[[dict[str, Any]], int]:
    """The fewest or most outside stretches under `OTHER_KIND` among a group's texts with regions."""
    return lambda r: pick(row["under"] for row in r["groups"][group] if row["ratios"])


_N = "kinds/needle/40000/"
LONG += [  # docs/long-documents.md, shorter texts read in part where the rest reads as another kind
    ("of the 12 dev needles inside 40,000 characters of contract text, {} have regions, and each of those {} has {} of "
     "its 6 outside stretches under 1.75 nats or more; of the 19 long Kleister-NDA train contracts, {} have regions",
     "outside_kinds_dev.json",
     [lambda r: sum(x["regions"] > 0 for x in r["groups"]["needles"]),
      lambda r: sum(x["focused"] for x in r["groups"]["needles"]), _under("needles", min),
      lambda r: sum(x["regions"] > 0 for x in r["groups"]["contracts"])]),
    ("and none has more than {} of 6 under it; of the 12 far-apart documents (windows of 1,024 tokens), {} have "
     "regions and {} of them are read in part", "outside_kinds_dev.json",
     [_under("contracts", max), lambda r: sum(x["regions"] > 0 for x in r["groups"]["far apart"]),
      lambda r: sum(x["focused"] for x in r["groups"]["far apart"])]),
    ("field F1 {:.3f} → {:.3f} from the long texts against {:.3f} alone ({:.3f}× → {:.3f}×), in {:.0f} s → {:.0f} s a "
     "long text.", "needle_kind_dev.json",
     [_focus("needle_kind_dev_before.json", _N + "long/field_f1"), _N + "long/field_f1", _N + "alone/field_f1",
      _focus("needle_kind_dev_before.json", _N + "f1_ratio"), _N + "f1_ratio",
      _focus("needle_kind_dev_before.json", _N + "long/seconds_per_doc"), _N + "long/seconds_per_doc"]),
    ("{} and {} of {} right. Read once on the test split", "far_apart_dev_kind.json",
     [_focus("far_apart_dev_kind_before.json", "modes/model/all/right"), "modes/model/all/right",
      "modes/model/all/fields"]),
    ("needles {:.3f} → {:.3f} against {:.3f} alone ({:.3f}× → {:.3f}×), in {:.0f} s → {:.0f} s a long text against "
     "{:.0f} s alone", "needle_kind_test.json",
     [_focus("needle_kind_test_before.json", _N + "long/field_f1"), _N + "long/field_f1", _N + "alone/field_f1",
      _focus("needle_kind_test_before.json", _N + "f1_ratio"), _N + "f1_ratio",
      _focus("needle_kind_test_before.json", _N + "long/seconds_per_doc"), _N + "long/seconds_per_doc",
      _N + "alone/seconds_per_doc"]),
    ("facts far apart {} and {} of {} ([before]", "far_apart_test_kind.json",
     [_focus("far_apart_test_kind_before.json", "modes/model/all/right"), "modes/model/all/right",
      "modes/model/all/fields"]),
]


LONG += [  # docs/long-documents.md, regions cut to the lines that read as the target
    ("contract text on each side of the document took its field F1 from {:.3f} alone to {:.3f} (Figures)",
     "needle_beside_dev.json", [_N + "alone/field_f1", _N + "long/field_f1"]),
    ("characters of contract text on each side of it gave field F1 {:.3f} against {:.3f} alone",
     "needle_beside_dev.json", [_N + "long/field_f1", _N + "alone/field_f1"]),
    ("field F1 {:.3f} → {:.3f} against {:.3f} alone ({:.3f}× → {:.3f}×), in {:.0f} s → {:.0f} s a long text (each",
     "needle_trim_dev.json",
     [_focus("needle_kind_dev.json", _N + "long/field_f1"), _N + "long/field_f1", _N + "alone/field_f1",
      _focus("needle_kind_dev.json", _N + "f1_ratio"), _N + "f1_ratio",
      _focus("needle_kind_dev.json", _N + "long/seconds_per_doc"), _N + "long/seconds_per_doc"]),
    ("{:.3f} → {:.3f} against {:.3f} alone ({:.3f}× → {:.3f}×), in {:.0f} s → {:.0f} s a long text against {:.0f} s "
     "alone ({:.1f}× → {:.1f}×). Facts", "needle_trim_test.json",
     [_focus("needle_kind_test.json", _N + "long/field_f1"), _N + "long/field_f1", _N + "alone/field_f1",
      _focus("needle_kind_test.json", _N + "f1_ratio"), _N + "f1_ratio",
      _focus("needle_kind_test.json", _N + "long/seconds_per_doc"), _N + "long/seconds_per_doc",
      _N + "alone/seconds_per_doc",
      lambda r: figure(_file("needle_kind_test.json"), _N + "long/seconds_per_doc")
      / figure(_file("needle_kind_test.json"), _N + "alone/seconds_per_doc"),
      lambda r: figure(r, _N + "long/seconds_per_doc") / figure(r, _N + "alone/seconds_per_doc")]),
    ("twelve before the change) gave {:.3f} against {:.3f} alone ({:.3f}×), in {:.0f} s a long text",
     "needle_trim_200k_dev.json", ["kinds/needle/200000/long/field_f1", "kinds/needle/200000/alone/field_f1",
                                   "kinds/needle/200000/f1_ratio", "kinds/needle/200000/long/seconds_per_doc"]),
    ("model`, [dev](../benchmarks/results/far_apart_dev_trim.md), [test](../benchmarks/results/far_apart_test_trim.md)): "
     "{} and {} of {} right ({} and {} before)", "far_apart_dev_trim.json",
     [_focus("far_apart_dev_trim.json", "modes/model/all/right"), _focus("far_apart_test_trim.json",
      "modes/model/all/right"), "modes/model/all/fields", _focus("far_apart_dev_kind.json", "modes/model/all/right"),
      _focus("far_apart_test_kind.json", "modes/model/all/right")]),
]


LONG += [  # docs/long-documents.md, focused by length
    ("every window read gave the buried\ndocuments' fields at {:.3f}× their F1 alone on dev, in {:.0f} s a text; their "
     "regions gave {:.3f}×, in {:.0f} s)", "needle_every_window_200k_dev.json",
     ["kinds/needle/200000/f1_ratio", "kinds/needle/200000/long/seconds_per_doc",
      _focus("needle_focus_located_dev.json", "kinds/needle/200000/f1_ratio"),
      _focus("needle_focus_located_dev.json", "kinds/needle/200000/long/seconds_per_doc")]),
    ("field F1 {:.3f} from the\nlong texts against {:.3f} alone ({:.3f}×), in {:.0f} s a long text; with their regions "
     "read (above), {:.3f} ({:.3f}×) in\n{:.0f} s.", "needle_every_window_200k_dev.json",
     ["kinds/needle/200000/long/field_f1", "kinds/needle/200000/alone/field_f1", "kinds/needle/200000/f1_ratio",
      "kinds/needle/200000/long/seconds_per_doc",
      _focus("needle_focus_located_dev.json", "kinds/needle/200000/long/field_f1"),
      _focus("needle_focus_located_dev.json", "kinds/needle/200000/f1_ratio"),
      _focus("needle_focus_located_dev.json", "kinds/needle/200000/long/seconds_per_doc")]),
]


LONG += [("`--split test`, at 13a9e5c;\n[needle_every_window_200k_test.md]"
          "(../benchmarks/results/needle_every_window_200k_test.md)): {:.3f} against {:.3f}\nalone ({:.3f}×), in {:.0f} s "
          "a long text; with their regions read (above), {:.3f}× in {:.0f} s.",
          "needle_every_window_200k_test.json",
          ["kinds/needle/200000/long/field_f1", "kinds/needle/200000/alone/field_f1", "kinds/needle/200000/f1_ratio",
           "kinds/needle/200000/long/seconds_per_doc",
           _focus("needle_focus_located_test.json", "kinds/needle/200000/f1_ratio"),
           _focus("needle_focus_located_test.json", "kinds/needle/200000/long/seconds_per_doc")])]


def _long_over_alone(r: dict[str, Any], length: str) -> float:
    """A long text's seconds over the documents' alone, at one length of a needle run."""
    kind = r["kinds"]["needle"][length]
    return kind["long"]["seconds_per_doc"] / kind["alone"]["seconds_per_doc"]


NULLS = [  # docs/quality.md, "Numbers from the text"
    ("résumés went {:.3f} → {:.3f}, contracts stayed at {:.3f} and the generated set at {:.3f}:",
     "quality_dev_nulls_real.json",
     [lambda r: _file("quality_dev_nulls_before_real.json")["per_set"]["extract"]["resumes"]["field_f1"],
      "per_set/extract/resumes/field_f1", "per_set/extract/nda/field_f1",
      lambda r: _file("quality_dev_nulls_generated.json")["methods"]["extract"]["field_f1"]])]

FIGURES = ([("docs/tracing.md", *row) for row in TRACING] + [("docs/reliability.md", *row) for row in RELIABILITY]
           + [("docs/long-documents.md", *row) for row in LONG]
           + [("docs/corpus-jobs.md", *row) for row in CORPUS + CORPUS_CLI]
           + [("docs/quality.md", *row) for row in SCREEN] + [("docs/faq.md", *row) for row in FAQ]
           + [("docs/decoding.md", *row) for row in FRESH] + [("docs/fields.md", *row) for row in FIELDS]
           + [("docs/performance.md", *row) for row in PERFORMANCE + KV_CACHE] + [("docs/guide.md", *row) for row in DATES]
           + [(page, *row) for page in ("docs/vllm.md", "docs/performance.md") for row in SERVING]
           + [("docs/vllm.md", *row) for row in SERVING_MIX] + [("docs/performance.md", *row) for row in SERVING_US]
           + [("docs/performance.md", *row) for row in SERVING_MORE] + [("docs/vllm.md", *row) for row in SERVING_CPU_VLLM + PREPARE]
           + [("docs/performance.md", *row) for row in FRESH_SERVING] + [("docs/vllm.md", *row) for row in FRESH_VLLM] + APART
           + [("docs/performance.md", *row) for row in REALWORLD + QUIET_SERVING + PROFILE_REALWORLD + STAGES_AB]
           + [("docs/quality.md", *row) for row in DATES_PRINTED + NULLS]
           + [("docs/decoding.md", *row) for row in OBJECTS_HELD + GUARDS_ALONE + LEFT_OUT + NULL_VARIANTS])
"""Pages whose figures are held to their files; a page joins with rows of its own."""


def _file(name: str) -> dict[str, Any]:
    """A second result file a figure is read beside its row's own."""
    return json.loads((RESULTS / name).read_text())


def figure(result: dict[str, Any], where: Where) -> Any:
    """The figure at `where` in a result file."""
    if callable(where):
        return where(result)
    for key in where.split("/"):
        result = result[int(key)] if isinstance(result, list) else result[key]
    return len(result) if isinstance(result, list) else result


def pattern(phrase: str) -> re.Pattern[str]:
    """The phrase with any figures in its fields, across line breaks (a page wraps its lines)."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(phrase):
        parts.append(r"(?:[ \t]*\n[ \t]*|[ \t]+)".join(map(re.escape, literal.split(" "))))
        if field is not None:
            parts.append(r"([^\s|]+?)")
    return re.compile("".join(parts))


@pytest.mark.parametrize("page,phrase,file,where", FIGURES, ids=[f"{r[0]}:{r[1][:40]}" for r in FIGURES])
def test_a_figure_in_the_docs_is_its_result_files(page: str, phrase: str, file: str, where: list[Where]) -> None:
    result = json.loads((RESULTS / file).read_text(encoding="utf-8"))
    values = [figure(result, w) for w in where]
    specs = [spec for _, field, spec, _ in string.Formatter().parse(phrase) if field is not None]
    figures = [format(v, spec) for v, spec in zip(values, specs)]
    text = (ROOT / page).read_text(encoding="utf-8")
    cited = text.find(f"results/{Path(file).stem}.")  # a phrase read again below is the one after the citation
    found = pattern(phrase).search(text, max(cited, 0)) or pattern(phrase).search(text)
    assert found, f"{page} no longer reads {phrase!r}: change the row or the page"
    if UPDATE:
        for i in reversed(range(len(figures))):
            text = text[:found.start(i + 1)] + figures[i] + text[found.end(i + 1):]
        (ROOT / page).write_text(text, encoding="utf-8")
    else:
        assert list(found.groups()) == figures, (f"{page} quotes {file}: {phrase.format(*values)!r} now "
                                                  "(DOCS_UPDATE=1 writes it)")


TABLES = [("docs/reliability.md", "redteam.md"), ("docs/performance.md", "realworld_peers.md")]
"""(page, a result's .md): the page shows that file's table as it is."""


def table(text: str, header: str) -> tuple[int, int]:
    """Where the table whose first line is `header` stands in `text` (start and end offsets; (-1, -1) if none)."""
    start = text.find(header + "\n")
    end = start
    while start >= 0 and text.startswith("|", end):
        end = text.index("\n", end) + 1
    return start, end


@pytest.mark.parametrize("page,file", TABLES)
def test_a_table_copied_from_a_result_file_is_that_files(page: str, file: str) -> None:
    result = (RESULTS / file).read_text(encoding="utf-8")
    header = next(line for line in result.splitlines() if line.startswith("|"))
    want = result[slice(*table(result, header))]
    text = (ROOT / page).read_text(encoding="utf-8")
    start, end = table(text, header)
    assert start >= 0, f"{page} no longer shows the table of {file}"
    if UPDATE:
        (ROOT / page).write_text(text[:start] + want + text[end:], encoding="utf-8")
    else:
        assert text[start:end] == want, f"{page} shows an older table of {file} (DOCS_UPDATE=1 writes it)"


def test_the_grown_cache_gave_the_same_logits_where_performance_md_says_so() -> None:
    assert [r["max_logit_diff"] for r in json.loads((RESULTS / "kv_cache.json").read_text())["rows"]] == [0.0] * 4


def test_decoding_md_says_no_answer_holds_a_repeat_where_its_files_say_so() -> None:
    text = (ROOT / "docs/decoding.md").read_text(encoding="utf-8")
    assert "no set's answers hold a repeated item" in " ".join(text.split())
    for name in ("repeated_items_dev_repeats.json", "repeated_items_test_repeats.json"):
        assert all(row["repeated"] == 0 for row in _file(name)["per_method"]["extract"].values()), name

