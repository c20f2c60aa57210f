"""States of a call-free rule that share a token table: each state's table, walked on its own, equals the table of
the state it is given, and long fixed-length patterns share most of theirs."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.automata.counted import CountedDFA
from extractor.grammar import CompileOptions
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
        shared += dfa.size - len({id(cache.get(aut, trie, rule, s)) for s in range(dfa.size)})
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
