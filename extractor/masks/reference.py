"""The reference language: a JSON string in canonical spelling, whose tables a process computes
once. A call-free rule that agrees with it below some prefix (an undeclared key is any canonical
string but the declared names) takes those subtrees from the reference's table instead of walking
them, and a state whose whole language is the reference's takes the reference's table outright.
llguidance's slices, decided exactly per pair of states rather than fixed in advance."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache

import numpy as np

from extractor.automata import RuleDFA, build_dfa
from extractor.lang import json_terms as jt
from extractor.masks.trie import _kernel


@dataclass(frozen=True, eq=False)
class Pairing:
    """A rule's DFA beside the reference DFA: `partner[s]` is a reference state some string leads
    to while leading the rule to s (-1: none, or no subtree worth sharing below), and `same[s, r]`
    says the two accept the same strings from there (computed for the pairs some string reaches;
    False elsewhere)."""

    partner: np.ndarray  # int32 per state of the rule
    same: np.ndarray  # uint8 (rule states x reference states)

    def equal(self, state: int) -> bool:
        """True when the state's language is its partner's."""
        r = int(self.partner[state])
        return r >= 0 and bool(self.same[state, r])


@cache
def reference() -> tuple[RuleDFA, str]:
    """A JSON string in the canonical spelling that undeclared keys are written in, and its content hash."""
    dfa = build_dfa(jt.CANONICAL_STRING)
    return dfa, "reference-" + hashlib.sha256(dfa.trans.tobytes() + dfa.accept.tobytes()).hexdigest()[:32]


_PAIRINGS: OrderedDict[str, Pairing | None] = OrderedDict()
PAIRING_CACHE_SIZE = 1024


def pairing(fingerprint: str, dfa: RuleDFA) -> Pairing | None:
    """The rule's pairing with the reference, None where they share no state; cached per rule."""
    if fingerprint in _PAIRINGS:
        _PAIRINGS.move_to_end(fingerprint)
        return _PAIRINGS[fingerprint]
    found = pair(dfa, reference()[0])
    _PAIRINGS[fingerprint] = found if (found.partner >= 0).any() else None
    if len(_PAIRINGS) > PAIRING_CACHE_SIZE:
        _PAIRINGS.popitem(last=False)
    return _PAIRINGS[fingerprint]


def pair(a: RuleDFA, b: RuleDFA) -> Pairing:
    """The pairs of states one string leads the two DFAs to (breadth first from both starts), and
    which of them accept the same strings from there on: those from which no reachable pair
    differs in accepting or in which bytes it can take (both DFAs are trimmed: -1 is dead). In C where the
    kernel is built (`pair_states`: a rule's first table waited on this, half a millisecond at the median in NumPy),
    else `numpy_pair`; the two give the same arrays."""
    if _kernel is None or a.size * b.size >= 2**31:
        return numpy_pair(a, b)
    columns = shared_columns(a, b).astype(np.int32)
    partner, same = _kernel.pair_states(np.ascontiguousarray(a.trans, dtype=np.int32),
                                        np.ascontiguousarray(a.accept, dtype=np.uint8),
                                        np.ascontiguousarray(b.trans, dtype=np.int32),
                                        np.ascontiguousarray(b.accept, dtype=np.uint8), columns)
    return Pairing(partner=np.frombuffer(partner, dtype=np.int32),
                   same=np.frombuffer(same, dtype=np.uint8).reshape(a.size, b.size))


def numpy_pair(a: RuleDFA, b: RuleDFA) -> Pairing:
    """`pair` in NumPy, a level of pairs at a time."""
    columns = shared_columns(a, b)
    ta, tb = a.trans[:, columns].astype(np.int64), b.trans[:, columns].astype(np.int64)
    nb = b.size
    index = np.full(a.size * nb, -1, dtype=np.int64)
    index[0] = 0
    found, frontier = [np.zeros(1, dtype=np.int64)], np.zeros(1, dtype=np.int64)
    count = 1
    while len(frontier):
        x, y = ta[frontier // nb], tb[frontier % nb]
        codes = np.unique((x * nb + y)[(x >= 0) & (y >= 0)])
        frontier = codes[index[codes] < 0]
        index[frontier] = np.arange(count, count + len(frontier))
        count += len(frontier)
        found.append(frontier)
    codes = np.concatenate(found)
    s, r = codes // nb, codes % nb
    x, y = ta[s], tb[r]
    both = (x >= 0) & (y >= 0)
    succ = np.where(both, index[np.where(both, x * nb + y, 0)], len(codes))  # len(codes): a sink
    bad = _reaching((a.accept[s] != b.accept[r]) | ((x >= 0) != (y >= 0)).any(axis=1), succ)
    same = np.zeros((a.size, nb), dtype=np.uint8)
    same[s, r] = ~bad
    # worth walking beside: a pair from which some string reaches a same pair past which the reference goes on
    useful = np.zeros((a.size, nb), dtype=bool)
    useful[s, r] = _reaching(~bad & (tb[r] >= 0).any(axis=1), succ)
    first = np.lexsort((bad, s))  # per rule state, an equal partner first where there is one
    states, at = np.unique(s[first], return_index=True)
    partner = np.full(a.size, -1, dtype=np.int32)
    partner[states] = r[first][at]
    has = partner >= 0
    has[has] = useful[np.flatnonzero(has), partner[has]]
    partner[~has] = -1
    return Pairing(partner=partner, same=same)


def shared_columns(a: RuleDFA, b: RuleDFA) -> np.ndarray:
    """One byte per class of bytes both DFAs treat alike (their columns equal in both tables), ascending: from each
    table's own classes (kept on the rule), where stacking the two tables and comparing their columns read a large
    rule's table by column at its first mask."""
    _, first = np.unique(a.byte_classes.astype(np.int64) * 256 + b.byte_classes, return_index=True)
    return np.sort(first)


def _reaching(seed: np.ndarray, succ: np.ndarray) -> np.ndarray:
    """The pairs from which some pair in `seed` is reachable (succ: successor indexes per pair,
    len(seed) for none)."""
    hit = np.append(seed, False)
    while True:
        grown = hit.copy()
        grown[:-1] |= hit[succ].any(axis=1)
        if (grown == hit).all():
            return hit[:-1]
        hit = grown
