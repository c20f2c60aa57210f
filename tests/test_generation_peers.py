"""The quality benchmark's peer generators (benchmarks/generation_peers.py) on a tiny model with fixed preferences."""

from __future__ import annotations

import json

import pytest
import torch
import transformers

from benchmarks.generation_peers import PEERS, peer_generate

SCHEMA = {"type": "object", "additionalProperties": False, "required": ["ok", "n"],
          "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "minimum": 1, "maximum": 3}}}
WIDTH = 320  # logits rows past the 257 tokens, as on models with a padded output layer


@pytest.fixture(scope="module")
def tokenizer() -> transformers.PreTrainedTokenizerFast:
    """A byte-level tokenizer: the 256 bytes and an EOS, no merges."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator([], trainers.BpeTrainer(
        vocab_size=257, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), special_tokens=["<eos>"]))
    return transformers.PreTrainedTokenizerFast(tokenizer_object=backend, eos_token="<eos>")


@pytest.fixture(scope="module")
def model(tokenizer: transformers.PreTrainedTokenizerFast) -> torch.nn.Module:
    """A tiny Llama whose logits ignore the input: padded rows top (a peer must mask them), then EOS, then
    ties broken by the lowest id, whitespace last, so greedy decoding ends as soon as the grammar lets it."""
    eos = tokenizer.eos_token_id
    config = transformers.LlamaConfig(vocab_size=WIDTH, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=eos, pad_token_id=eos)
    llama = transformers.LlamaForCausalLM(config).eval()
    head = torch.nn.Linear(16, WIDTH, bias=True)
    torch.nn.init.zeros_(head.weight)
    with torch.no_grad():
        head.bias.zero_()
        head.bias[len(tokenizer):] = 10.0
        head.bias[eos] = 1.0
        for token in range(len(tokenizer)):
            if tokenizer.decode([token]).isspace():
                head.bias[token] = -1.0
    llama.lm_head = head
    return llama


def _require_peer(name: str) -> None:
    module = {"llguidance": "llguidance", "xgrammar": "xgrammar"}[name]
    pytest.importorskip(module, reason=f"{module} is not installed (the `bench` extra of pyproject.toml)")


@pytest.mark.parametrize("name", sorted(PEERS))
def test_a_peer_completes_with_json_valid_for_the_schema(name, model, tokenizer):
    _require_peer(name)
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (the `test` extra)")
    out = peer_generate(name, model, tokenizer, tokenizer("{}")["input_ids"], SCHEMA, 40)
    jsonschema.validate(json.loads(out.text), SCHEMA)
    assert out.complete and out.token_ids[-1] == tokenizer.eos_token_id
    assert max(out.token_ids) < len(tokenizer), "a padded logits row escaped the mask"
    assert out.seconds > 0 and out.compile_seconds >= 0


@pytest.mark.parametrize("name", sorted(PEERS))
def test_a_peer_cut_by_the_token_budget_is_not_complete(name, model, tokenizer):
    _require_peer(name)
    out = peer_generate(name, model, tokenizer, tokenizer("{}")["input_ids"], SCHEMA, 3)
    assert len(out.token_ids) == 3 and not out.complete


def test_an_unknown_peer_is_refused(model, tokenizer):
    with pytest.raises(ValueError, match="unknown peer"):
        peer_generate("outlines", model, tokenizer, [1], SCHEMA, 1)
