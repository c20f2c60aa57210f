"""Compiling a target for a tokenizer, with no model: schema → rules → byte automaton → token masks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, Grammar, compile_grammar
from extractor.grammar.ebnf import parse_ebnf
from extractor.grammar.tags import read_structural_tag
from extractor.lang.budget import Budget, metered
from extractor.lang.collector import collector_paused
from extractor.lang.pattern import compile_whole
from extractor.lang.regex import Node, alt, lit
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


def check_choices(choices: Any) -> None:
    """ValueError unless `choices` is a non-empty list of strings UTF-8 can write."""
    if isinstance(choices, str) or not choices or not all(isinstance(c, str) for c in choices):
        raise ValueError(f"choices are a non-empty list of strings, not {choices!r}")
    for choice in choices:
        try:
            choice.encode()
        except UnicodeEncodeError:
            raise ValueError(f"choice {choice!r} holds a lone surrogate: UTF-8 cannot write it") from None


def compile_choices(choices: Sequence[str], tokenizer: Any,
                    options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """A grammar whose only outputs are the given strings, written as they are (a serving engine's `choice`)."""
    check_choices(choices)
    return _text_grammar(alt(*map(lit, choices)), tokenizer, options)


def compile_regex(pattern: str, tokenizer: Any, options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """A grammar whose outputs are the texts `pattern` (ECMA-262, the subset JSON Schema patterns take here)
    matches whole (a serving engine's `regex`); `PatternError` names what is refused."""
    return _text_grammar(compile_whole(pattern), tokenizer, options)


def compile_ebnf(text: str, tokenizer: Any, options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """A grammar written in GBNF (llama.cpp's and XGrammar's EBNF; a serving engine's `grammar`);
    `GrammarSyntaxError` says what cannot be read and where."""
    return _built(parse_ebnf(text), tokenizer, options)


@collector_paused
def compile_structural_tag(tag: str | dict[str, Any], tokenizer: Any,
                           options: CompileOptions = CompileOptions()) -> CompiledGrammar:
    """A grammar of free text with tagged parts, written as XGrammar's structural tags (a serving engine's
    `structural_tag`, its tool calls); JSON contents in `options.layout`. `StructuralTagError` names a form refused
    and where it is."""
    vocab = _vocabulary(tokenizer)
    with metered(Budget(options.max_states, options.timeout)):  # the JSON contents' rules and the automaton
        automaton = build_automaton(read_structural_tag(tag, options))
    return CompiledGrammar(automaton, vocab, _trie(vocab))


def _text_grammar(body: Node, tokenizer: Any, options: CompileOptions) -> CompiledGrammar:
    return _built(Grammar(rules={"root": body}), tokenizer, options)


@collector_paused
def _built(grammar: Grammar, tokenizer: Any, options: CompileOptions) -> CompiledGrammar:
    vocab = _vocabulary(tokenizer)
    with metered(Budget(options.max_states, options.timeout)):
        automaton = build_automaton(grammar)
    return CompiledGrammar(automaton, vocab, _trie(vocab))


_TRIES: dict[str, TokenTrie] = {}


def _trie(vocab: Vocabulary) -> TokenTrie:
    """One trie per vocabulary per process: building it walks every token."""
    if vocab.fingerprint not in _TRIES:
        _TRIES[vocab.fingerprint] = TokenTrie(vocab)
    return _TRIES[vocab.fingerprint]


def warm_trie(vocab: Vocabulary) -> None:
    """Build the vocabulary's trie and its byte columns now (a server's start) rather than in the first compile,
    which would pay them: seconds for a 49k-token vocabulary."""
    _trie(vocab).columns  # noqa: B018 - (a cached property: read to be made)


def _vocabulary(tokenizer: Any) -> Vocabulary:
    if isinstance(tokenizer, Vocabulary):
        return tokenizer
    if isinstance(tokenizer, (str, Path)):
        return Vocabulary.from_tokenizer_file(tokenizer)
    return Vocabulary.from_hf(tokenizer)
