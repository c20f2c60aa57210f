"""The public surface: extract(Model, text) and a reusable Extractor."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import BaseModel, TypeAdapter, ValidationError
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from extractor.automata import build_automaton
from extractor.decode import (
    LoadedModel, PromptTemplate, SamplingOptions, encode, generate, load_model, messages,
)
from extractor.errors import Attempt, ExtractionError, IncompleteOutputError
from extractor.grammar import CompileOptions, compile_grammar
from extractor.masks import CompiledGrammar, TokenTrie
from extractor.schema import NormalizeOptions, Refusal, json_schema, target_ir
from extractor.tokens import Vocabulary

T = TypeVar("T")


def compile_schema(schema: type[Any] | dict[str, Any], tokenizer: Any, *, refusal: type[BaseModel] | None = None,
                   normalize: NormalizeOptions = NormalizeOptions(),
                   options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """Compile a Pydantic model or JSON Schema for a tokenizer (Vocabulary, tokenizer.json path, or HF tokenizer)."""
    vocab = _vocabulary(tokenizer)
    automaton = build_automaton(compile_grammar(target_ir(schema, refusal, normalize), options))
    return CompiledGrammar(automaton, vocab, _trie(vocab))


class Extractor:
    """A model loaded once and reused; compiled schemas are cached per target."""

    def __init__(self, model: str | Any | None = None, tokenizer: Any = None, *, device: str | None = None,
                 template: PromptTemplate = PromptTemplate()) -> None:
        if model is None or isinstance(model, (str, Path)):
            self.lm = load_model(None if model is None else str(model), device=device, tokenizer=tokenizer)
        else:
            if tokenizer is None:
                raise ValueError("pass the tokenizer along with a model object")
            self.lm = LoadedModel.wrap(model, tokenizer)
            if device is not None:
                model.to(device)
        self.template = template
        self.vocab = Vocabulary.from_hf(self.lm.tokenizer, size=self.lm.logits_width)
        self._grammars: dict[tuple[Any, Any], CompiledGrammar] = {}

    def compile(self, target: type[Any] | dict[str, Any], refusal: type[BaseModel] | None = Refusal) -> CompiledGrammar:
        """The grammar for a target (and refusal model), compiled once per Extractor."""
        key = (json.dumps(json_schema(target), sort_keys=True), refusal)
        if key not in self._grammars:
            self._grammars[key] = compile_schema(target, self.vocab, refusal=refusal)
        return self._grammars[key]

    @overload
    def extract(self, target: type[T], text: str, **kw: Any) -> T | Refusal: ...
    @overload
    def extract(self, target: dict[str, Any], text: str, **kw: Any) -> Any: ...

    def extract(self, target: Any, text: str, *, max_tokens: int = 1024, temperature: float = 0.0,
                top_p: float = 1.0, top_k: int = 0, seed: int | None = None,
                refusal: bool | type[BaseModel] = True, max_retries: int = 1, constrained: bool = True) -> Any:
        """Extract one `target` from `text`; a Refusal when the model declines."""
        refusal_model = (Refusal if refusal is True else refusal) or None
        grammar = self.compile(target, refusal_model) if constrained else None
        sampling = SamplingOptions(temperature=temperature, top_p=top_p, top_k=top_k, seed=seed)
        attempts: list[Attempt] = []
        retrying = Retrying(stop=stop_after_attempt(1 + max_retries), reraise=True,
                            retry=retry_if_exception_type(_Invalid))
        try:
            for attempt in retrying:
                with attempt:
                    history = [(a.text, "\n".join(map(str, a.errors))) for a in attempts]
                    prompt = encode(self.lm.tokenizer, messages(json_schema(target), text, self.template, history))
                    gen = generate(self.lm, self.vocab, prompt, grammar.matcher() if grammar else None,
                                   max_tokens=max_tokens, sampling=sampling)
                    attempts.append(Attempt(gen.text, gen.usage))
                    if not gen.complete:
                        raise IncompleteOutputError(gen.text, max_tokens, gen.usage, data=gen.data,
                                                    attempts=attempts)
                    try:
                        return _parse(target, refusal_model, gen.text)
                    except (ValueError, ValidationError) as exc:
                        attempts[-1].errors = _errors(exc)
                        raise _Invalid() from exc
        except _Invalid:
            raise ExtractionError(attempts) from None
        raise AssertionError("unreachable")  # pragma: no cover


class _Invalid(Exception):
    """An attempt failed parsing or validation: retried, then reported as ExtractionError."""


def _parse(target: Any, refusal: type[BaseModel] | None, text: str) -> Any:
    data = json.loads(text)
    try:
        if isinstance(target, dict):
            return data
        if isinstance(target, type) and issubclass(target, BaseModel):
            return target.model_validate_json(text)
        return TypeAdapter(target).validate_json(text)
    except ValidationError:
        if refusal is not None and isinstance(data, dict) and set(data) == set(refusal.model_fields):
            return refusal.model_validate_json(text)
        raise


def _errors(exc: Exception) -> list[Any]:
    if isinstance(exc, ValidationError):
        return [{"loc": e["loc"], "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
    return [str(exc)]


_DEFAULTS: dict[tuple[str | None, str | None], Extractor] = {}
_LOCK = threading.Lock()


@overload
def extract(target: type[T], text: str, *, model: str | None = None, **kw: Any) -> T | Refusal: ...
@overload
def extract(target: dict[str, Any], text: str, *, model: str | None = None, **kw: Any) -> Any: ...


def extract(target: Any, text: str, *, model: str | None = None, device: str | None = None, **kw: Any) -> Any:
    """Extract `target` from `text` with a model loaded once per process (the embedded one by default)."""
    with _LOCK:
        extractor = _DEFAULTS.get((model, device))
        if extractor is None:
            extractor = _DEFAULTS[(model, device)] = Extractor(model, device=device)
    return extractor.extract(target, text, **kw)


_TRIES: dict[str, TokenTrie] = {}


def _trie(vocab: Vocabulary) -> TokenTrie:
    """One trie per vocabulary per process: building it walks every token."""
    if vocab.fingerprint not in _TRIES:
        _TRIES[vocab.fingerprint] = TokenTrie(vocab)
    return _TRIES[vocab.fingerprint]


def _vocabulary(tokenizer: Any) -> Vocabulary:
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    if isinstance(tokenizer, (str, Path)):
        return Vocabulary.from_tokenizer_file(tokenizer)
    return Vocabulary.from_hf(tokenizer)
