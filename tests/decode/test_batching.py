"""Batched decoding: each row decodes exactly as it would alone, rows leave the batch as they finish."""

from __future__ import annotations

from dataclasses import replace

import pytest

from extractor import Refusal, compile_schema
from extractor.decode import DecodeOptions, SamplingOptions, generate, generate_many, jump_forward_options
from schemas import ContactCard, Event
from tests.decode.fakes import fake_lm, hf_tokenizer

PROMPTS = [[5, 6, 7], [11, 12, 13, 14, 15, 16, 17], [8], [21, 22, 23, 24]]
SOURCE = "Berlin Python Meetup, 2025-06-12 at 18:30, Factory Berlin"


@pytest.fixture(scope="module")
def fake():
    return fake_lm(hf_tokenizer("gpt2"))


@pytest.mark.parametrize(("jump_forward", "sampling"), [
    ("verified", SamplingOptions()), ("canonical", SamplingOptions()), (False, SamplingOptions()),
    ("canonical", SamplingOptions(temperature=1.0, top_k=40, seed=4)),
], ids=["greedy", "greedy-canonical", "greedy-no-jump", "sampled"])
def test_each_row_decodes_as_it_would_alone(fake, jump_forward, sampling):
    """The fake's logits depend on a row's real tokens only, so any padding or position slip shows.
    (Verified sampling is left out: drafts follow splits learned meanwhile, and each drafted token
    draws from the row's generator, so the same seed takes another path; its outputs are checked for
    validity in test_jump_forward.)"""
    lm, vocab = fake
    grammar = compile_schema(Event, vocab, refusal=Refusal)
    options = replace(jump_forward_options(jump_forward), max_tokens=40, sampling=sampling)
    done: list[int] = []
    sources = [SOURCE, None, SOURCE, SOURCE]
    batch = generate_many(lm, vocab, PROMPTS, [grammar.matcher() for _ in PROMPTS], options, sources=sources,
                          on_done=done.append)
    alone = [generate(lm, vocab, p, grammar.matcher(), max_tokens=40, sampling=sampling, jump_forward=jump_forward,
                      source=src) for p, src in zip(PROMPTS, sources)]
    for b, a in zip(batch, alone):
        assert b.token_ids == a.token_ids
        assert b.complete == a.complete
        if jump_forward != "verified":  # verified drafts follow splits learned meanwhile: same tokens, other drafts
            assert b.forced_tokens == a.forced_tokens
            assert b.usage.forward_passes == a.usage.forward_passes
    assert sorted(done) == list(range(len(PROMPTS)))


def test_rows_leave_the_batch_as_they_finish(fake):
    lm, vocab = fake
    lm.model.calls.clear()
    grammar = compile_schema(ContactCard, vocab, refusal=Refusal)
    limits = DecodeOptions(max_tokens=40)
    gens = generate_many(lm, vocab, PROMPTS[:3], [grammar.matcher() for _ in range(3)], limits)
    rows = [r for r, _ in lm.model.calls]
    assert rows[0] == 3 and rows == sorted(rows, reverse=True)
    lengths = sorted(len(g.token_ids) - g.forced_tokens for g in gens)
    assert rows.count(3) <= lengths[0] + 1


def test_unconstrained_and_constrained_rows_share_a_batch(fake):
    lm, vocab = fake
    grammar = compile_schema(Event, vocab, refusal=None)
    options = DecodeOptions(max_tokens=25)
    gens = generate_many(lm, vocab, PROMPTS[:2], [grammar.matcher(), None], options)
    alone = generate(lm, vocab, PROMPTS[1], None, max_tokens=25)
    assert gens[1].token_ids == alone.token_ids
    assert gens[0].forced_tokens > 0 and gens[1].forced_tokens == 0


def test_long_prompts_fed_in_parts_decode_as_in_one_pass(fake, monkeypatch):
    """Prompts over `PREFILL_CHUNK` are fed in parts before the first real pass: same tokens, one pass more per
    part (here prompts of 3, 7, 1 and 4 tokens in parts of 2: three parts, each row keeping its last token)."""
    import extractor.decode.loop as loop

    lm, vocab = fake
    grammar = compile_schema(Event, vocab, refusal=Refusal)
    options = replace(jump_forward_options("canonical"), max_tokens=30)
    sources = [SOURCE, None, SOURCE, SOURCE]
    whole = generate_many(lm, vocab, PROMPTS, [grammar.matcher() for _ in PROMPTS], options, sources=sources)
    monkeypatch.setattr(loop, "PREFILL_CHUNK", 2)
    parts = generate_many(lm, vocab, PROMPTS, [grammar.matcher() for _ in PROMPTS], options, sources=sources)
    for w, p in zip(whole, parts):
        assert (p.token_ids, p.complete, p.text) == (w.token_ids, w.complete, w.text)
        assert p.usage.forward_passes == w.usage.forward_passes + 3
