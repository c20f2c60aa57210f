"""The `vllm.general_plugins` entry point: where `EXTRACTOR_VLLM=1`, vLLM's structured requests are validated,
compiled and masked by extractor (the front end's checks, the manager's backend and its batch mask step)."""

from __future__ import annotations

import os
import sys
from typing import Any

from extractor.errors import ExtractorError
from extractor.integrations.vllm import fill
from extractor.integrations.vllm.backend import ENV, NAME, ExtractorBackend, ExtractorGrammar
from extractor.integrations.vllm.spec import Spec


def _validate(params: Any, model_config: Any, config: Any, tokenizer: Any) -> None:
    """Check a structured request in the front end (an HTTP 400 there, not a failure in the engine) and mark it
    for this backend."""
    from vllm.exceptions import VLLMValidationError

    so = params.structured_outputs
    if so is None:
        return
    spec: Any = so.json
    if so.json is not None:
        kind = "JSON"
    elif so.json_object:
        kind = "JSON_OBJECT"
    elif so.choice is not None:
        kind, spec = "CHOICE", so.choice
    elif so.regex is not None:
        kind, spec = "REGEX", so.regex
    elif so.grammar is not None:
        kind, spec = "GRAMMAR", so.grammar
    elif getattr(so, "structural_tag", None) is not None:  # named as vLLM names its request types
        kind, spec = "STRUCTURAL_TAG", so.structural_tag
    else:
        kind = "UNKNOWN"
    try:
        Spec.parse(kind, spec).check()
    except (ExtractorError, ValueError) as exc:
        raise VLLMValidationError(f"extractor: {exc}") from None
    so._backend = NAME


def register() -> None:
    """Where `EXTRACTOR_VLLM=1`, route structured requests to this
    backend (front end: validation, and on the OpenAI server the refusal decision; engine: the manager's backend
    and its mask step).
    Safe to call more than once."""
    if os.environ.get(ENV, "").strip().lower() not in ("1", "true", "yes", "on"):
        return
    from vllm.sampling_params import SamplingParams
    from vllm.v1.structured_output import StructuredOutputManager

    if {"vllm.entrypoints.openai.api_server", "vllm.entrypoints.launchers.api_server.entry"} & set(sys.modules):
        from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat

        from extractor.integrations.vllm.server import patch

        patch(OpenAIServingChat)  # the OpenAI server's front end: the refusal decision, as `extract` makes it
    if getattr(StructuredOutputManager.grammar_init, "_extractor", False):
        return
    validate, init = SamplingParams._validate_structured_outputs, StructuredOutputManager.grammar_init
    create = StructuredOutputManager._create_grammar

    def _validate_structured_outputs(self: Any, model_config: Any, config: Any, tokenizer: Any) -> None:
        if config is None or self.structured_outputs is None or tokenizer is None:
            return validate(self, model_config, config, tokenizer)
        return _validate(self, model_config, config, tokenizer)

    def grammar_init(self: Any, request: Any) -> None:
        so = request.sampling_params.structured_outputs if request.sampling_params else None
        if self.backend is None and so is not None and so._backend == NAME:
            self.backend = ExtractorBackend(self.vllm_config, tokenizer=self.tokenizer,
                                            vocab_size=self.vllm_config.model_config.get_vocab_size())
        return init(self, request)

    def _create_grammar(self: Any, request: Any) -> Any:
        grammar = create(self, request)
        if isinstance(grammar, ExtractorGrammar):  # compiled in this thread: the budget is set before it is used
            grammar.budget = request.max_tokens
        return grammar

    grammar_init._extractor = True  # type: ignore[attr-defined]
    SamplingParams._validate_structured_outputs = _validate_structured_outputs  # type: ignore[method-assign]
    StructuredOutputManager.grammar_init = grammar_init  # type: ignore[method-assign]
    StructuredOutputManager._create_grammar = _create_grammar  # type: ignore[method-assign]
    fill.patch(StructuredOutputManager)  # a batch of our requests' masks in one crossing
