"""The pushdown automaton determinized on demand: configurations numbered as they are met, with
their successors kept in a dense int32 table, so that a native walk can follow a configuration
through thousands of trie nodes and return to Python only for a transition not yet computed."""

from __future__ import annotations

from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

import numpy as np

if TYPE_CHECKING:
    from extractor.automata.pda import Automaton, Config, Frame

DEAD = -1
"""No stack survives the byte."""

UNKNOWN = -2
"""Some stack may survive the byte; `resolve` has not computed where it goes yet."""

BOTTOM_ENDS = 1
"""Flag: a stack is down to its bottom frame, and that frame's rule may end here."""


class ConfigDFA:
    """Configurations of one automaton as ints: `trans[c, byte]` is the successor's number, DEAD
    or UNKNOWN. Bytes no top frame takes are DEAD from the start, so a walk only stops at bytes
    some stack can take."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.live: dict[int, list[int] | dict[int, int]] = {}  # per rule and state: bytes taken, as a 256-bit int
        self.ids: dict[Config, int] = {}
        self.configs: list[Config] = []
        self.trans = np.full((64, 256), UNKNOWN, dtype=np.int32)
        self.flags = np.zeros(64, dtype=np.uint8)

    def id(self, config: Config) -> int:
        """The number of a configuration, adding it on first sight (bytes no top frame takes: DEAD)."""
        cid = self.ids.get(config)
        if cid is not None:
            return cid
        cid = len(self.configs)
        if cid == len(self.flags):
            self.trans = np.concatenate([self.trans, np.full_like(self.trans, UNKNOWN)])
            self.flags = np.concatenate([self.flags, np.zeros_like(self.flags)])
        self.ids[config] = cid
        self.configs.append(config)
        live = 0
        for st in config:
            live |= self._live(st[-1])
        self.trans[cid] = DEAD_ROWS[live] if live in DEAD_ROWS else _dead_row(live)
        dfas = self.automaton.dfas
        self.flags[cid] = BOTTOM_ENDS if any(len(st) == 1 and dfas[st[0][0]].accept[st[0][1]] for st in config) else 0
        return cid

    def resolve(self, cid: int, byte: int) -> int:
        """Compute and record configuration `cid`'s successor on `byte`."""
        nxt = self.automaton.step(self.configs[cid], byte)
        t = self.id(nxt) if nxt else DEAD
        self.trans[cid, byte] = t
        return t

    def step(self, cid: int, byte: int) -> int:
        t = int(self.trans[cid, byte])
        return self.resolve(cid, byte) if t == UNKNOWN else t

    def _live(self, frame: Frame) -> int:
        rule, state = frame
        lives = self.live.get(rule)
        if lives is None:  # every state of a plain rule at once; a counted rule's states as met
            dfa = self.automaton.dfas[rule]
            lives = self.live[rule] = _bits(dfa.trans >= 0) if isinstance(dfa.trans, np.ndarray) else {}
        if isinstance(lives, dict):
            if state not in lives:
                lives[state] = _bits(np.asarray(self.automaton.dfas[rule].trans[state])[None] >= 0)[0]
            return lives[state]
        return lives[state]


def _bits(rows: np.ndarray) -> list[int]:
    """Each row of a (n, 256) bool array as a 256-bit int."""
    return [int.from_bytes(row.tobytes(), "little") for row in np.packbits(rows, axis=1, bitorder="little")]


DEAD_ROWS: dict[int, np.ndarray] = {}
"""An int32 row per set of live bytes (a 256-bit int): UNKNOWN where live, DEAD elsewhere."""


def _dead_row(live: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(live.to_bytes(32, "little"), dtype=np.uint8), bitorder="little")
    row = DEAD_ROWS[live] = np.where(bits.astype(bool), UNKNOWN, DEAD).astype(np.int32)
    if len(DEAD_ROWS) > 4096:
        DEAD_ROWS.pop(next(iter(DEAD_ROWS)))
    return row


CAPACITY = 1 << 13
"""Configurations kept per automaton (1 KiB each) before its table starts afresh."""

_DFAS: WeakKeyDictionary[Automaton, ConfigDFA] = WeakKeyDictionary()


def config_dfa(automaton: Automaton) -> ConfigDFA:
    """The automaton's configuration DFA, replaced by a fresh one once past CAPACITY (a walk in
    flight keeps the one it started with, so its numbers stay valid)."""
    dfa = _DFAS.get(automaton)
    if dfa is None or len(dfa.configs) > CAPACITY:
        dfa = _DFAS[automaton] = ConfigDFA(automaton)
    return dfa
