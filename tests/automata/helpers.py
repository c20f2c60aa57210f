"""Shared by the automaton tests: a schema's automaton (cached) and whether it accepts a text."""

from __future__ import annotations

import json
from typing import Any

from extractor.automata import Automaton, build_automaton
from extractor.automata import accepts as language_accepts
from extractor.grammar import compile_grammar
from extractor.schema import target_ir

_CACHE: dict[str, Automaton] = {}


def automaton(schema: dict[str, Any] | type) -> Automaton:
    """The automaton of a schema dict (cached by its JSON text, key order kept) or a Pydantic model."""
    if not isinstance(schema, dict):
        return build_automaton(compile_grammar(target_ir(schema, refusal=None)))
    key = json.dumps(schema)  # no sort_keys: property order is part of the language
    if key not in _CACHE:
        _CACHE[key] = build_automaton(compile_grammar(target_ir(schema, refusal=None)))
    return _CACHE[key]


def runs(auto: Automaton, text: str | bytes) -> bool:
    """True when every byte keeps some configuration alive, no distinct string repeats, and the end accepts."""
    return language_accepts(auto, text.encode() if isinstance(text, str) else text)


def accepts(schema: dict[str, Any] | type, text: str | bytes) -> bool:
    return runs(automaton(schema), text)
