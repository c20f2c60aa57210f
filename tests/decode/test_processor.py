"""transformers interop: `model.generate(..., logits_processor=[ExtractorLogitsProcessor(grammar)])`."""

from __future__ import annotations

import json

import pytest
import torch
from pydantic import BaseModel
from transformers import LogitsProcessorList

from extractor import ExtractorLogitsProcessor, compile_schema
from extractor.decode import PromptTemplate, encode, messages


class Contact(BaseModel):
    name: str
    city: str


TEXT = "Ann Lee moved to Oslo last year."


@pytest.mark.model
def test_model_generate_with_the_processor_gives_valid_json(model_extractor):
    lm = model_extractor.lm
    grammar = compile_schema(Contact, lm.tokenizer, refusal=None)
    prompt = encode(lm.tokenizer, messages(Contact.model_json_schema(), TEXT, PromptTemplate()))
    ids = torch.tensor([prompt], device=lm.device)
    proc = ExtractorLogitsProcessor(grammar, prompt_length=ids.shape[1])
    out = lm.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False, max_new_tokens=40,
                            logits_processor=LogitsProcessorList([proc]),
                            eos_token_id=lm.tokenizer.eos_token_id, pad_token_id=lm.tokenizer.eos_token_id)
    new = out[0, ids.shape[1]:].tolist()
    assert new[-1] == lm.tokenizer.eos_token_id, "the grammar completed and only EOS was allowed"
    text = lm.tokenizer.decode(new, skip_special_tokens=True)
    contact = Contact.model_validate_json(text)
    assert json.loads(text) == contact.model_dump()
    assert proc.matchers[0].accepting()  # generate() stops on EOS without calling the processor again


def test_processor_refuses_a_batch_it_was_not_built_for():
    from tests.decode.fakes import hf_tokenizer

    tok = hf_tokenizer("gpt2")
    grammar = compile_schema(Contact, tok, refusal=None)
    proc = ExtractorLogitsProcessor(grammar)
    scores = torch.zeros((2, grammar.vocab.size))
    masked = proc(torch.tensor([[1, 2], [3, 4]]), scores)
    assert torch.isfinite(masked).sum(dim=1).tolist() == [int(grammar.matcher().mask().sum())] * 2
    with pytest.raises(ValueError, match="beam search"):
        proc(torch.tensor([[1, 2, 3]] * 3), torch.zeros((3, grammar.vocab.size)))
    proc.reset()
    first = tok.encode('{"', add_special_tokens=False)
    out = proc(torch.tensor([[1, 2, *first]]), torch.zeros((1, grammar.vocab.size + 7)))  # wider logits
    assert out.shape[1] == grammar.vocab.size + 7 and torch.isinf(out[0, -7:]).all()
