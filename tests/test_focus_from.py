"""Where the length from which a text is focused by default (`windowed.FOCUS_FROM`) falls among the texts the docs
name: the needle benchmark's long texts past it and its shorter ones under it, every Kleister-NDA contract under it
(its longest 17,770 tokens), and the generated million characters of benchmarks/long_scaling.py past it with one
region that stands out (the embedded model's tokenizer)."""

from __future__ import annotations

import argparse

import pytest

from benchmarks.long_documents import load
from benchmarks.long_scaling import contract
from benchmarks.needle import cases
from extractor.documents.relevant import grid
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.windowed import FOCUS_FROM, STRETCH, _target, focus_regions, stretch_scores
from schemas import NDA


@pytest.fixture(scope="module")
def tokens():
    from transformers import AutoTokenizer

    from extractor.decode.model import embedded_path

    tokenizer = AutoTokenizer.from_pretrained(embedded_path())
    return lambda texts: [len(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]


@pytest.mark.parametrize("split", ["dev", "test"])
def test_the_needles_of_200000_characters_are_past_it_and_those_of_40000_under(tokens, split: str) -> None:
    spec = argparse.Namespace(split=split, docs=4, targets=None, seed=0, lengths=[40_000, 200_000], facts=0)
    texts = cases(spec)
    counted = {c["id"]: n for c, n in zip(texts, tokens([c["long"] for c in texts]))}
    assert all((n > FOCUS_FROM) == c.endswith("@200000") for c, n in counted.items()), counted


def test_no_kleister_contract_reaches_it(tokens) -> None:
    assert max(tokens([d["text"] for split in ("train", "dev-0") for d in load(split, None)])) == 17_770 < FOCUS_FROM


def test_the_million_characters_of_long_scaling_are_past_it_with_one_region_that_stands_out(tokens) -> None:
    text = contract(1_000_000)
    spans = grid(len(text), STRETCH)
    scores, spread = stretch_scores(_target(NDA, ExtractOptions()), [text[a:b] for a, b in spans])
    (region,) = focus_regions(text, list(zip(spans, scores)), spread)
    assert tokens([text])[0] > FOCUS_FROM and region[1] == len(text)  # the governing law's, at its end
