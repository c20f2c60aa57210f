"""The shortest way to a complete output from any configuration, however deep its stack: the bytes that end
each open rule the shortest way, innermost first. A breadth-first search over configurations (exits.py)
gives up where every byte of a string or a free-form value branches; this reads each rule's automaton
instead: a byte costs 1, a call costs the callee's shortest string, and a rule's shortest string is a
fixpoint over rules (a call cycle never shortens one)."""

from __future__ import annotations

import heapq
import threading
import weakref

from extractor.automata import Automaton, Config, Stack

MAX_STATES = 2048
"""Rule states one search may settle before it gives up (a counted rule's states are counts x states: a string
with a long `minLength` to go is left to the search over configurations, which gives up too). Each state reads
its 256-byte row once."""

Way = tuple[int, bytes]
"""(length, bytes) of a shortest way; length is len(bytes), kept for comparisons."""


class Ways:
    """Shortest ways to the end of a rule from any of its states, per automaton, computed as asked for."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.whole: list[Way | None] | None = None  # per rule: its shortest string from state 0
        self.memo: dict[tuple[int, int], Way | None] = {}
        self.lock = threading.Lock()

    def finish(self, config: Config) -> bytes | None:
        """The fewest bytes that make the output complete from `config` (None: none found within bounds)."""
        best: Way | None = None
        for stack in config:
            way = self.out_of(stack)
            if way is not None and (best is None or way < best):
                best = way
        return None if best is None else best[1]

    def out_of(self, stack: Stack) -> Way | None:
        """Every frame ended, innermost first (a frame below the top sits at its return state)."""
        parts = []
        for rule, state in reversed(stack):
            way = self.rest(rule, state)
            if way is None:
                return None
            parts.append(way[1])
        path = b"".join(parts)
        return len(path), path

    def rest(self, rule: int, state: int) -> Way | None:
        """The shortest bytes from `state` of `rule` to where the rule may end."""
        key = (rule, state)
        if key not in self.memo:
            if self.whole is None:
                self._fixpoint()
            self.memo[key] = self._search(rule, state, self.whole)
        return self.memo[key]

    def _fixpoint(self) -> None:
        with self.lock:
            if self.whole is not None:
                return
            whole: list[Way | None] = [None] * len(self.automaton.dfas)
            changed = True
            while changed:  # each pass may shorten rules whose callees got shorter
                changed = False
                for rule in reversed(range(len(whole))):  # rules are listed callers first: callees go first
                    way = self._search(rule, 0, whole)
                    if way is not None and (whole[rule] is None or way < whole[rule]):
                        whole[rule], changed = way, True
            self.whole = whole

    def _search(self, rule: int, start: int, whole: list[Way | None]) -> Way | None:
        """Dijkstra over the rule's states: bytes cost 1, calls their callee's known shortest string."""
        a = self.automaton
        rows, calls, accept = a.rows[rule], a.calls[rule], a.dfas[rule].accept
        queue: list[tuple[int, bytes, int]] = [(0, b"", start)]
        settled: set[int] = set()
        while queue and len(settled) < MAX_STATES:
            cost, path, state = heapq.heappop(queue)
            if state in settled:
                continue
            if accept[state]:
                return cost, path
            settled.add(state)
            row = rows[state]
            for target in set(row):  # each target once, by the smallest byte that reaches it
                if target >= 0 and target not in settled:
                    heapq.heappush(queue, (cost + 1, path + bytes([row.index(target)]), target))
            for callee, ret in calls[state]:
                inner = whole[callee]
                if inner is not None and ret not in settled:
                    heapq.heappush(queue, (cost + inner[0], path + inner[1], ret))
        return None


_WAYS: weakref.WeakKeyDictionary[Automaton, Ways] = weakref.WeakKeyDictionary()
_WAYS_LOCK = threading.Lock()


def finishing_path(automaton: Automaton, config: Config) -> bytes | None:
    """The fewest bytes from `config` to a complete output, by the rules' shortest ways (see above)."""
    with _WAYS_LOCK:
        ways = _WAYS.get(automaton)
        if ways is None:
            ways = _WAYS[automaton] = Ways(automaton)
    return ways.finish(config)
