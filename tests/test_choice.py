"""`pipeline/choice.py`: the model's enum answer among the windows' values is the choice, with each candidate's
log-likelihood where the engine gives likelihoods."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from extractor import ExtractOptions
from extractor.pipeline.choice import Offered, decide
from extractor.tracing.record import Candidate

DRAFT = "A first draft of this brief was circulated on 26 November 2018."
DEADLINE = "Deadline. All deliverables must be handed over by 6 November 2024."
SCHEMA = {"type": "object", "properties": {"deadline": {
    "description": "Date the project must be delivered by, as YYYY-MM-DD; null if not stated",
    "enum": ["2018-11-26", "2024-11-06", None]}}, "required": ["deadline"], "additionalProperties": False}


def _offered() -> Offered:
    candidates = (Candidate("2018-11-26", 0), Candidate("2024-11-06", 3), Candidate(None, -1))
    return Offered("deadline", SCHEMA, candidates, ((0, "/deadline"), (1, "/deadline"), (-1, "")),
                   f"{DRAFT}\n[...]\n{DEADLINE}")


ANSWERS = [("2018-11-26", 0), ("2024-11-06", 1), (None, 2)]  # the model's answer -> the candidate chosen


def _answering(value: Any):
    """A read that answers `value` for the member, as the model's enum answer."""
    def read(schema, texts, opts, *, on_attempt, progress=None):
        on_attempt(0, SimpleNamespace(text=f'{{\n  "deadline": {json.dumps(value)}\n}}'))
        return [SimpleNamespace(result={"deadline": value})]
    return read


@pytest.mark.parametrize("answer, index", ANSWERS)
def test_without_likelihoods_the_models_answer_stands(answer, index):
    engine, kept = SimpleNamespace(), []
    chosen, candidates = decide(engine, _answering(answer), _offered(), ExtractOptions(),
                                kept.append)
    assert chosen == index and len(kept) == 1 and all(c.loglik is None for c in candidates)


@pytest.mark.parametrize("answer, index", ANSWERS)
def test_the_models_answer_stands_with_each_candidates_likelihood(model_extractor, answer, index):
    """The first value offered stays the model's choice (nothing ranks it again), and every candidate, null too,
    has its log-likelihood as the answer's value."""
    chosen, candidates = decide(model_extractor, _answering(answer), _offered(), ExtractOptions(), lambda a: None)
    assert chosen == index and all(c.loglik is not None and c.loglik < 0 for c in candidates)


AROUND_CASES = [  # (candidates' spans, document) -> the stretches of the choice's text, in order
    ([(0, 5)], "Alpha beta gamma", ["Alpha beta gamma"]),
    ([(0, 1), (1400, 1401)], "a" + " x" * 699 + " b" + " y" * 700, ["a" + " x" * 150, "x " * 150 + "b" + " y" * 150]),
    ([(0, 1), (500, 501)], "a" + " x" * 249 + " b" + " y" * 400, ["a" + " x" * 249 + " b" + " y" * 150]),  # overlapping: one
]


@pytest.mark.parametrize("spans, document, stretches", AROUND_CASES, ids=["one", "far apart", "near"])
def test_the_text_around_the_candidates_joins_far_stretches_with_a_gap(spans, document, stretches):
    from extractor.pipeline.choice import GAP, _around
    from extractor.tracing.record import Span

    assert _around([Span(a, b) for a, b in spans], document).split(GAP) == stretches


def test_the_choice_reads_its_prompt_once(model_extractor):
    """With a local model the choice's prompt is read once: the answer's decoding feeds only its last token, each
    candidate's likelihood is the one read whole after the prompt and the answer's bytes before the value, and
    nothing stays kept after."""
    from extractor.decode.kept import kept_rows
    from extractor.pipeline.engine import Control
    from extractor.pipeline.rounds import Reader

    lm, opts, offered, attempts = model_extractor.lm, ExtractOptions(max_tokens=40), _offered(), []
    prompt = model_extractor.prompt_ids(offered.schema, offered.text, [], opts)
    chosen, candidates = decide(model_extractor, Reader(model_extractor, Control()), offered, opts, attempts.append)
    assert [a.usage.cached_tokens for a in attempts] == [len(prompt) - 1]
    assert not kept_rows(lm, "prompts").longest(prompt)[0]
    output = attempts[-1].text
    before = output[:output.index(json.dumps(candidates[chosen].value), output.index('"deadline"') + 10)]
    for c in candidates:
        assert c.loglik == pytest.approx(_whole(lm, prompt, before, json.dumps(c.value)), abs=2e-3)


def _whole(lm, prompt: list[int], before: str, value: str) -> float:
    """log p(value | prompt, before): everything fed as one sequence, read off a whole log-softmax (the reference)."""
    import torch

    said, body = (lm.tokenizer(s, add_special_tokens=False)["input_ids"] for s in (before, value))
    ids = prompt + said + body
    with torch.inference_mode():
        logits = lm.model(input_ids=torch.tensor([ids])).logits[0, len(ids) - len(body) - 1:-1]
    return float(logits.float().log_softmax(-1).gather(-1, torch.tensor(body)[:, None]).sum())
