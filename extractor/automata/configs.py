"""The pushdown automaton determinized on demand, for walks in Python: configurations numbered as
they are met, each successor computed once (the C kernel has its own, masks/_kernel.c)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

if TYPE_CHECKING:
    from extractor.automata.pda import Automaton, Config

DEAD = -1
"""No stack survives the byte."""


class ConfigDFA:
    """Configurations of one automaton as ints, with successors remembered per (number, byte)."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.ids: dict[Config, int] = {}
        self.configs: list[Config] = []
        self.bottom_ends: list[bool] = []  # a stack is down to its bottom frame, whose rule may end here
        self.steps: dict[int, int] = {}  # number * 256 + byte -> successor
        self.lock = threading.Lock()

    def id(self, config: Config) -> int:
        """The number of a configuration, adding it on first sight."""
        cid = self.ids.get(config)
        if cid is None:
            with self.lock:  # numbered once even when threads meet it together
                cid = self.ids.get(config)
                if cid is None:
                    dfas = self.automaton.dfas
                    self.bottom_ends.append(any(len(st) == 1 and dfas[st[0][0]].accept[st[0][1]] for st in config))
                    self.configs.append(config)
                    cid = self.ids[config] = len(self.configs) - 1
        return cid

    def step(self, cid: int, byte: int) -> int:
        """The successor's number, or DEAD."""
        t = self.steps.get(cid * 256 + byte)
        if t is None:
            nxt = self.automaton.step(self.configs[cid], byte)
            t = self.steps[cid * 256 + byte] = self.id(nxt) if nxt else DEAD
        return t


CAPACITY = 1 << 16
"""Configurations kept per automaton before its numbering starts afresh."""

_DFAS: WeakKeyDictionary[Automaton, ConfigDFA] = WeakKeyDictionary()


def config_dfa(automaton: Automaton) -> ConfigDFA:
    """The automaton's configuration DFA, replaced by a fresh one once past CAPACITY (a walk in
    flight keeps the one it started with, so its numbers stay valid)."""
    dfa = _DFAS.get(automaton)
    if dfa is None or len(dfa.configs) > CAPACITY:
        dfa = _DFAS[automaton] = ConfigDFA(automaton)
    return dfa
