"""The compile profile's replay of the first mask: the rules its walk enters, and only those (what it reports as
never entered is what building rule automata on demand could defer)."""

from __future__ import annotations

import pytest

from benchmarks.compile_profile import _entered
from extractor.automata import build_automaton
from extractor.grammar import compile_grammar
from extractor.masks.trie import TokenTrie
from extractor.schema import NormalizeOptions, target_ir
from extractor.tokens import Vocabulary

NESTED = {"type": "object", "required": ["a"], "properties": {
    "a": {"type": "object", "required": ["b"], "properties": {"b": {"type": "integer"}}}}}
SHORT = [b"</s>", b"{", b'{"', b'"', b"a", b"b", b":", b"1", b"}", b" ", b"\n"]


@pytest.mark.parametrize("tokens,inner", [
    (SHORT, False),  # no token reaches past the first key: the inner object and its integer are never entered
    (SHORT + [b'{"a":{"b":1'], True),  # one token runs into both
], ids=["short-tokens", "a-token-into-the-inner-object"])
def test_the_replayed_walk_lists_the_rules_a_first_token_can_reach(tokens: list[bytes], inner: bool) -> None:
    automaton = build_automaton(compile_grammar(target_ir(NESTED, None, NormalizeOptions(strict_objects=False))))
    entered = _entered(automaton, TokenTrie(Vocabulary(tokens=tuple(tokens), eos_ids=frozenset({0}))))
    assert automaton.names[automaton.root] in entered
    inside = {"object#1", "integer"}  # the inner object's rule and its member's value
    assert inside <= entered if inner else not inside & entered
