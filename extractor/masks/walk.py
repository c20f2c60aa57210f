"""Configurations of the pushdown automaton walked over the token trie: in C where the kernel is
built (the automaton exported as arrays once), else in Python over the lazily determinized automaton."""

from __future__ import annotations

from itertools import accumulate
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from extractor.automata import Automaton, Config
from extractor.automata.configs import ConfigDFA, config_dfa
from extractor.automata.counted import CountedDFA
from extractor.masks.trie import TokenTrie, _kernel


def walk(automaton: Automaton, trie: TokenTrie, start: Config, roots: np.ndarray,
         exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """Walk `start` over the proper descendants of each root, skipping every subtree no stack
    survives. Returns the ids of the tokens walked to their end (int64) and, with `exits`, the
    nodes where the bottom frame may end while tokens run on (int32, in preorder)."""
    roots = np.ascontiguousarray(roots, dtype=np.int32)
    arrays = native(automaton)
    if arrays is None:
        configs = config_dfa(automaton)
        jobs = np.column_stack([roots, np.full(len(roots), configs.id(start), dtype=np.int32)])
        return _walk_python(configs, trie, jobs, exits)
    machine = _machine(automaton, arrays)
    reached, found = _kernel.machine_walk(machine, trie.packed, trie.ids, _kernel.machine_config(machine, flat(start)),
                                          roots, exits)
    return np.frombuffer(reached, dtype=np.int64), np.frombuffer(found, dtype=np.int32)


MAX_WALK_CONFIGS = 1 << 12
"""Configurations a grammar's walk machine keeps (each with a 1 KB row of per-byte steps) before it starts afresh:
the tables of one grammar's states walk through many of the same configurations (inside a string, after a comma),
so their steps are kept from walk to walk; bounded, so the machine holds a few MB at most."""

_MACHINES: WeakKeyDictionary[Automaton, Any] = WeakKeyDictionary()


def _machine(automaton: Automaton, arrays: tuple) -> Any:
    """The automaton's walk machine (a `_kernel.machine` capsule), opened afresh once it holds `MAX_WALK_CONFIGS`."""
    machine = _MACHINES.get(automaton)
    if machine is None or _kernel.machine_size(machine)[1] >= MAX_WALK_CONFIGS:
        machine = _MACHINES[automaton] = _kernel.machine(arrays)
    return machine


def flat(config: Config) -> np.ndarray:
    """A configuration as the C kernel reads one: int32 [frames, rule, state, ...] per stack, bottom frame first."""
    out: list[int] = []
    for st in config:
        out.append(len(st))
        for frame in st:
            out += frame
    return np.array(out, dtype=np.int32)


def _walk_python(configs: ConfigDFA, trie: TokenTrie, jobs: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """The same walk where the C kernel is not built (or a counted state does not fit in int32)."""
    depth, byte, end, ends, longer = trie.preorder
    reached: list[int] = []  # nodes, turned into token ids at the end
    found: list[int] = []
    cfg = [0] * (trie.width + 1)
    for root, start in jobs.tolist():
        cfg[depth[root]] = start
        i = root + 1
        while i < end[root]:
            d = depth[i]
            t = configs.step(cfg[d - 1], byte[i])
            if t < 0:
                i = end[i]
                continue
            cfg[d] = t
            if ends[i]:
                reached.append(i)
            if exits and longer[i] and configs.bottom_ends[t]:
                found.append(i)
            i += 1
    return trie.ending(np.array(reached, dtype=np.int64)), np.array(found, dtype=np.int32)


_NATIVE: WeakKeyDictionary[Automaton, tuple | None] = WeakKeyDictionary()


def native(automaton: Automaton) -> tuple | None:
    """The automaton as the arrays the C pushdown walk reads (None: a counted state past int32, or no C kernel)."""
    if _kernel is None:
        return None
    if automaton in _NATIVE:
        return _NATIVE[automaton]
    bases = [d.base if isinstance(d, CountedDFA) else d for d in automaton.dfas]
    sizes = [b.size for b in bases]
    offset = np.array(list(accumulate(sizes[:-1], initial=0)), dtype=np.int32)  # each rule's first state
    trans = tuple(np.ascontiguousarray(b.trans, dtype=np.int32) for b in bases)  # each rule's own: no copies
    accept = tuple(np.ascontiguousarray(b.accept, dtype=bool) for b in bases)  # read as bytes
    kind = np.zeros(len(bases), dtype=np.int32)
    params = np.zeros((len(bases), 8), dtype=np.int64)
    cums, incs = [np.zeros(0, dtype=np.int32)], [np.zeros((0, 256), dtype=np.uint8)]
    fits = True
    for r, dfa in enumerate(automaton.dfas):
        if isinstance(dfa, CountedDFA):
            kind[r] = 1
            params[r] = (dfa.n, dfa.lo, -1 if dfa.hi is None else dfa.hi, dfa.cum.shape[0], dfa.start, dfa.period,
                         sum(len(c) for c in cums), sum(len(i) for i in incs))
            cums.append(dfa.cum.astype(np.int32).ravel())
            incs.append(dfa.inc.astype(np.uint8))  # counted rules only: which bytes start a unit
            fits &= (max(dfa.lo, dfa.hi or 0) + 1) * dfa.n < 2**31
    index = {name: i for i, name in enumerate(automaton.names)}
    calls, to, counted = _kernel.call_edges(tuple(b.sites for b in bases), tuple(sizes), index, tuple(
        d.callees if isinstance(d, CountedDFA) else None for d in automaton.dfas))
    out = None if not fits else (
        trans, accept, np.concatenate(incs), np.frombuffer(calls, dtype=np.int32),
        np.frombuffer(to, dtype=np.int32).reshape(-1, 2), np.frombuffer(counted, dtype=np.uint8), offset, kind,
        params, np.concatenate(cums))
    _NATIVE[automaton] = out
    return out
