"""Context-independent token tables per automaton state, computed once and shared across schemas."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from extractor.automata import Automaton
from extractor.masks.trie import TokenTrie


@dataclass(frozen=True, eq=False)
class Table:
    """Tokens a rule state allows on its own, and tokens that leave the rule part-way (`exits`)."""

    allowed: np.ndarray  # bool, one per token id
    exit_ids: np.ndarray  # token ids whose bytes run past the end of the rule
    exit_offsets: np.ndarray  # bytes of that token consumed inside the rule


class TableCache:
    """A bounded LRU of tables keyed by (vocabulary, rule fingerprint, state)."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self.entries: OrderedDict[tuple[str, str, int], Table] = OrderedDict()

    def get(self, automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
        state = automaton.table_state(rule, state, trie.matrix.shape[1])
        key = (trie.vocab.fingerprint, automaton.fingerprints[rule], state)
        table = self.entries.get(key)
        if table is None:
            build = leaf_table if rule in automaton.leaves else walk_table
            table = self.entries[key] = build(automaton, trie, rule, state)
            if len(self.entries) > self.capacity:
                self.entries.popitem(last=False)
        else:
            self.entries.move_to_end(key)
        return table


TABLES = TableCache()
"""Process-wide: the string-content table is the same for every string in every schema."""


def leaf_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """Vectorized walk of the whole vocabulary through a DFA that calls nothing."""
    dfa = automaton.dfas[rule]
    allowed = np.zeros(trie.vocab.size, dtype=bool)
    rows = np.arange(len(trie.ids))
    states = np.full(len(rows), state, dtype=np.int64)
    exit_ids, exit_offsets = [], []
    for i in range(trie.matrix.shape[1]):
        if not len(rows):
            break
        if i:
            leaving = dfa.accept[states]
            exit_ids.append(trie.ids[rows[leaving]])
            exit_offsets.append(np.full(int(leaving.sum()), i))
        states = dfa.trans[states, trie.matrix[rows, i]]
        alive = states >= 0
        rows, states = rows[alive], states[alive]
        done = trie.lengths[rows] == i + 1
        allowed[trie.ids[rows[done]]] = True
        rows, states = rows[~done], states[~done]
    return _table(allowed, exit_ids, exit_offsets)


def walk_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """Pruned trie walk with a local stack; popping the bottom frame mid-token is an exit."""
    allowed = np.zeros(trie.vocab.size, dtype=bool)
    exit_ids, exit_offsets = [], []
    accept = [d.accept for d in automaton.dfas]
    work = [(0, automaton.close([((rule, state),)]), 0)]
    while work:
        node, stacks, depth = work.pop()
        if depth:
            allowed[trie.ends[node]] = True
            if any(len(st) == 1 and accept[st[0][0]][st[0][1]] for st in stacks):
                ids = trie.longer_than(node, depth)
                exit_ids.append(ids)
                exit_offsets.append(np.full(len(ids), depth))
        for byte, child in trie.children[node].items():
            nxt = automaton.step(stacks, byte)
            if nxt:
                work.append((child, nxt, depth + 1))
    return _table(allowed, exit_ids, exit_offsets)


def _table(allowed: np.ndarray, exit_ids: list[np.ndarray], exit_offsets: list[np.ndarray]) -> Table:
    ids = np.concatenate(exit_ids) if exit_ids else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(exit_offsets) if exit_offsets else np.zeros(0, dtype=np.int64)
    return Table(allowed=allowed, exit_ids=ids, exit_offsets=offsets)
