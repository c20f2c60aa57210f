"""The output layer apart from the model, and attention without repeated key/value heads: same numbers.

A tiny random Llama (GPT-2's vocabulary, grouped-query attention) stands in for a real model: the
sparse logits of allowed tokens, the probe that refuses models with anything after their output layer,
and whole greedy decodes with and without the split must agree.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from extractor import compile_schema
from extractor.decode import DecodeOptions, LoadedModel, generate, generate_many
from extractor.decode.attention import NAME, use_gqa_sdpa
from extractor.decode.head import Head, PassLogits
from schemas import ContactCard, Event
from tests.decode.fakes import hf_tokenizer

transformers = pytest.importorskip("transformers")


def tiny_llama(cls: type | None = None, *, vocab_size: int = 50257, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64,
                                      num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                      initializer_range=0.5, attn_implementation="sdpa")
    return (cls or transformers.LlamaForCausalLM)(config).eval()


class ScaledLlama(transformers.LlamaForCausalLM):
    """A model with something between its output layer and its logits (as Gemma's soft-capping)."""

    def forward(self, *args, **kwargs):
        out = super().forward(*args, **kwargs)
        out.logits = out.logits * 0.5
        return out


@pytest.fixture(scope="module")
def gpt2():
    return hf_tokenizer("gpt2")


def test_the_probe_takes_a_plain_output_layer_and_refuses_anything_after_it():
    assert isinstance(Head.probe(tiny_llama(), "cache"), Head)
    assert Head.probe(tiny_llama(ScaledLlama), "cache") is None
    assert Head.probe(tiny_llama(), "no_such_output") is None


@pytest.mark.parametrize("share", [0.001, 0.03, 0.5, 1.0])
def test_masked_logits_are_the_full_logits_of_the_allowed_tokens(share):
    model = tiny_llama()
    head = Head.probe(model, "cache")
    with torch.inference_mode():
        ids = torch.tensor([[5, 17, 300, 4000, 2]])
        hidden = model.base_model(input_ids=ids).last_hidden_state[0]
        full = model(input_ids=ids).logits[0]
    rng = np.random.default_rng(int(share * 1000))
    for j in range(hidden.shape[0]):
        allowed = rng.random(full.shape[1]) < share
        allowed[rng.integers(full.shape[1])] = True
        got = PassLogits(hidden, head).at(j, torch.from_numpy(allowed))
        want = full[j].masked_fill(~torch.from_numpy(allowed), float("-inf"))
        assert torch.equal(torch.isinf(got), torch.isinf(want))
        assert torch.allclose(got[allowed], want[allowed], rtol=1e-5, atol=1e-5)
        assert PassLogits(hidden, head).at(j, None).shape == full[j].shape


def test_attention_with_grouped_heads_matches_transformers_sdpa(monkeypatch):
    model = tiny_llama()
    ids, more = torch.tensor([[5, 17, 300, 4000, 2, 9]]), torch.tensor([[11, 12, 13]])

    def extend():
        with torch.inference_mode():
            cache = model(input_ids=ids, use_cache=True).cache
            return model(input_ids=more, cache=cache, use_cache=True).logits

    before = extend()
    assert use_gqa_sdpa(model) and model.config._attn_implementation == NAME

    def no_copies(*args, **kwargs):
        raise AssertionError("the key/value heads were repeated")

    monkeypatch.setattr("transformers.integrations.sdpa_attention.repeat_kv", no_copies)
    assert torch.allclose(extend(), before, rtol=1e-5, atol=1e-5)
    assert not use_gqa_sdpa(model)  # already switched: only "sdpa" is replaced


@pytest.mark.parametrize("target", [ContactCard, Event])
def test_greedy_decodes_agree_with_and_without_the_split_head(gpt2, target):
    lm = LoadedModel.wrap(tiny_llama(seed=3), gpt2, "tiny")
    assert lm.head is not None
    grammar = compile_schema(target, gpt2, refusal=None)
    runs = [generate(model, grammar.vocab, [10, 20, 30], grammar.matcher(), max_tokens=60,
                     source="Ann Lee, ann@example.com, 2024-03-15 in Paris")
            for model in (lm, replace(lm, head=None, splits={}))]
    assert runs[0].token_ids == runs[1].token_ids
    assert runs[0].usage.forward_passes == runs[1].usage.forward_passes


def test_a_padded_batch_with_the_split_head_decodes_each_row_as_alone(gpt2):
    lm = LoadedModel.wrap(tiny_llama(seed=5), gpt2, "tiny")
    use_gqa_sdpa(lm.model)
    grammar = compile_schema(ContactCard, gpt2, refusal=None)
    prompts = [[10, 20, 30], [7, 8, 9, 10, 11, 12, 13], [40]]
    options = DecodeOptions(max_tokens=30, source_drafts=0)
    batch = generate_many(lm, grammar.vocab, prompts, [grammar.matcher() for _ in prompts], options)
    alone = [generate(replace(lm, head=None, splits={}), grammar.vocab, p, grammar.matcher(), max_tokens=30)
             for p in prompts]
    assert [g.token_ids for g in batch] == [g.token_ids for g in alone]
