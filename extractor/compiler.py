"""Compiling a target for a tokenizer, with no model: schema → rules → byte automaton → token masks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, Grammar, compile_grammar
from extractor.lang.budget import Budget, metered
from extractor.lang.collector import collector_paused
from extractor.lang.regex import alt, lit
from extractor.masks import CompiledGrammar, TokenTrie
from extractor.schema import NormalizeOptions, target_ir
from extractor.tokens import Vocabulary


@collector_paused  # one pause over the three stages
def compile_schema(schema: type[Any] | dict[str, Any], tokenizer: Any, *, refusal: type[BaseModel] | None = None,
                   normalize: NormalizeOptions = NormalizeOptions(),
                   options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """Compile a Pydantic model or JSON Schema for a tokenizer (Vocabulary, tokenizer.json path, or HF tokenizer)."""
    vocab = _vocabulary(tokenizer)
    with metered(Budget(options.max_states, options.timeout)):  # one clock for the three stages
        automaton = build_automaton(compile_grammar(target_ir(schema, refusal, normalize), options))
    return CompiledGrammar(automaton, vocab, _trie(vocab))


def compile_choices(choices: Sequence[str], tokenizer: Any) -> CompiledGrammar:
    """A grammar whose only outputs are the given strings, written as they are (a serving engine's `choice`)."""
    if isinstance(choices, str) or not choices or not all(isinstance(c, str) for c in choices):
        raise ValueError(f"choices are a non-empty list of strings, not {choices!r}")
    vocab = _vocabulary(tokenizer)
    return CompiledGrammar(build_automaton(Grammar(rules={"root": alt(*map(lit, choices))})), vocab, _trie(vocab))


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
