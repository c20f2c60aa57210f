"""A compiled grammar's configurations numbered once, so that a generation's place is an integer: a token's step
is one dict lookup keyed by (configuration id, token), the packed mask row of an id is kept beside it, and
rolling back is truncating a list of ids. Requests of one schema share what any of them walked before."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from extractor.automata import Config

if TYPE_CHECKING:
    from extractor.masks.matcher import CompiledGrammar

MAX_STATES = 1 << 16
"""Configurations numbered per table before the grammar starts a new one (generations already under way keep
theirs, so no id they hold is ever reused)."""
MAX_STEPS = 1 << 20
"""(configuration, token) steps remembered per table; forgotten all at once past this (each is redone by a walk)."""
ROW_BYTES = 64 << 20
"""Bytes of packed rows kept per table; forgotten all at once past this (each is read back off the mask cache)."""

NOT_ALLOWED = -1
"""The step of a token the grammar forbids there."""


class States:
    """Configurations by id, steps by (id, token), packed rows and acceptance by id; safe to share between
    threads (dict and list operations are atomic; numbering a new configuration takes the lock)."""

    def __init__(self, grammar: CompiledGrammar) -> None:
        self.grammar = grammar
        self.size = grammar.vocab.size
        self.tokens = grammar.vocab.tokens
        self.ends = grammar.vocab.eos_ids
        self.configs: list[Config] = []
        self.ids: dict[Config, int] = {}
        self.steps: dict[int, int] = {}
        self.rows: dict[int, np.ndarray] = {}
        self.row_bytes = 0
        self.accepts: dict[int, bool] = {}
        self.lock = threading.Lock()

    @property
    def full(self) -> bool:
        return len(self.configs) >= MAX_STATES

    def id(self, config: Config) -> int:
        """The configuration's id, numbered on first sight."""
        found = self.ids.get(config)
        if found is None:
            with self.lock:
                found = self.ids.get(config)
                if found is None:
                    found = self.ids[config] = len(self.configs)
                    self.configs.append(config)
        return found

    def step(self, state: int, token: int) -> int:
        """The id after `token`'s bytes from `state` (not EOS: the matcher ends there), or NOT_ALLOWED."""
        key = state * self.size + token
        found = self.steps.get(key)
        if found is None:
            data = self.tokens[token] if 0 <= token < self.size else b""
            config = self.grammar.walk(self.configs[state], data) if data else frozenset()
            found = self.id(config) if config else NOT_ALLOWED
            if len(self.steps) >= MAX_STEPS:
                self.steps.clear()
            self.steps[key] = found
        return found

    def row(self, state: int) -> np.ndarray:
        """The mask of `state` packed 32 tokens per int32 word, EOS set where it accepts; never mutate it."""
        found = self.rows.get(state)
        if found is None:
            found = self.grammar.bitmask(self.configs[state])
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
            found = self.accepts[state] = self.grammar.automaton.accepting(self.configs[state])
        return found
