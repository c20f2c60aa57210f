"""Batched decoding: each row decodes exactly as it would alone, rows leave the batch as they finish."""

from __future__ import annotations

import platform
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


PREFIX = list(range(100, 170))
SHARING = [  # (prompts, shared tokens fed once)
    ([PREFIX + [5, 6], PREFIX + [7], PREFIX + [8, 9, 10]], 70),
    ([PREFIX + [5], PREFIX[:40] + [7, 8]], 0),  # 40 tokens in common: under SHARED_PREFIX, fed per row
    ([PREFIX, PREFIX + [9]], 70),  # one prompt is all prefix: the answer's forced opening is its own
    ([PREFIX + [5]], 0),  # one row: nothing to share
    ([PREFIX + [5], PREFIX + [5]], -1),  # the same prompt twice: the drafts behind it stay each row's own
]


@pytest.mark.parametrize(("prompts", "shared"), SHARING)
@pytest.mark.parametrize("chunk", [2048, 16])
@pytest.mark.parametrize("mode", ["canonical", "verified"])
def test_a_shared_prefix_is_fed_once_and_decodes_as_fed_per_row(fake, monkeypatch, prompts, shared, chunk, mode):
    """The prefix every prompt begins with is one row's pass, its cache copied to every row: same tokens as
    each prompt fed whole (here, alone), in parts too; a row keeps of its own every token whose logits the first
    real pass reads (verified drafts behind its prompt: a prompt that is all prefix leaves them all)."""
    import extractor.decode.loop as loop

    lm, vocab = fake
    monkeypatch.setattr(loop, "PREFILL_CHUNK", chunk)
    grammar = compile_schema(Event, vocab, refusal=None)  # no refusal branch: the opening key is forced
    options = replace(jump_forward_options(mode), max_tokens=30)
    lm.model.calls.clear()
    batch = generate_many(lm, vocab, prompts, [grammar.matcher() for _ in prompts], options)
    first = lm.model.calls[0]
    alone = [generate(lm, vocab, p, grammar.matcher(), max_tokens=30, jump_forward=mode) for p in prompts]
    for b, a in zip(batch, alone):
        assert (b.token_ids, b.complete, b.text) == (a.token_ids, a.complete, a.text)
    assert first[0] == (1 if shared else len(prompts))
    if shared > 0 and mode == "canonical":
        assert first[1] == min(shared, chunk)


def test_a_cache_that_cannot_be_copied_feeds_every_row_whole(fake, monkeypatch):
    from tests.decode.fakes import FakeCache

    lm, vocab = fake
    prompts = SHARING[0][0]
    grammar = compile_schema(Event, vocab, refusal=Refusal)
    options = replace(jump_forward_options("canonical"), max_tokens=30)
    shared = generate_many(lm, vocab, prompts, [grammar.matcher() for _ in prompts], options)
    monkeypatch.delattr(FakeCache, "batch_repeat_interleave")
    whole = generate_many(lm, vocab, prompts, [grammar.matcher() for _ in prompts], options)
    for s, w in zip(shared, whole):
        assert (s.token_ids, s.complete) == (w.token_ids, w.complete)


@pytest.mark.parametrize(("after", "released"), [(1024, 0), (10, 1)], ids=["short", "long"])
def test_memory_is_handed_back_after_a_batch_of_long_prompts_only(fake, monkeypatch, after, released):
    import extractor.decode.loop as loop

    lm, vocab = fake
    calls: list[int] = []
    monkeypatch.setattr(loop, "RELEASE_AFTER", after)  # the two prompts hold 10 tokens
    monkeypatch.setattr(loop, "release_memory", lambda: calls.append(1))
    generate_many(lm, vocab, PROMPTS[:2], [None, None], DecodeOptions(max_tokens=3))
    assert len(calls) == released
    if platform.libc_ver()[0] == "glibc":  # where the trim exists, it is found
        loop._trim.cache_clear()
        assert loop._trim() is not None
