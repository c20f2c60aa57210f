"""Context-independent token tables per automaton state, computed once and shared across schemas."""

from __future__ import annotations

import os
import tempfile
import zipfile
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from extractor.automata import Automaton, Config, RuleDFA
from extractor.automata.counted import CountedDFA
from extractor.masks.trie import TokenTrie, _kernel


@dataclass(frozen=True, eq=False)
class Table:
    """Tokens a rule state allows on its own, and tokens that leave the rule part-way (`exits`)."""

    allowed: np.ndarray  # bool, one per token id
    exit_ids: np.ndarray  # token ids whose bytes run past the end of the rule
    exit_offsets: np.ndarray  # bytes of that token consumed inside the rule
    remainders: list | None = field(default=None, compare=False)  # what exits leave, grouped; built on use


class TableCache:
    """A bounded LRU of tables keyed by (vocabulary, rule fingerprint, state), optionally backed by a
    directory so that a later process pays nothing for tables an earlier one computed."""

    def __init__(self, capacity: int = 4096, directory: Path | None = None, max_files: int = 20_000) -> None:
        self.capacity = capacity
        self.entries: OrderedDict[tuple[str, str, int], Table] = OrderedDict()
        self.directory = directory
        self.max_files = max_files
        self.saved = 0

    def get(self, automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
        state = automaton.table_state(rule, state, trie.width)
        key = (trie.vocab.fingerprint, automaton.fingerprints[rule], state)
        table = self.entries.get(key)
        if table is not None:
            self.entries.move_to_end(key)
            return table
        table = self.load(key)
        if table is None:
            build = leaf_table if rule in automaton.leaves else walk_table
            table = build(automaton, trie, rule, state)
            self.save(key, table)
        self.entries[key] = table
        if len(self.entries) > self.capacity:
            self.entries.popitem(last=False)
        return table

    def path(self, key: tuple[str, str, int]) -> Path | None:
        if self.directory is None:
            return None
        vocab, rule, state = key
        return self.directory / f"v{FORMAT}" / vocab[:16] / f"{rule}-{state}.npz"

    def load(self, key: tuple[str, str, int]) -> Table | None:
        path = self.path(key)
        if path is None or not path.exists():
            return None
        try:
            with np.load(path) as data:
                allowed = np.unpackbits(data["allowed"], count=int(data["size"]), bitorder="little").astype(bool)
                return Table(allowed=allowed, exit_ids=data["exit_ids"], exit_offsets=data["exit_offsets"])
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return None  # a torn or foreign file: recompute (and overwrite it)

    def save(self, key: tuple[str, str, int], table: Table) -> None:
        path = self.path(key)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                np.savez(f, allowed=np.packbits(table.allowed, bitorder="little"), size=len(table.allowed),
                         exit_ids=table.exit_ids, exit_offsets=table.exit_offsets)
            os.replace(tmp, path)  # atomic: readers see a whole file or none
        except OSError:
            return  # a read-only or full disk only costs the recomputation
        self.saved += 1
        if self.saved % 256 == 0:
            self.prune()

    def prune(self) -> None:
        """Keep at most max_files tables on disk, dropping the least recently written."""
        files = sorted(self.directory.glob(f"v{FORMAT}/*/*.npz"), key=lambda p: p.stat().st_mtime)  # type: ignore[union-attr]
        for old in files[: max(0, len(files) - self.max_files)]:
            old.unlink(missing_ok=True)


FORMAT = 1
"""Version of the tables' meaning and file layout: bump it when either changes."""


def _default_directory() -> Path | None:
    """$EXTRACTOR_CACHE_DIR (or ~/.cache/extractor)/tables; EXTRACTOR_CACHE_DIR=off keeps tables in memory only."""
    root = os.environ.get("EXTRACTOR_CACHE_DIR")
    if root and root.lower() in ("0", "off", "none", "false"):
        return None
    return (Path(root) if root else Path.home() / ".cache" / "extractor") / "tables"


TABLES = TableCache(directory=_default_directory())
"""Process-wide: the string-content table is the same for every string in every schema, and on
disk it stays computed for the next process."""


def leaf_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """The table of a state of a rule that calls nothing: one pass over the preorder trie in C,
    skipping every subtree whose prefix the DFA rejects (NumPy where the kernel is not built)."""
    if _kernel is None:
        return numpy_leaf_table(automaton, trie, rule, state)
    dfa = automaton.dfas[rule]
    base = dfa.base if isinstance(dfa, CountedDFA) else dfa
    counted = None
    if isinstance(dfa, CountedDFA):
        counted = (np.ascontiguousarray(dfa.inc, dtype=np.uint8), np.ascontiguousarray(dfa.cum, dtype=np.int32),
                   dfa.n, dfa.lo, -1 if dfa.hi is None else dfa.hi, dfa.cum.shape[0], dfa.start, dfa.period)
    allowed = np.zeros(trie.vocab.size, dtype=np.uint8)
    exits = np.empty((len(trie.depth), 3), dtype=np.int32)
    n = _kernel.leaf_walk(trie.packed, trie.ids, np.ascontiguousarray(base.trans, dtype=np.int32),
                          np.ascontiguousarray(base.accept, dtype=np.uint8), state, counted, allowed, exits)
    lo, hi, offset = exits[:n].T.astype(np.int64)
    return Table(allowed=allowed.view(bool), exit_ids=trie.ids[_ranges(lo, hi)], exit_offsets=np.repeat(offset, hi - lo))


def numpy_leaf_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """Vectorized walk of the vocabulary through a DFA that calls nothing, column by column of the
    sorted byte matrix, starting from just the rows whose first byte the state allows (tokens
    sharing a first byte are contiguous in trie order)."""
    dfa = automaton.dfas[rule]
    step = _stepper(dfa)
    allowed = np.zeros(trie.vocab.size, dtype=bool)
    first = [trie.child(0, b) for b in np.flatnonzero(np.asarray(dfa.trans[state]) >= 0).tolist()]
    spans = [(trie.lo[node], trie.hi[node]) for node in first if node >= 0]
    rows = np.concatenate([np.arange(lo, hi) for lo, hi in spans]) if spans else np.zeros(0, dtype=np.int64)
    states = np.full(len(rows), state, dtype=np.int64)
    exit_ids, exit_offsets = [], []
    for i, column in enumerate(trie.columns):
        if not len(rows):
            break
        if i:
            leaving = dfa.accept[states]
            if leaving.any():
                exit_ids.append(trie.ids[rows[leaving]])
                exit_offsets.append(np.full(int(leaving.sum()), i))
        states = step(states, column[rows])
        alive = states >= 0
        if not alive.all():
            rows, states = rows[alive], states[alive]
        done = trie.lengths[rows] == i + 1
        if done.any():
            allowed[trie.ids[rows[done]]] = True
            rows, states = rows[~done], states[~done]
    ids = np.concatenate(exit_ids) if exit_ids else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate(exit_offsets) if exit_offsets else np.zeros(0, dtype=np.int64)
    return Table(allowed=allowed, exit_ids=ids, exit_offsets=offsets)


def _stepper(dfa: RuleDFA | CountedDFA) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """states, bytes -> next states (-1: dead); a plain DFA through its flattened table."""
    if isinstance(dfa, CountedDFA):
        return lambda states, data: dfa.trans[states, data]
    flat = dfa.trans.ravel()
    return lambda states, data: flat[states * 256 + data]


def walk_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """Preorder walk of the trie with a local stack, skipping every subtree whose prefix is rejected;
    popping the bottom frame mid-token is an exit."""
    depth, byte, end = trie.preorder
    accept = [d.accept for d in automaton.dfas]
    steps: dict[tuple[Config, int], Config] = {}  # the same configuration recurs under many prefixes
    configs = [automaton.close([((rule, state),)])]  # configs[d]: after the first d bytes of the current node
    reached, leaving = [], []
    i = 1
    while i < len(depth):
        d = depth[i]
        key = (configs[d - 1], byte[i])
        config = steps.get(key)
        if config is None:
            config = steps[key] = automaton.step(*key)
        if not config:
            i = end[i]
            continue
        del configs[d:]
        configs.append(config)
        reached.append(i)
        if any(len(st) == 1 and accept[st[0][0]][st[0][1]] for st in config):
            leaving.append(i)
        i += 1
    allowed = np.zeros(trie.vocab.size, dtype=bool)
    nodes = np.array(reached, dtype=np.int64)
    allowed[trie.ids[_ranges(trie.lo[nodes], trie.lo[nodes] + trie.nends[nodes])]] = True
    nodes = np.array(leaving, dtype=np.int64)
    lo, hi = trie.lo[nodes] + trie.nends[nodes], trie.hi[nodes]
    return Table(allowed=allowed, exit_ids=trie.ids[_ranges(lo, hi)], exit_offsets=np.repeat(trie.depth[nodes], hi - lo))


def _ranges(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The rows lo[k]..hi[k]-1 of every range, concatenated."""
    lo, hi = np.asarray(lo, dtype=np.int64), np.asarray(hi, dtype=np.int64)
    sizes = hi - lo
    return np.arange(int(sizes.sum())) + np.repeat(lo - (np.cumsum(sizes) - sizes), sizes)
