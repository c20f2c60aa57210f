"""Configurations of the pushdown automaton walked over the token trie: in C where the kernel is
built (returning to Python only to compute a transition met for the first time), else in Python."""

from __future__ import annotations

import numpy as np

from extractor.automata.configs import BOTTOM_ENDS, ConfigDFA
from extractor.masks.trie import TokenTrie, _kernel


def walk_configs(configs: ConfigDFA, trie: TokenTrie, jobs: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """Walk each (root node, configuration) job over the root's proper descendants, skipping every
    subtree no stack survives. Returns the ids of the tokens walked to their end (int64) and, with
    `exits`, the nodes where the bottom frame may end while tokens run on (int32, in preorder)."""
    jobs = np.ascontiguousarray(jobs, dtype=np.int32)
    if _kernel is None:
        return _walk_python(configs, trie, jobs, exits)
    roots = jobs[:, 0]
    reached = np.empty(int((trie.hi[roots] - trie.lo[roots]).sum()), dtype=np.int64)  # every token below, at most
    found = np.empty(int((trie.end[roots] - roots).sum()) if exits else 0, dtype=np.int32)
    work = np.zeros(4 + trie.width + 1, dtype=np.int32)
    while (miss := _kernel.config_walk(trie.packed, trie.ids, configs.trans, configs.flags, jobs, work, reached,
                                       found)) >= 0:
        configs.resolve(miss >> 8, miss & 255)
    return reached[: work[2]].copy(), found[: work[3]].copy()


def _walk_python(configs: ConfigDFA, trie: TokenTrie, jobs: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """The same walk where the C kernel is not built."""
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
            if exits and longer[i] and configs.flags[t] & BOTTOM_ENDS:
                found.append(i)
            i += 1
    return trie.ending(np.array(reached, dtype=np.int64)), np.array(found, dtype=np.int32)
