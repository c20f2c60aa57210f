"""A compiled grammar's configurations numbered once, so that a generation's place is an integer: a token's step
is one dict lookup keyed by (configuration id, token), the packed mask row of an id is kept beside it, and
rolling back is truncating a list of ids. Requests of one schema share what any of them walked before. A step not
seen before is walked by the C kernel's machine, which keeps its own interned configurations and per-byte steps
alive across calls (the Python walk where the kernel is not built)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

import numpy as np

from extractor.automata import Automaton, Config
from extractor.automata.distinct import Distinct, Shape, shape_of
from extractor.masks.trie import TokenTrie, _kernel
from extractor.masks.walk import flat, native

MAX_STATES = 1 << 16
"""Configurations numbered per table before the grammar starts a new one (generations already under way keep
theirs, so no id they hold is ever reused)."""
MAX_STEPS = 1 << 20
"""(configuration, token) steps remembered per table; forgotten all at once past this (each is redone by a walk)."""
MAX_MACHINE_CONFIGS = 1 << 15
"""Configurations the C machine may intern per table (each keeps a 1 KB row of per-byte steps)."""
ROW_BYTES = 64 << 20
"""Bytes of packed rows kept per table; forgotten all at once past this (each is read back off the mask cache)."""

NOT_ALLOWED = -1
"""The step of a token the grammar forbids there."""


class States:
    """Configurations by id, steps by (id, token), packed rows and acceptance by id; safe to share between
    threads (dict and list operations are atomic; numbering a new configuration takes the lock). `walk` and
    `bitmask` are the compiled grammar's (its walk memo and its packed masks), handed down, not called back up."""

    def __init__(self, automaton: Automaton, trie: TokenTrie, start: Config,
                 walk: Callable[[Config, bytes], Config], bitmask: Callable[[Config], np.ndarray]) -> None:
        self.automaton, self.trie, self.start, self.walk_bytes, self.bitmask = automaton, trie, start, walk, bitmask
        self.size = trie.vocab.size
        self.tokens = trie.vocab.tokens
        self.ends = trie.vocab.eos_ids
        self.configs: list[Config] = []
        self.ids: dict[Config, int] = {}
        self.steps: dict[int, int] = {}
        self.rows: dict[int, np.ndarray] = {}
        self.row_bytes = 0
        self.accepts: dict[int, bool] = {}
        self.lock = threading.Lock()
        arrays = native(automaton) if _kernel is not None else None
        self.machine = None if arrays is None else _kernel.machine(arrays)
        self.to_machine: dict[int, int] = {}
        self.from_machine: dict[int, int] = {}
        self.walk_from: dict[Config, int] = {}
        """The machine's ids of configurations walked from that are not numbered here (the parents of exits, a guard's
        places)."""
        self.shapes: dict[int, Shape] = {}
        """`automata.distinct.shape` of the machine's configurations, by its id."""
        self.distinct_rules = bytes(rule in automaton.distinct for rule in range(len(automaton.dfas)))
        """One byte per rule: whether its strings must differ (what `machine_tops` is asked about)."""

    @property
    def full(self) -> bool:
        return len(self.configs) >= MAX_STATES or (
            self.machine is not None and _kernel.machine_size(self.machine)[1] >= MAX_MACHINE_CONFIGS)

    def id(self, config: Config) -> int:
        """The configuration's id, numbered on first sight."""
        found = self.ids.get(config)
        if found is None:
            with self.lock:
                found = self.ids.get(config)
                if found is None:
                    found = self.ids[config] = len(self.configs)
                    self.configs.append(config)
                    if _kernel is not None:  # kept as long as the table: off the cyclic collector's lists
                        _kernel.untrack_config(config)
        return found

    def step(self, state: int, token: int) -> int:
        """The id after `token`'s bytes from `state` (not EOS: the matcher ends there), or NOT_ALLOWED."""
        if not 0 <= token < self.size:  # (also: the key of another state's token)
            return NOT_ALLOWED
        key = state * self.size + token
        found = self.steps.get(key)
        if found is None:
            data = self.tokens[token]
            if not data:
                found = NOT_ALLOWED
            elif self.machine is not None:
                found = self._from_machine(_kernel.machine_step(self.machine, self._to_machine(state), data))
            else:
                config = self.walk_bytes(self.configs[state], data)
                found = self.id(config) if config else NOT_ALLOWED
            if len(self.steps) >= MAX_STEPS:
                self.steps.clear()
            self.steps[key] = found
        return found

    def after(self, state: int, data: bytes) -> int:
        """The id after `data` from `state` (any bytes, not a token's: not remembered), or NOT_ALLOWED; in the C
        machine where there is one (a guard checking a way out of tens of bytes)."""
        if not data:
            return state
        if self.machine is not None:
            return self._from_machine(_kernel.machine_step(self.machine, self._to_machine(state), data))
        config = self.walk_bytes(self.configs[state], data)
        return self.id(config) if config else NOT_ALLOWED

    def distinct_after(self, state: int, distinct: Distinct, data: bytes) -> tuple[int, Distinct] | None:
        """`Distinct.after` from `state` in the C machine: the id after `data` (NOT_ALLOWED where a byte is not
        allowed or finishes a string already written) and the strings' state it leaves; each byte a memo step and
        each configuration's shape read once. None without the machine, or where whole items must differ too
        (`Distinct.after` then)."""
        if self.machine is None or distinct.items is not None:
            return None
        machine, shapes, automaton = self.machine, self.shapes, self.automaton
        fork, walked = distinct.fork(), self._to_machine(state)
        for k in range(len(data)):
            walked = _kernel.machine_step(machine, walked, data[k:k + 1])
            if walked < 0:
                return NOT_ALLOWED, fork
            at = shapes.get(walked)
            if at is None:  # read off the top frames in C: the configuration itself is never built in Python
                low, tops = _kernel.machine_tops(machine, walked, self.distinct_rules)
                frames = np.frombuffer(tops, dtype=np.int32).reshape(-1, 3).tolist()
                at = shapes[walked] = shape_of(automaton, low, frames)
            if fork.read(data[k], at):
                return NOT_ALLOWED, fork
        return self._from_machine(walked, state, data), fork

    def walked(self, config: Config, data: bytes) -> Config | None:
        """The configurations after `data` from any configuration, numbered or not (empty where a byte is not
        allowed), walked in the C machine; None without it."""
        if self.machine is None:
            return None
        if not data:
            return config
        found = self._from_machine(_kernel.machine_step(self.machine, self._machine_of(config), data))
        return frozenset() if found == NOT_ALLOWED else self.configs[found]

    def _machine_of(self, config: Config) -> int:
        """The machine's id of any configuration (one not numbered here is kept in `walk_from`)."""
        state = self.ids.get(config)
        if state is not None:
            return self._to_machine(state)
        found = self.walk_from.get(config)
        if found is None:
            found = self.walk_from[config] = _kernel.machine_config(self.machine, flat(config))
        return found

    def walk(self, config: Config, roots: np.ndarray, exits: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """`masks.walk.walk` in this table's machine (its steps kept for later walks); None without the machine."""
        if self.machine is None:
            return None
        trie = self.trie
        reached, nodes = _kernel.machine_walk(self.machine, trie.packed, trie.ids, self._machine_of(config),
                                              np.ascontiguousarray(roots, dtype=np.int32), exits)
        return np.frombuffer(reached, dtype=np.int64), np.frombuffer(nodes, dtype=np.int32)

    def _to_machine(self, state: int) -> int:
        """The machine's id of a configuration."""
        found = self.to_machine.get(state)
        if found is None:
            found = self.to_machine[state] = _kernel.machine_config(self.machine, flat(self.configs[state]))
            self.from_machine[found] = state
        return found

    def _from_machine(self, walked: int, state: int | None = None, data: bytes = b"") -> int:
        """The id of the machine's configuration `walked` (NOT_ALLOWED for its -1), read back on first sight: walked
        in Python from `state` over `data` where the machine got there so (a configuration of deep stacks is built
        cheaper from its parent's, whose frames it shares, than afresh from the machine's), else off its stacks."""
        if walked < 0:
            return NOT_ALLOWED
        found = self.from_machine.get(walked)
        if found is None:
            config = _config(_kernel.machine_stacks(self.machine, walked)) if state is None else \
                self.walk_bytes(self.configs[state], data)
            found = self.id(config)
            self.from_machine[walked], self.to_machine[found] = found, walked
        return found

    def explore(self, seconds: float, limit: int) -> int:
        """Number the configurations some tokens lead to from the start, breadth first, and make their rows, until
        `seconds` have passed or `limit` are numbered (a server's compile thread: its requests' first steps then
        find them); how many were numbered. Needs the C machine (0 without it)."""
        if self.machine is None:
            return 0
        deadline, nodes = time.perf_counter() + seconds, self.trie.packed
        queue = deque([self.id(self.start)])
        seen = set(queue)
        while queue and len(seen) < limit and time.perf_counter() < deadline:
            state = queue.popleft()
            self.row(state)
            walked = _kernel.machine_next(self.machine, nodes, self._to_machine(state))
            for n in np.frombuffer(walked, dtype=np.int64).tolist():
                found = self._from_machine(n)
                if found not in seen and len(seen) < limit:
                    seen.add(found)
                    queue.append(found)
        return len(seen)

    def row(self, state: int) -> np.ndarray:
        """The mask of `state` packed 32 tokens per int32 word, EOS set where it accepts; never mutate it."""
        found = self.rows.get(state)
        if found is None:
            found = self.bitmask(self.configs[state])
            if self.row_bytes + found.nbytes > ROW_BYTES:
                self.rows.clear()
                self.row_bytes = 0
            self.rows[state] = found
            self.row_bytes += found.nbytes
        return found

    def accepting(self, state: int) -> bool:
        """Whether the output may end at `state`."""
        found = self.accepts.get(state)
        if found is None:
            found = self.accepts[state] = self.automaton.accepting(self.configs[state])
        return found


def _config(stacks: bytes) -> Config:
    """A configuration from the machine's stacks (int32: frames, rule, state, ... per stack, bottom first)."""
    words, out, k = np.frombuffer(stacks, dtype=np.int32).tolist(), [], 0
    while k < len(words):
        end = k + 1 + 2 * words[k]
        out.append(tuple(zip(words[k + 1:end:2], words[k + 2:end:2])))
        k = end
    return frozenset(out)
