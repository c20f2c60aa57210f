"""A grammar -> one DFA per rule, linked by call edges into a pushdown automaton."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from extractor.automata.dfa import RuleDFA, build_dfa
from extractor.errors import InvalidSchemaError
from extractor.grammar import Grammar
from extractor.grammar.regex import refs

Frame = tuple[int, int]
"""(rule index, DFA state): one level of the stack."""

Stack = tuple[Frame, ...]
"""Frames from the root outwards; the last is where the next byte goes."""


@dataclass(frozen=True, eq=False)
class Automaton:
    """Rules as DFAs plus call edges: the whole grammar, ready to run over bytes."""

    names: tuple[str, ...]
    dfas: tuple[RuleDFA, ...]
    rows: tuple[tuple[tuple[int, ...], ...], ...]  # rows[r][s][b]: the DFA as Python ints, for scalar stepping
    calls: tuple[tuple[tuple[Frame, ...], ...], ...]  # calls[r][s]: ((callee, return state), ...)
    leaves: frozenset[int]  # rules that call nothing: their tables come from a vectorized walk
    fingerprints: tuple[str, ...]  # content hash of each rule together with everything it calls
    root: int

    def start(self) -> frozenset[Stack]:
        """The configurations before any byte."""
        return self.close([((self.root, 0),)])

    def close(self, stacks: list[Stack]) -> frozenset[Stack]:
        """Follow calls into rules and returns out of finished ones, consuming no byte."""
        out: set[Stack] = set()
        work = list(stacks)
        while work:
            st = work.pop()
            if st in out:
                continue
            out.add(st)
            r, s = st[-1]
            for callee, ret in self.calls[r][s]:
                work.append(st[:-1] + ((r, ret), (callee, 0)))
            if len(st) > 1 and self.dfas[r].accept[s]:
                work.append(st[:-1])
        return frozenset(out)

    def step(self, stacks: frozenset[Stack], byte: int) -> frozenset[Stack]:
        """The configurations after one more byte (empty: the byte is not allowed)."""
        nxt = []
        for st in stacks:
            r, s = st[-1]
            t = self.rows[r][s][byte]
            if t >= 0:
                nxt.append(st[:-1] + ((r, t),))
        return self.close(nxt) if nxt else frozenset()

    def accepting(self, stacks: frozenset[Stack]) -> bool:
        """True when the output may end here."""
        return any(len(st) == 1 and self.dfas[st[0][0]].accept[st[0][1]] for st in stacks)


def build_automaton(grammar: Grammar) -> Automaton:
    """Compile every rule reachable from the root, refusing grammars that cannot run."""
    reachable = _reachable(grammar)
    dfas = {n: build_dfa(grammar.rules[n]) for n in reachable}
    productive = _productive(dfas)
    if grammar.root not in productive:
        raise InvalidSchemaError("the schema admits no JSON value at all")
    names = tuple(n for n in reachable if n in productive)
    for n in names:  # rebuild only rules that call a rule that can never finish
        if any(c not in productive for state in dfas[n].calls for c, _ in state):
            dfas[n] = build_dfa(grammar.rules[n], productive)
    index = {n: i for i, n in enumerate(names)}
    _check_left_recursion(names, dfas)
    calls = tuple(tuple(tuple((index[c], ret) for c, ret in state) for state in dfas[n].calls) for n in names)
    rows = tuple(tuple(tuple(int(x) for x in row) for row in dfas[n].trans.tolist()) for n in names)
    return Automaton(
        names=names, dfas=tuple(dfas[n] for n in names), rows=rows, calls=calls,
        leaves=frozenset(index[n] for n in names if not any(dfas[n].calls)),
        fingerprints=_fingerprints(names, dfas), root=index[grammar.root])


def _reachable(grammar: Grammar) -> list[str]:
    seen, work = [grammar.root], [grammar.root]
    while work:
        for callee in sorted(refs(grammar.rules[work.pop()])):
            if callee not in grammar.rules:
                raise InvalidSchemaError(f"grammar rule {callee!r} is called but not defined")
            if callee not in seen:
                seen.append(callee)
                work.append(callee)
    return seen


def _productive(dfas: dict[str, RuleDFA]) -> set[str]:
    """Rules that can finish: accepting states reachable through bytes and calls to rules that can."""
    productive: set[str] = set()
    while True:
        grown = {n for n, d in dfas.items() if n not in productive and _can_finish(d, productive)}
        if not grown:
            return productive
        productive |= grown


def _can_finish(dfa: RuleDFA, productive: set[str]) -> bool:
    seen, work = {0}, [0]
    while work:
        s = work.pop()
        if dfa.accept[s]:
            return True
        nxt = [int(t) for t in np.unique(dfa.trans[s]) if t >= 0]
        nxt += [ret for callee, ret in dfa.calls[s] if callee in productive]
        for t in nxt:
            if t not in seen:
                seen.add(t)
                work.append(t)
    return False


def _check_left_recursion(names: tuple[str, ...], dfas: dict[str, RuleDFA]) -> None:
    """A rule that can call itself before reading a byte would loop forever: refuse it."""
    nullable = {n for n in names if dfas[n].accept[0]}
    changed = True
    while changed:
        changed = False
        for n in names:
            if n not in nullable and _entry_states(dfas[n], nullable) & set(np.flatnonzero(dfas[n].accept).tolist()):
                nullable.add(n)
                changed = True
    graph = {n: {c for s in _entry_states(dfas[n], nullable) for c, _ in dfas[n].calls[s]} for n in names}
    state: dict[str, int] = {}

    def visit(n: str, path: list[str]) -> None:
        state[n] = 1
        for c in graph[n]:
            if state.get(c) == 1:
                cycle = " -> ".join(path[path.index(c):] + [c])
                raise InvalidSchemaError(f"the schema refers to itself without consuming input: {cycle}")
            if c not in state:
                visit(c, path + [c])
        state[n] = 2

    for n in names:
        if n not in state:
            visit(n, [n])


def _entry_states(dfa: RuleDFA, nullable: set[str]) -> set[int]:
    """States reachable from the start through calls to rules that may read nothing."""
    seen, work = {0}, [0]
    while work:
        for callee, ret in dfa.calls[work.pop()]:
            if callee in nullable and ret not in seen:
                seen.add(ret)
                work.append(ret)
    return seen


def _fingerprints(names: tuple[str, ...], dfas: dict[str, RuleDFA]) -> tuple[str, ...]:
    """Hash each rule with its callees, renamed by discovery order, so equal rules share caches."""
    out = []
    for name in names:
        order, work = [name], [name]
        while work:
            for state in dfas[work.pop(0)].calls:
                for callee, _ in state:
                    if callee not in order:
                        order.append(callee)
                        work.append(callee)
        h = hashlib.sha256()
        for n in order:
            d = dfas[n]
            h.update(d.trans.tobytes() + d.accept.tobytes())
            h.update(repr([[(order.index(c), t) for c, t in st] for st in d.calls]).encode())
        out.append(h.hexdigest()[:32])
    return tuple(out)
