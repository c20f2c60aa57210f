"""Jump-forward: forced spans tokenized exactly and naturally, outputs always valid, passes counted honestly."""

from __future__ import annotations

import json
from typing import Literal

import jsonschema
import numpy as np
import pytest
from pydantic import BaseModel

from extractor import Refusal, compile_schema
from extractor.decode import SamplingOptions, generate
from extractor.decode.copy import SourceDrafts
from extractor.decode.forced import SpanTokenizer, crosses, forced_tokens
from schemas import ContactCard, Event, Invoice, Resume
from tests.decode.fakes import fake_lm, hf_tokenizer


class Person(BaseModel):
    name: str
    email: str
    age: int | None = None


class Order(BaseModel):
    status: Literal["pending", "shipped", "delivered"]
    items: list[str]
    total: float


SCHEMAS = [Person, Order, Event, ContactCard, Invoice, Resume]
PROMPT = [10, 20, 30]
SOURCE = 'Name: Ann Lee-Smith\nEmail: ann@example.com, "work"\nDate: 2024-03-15 at 18:30\nTotal 1200.50'


def test_source_drafts_propose_what_follows_in_the_text(gpt2):
    grammar = compile_schema(Person, gpt2, refusal=None)
    drafts = SourceDrafts(SOURCE.encode(), SpanTokenizer(gpt2, grammar), max_tokens=8)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"name":"Ann')
    draft = drafts.draft(matcher, b"Ann", room=20)
    assert b"".join(grammar.vocab.tokens[t] for t in draft.tokens) == b" Lee-Smith"  # cut at the line break
    assert (draft.copied, draft.source, draft.source_bytes) == (True, SOURCE.index(" Lee"), len(" Lee-Smith"))
    draft = drafts.draft(matcher, b"Ann", room=20, in_string=True)  # ... where the string may close
    assert b"".join(grammar.vocab.tokens[t] for t in draft.tokens) == b' Lee-Smith","email":"'
    assert draft.source_bytes == len(" Lee-Smith")  # the quote and what the grammar forces are not the source's
    ids = drafts.draft(matcher, b"Ann", room=3, in_string=True).tokens
    assert len(ids) == 3
    assert drafts.draft(matcher, b"An", room=20).tokens == []  # shorter than min_match
    assert drafts.draft(matcher, b"Ann", room=1).tokens == ids[:1]
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"name":"ann@exa')
    draft = drafts.draft(matcher, b"ann@exa", room=20)
    assert b"".join(grammar.vocab.tokens[t] for t in draft.tokens) == b"mple.com, "  # cut at the quote
    assert SOURCE.encode()[draft.source:draft.source + draft.source_bytes] == b"mple.com, "


@pytest.fixture(scope="module")
def gpt2():
    return hf_tokenizer("gpt2")


@pytest.fixture(scope="module")
def fake(gpt2):
    return fake_lm(gpt2)


def _walk(grammar, rng: np.random.Generator, steps: int = 60):
    """Matchers at random positions of random valid outputs."""
    matcher = grammar.matcher()
    for _ in range(steps):
        if matcher.finished:
            return
        yield matcher
        allowed = np.flatnonzero(matcher.mask())
        matcher.advance(int(rng.choice(allowed)))


@pytest.mark.parametrize("model", [Person, Order, Event], ids=lambda m: m.__name__)
@pytest.mark.parametrize("tokenizer", ["gpt2", "llama2"])
def test_forced_span_is_exact_allowed_and_never_ends_where_a_longer_token_could_go_on(model, tokenizer):
    tok = hf_tokenizer(tokenizer)
    grammar = compile_schema(model, tok, refusal=Refusal)
    spans = SpanTokenizer(tok, grammar)
    rng = np.random.default_rng(3)
    seen = 0
    for matcher in _walk(grammar, rng):
        data = matcher.forced_bytes()
        ids, merged = forced_tokens(matcher, spans)
        assert not merged
        got = b"".join(grammar.vocab.tokens[t] for t in ids)
        assert data.startswith(got)
        config = matcher.config
        for t in ids[:-1]:
            config = grammar.walk(config, grammar.vocab.tokens[t])
            assert config, "every forced token is allowed"
        if ids:
            seen += 1
            start = len(got) - len(grammar.vocab.tokens[ids[-1]])
            assert not crosses(grammar, config, data[start:]), "the last forced token could have run on"
    assert seen, "no forced span met on this walk"


def test_forced_tokens_are_the_tokenizers_own(gpt2):
    grammar = compile_schema(Person, gpt2, refusal=None)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"name":"Ann"')
    assert matcher.forced_bytes() == b',"email":"'
    ids, _ = forced_tokens(matcher, SpanTokenizer(gpt2, grammar))
    canonical = gpt2(',"email":"', add_special_tokens=False)["input_ids"]
    assert ids == canonical[:2], (ids, canonical)
    # GPT-2 has `":"/` and `":"","`: `":"` could run into the value, so the model picks there
    assert [grammar.vocab.tokens[t] for t in canonical] == [b',"', b"email", b'":"']


def test_merge_retokenizes_across_the_previous_free_token(gpt2):
    grammar = compile_schema(Person, gpt2, refusal=None)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"name":"Ann')
    before = matcher.config
    quote = grammar.vocab.tokens.index(b'"')
    matcher.advance(quote)
    ids, merged = forced_tokens(matcher, SpanTokenizer(gpt2, grammar), previous=quote, before=before)
    data = b"".join(grammar.vocab.tokens[t] for t in ids)
    if merged:
        assert data.startswith(b'"') and len(grammar.vocab.tokens[ids[0]]) > 1
        assert b'"' + matcher.forced_bytes() == data or (b'"' + matcher.forced_bytes()).startswith(data)
    else:
        assert matcher.forced_bytes().startswith(data)


def test_a_cut_utf8_character_is_not_forced(gpt2):
    schema = {"type": "object", "properties": {"k": {"enum": ["é1", "è2"]}}, "required": ["k"]}
    grammar = compile_schema(schema, gpt2, refusal=None)
    matcher = grammar.matcher()
    data = matcher.forced_bytes()
    assert data.endswith(b"\xc3")  # both values start with the same lead byte
    ids, _ = forced_tokens(matcher, SpanTokenizer(gpt2, grammar))
    assert b"\xc3" not in b"".join(grammar.vocab.tokens[t] for t in ids)


def _valid(model, text: str) -> None:
    data = json.loads(text)
    if set(data) == {"error"}:
        Refusal.model_validate(data)
        return
    jsonschema.validate(data, model.model_json_schema())
    model.model_validate(data)


@pytest.mark.parametrize("mode", ["verified", "canonical"])
@pytest.mark.parametrize("model", SCHEMAS, ids=lambda m: m.__name__)
def test_jump_forward_output_is_always_valid(fake, model, mode):
    """Property: random sampling seeds, jump-forward on (merge on and off): every complete output is valid."""
    lm, vocab = fake
    grammar = compile_schema(model, vocab, refusal=Refusal)
    complete = 0
    for seed in range(4):
        sampling = SamplingOptions(temperature=1.0, top_k=50 if seed % 2 else 0, seed=seed)
        gen = generate(lm, vocab, PROMPT + [seed], grammar.matcher(), max_tokens=120, sampling=sampling,
                       jump_forward=mode, merge=bool(seed % 2), source=SOURCE)
        assert b"".join(vocab.tokens[t] for t in gen.token_ids) == gen.data
        prefix = grammar.matcher()
        prefix.advance_bytes(gen.data)  # always a prefix the grammar allows
        if gen.complete:
            complete += 1
            assert prefix.accepting()
            _valid(model, gen.text)
            # each pass ended in one choice of the model's; forced tokens it kept (or was given) were free
            assert gen.usage.forward_passes == len(gen.token_ids) - gen.forced_tokens - gen.copied_tokens
        else:
            assert len(gen.token_ids) == 120
    assert complete >= 2


@pytest.mark.parametrize("model", [Person, Event, Invoice], ids=lambda m: m.__name__)
def test_verified_jump_forward_decodes_exactly_as_token_by_token(fake, model):
    """Greedy: a drafted token stands only where the model picks it, so the tokens are those of no jump-forward."""
    lm, vocab = fake
    grammar = compile_schema(model, vocab, refusal=Refusal)
    for extra in range(3):
        prompt = PROMPT + [extra]
        on = generate(lm, vocab, prompt, grammar.matcher(), max_tokens=100, source=SOURCE)
        off = generate(lm, vocab, prompt, grammar.matcher(), max_tokens=100, jump_forward=False)
        assert on.token_ids == off.token_ids
        assert on.complete == off.complete
        assert on.usage.forward_passes <= off.usage.forward_passes


def test_drafts_learn_where_the_model_writes_shorter_tokens(gpt2):
    grammar = compile_schema(Person, gpt2, refusal=None)
    spans = SpanTokenizer(gpt2, grammar)
    tokens = grammar.vocab.tokens
    ids = gpt2(',"email":"', add_special_tokens=False)["input_ids"]
    assert [tokens[t] for t in ids] == [b',"', b"email", b'":"']
    colon = tokens.index(b'":')
    quote, comma = tokens.index(b'"'), tokens.index(b",")
    splits = {ids[2]: colon, ids[0]: comma}
    assert [tokens[t] for t in spans.resplit(ids, splits)] == [b",", b'"', b"email", b'":', b'"']
    assert spans.resplit(ids, {}) == ids
    assert quote in spans.resplit(ids, splits)


def test_without_jump_forward_every_token_costs_a_pass(fake):
    lm, vocab = fake
    grammar = compile_schema(Person, vocab, refusal=None)
    on = generate(lm, vocab, PROMPT, grammar.matcher(), max_tokens=120, jump_forward="canonical")
    off = generate(lm, vocab, PROMPT, grammar.matcher(), max_tokens=120, jump_forward=False)
    assert off.forced_tokens == 0
    assert off.usage.forward_passes == len(off.token_ids)
    assert on.forced_tokens > 0
    assert on.usage.forward_passes < on.usage.completion_tokens
    for gen in (on, off):
        if gen.complete:
            _valid(Person, gen.text)


def test_max_tokens_bounds_forced_tokens_too(fake):
    lm, vocab = fake
    grammar = compile_schema(Invoice, vocab, refusal=None)
    for n, mode in [(1, True), (2, True), (5, "canonical"), (9, True), (9, "canonical")]:
        gen = generate(lm, vocab, PROMPT, grammar.matcher(), max_tokens=n, jump_forward=mode)
        assert len(gen.token_ids) <= n
        assert not gen.complete
        grammar.matcher().advance_bytes(gen.data)


def test_a_fully_forced_output_needs_no_pass_after_the_prompt(fake):
    lm, vocab = fake
    grammar = compile_schema({"const": {"kind": "fixed", "n": 1}}, vocab, refusal=None)
    gen = generate(lm, vocab, PROMPT, grammar.matcher(), max_tokens=50)
    assert gen.complete and json.loads(gen.text) == {"kind": "fixed", "n": 1}
    assert gen.usage.forward_passes == 0 and gen.forced_tokens == len(gen.token_ids)
