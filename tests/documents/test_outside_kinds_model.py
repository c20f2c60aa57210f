"""The embedded model's reading of what lies outside focus's regions (`windowed.outside_kinds`): the contract around
a buried résumé reads as another kind of document, the rest of a long contract read for its parties as the target
(texts of benchmarks/outside_kinds.py's dev figures, so the decisions it reports stay the library's)."""

from __future__ import annotations

import argparse

import pytest

import schemas
from benchmarks import needle
from benchmarks.long_documents import load
from extractor import ExtractOptions
from extractor.documents.relevant import grid
from extractor.pipeline import windowed


def _regions(text: str, target: windowed.Target) -> list[tuple[int, int]]:
    spans = grid(len(text), windowed.STRETCH)
    scores, spread = windowed.stretch_scores(target, [text[a:b] for a, b in spans])
    regions = windowed.focus_regions(text, list(zip(spans, scores)), spread)
    assert regions, "the text's best stretch no longer stands out: pick another"
    return regions


def _needle() -> tuple[str, type]:
    case = next(c for c in needle.cases(argparse.Namespace(split="dev", docs=1, targets=None, seed=0,
                                                            lengths=[40_000], facts=0)))
    return case["long"], needle.target(case["target"])


def _contract() -> tuple[str, type]:
    text = next(d["text"] for d in load("train", None) if d["id"].startswith("5368d4c4212375ed16c50874d99d179d"))
    return text, schemas.NDA


@pytest.mark.parametrize("made, other", [(_needle, True), (_contract, False)],
                         ids=["resume_inside_contracts", "contract_read_for_its_parties"])
def test_the_model_reads_what_lies_outside_the_regions_as_the_default_needs(model_extractor, made, other: bool) -> None:
    text, cls = made()
    target = windowed._target(cls, ExtractOptions())
    ratios = windowed.outside_kinds(model_extractor, target, text, _regions(text, target))
    assert ratios is not None and len(ratios) == windowed.OUTSIDE_SAMPLE
    assert windowed.other_kind(ratios) is other, ratios


def test_lines_read_packed_are_read_as_each_alone(model_extractor) -> None:
    """`relevance.against` packs many lines' rows into a pass: each ratio is the one its rows give read alone."""
    from extractor.decode.relevance import against, announcements, as_context, as_kind, likelihoods, opening

    lm = model_extractor.lm
    schema = windowed._target(schemas.Resume, ExtractOptions()).schema
    others = [as_kind("legal text"), as_context("The Receiving Party shall hold all information in confidence.")]
    texts = ["Name: Yuki Nakamura", "", "The Disclosing Party may terminate this Agreement.", "Skills: SQL"] * 20
    bodies = [opening(lm, t, windowed.STRETCH_TOKENS) for t in texts]
    said = announcements(schema)
    alone = [0.0 if not b else (lambda ll: max(ll[0], ll[1]) - max(ll[2:]))(likelihoods(lm, [*said[:2], *others], b))
             for b in bodies]
    assert against(lm, schema, bodies, others) == pytest.approx(alone, abs=1e-3)
