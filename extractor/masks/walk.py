"""Configurations of the pushdown automaton walked over the token trie: in C where the kernel is
built (returning to Python only to compute a transition met for the first time), else in Python."""

from __future__ import annotations

import numpy as np

from extractor.automata.configs import BOTTOM_ENDS, ConfigDFA
from extractor.masks.trie import TokenTrie, _kernel


def walk_configs(configs: ConfigDFA, trie: TokenTrie, jobs: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """Walk each (root node, configuration) job over the root's proper descendants, skipping every
    subtree no stack survives. Returns the nodes reached where tokens end and, with `exits`, the
    nodes where the bottom frame may end while tokens run on (both int32, in walk order)."""
    jobs = np.ascontiguousarray(jobs, dtype=np.int32)
    if _kernel is None:
        return _walk_python(configs, trie, jobs, exits)
    room = int((trie.end[jobs[:, 0]] - jobs[:, 0]).sum())  # every node of every job's subtree, at most
    reached = np.empty(room, dtype=np.int32)
    found = np.empty(room if exits else 0, dtype=np.int32)
    work = np.zeros(4 + trie.width + 1, dtype=np.int32)
    while (miss := _kernel.config_walk(trie.packed, configs.trans, configs.flags, jobs, work, reached, found)) >= 0:
        configs.resolve(miss >> 8, miss & 255)
    return reached[: work[2]], found[: work[3]].copy()


def _walk_python(configs: ConfigDFA, trie: TokenTrie, jobs: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray]:
    """The same walk where the C kernel is not built."""
    depth, byte, end, ends, longer = trie.preorder
    reached: list[int] = []
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
    return np.array(reached, dtype=np.int32), np.array(found, dtype=np.int32)
