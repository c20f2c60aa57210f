"""Context-independent token tables per automaton state, computed once and shared across schemas."""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import threading
import time
import zipfile
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from extractor.automata import Automaton, RuleDFA
from extractor.automata.counted import CountedDFA
from extractor.masks.bits import no_tokens, pack, set_bits
from extractor.masks.lru import ByteLRU
from extractor.masks.reference import Pairing, pairing, reference
from extractor.masks.trie import TokenTrie, _kernel
from extractor.masks.walk import walk
from extractor.masks.window import same_table


SAVE_AFTER = 0.002
"""CPU seconds a table must take to build before it is kept on disk: loading a checked .npz back costs about
0.4 ms, more than almost every table takes to build (benchmarks/table_cache.py), and beside a busy thread (a
server's decoding loop) several times that, each of its reads handing the GIL over. Timed on the building
thread's CPU clock: a build that waited for the GIL (and so took long on the wall) is not worth a file."""


MAX_FILE_BYTES = 64 << 20
"""A table file larger than this is not read (the largest tables, of a vocabulary's every trie node, are a few MB)."""
TABLE_BYTES = 512 << 20
"""Bytes of tables kept in memory per table cache (least recently used dropped first): about 70,000 tables of a
49k-token vocabulary, 30,000 of a 128k one (packed, with their exit nodes)."""
PATHS_BYTES = 32 << 20
"""Bytes of counted rules' base walks kept per table cache (a few MB each for a 128k vocabulary)."""


@dataclass(frozen=True, eq=False, slots=True)
class Table:
    """Tokens a rule state allows on its own, and the trie nodes where the rule may end with tokens
    running on past them: those tokens' remaining bytes are for the enclosing rules to judge. Held packed, 32
    tokens a word (an eighth of a bool per token): a cache of a given size holds eight times the tables, so a
    server's grammars prepared one after another do not push out each other's tables before their steps read them."""

    packed: np.ndarray  # int32 words (masks.bits): bit i of word w is token 32*w + i; never mutate it
    exit_nodes: np.ndarray  # int32 trie nodes, in preorder
    size: int  # tokens (the vocabulary's)

    @classmethod
    def of(cls, allowed: np.ndarray, exit_nodes: np.ndarray) -> Table:
        """The table of a bool (or 0/1 byte) per token id."""
        return cls(packed=pack(allowed.view(bool)), exit_nodes=exit_nodes, size=len(allowed))

    @property
    def nbytes(self) -> int:
        """What the table holds."""
        return self.packed.nbytes + self.exit_nodes.nbytes + 256

    @property
    def allowed(self) -> np.ndarray:
        """A bool per token id, unpacked on each read (a new array: the caller may keep or change it)."""
        return unpacked(self.packed, self.size)


Held = tuple[np.ndarray, np.ndarray, int, int]
"""A table as a cache holds it: its words, exit nodes and size (`Table(*held[:3])` makes it again, around the same
arrays), and the bytes it holds."""


def unpacked(words: np.ndarray, size: int) -> np.ndarray:
    """A bool per token id of `size` from packed words (masks.bits): a new array."""
    return np.unpackbits(words.view(np.uint8), count=size, bitorder="little").view(bool)


class TableCache:
    """A bounded LRU of tables keyed by (vocabulary, rule fingerprint, state), optionally backed by a
    directory so that a later process pays nothing for the tables an earlier one took long to compute
    (`save_after` seconds or more: most tables build faster than a file loads). Which files there are is read
    off one listing of a folder per process (plus the files this cache writes), not a stat per table missed in
    memory: a stat hands the GIL over, and beside a busy thread (a server's decoding loop) each costs a switch
    interval, 5 ms. Files another process writes later are seen by the next process."""

    def __init__(self, max_bytes: int = TABLE_BYTES, directory: Path | None = None, max_files: int = 20_000,
                 save_after: float = SAVE_AFTER) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[tuple[str, str, int], Held] = OrderedDict()
        """Each table as one plain tuple of its arrays, its size and its bytes: a tuple the cyclic collector stops
        tracking at its first collection, where a `Table` (an instance of a class, like any) stays tracked. Tens of
        thousands of tables held would otherwise be objects every full collection walks, and one lands in whichever
        call allocates: a server's mask."""
        self.directory = directory
        self.max_files = max_files
        self.save_after = save_after
        self.saved = 0
        self.lock = threading.Lock()
        self.unit_paths: ByteLRU[tuple[str, str, int], UnitPaths] = ByteLRU(PATHS_BYTES)
        self.listed: dict[str, set[str]] = {}
        """The table files of each folder looked in, by name."""
        self.folders: dict[str, tuple[Path, str]] = {}
        """Each vocabulary's folder as a string, beside the directory it is in (a new directory makes it again)."""

    def get(self, automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
        dfa = automaton.dfas[rule]
        state = dfa.canonical(state, trie.width) if isinstance(dfa, CountedDFA) else \
            same_table(dfa, trie, state) if rule in automaton.leaves else state
        if rule in automaton.private:  # a rule copying from one text: no other automaton has it
            key = (trie.vocab.fingerprint, rule, state)
            table = automaton.own.get(key)
            if table is None:
                table = automaton.own[key] = self.build(automaton, trie, rule, state)
            return table
        key = (trie.vocab.fingerprint, automaton.fingerprints[rule], state)
        hit = self._hit(key)  # (most calls: no closure made for a build that does not happen)
        return hit if hit is not None else self._fill(key, lambda: self.build(automaton, trie, rule, state))

    def _hit(self, key: tuple[str, str, int]) -> Table | None:
        """The table held in memory for `key`, made most recently used; read without the lock (a dict read and an
        OrderedDict move are each atomic under the GIL; one dropped by another thread in between is a miss)."""
        hit = self.entries.get(key)
        if hit is None:
            return None
        try:
            self.entries.move_to_end(key)
        except KeyError:
            return None
        return Table(*hit[:3])

    def build(self, automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
        """A table not cached yet: walked, or the reference's where the languages are equal, or walked
        beside the reference's where they meet below some prefix (masks/reference.py)."""
        if rule not in automaton.leaves:
            return walk_table(automaton, trie, rule, state)
        dfa = automaton.dfas[rule]
        if isinstance(dfa, CountedDFA) and _kernel is not None and state // dfa.n != dfa.lo:
            base = state % dfa.n  # a count near a bound: its own table, read off the base's walk
            key = (trie.vocab.fingerprint, automaton.fingerprints[rule], base)
            paths = self.unit_paths.get(key)
            if paths is None:
                paths = unit_paths(dfa, trie, base)
                self.unit_paths.put(key, paths, paths.nbytes)
            return counted_table(dfa, paths, state // dfa.n)
        # a rule copying from a text is walked, not paired with the reference: few of its states read the
        # reference's language, and pairing costs its states times the reference's (0.3 GB for a window's copy rule)
        pair = None if isinstance(dfa, CountedDFA) or _kernel is None or rule in automaton.private else \
            pairing(automaton.fingerprints[rule], dfa)
        partner = -1 if pair is None else int(pair.partner[state])
        if partner < 0:
            return leaf_table(dfa, trie, state)
        shared = self.reference(trie, partner)
        return shared if pair.equal(state) else leaf_table(dfa, trie, state, (pair, shared))  # type: ignore[union-attr]

    def reference(self, trie: TokenTrie, state: int) -> Table:
        """The table of a state of the reference language (masks/reference.py)."""
        dfa, fingerprint = reference()
        return self.cached((trie.vocab.fingerprint, fingerprint, state), lambda: leaf_table(dfa, trie, state))

    def cached(self, key: tuple[str, str, int], build: Callable[[], Table]) -> Table:
        """The table for `key`, built (outside the lock: two threads may build one table twice, never
        corrupt the LRU) when neither memory nor disk has it."""
        hit = self._hit(key)
        return hit if hit is not None else self._fill(key, build)

    def _fill(self, key: tuple[str, str, int], build: Callable[[], Table]) -> Table:
        """The table for `key` missed in memory: read from disk, else built (and saved if slow), then held."""
        table = self.load(key)
        if table is None:
            start = time.thread_time()  # this thread's CPU: a build that waited for the GIL is not a slow one
            table = build()
            if time.thread_time() - start >= self.save_after:
                self.save(key, table)
        size = table.nbytes
        with self.lock:
            old = self.entries.pop(key, None)
            self.bytes += size - (old[3] if old else 0)
            self.entries[key] = (table.packed, table.exit_nodes, table.size, size)
            while self.bytes > self.max_bytes and len(self.entries) > 1:
                self.bytes -= self.entries.popitem(last=False)[1][3]
        return table

    def clear(self) -> None:
        """Forget every table held in memory (the files on disk stay)."""
        with self.lock:
            self.entries.clear()
            self.bytes = 0

    def _place(self, key: tuple[str, str, int]) -> tuple[str, str] | None:
        """The key's folder and file name, as strings (None without a directory): a table missed in memory is looked
        for on disk, so no Path is made and the folder's string is made once per vocabulary."""
        directory = self.directory
        if directory is None:
            return None
        vocab, rule, state = key
        held = self.folders.get(vocab)
        if held is None or held[0] is not directory:
            held = self.folders[vocab] = (directory, f"{directory}{os.sep}v{FORMAT}{os.sep}{vocab[:16]}")
        return held[1], f"{rule}-{state}.npz"

    def load(self, key: tuple[str, str, int]) -> Table | None:
        """The table on disk, only where the file names this key and its content matches its checksum: a torn,
        foreign, stale or tampered file is recomputed (and overwritten), never trusted."""
        place = self._place(key)
        if place is None or place[1] not in self._names(place[0]):
            return None
        path = os.path.join(*place)
        try:
            with open(path, "rb") as f:  # read whole, then parsed in memory: each read hands the GIL over
                blob = f.read(MAX_FILE_BYTES + 1)
            if len(blob) > MAX_FILE_BYTES:  # no table is this large: not ours
                return None
            with np.load(io.BytesIO(blob), allow_pickle=False) as data:
                packed, size, exits = data["allowed"], int(data["size"]), data["exit_nodes"]
                if str(data["key"]) != _key_text(key) or str(data["digest"]) != _digest(packed, size, exits):
                    return None
                if packed.dtype != np.uint8 or len(packed) != (size + 7) // 8 or exits.dtype != np.int32:
                    return None
                words = no_tokens(size)
                words.view(np.uint8)[:len(packed)] = packed
                return Table(packed=words, exit_nodes=exits, size=size)
        except (OSError, EOFError, ValueError, KeyError, IndexError, TypeError, zipfile.BadZipFile, zlib.error):
            return None

    def save(self, key: tuple[str, str, int], table: Table) -> None:
        place = self._place(key)
        if place is None:
            return
        folder, name = place
        path = os.path.join(folder, name)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            packed = table.packed.view(np.uint8)[:(table.size + 7) // 8]  # as np.packbits writes the bools
            exits = table.exit_nodes.astype(np.int32)
            with os.fdopen(fd, "wb") as f:
                np.savez(f, allowed=packed, size=table.size, exit_nodes=exits, key=_key_text(key),
                         digest=_digest(packed, table.size, exits))
            os.replace(tmp, path)  # atomic: readers see a whole file or none
            self._names(folder).add(name)
        except OSError:
            return  # a read-only or full disk only costs the recomputation
        self.saved += 1
        if self.saved % 256 == 0:
            self.prune()

    def _names(self, folder: str) -> set[str]:
        """The files the folder's listing names (the folder listed on first sight, then the files written here)."""
        names = self.listed.get(folder)
        if names is None:
            try:
                names = set(os.listdir(folder))
            except OSError:
                names = set()
            self.listed[folder] = names
        return names

    def prune(self) -> None:
        """Keep at most max_files tables on disk, dropping the least recently written."""
        files = sorted(self.directory.glob(f"v{FORMAT}/*/*.npz"), key=lambda p: p.stat().st_mtime)  # type: ignore[union-attr]
        for old in files[: max(0, len(files) - self.max_files)]:
            old.unlink(missing_ok=True)
            self.listed.get(str(old.parent), set()).discard(old.name)


FORMAT = 7
"""Version of the tables' meaning, file layout and which tables are kept: bump it when one changes."""


def _key_text(key: tuple[str, str, int]) -> str:
    return "/".join(map(str, key))


def _digest(packed: np.ndarray, size: int, exits: np.ndarray) -> str:
    """A checksum of a table file's content (integrity against torn writes and edits, not a signature)."""
    h = hashlib.sha256(np.ascontiguousarray(packed).tobytes())
    h.update(str(size).encode())
    h.update(np.ascontiguousarray(exits).tobytes())
    return h.hexdigest()


def _default_directory() -> Path | None:
    """$EXTRACTOR_CACHE_DIR (or ~/.cache/extractor)/tables; EXTRACTOR_CACHE_DIR=off keeps tables in memory only."""
    root = os.environ.get("EXTRACTOR_CACHE_DIR")
    if root and root.lower() in ("0", "off", "none", "false"):
        return None
    return (Path(root) if root else Path.home() / ".cache" / "extractor") / "tables"


TABLES = TableCache(directory=_default_directory())
"""Process-wide: the string-content table is the same for every string in every schema, and on
disk it stays computed for the next process."""


def leaf_table(dfa: RuleDFA | CountedDFA, trie: TokenTrie, state: int,
               beside: tuple[Pairing, Table] | None = None) -> Table:
    """The table of a state of a rule that calls nothing: one pass over the preorder trie in C,
    skipping every subtree whose prefix the DFA rejects, and copying from the reference table
    `beside` every subtree where the rule's language and the reference's meet (NumPy where the
    kernel is not built)."""
    if _kernel is None:
        return numpy_leaf_table(dfa, trie, state)
    base = dfa.base if isinstance(dfa, CountedDFA) else dfa
    trans, accept = np.ascontiguousarray(base.trans, dtype=np.int32), np.ascontiguousarray(base.accept, dtype=np.uint8)
    exits = np.empty(len(trie.depth), dtype=np.int32)
    if beside is not None:  # read and written packed: the reference's table is never unpacked, this one never packed
        pair, table = beside
        ref = reference()[0]
        words = np.empty_like(table.packed)
        n = _kernel.ref_walk(trie.packed, trie.ids, trans, accept, state,
                             np.ascontiguousarray(ref.trans, dtype=np.int32), int(pair.partner[state]), pair.same,
                             table.packed, table.exit_nodes, words, exits)
        return Table(packed=words, exit_nodes=exits[:n].copy(), size=table.size)
    words = no_tokens(trie.vocab.size)  # written packed, as the table keeps them
    counted = None
    if isinstance(dfa, CountedDFA):
        counted = (np.ascontiguousarray(dfa.inc, dtype=np.uint8), np.ascontiguousarray(dfa.cum, dtype=np.int32),
                   dfa.n, dfa.lo, -1 if dfa.hi is None else dfa.hi, dfa.cum.shape[0], dfa.start, dfa.period)
    n = _kernel.leaf_walk(trie.packed, trie.ids, trans, accept, state, counted, words, exits)
    return Table(packed=words, exit_nodes=exits[:n].copy(), size=trie.vocab.size)


@dataclass(frozen=True, eq=False)
class UnitPaths:
    """Where each token takes a counted rule's base from one state, and how many units it reads there: a
    count's table follows by arithmetic, since the count only grows along a token (a token is allowed
    where the count it ends with can still end inside the bounds, so every count before it could too)."""

    size: int  # the vocabulary's
    tokens: np.ndarray  # int64 ids of the tokens the base walks to their end
    cells: np.ndarray  # int64 per token: its end state * width + the units it reads
    distinct: np.ndarray  # the cells in use, each once: tokens sharing one share the answer
    width: int  # most units a token reads, plus one
    exit_nodes: np.ndarray  # int32 trie nodes where the base accepts with tokens running on, in preorder
    exit_units: np.ndarray  # int64 units read to each

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.tokens, self.cells, self.distinct, self.exit_nodes, self.exit_units))


def unit_paths(dfa: CountedDFA, trie: TokenTrie, state: int) -> UnitPaths:
    """One walk of the base of `dfa` from base state `state`, counting units (`_kernel.unit_walk`)."""
    base, size = dfa.base, trie.vocab.size
    ends, units = np.full(size, -1, dtype=np.int32), np.zeros(size, dtype=np.int32)
    exits, exit_units = np.empty(len(trie.depth), dtype=np.int32), np.empty(len(trie.depth), dtype=np.int32)
    n = _kernel.unit_walk(trie.packed, trie.ids, np.ascontiguousarray(base.trans, dtype=np.int32),
                          np.ascontiguousarray(base.accept, dtype=np.uint8),
                          np.ascontiguousarray(dfa.inc, dtype=np.uint8), state, ends, units, exits, exit_units)
    tokens = np.flatnonzero(ends >= 0)
    width = int(units[tokens].max()) + 1 if len(tokens) else 1  # the cells span what tokens read, no more
    cells = ends[tokens].astype(np.int64) * width + units[tokens]
    used = np.zeros(dfa.n * width, dtype=bool)
    used[cells] = True
    return UnitPaths(size=size, tokens=tokens, cells=cells, distinct=np.flatnonzero(used), width=width,
                     exit_nodes=exits[:n].copy(), exit_units=exit_units[:n].astype(np.int64))


def counted_table(dfa: CountedDFA, paths: UnitPaths, count: int) -> Table:
    """The table of the state `paths` was walked from, holding `count`: what `leaf_table` walks, without a walk."""
    cells = paths.distinct
    ok = np.zeros(dfa.n * paths.width, dtype=bool)
    ok[cells] = dfa.reach(cells // paths.width, dfa.after(count, cells % paths.width))
    allowed = np.zeros(paths.size, dtype=bool)
    allowed[paths.tokens] = ok[paths.cells]
    reached = dfa.after(count, paths.exit_units)
    ends = (reached >= dfa.lo) if dfa.hi is None else (reached >= dfa.lo) & (reached <= dfa.hi)
    return Table.of(allowed, paths.exit_nodes[ends])


def numpy_leaf_table(dfa: RuleDFA | CountedDFA, trie: TokenTrie, state: int) -> Table:
    """Vectorized walk of the vocabulary through a DFA that calls nothing, column by column of the
    sorted byte matrix, starting from just the rows whose first byte the state allows (tokens
    sharing a first byte are contiguous in trie order)."""
    step = _stepper(dfa)
    allowed = np.zeros(trie.vocab.size, dtype=bool)
    first = [trie.child(0, b) for b in np.flatnonzero(np.asarray(dfa.trans[state]) >= 0).tolist()]
    spans = [(trie.lo[node], trie.hi[node]) for node in first if node >= 0]
    rows = np.concatenate([np.arange(lo, hi) for lo, hi in spans]) if spans else np.zeros(0, dtype=np.int64)
    states = np.full(len(rows), state, dtype=np.int64)
    exits: set[int] = set()
    for i, column in enumerate(trie.columns):
        if not len(rows):
            break
        if i:
            for row in rows[dfa.accept[states]].tolist():  # the node i bytes down this row's token
                node = 0
                for b in trie.vocab.tokens[trie.ids[row]][:i]:
                    node = trie.child(node, b)
                exits.add(node)
        states = step(states, column[rows])
        alive = states >= 0
        if not alive.all():
            rows, states = rows[alive], states[alive]
        done = trie.lengths[rows] == i + 1
        if done.any():
            allowed[trie.ids[rows[done]]] = True
            rows, states = rows[~done], states[~done]
    return Table.of(allowed, np.array(sorted(exits), dtype=np.int32))


def _stepper(dfa: RuleDFA | CountedDFA) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """states, bytes -> next states (-1: dead); a plain DFA through its flattened table."""
    if isinstance(dfa, CountedDFA):
        return lambda states, data: dfa.trans[states, data]
    flat = dfa.trans.ravel()
    return lambda states, data: flat[states * 256 + data]


def walk_table(automaton: Automaton, trie: TokenTrie, rule: int, state: int) -> Table:
    """The table of a state of a rule that calls others: configurations walked over the whole trie
    from the state alone on its stack; where that bottom frame may end mid-token is an exit."""
    reached, exits = walk(automaton, trie, automaton.close([((rule, state),)]), np.zeros(1, dtype=np.int32), exits=True)
    words = no_tokens(trie.vocab.size)  # the reached tokens' bits set in place, packed
    set_bits(words, reached)
    return Table(packed=words, exit_nodes=exits, size=trie.vocab.size)
