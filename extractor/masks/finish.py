"""The shortest way to a complete output from any configuration, however deep its stack: the bytes that end
each open rule the shortest way, innermost first. A breadth-first search over configurations (exits.py)
gives up where every byte of a string or a free-form value branches; this reads each rule's automaton
instead: a byte costs 1, a call costs the callee's shortest string, and a rule's shortest string is a
fixpoint over rules (a call cycle never shortens one)."""

from __future__ import annotations

import heapq
import threading
import time
import weakref

from extractor.automata import Automaton, Config, Stack

MAX_STATES = 2048
"""Rule states one search may settle before it gives up (a counted rule's states are counts x states: a string
with a long `minLength` to go is left to the search over configurations, which gives up too). Each state reads
its 256-byte row once."""

def _shorter(a: bytes | None, b: bytes | None) -> bool:
    """`a` is a way and beats `b`: fewer bytes, ties to the smaller bytes."""
    return a is not None and (b is None or (len(a), a) < (len(b), b))


class Ways:
    """Shortest ways to the end of a rule from any of its states, per automaton, computed as asked for."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.whole: list[bytes | None] | None = None  # per rule: its shortest string from state 0
        self.memo: dict[tuple[int, int], bytes | None] = {}
        self.lock = threading.Lock()

    def finish(self, config: Config) -> bytes | None:
        """The fewest bytes that make the output complete from `config` (None: none found within bounds)."""
        best: bytes | None = None
        for stack in config:
            way = self.out_of(stack)
            if _shorter(way, best):
                best = way
        return best

    def out_of(self, stack: Stack) -> bytes | None:
        """Every frame ended, innermost first (a frame below the top sits at its return state)."""
        parts = [self.rest(rule, state) for rule, state in reversed(stack)]
        return None if None in parts else b"".join(parts)  # type: ignore[arg-type]

    def rest(self, rule: int, state: int) -> bytes | None:
        """The shortest bytes from `state` of `rule` to where the rule may end."""
        key = (rule, state)
        if key not in self.memo:
            if self.whole is None:
                self._fixpoint()
            self.memo[key] = self._search(rule, state, self.whole)  # type: ignore[arg-type]
        return self.memo[key]

    def _fixpoint(self, deadline: float | None = None) -> bool:
        """Each rule's shortest string. A shortest string never nests a rule inside itself, so its derivation
        is at most as deep as there are rules: that many passes (plus one that changes nothing) settle it. Past
        `deadline` (perf_counter seconds) it gives up and keeps nothing; whether it is settled."""
        with self.lock:
            if self.whole is not None:
                return True
            whole: list[bytes | None] = [None] * len(self.automaton.dfas)
            for _ in range(len(whole) + 1):
                changed = False
                for rule in reversed(range(len(whole))):  # rules are listed callers first: callees go first
                    if deadline is not None and time.perf_counter() > deadline:
                        return False
                    way = self._search(rule, 0, whole)
                    if _shorter(way, whole[rule]):
                        whole[rule], changed = way, True
                if not changed:
                    break
            self.whole = whole
            return True

    def _search(self, rule: int, start: int, whole: list[bytes | None]) -> bytes | None:
        """Dijkstra over the rule's states: bytes cost 1, calls their callee's known shortest string."""
        a = self.automaton
        rows, calls, accept = a.rows[rule], a.calls[rule], a.dfas[rule].accept
        queue: list[tuple[int, bytes, int]] = [(0, b"", start)]  # (length, path, state): ties to smaller bytes
        settled: set[int] = set()
        while queue and len(settled) < MAX_STATES:
            _, path, state = heapq.heappop(queue)
            if state in settled:
                continue
            if accept[state]:
                return path
            settled.add(state)
            row = rows[state]
            for target in set(row):  # each target once, by the smallest byte that reaches it
                if target >= 0 and target not in settled:
                    heapq.heappush(queue, (len(path) + 1, path + bytes([row.index(target)]), target))
            for callee, ret in calls[state]:
                inner = whole[callee]
                if inner is not None and ret not in settled:
                    heapq.heappush(queue, (len(path) + len(inner), path + inner, ret))
        return None


_WAYS: weakref.WeakKeyDictionary[Automaton, Ways] = weakref.WeakKeyDictionary()
_WAYS_LOCK = threading.Lock()


def _ways(automaton: Automaton) -> Ways:
    with _WAYS_LOCK:
        ways = _WAYS.get(automaton)
        if ways is None:
            ways = _WAYS[automaton] = Ways(automaton)
    return ways


def finishing_path(automaton: Automaton, config: Config) -> bytes | None:
    """The fewest bytes from `config` to a complete output, by the rules' shortest ways (see above)."""
    return _ways(automaton).finish(config)


def prepare_ways(automaton: Automaton, seconds: float) -> bool:
    """Work out the rules' shortest strings ahead of the first `finishing_path` (a server's compile thread), within
    `seconds` (one rule's search past them at most): whether they are settled (if not, the first call does it)."""
    return _ways(automaton)._fixpoint(time.perf_counter() + seconds)
