"""ExtractOptions: one frozen set of options, given whole or as keywords, checked before any model work."""

import dataclasses

import pytest
from pydantic import BaseModel
from tenacity import Retrying, stop_after_attempt

from extractor import ExtractOptions, InputError, Refusal
from extractor.pipeline.calibration import MIN_RELEVANCE
from extractor.pipeline.options import DEFAULT_LAYOUT


class Declined(BaseModel):
    why: str


def test_defaults_are_the_documented_ones():
    opts = ExtractOptions()
    assert (opts.max_tokens, opts.layout, opts.min_relevance, opts.refusal_model) == (
        1024, DEFAULT_LAYOUT, MIN_RELEVANCE, Refusal)


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ExtractOptions().max_tokens = 5  # type: ignore[misc]


def test_keywords_override_a_given_options_object_and_leave_it_unchanged():
    base = ExtractOptions(max_tokens=200, layout="compact")
    merged = ExtractOptions.of(base, {"temperature": 0.5})
    assert (merged.max_tokens, merged.layout, merged.temperature) == (200, "compact", 0.5)
    assert base.temperature == 0.0


@pytest.mark.parametrize("refusal,model", [(True, Refusal), (False, None), (Declined, Declined)])
def test_refusal_model(refusal, model):
    assert ExtractOptions(refusal=refusal).refusal_model is model


@pytest.mark.parametrize("overrides,message", [
    ({"max_token": 5}, "unknown option 'max_token'"),
    ({"temprature": 1, "lyout": "x"}, "unknown options 'lyout', 'temprature'"),
    ({"temperature": -1}, "temperature must be ≥ 0, got -1"),
    ({"temperature": float("nan")}, "temperature must be ≥ 0, got nan"),
    ({"top_p": 0}, "top_p must be in"),
    ({"top_k": -2}, "top_k must be ≥ 0"),
    ({"repetition_penalty": 0}, "repetition_penalty must be > 0"),
    ({"max_tokens": 0}, "max_tokens must be an int ≥ 1"),
    ({"max_retries": -1}, "max_retries must be an int ≥ 0"),
    ({"layout": "tabs"}, "layout must be a Layout or one of"),
    ({"verbatim": "every"}, "verbatim must be 'auto', 'marked' or 'all', got 'every'"),
    ({"grounding": "some"}, "grounding must be 'marked', 'all' or 'off'"),
    ({"fields": "each"}, "fields must be 'together' or 'apart', got 'each'"),
    ({"conflicts": "first"}, "conflicts must be 'model' or 'merge', got 'first'"),
    ({"focus": "yes"}, r"focus must be None \(by the text's length and kind\), True or False, got 'yes'"),
    ({"focus": 1}, r"focus must be None \(by the text's length and kind\), True or False, got 1"),
    ({"fields": "apart", "constrained": False}, "fields='apart' joins answers the grammar shaped"),
    ({"fields": "apart", "messages": [{"role": "user", "content": "x"}]}, "with messages .* use fields='together'"),
], ids=["unknown", "unknowns", "temperature", "nan", "top_p", "top_k", "penalty", "max_tokens", "retries", "layout",
        "verbatim", "grounding", "fields", "conflicts", "focus-string", "focus-int", "fields-unconstrained",
        "fields-messages"])
def test_bad_options_are_input_errors_that_name_them(overrides, message):
    with pytest.raises(InputError, match=message):
        ExtractOptions.of(None, overrides)


def test_a_retrying_policy_is_an_option():
    policy = Retrying(stop=stop_after_attempt(3))
    assert ExtractOptions(max_retries=policy).max_retries is policy
