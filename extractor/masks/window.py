"""States of a call-free rule that share one token table: a table reads a state's language only as far as a token
reaches into it, so states whose words agree up to that depth (a fixed-length pattern far from its end, say
`[a-z0-9]{160}`) are given the table of the least of them, built once."""

from __future__ import annotations

from weakref import WeakKeyDictionary

import numpy as np

from extractor.automata import RuleDFA
from extractor.masks.trie import TokenTrie

MIN_STATES, MAX_STATES = 32, 512
"""Rules with fewer or more states keep a table per state: few tables leave little to share, and the classes cost a
pass over the states' rows per byte of depth."""

_SAME: WeakKeyDictionary[RuleDFA, dict[str, list[int]]] = WeakKeyDictionary()
"""Per rule and vocabulary (its fingerprint), the state whose table each state shares."""


def window_classes(trans: np.ndarray, accept: np.ndarray, depth: int) -> np.ndarray:
    """Per state, the least state that accepts the same words of fewer than `depth` bytes and has the same live
    words of up to `depth` bytes (bounded Moore refinement, `depth` rounds or until the classes stop splitting).
    Each round groups the states' rows (acceptance, then the class after each byte) by a hash, checked exactly:
    rows that share a hash but differ are grouped again by a sort of the rows themselves."""
    n = len(accept)
    trans = np.unique(trans, axis=1)  # bytes every state treats alike read as one
    width = trans.shape[1] + 1
    live, safe = trans >= 0, np.maximum(trans, 0)
    classes, count = np.zeros(n, dtype=np.int64), 1
    for _ in range(depth):
        rows = np.empty((n, width), dtype=np.int64)
        rows[:, 0] = accept
        np.copyto(rows[:, 1:], np.where(live, classes[safe], -1))
        keys = (rows.view(np.uint64) * _WEIGHTS[:width]).sum(axis=1)  # (wrapping: a hash)
        _, first, split = np.unique(keys, return_index=True, return_inverse=True)
        split = split.ravel()
        if not np.array_equal(rows, rows[first[split]]):  # two rows of one hash differ
            _, split = np.unique(rows.view(np.dtype((np.void, 8 * width))).ravel(), return_inverse=True)
            split = split.ravel()
        if int(split.max(initial=0)) + 1 == count:
            break
        classes, count = split.astype(np.int64), int(split.max(initial=0)) + 1
        if count == n:  # every state apart: nothing left to split
            break
    least = np.full(count, n, dtype=np.int64)
    np.minimum.at(least, classes, np.arange(n))
    return least[classes]


_WEIGHTS = np.random.default_rng(0).integers(1, 1 << 63, size=257, dtype=np.uint64) | np.uint64(1)


def same_table(dfa: RuleDFA, trie: TokenTrie, state: int) -> int:
    """The state whose token table `state` shares: as `share` found, or (the compile's prepare having run out of
    time before this rule) found here once steps have asked for the tables of more than ASK_BEFORE_SHARE of its
    states, else `state` itself (a state's own table is the same table)."""
    known = _SAME.get(dfa)
    least = None if known is None else known.get(trie.vocab.fingerprint)
    if least is not None:
        return least[state]
    if not MIN_STATES <= dfa.size <= MAX_STATES:
        return state
    asked = _ASKED.setdefault(dfa, set())
    asked.add(state)
    if len(asked) <= ASK_BEFORE_SHARE:
        return state
    _ASKED.pop(dfa, None)
    return share(dfa, trie)[state]


ASK_BEFORE_SHARE = 32
"""States of a rule whose tables steps build on their own before a step finds the rule's classes: the classes cost
as much as several tables (8 ms for `[a-zA-Z0-9_-]{162}`'s 191 states), which only a rule whose steps visit many
states repays. Cold passes with no prepare, steps' CPU time against finding no classes at steps: that rule's
3 strings 0.78x (136 tables built, not 186); 300 MaskBench schemas 0.96x (at 16: 0.68x and 1.02x; at 0, every
rule a step visits: 1.05x, its classes costing 190 ms to save 93 tables)."""
_ASKED: WeakKeyDictionary[RuleDFA, set[int]] = WeakKeyDictionary()
"""Per rule whose classes are not known yet, the states whose tables steps have asked for."""


def share(dfa: RuleDFA, trie: TokenTrie) -> list[int]:
    """Find which states of the rule share a table (a compile thread, before it builds them): words are compared as
    deep as a token stays within the bytes the rule reads, plus one (a token's next byte then kills every state
    alike); per state, the state whose table it shares."""
    known = _SAME.setdefault(dfa, {})
    least = known.get(trie.vocab.fingerprint)
    if least is None:
        least = list(range(dfa.size))
        if MIN_STATES <= dfa.size <= MAX_STATES:
            trans = np.asarray(dfa.trans)
            least = window_classes(trans, np.asarray(dfa.accept), trie.reach((trans >= 0).any(axis=0)) + 1).tolist()
        known[trie.vocab.fingerprint] = least
    return least
