"""States of a call-free rule that share a token table: each state's table, walked on its own, equals the table of
the state it is given, and long fixed-length patterns share most of theirs, whether the compile or a step finds
which."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.automata.counted import CountedDFA
from extractor.grammar import CompileOptions
from extractor.masks import window
from extractor.masks.matcher import CompiledGrammar
from extractor.masks.tables import TableCache, leaf_table
from extractor.masks.window import share, window_classes
from tests.masks.test_masks import small_vocab

SCHEMAS = [  # (schema, whether some rule's states must share tables)
    ({"type": "string", "pattern": "^[a-z0-9]{40}$"}, True),
    ({"type": "string", "pattern": "[a-z]{130}"}, True),  # unanchored: any byte around, as deep as any token
    ({"type": "string", "pattern": "^20\\d{2}-\\w{3}-[0-3]\\d$"}, False),
    ({"enum": ["alpha", "alphabet", "beta", "be"]}, False),
    ({"type": "string", "format": "date-time"}, False),
]


@pytest.mark.parametrize(("schema", "shares"), SCHEMAS, ids=range(len(SCHEMAS)))
@pytest.mark.parametrize("tokenizer", ["gpt2", "llama3"])
def test_every_state_walked_alone_has_the_table_it_is_given(schema: dict, shares: bool, tokenizer: str) -> None:
    grammar = compile_schema(schema, small_vocab(tokenizer), options=CompileOptions(layout="compact"))
    aut, trie, cache, shared = grammar.automaton, grammar.trie, TableCache(directory=None), 0
    for rule in sorted(aut.leaves):
        dfa = aut.dfas[rule]
        if isinstance(dfa, CountedDFA):
            continue
        share(dfa, trie)  # (a compile's prepare does this; a step never waits for it)
        for state in range(dfa.size):
            walked, given = leaf_table(dfa, trie, state), cache.get(aut, trie, rule, state)
            assert np.array_equal(walked.packed, given.packed), (aut.names[rule], state)
            assert np.array_equal(walked.exit_nodes, given.exit_nodes), (aut.names[rule], state)
        shared += dfa.size - len({id(cache.get(aut, trie, rule, s).packed) for s in range(dfa.size)})
    assert bool(shared) == shares


@pytest.mark.parametrize(("depth", "expected"), [
    (1, [0, 0, 0, 3]),  # one byte deep: states 0-2 read `a` and do not accept; 3 accepts
    (2, [0, 0, 2, 3]),  # two bytes: state 2 reads `a` into an accepting state
    (3, [0, 1, 2, 3]),  # three: all apart
    (9, [0, 1, 2, 3]),
])
def test_states_are_apart_exactly_as_deep_as_their_words_differ(depth: int, expected: list[int]) -> None:
    trans = np.full((4, 256), -1, dtype=np.int32)
    trans[0, ord("a")], trans[1, ord("a")], trans[2, ord("a")] = 1, 2, 3  # a{3}
    accept = np.array([False, False, False, True])
    assert window_classes(trans, accept, depth).tolist() == expected


class Counting(TableCache):
    """A table cache that counts the tables it builds."""

    def __init__(self) -> None:
        super().__init__(directory=None)
        self.built = 0

    def build(self, automaton, trie, rule, state):  # type: ignore[no-untyped-def]
        self.built += 1
        return super().build(automaton, trie, rule, state)


SHARING = {  # where the states of each call-free rule learn which table they share
    "step": lambda dfa, trie: (window._SAME.pop(dfa, None), window._ASKED.pop(dfa, None)),  # a step finds it
    "compile": share,  # the compile's prepare found it
    "none": lambda dfa, trie: window._SAME.__setitem__(dfa, {trie.vocab.fingerprint: list(range(dfa.size))}),
}


@pytest.mark.parametrize(("schema", "text"), [
    ({"type": "string", "pattern": "^[a-zA-Z0-9_-]{60}$"}, '"' + "aZ_-09" * 10 + '"'),
    ({"type": "string", "pattern": "[a-z]{130}"}, '"' + "q" * 130 + '"'),
    ({"type": "object", "properties": {"k": {"type": "string", "pattern": "^[0-9a-f]{48}$"}}, "required": ["k"]},
     '{"k":"' + "0123abcd" * 6 + '"}'),
], ids=range(3))
def test_masks_are_the_same_wherever_sharing_is_found_and_steps_visiting_many_states_find_it(schema: dict,
                                                                                           text: str) -> None:
    vocab = small_vocab("llama3")
    masks, built = {}, {}
    for where, prepare in SHARING.items():
        grammar = compile_schema(schema, vocab, options=CompileOptions(layout="compact"))
        cache = Counting()
        grammar = CompiledGrammar(grammar.automaton, vocab, grammar.trie, tables=cache)
        leaves = [d for r, d in enumerate(grammar.automaton.dfas) if r in grammar.automaton.leaves]
        for dfa in leaves:
            prepare(dfa, grammar.trie)
        matcher, seen = grammar.matcher(), []
        for byte in text.encode():  # a mask before each byte: every state the text passes through
            seen.append(matcher.mask().copy())
            matcher.advance_bytes(bytes([byte]))
        masks[where], built[where] = seen, cache.built
    assert all(np.array_equal(a, b) for a, b in zip(masks["step"], masks["compile"], strict=True))
    assert all(np.array_equal(a, b) for a, b in zip(masks["step"], masks["none"], strict=True))
    assert built["compile"] <= built["step"] < built["none"], built
