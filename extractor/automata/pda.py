"""A grammar -> one DFA per rule, linked by call edges into a pushdown automaton."""

from __future__ import annotations

import hashlib
import threading
import weakref
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any
from dataclasses import dataclass, field

import numpy as np

from extractor.lang import dfa as lang_dfa
from extractor.lang.budget import Budget, building, metered
from extractor.lang.collector import collector_paused
from extractor.automata.counted import CountedCalls, CountedDFA, CountedRows, CountedTooComplex, build_counted
from extractor.lang.dfa import RuleDFA, build_dfa, live_mask
from extractor.errors import InvalidSchemaError, UnsatisfiableSchemaError, UnsupportedSchemaError
from extractor.grammar import Grammar
from extractor.lang.regex import Both, Counted, Minus, Node, Substrings, digest, refs

Frame = tuple[int, int]
"""(rule index, DFA state): one level of the stack."""

Stack = tuple[Frame, ...]
"""Frames from the root outwards; the last is where the next byte goes."""

Config = frozenset[Stack]
"""Every stack the bytes so far may have left (the automaton is nondeterministic across rules)."""


@dataclass(frozen=True, eq=False)
class Automaton:
    """Rules as DFAs plus call edges: the whole grammar, ready to run over bytes."""

    names: tuple[str, ...]
    dfas: tuple[RuleDFA | CountedDFA, ...]
    rows: tuple  # rows[r][s][b]: the DFA as Python ints, for scalar stepping
    calls: Calls  # calls[r][s]: ((callee, return state), ...)
    leaves: frozenset[int]  # rules that call nothing: their tables come from a vectorized walk
    fingerprints: Fingerprints  # content hash of each rule together with everything it calls
    root: int
    distinct: frozenset[int] = frozenset()
    """Rules whose strings must not repeat within their enclosing object or array (`Grammar.distinct`),
    kept only where no prefix runs out of fresh strings (see `endless`): there a matcher can forbid a
    repeat without ever leaving the model no way on."""

    unique: frozenset[int] = frozenset()
    """Rules that read the `[` of a `uniqueItems` array the matcher keeps apart by value (`Grammar.unique`)."""

    private: frozenset[int] = frozenset()
    """Rules that copy from a source text, and every rule calling one: their tables serve this automaton only
    (another text makes other rules), so they are kept in `own`, which goes with it, not in a shared cache."""

    own: dict[Any, Any] = field(default_factory=dict, repr=False)
    """Tables of `private` rules, built as masks need them (bounded by the states the output visits)."""

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
        """True when the output may end here (a loop, not a generator: every mask asks)."""
        for st in stacks:
            if len(st) == 1 and self.dfas[st[0][0]].accept[st[0][1]]:
                return True
        return False


@collector_paused
def build_automaton(grammar: Grammar) -> Automaton:
    """Compile every rule reachable from the root, refusing grammars that cannot run or pass their budget."""
    with metered(Budget(grammar.max_states, grammar.timeout)):
        return _build_automaton(grammar)


def _build_automaton(grammar: Grammar) -> Automaton:
    reachable, dfas = _reachable(grammar)
    while True:  # rebuild rules that call a rule that can never finish, until nothing changes
        productive = _productive(dfas)
        stale = [n for n in reachable if n in productive and not _shape(dfas[n]).called <= productive]
        if not stale:
            break
        for n in stale:
            dfas[n] = _build(n, grammar.rules[n], productive)
    if grammar.root not in productive:
        raise UnsatisfiableSchemaError("the schema admits no JSON value at all")
    names = tuple(n for n in reachable if n in productive)
    index = {n: i for i, n in enumerate(names)}
    _check_left_recursion(names, dfas)
    rows = tuple(CountedRows(d) if isinstance(d, CountedDFA) else d.rows for d in (dfas[n] for n in names))
    return Automaton(
        names=names, dfas=tuple(dfas[n] for n in names), rows=rows, calls=Calls([dfas[n] for n in names], index),
        leaves=frozenset(index[n] for n in names if not _shape(dfas[n]).sites),
        fingerprints=Fingerprints(names, {n: dfas[n] for n in names}), root=index[grammar.root],
        distinct=_distinct(grammar, index, dfas),
        unique=frozenset(index[n] for n in grammar.unique if n in index),
        private=frozenset(index[n] for n in _private(grammar, names, dfas)))


def _private(grammar: Grammar, names: tuple[str, ...], dfas: dict[str, RuleDFA | CountedDFA]) -> set[str]:
    """The rules that copy from a source text and those that call one, directly or not."""
    private = {n for n in names if _quotes_text(grammar.rules[n])}
    grown = True
    while grown:
        more = {n for n in names if n not in private and _shape(dfas[n]).called & private}
        private |= more
        grown = bool(more)
    return private


class Calls:
    """`calls[r][s]`: the calls of rule r at state s as (callee's index, return state); each rule's made when first
    read (the first mask is walked in C, which numbers call edges itself: most rules are never stepped in Python)."""

    __slots__ = ("dfas", "index", "made")

    def __init__(self, dfas: list[RuleDFA | CountedDFA], index: dict[str, int]) -> None:
        self.dfas, self.index = dfas, index
        self.made: list[Sequence[tuple[tuple[int, int], ...]] | None] = [None] * len(dfas)

    def __getitem__(self, rule: int) -> Sequence[tuple[tuple[int, int], ...]]:
        made = self.made[rule]
        if made is None:
            dfa = self.dfas[rule]
            made = self.made[rule] = (CountedCalls(dfa, self.index) if isinstance(dfa, CountedDFA)
                                      else _indexed(dfa, self.index))
        return made

    def __len__(self) -> int:
        return len(self.dfas)


def _indexed(dfa: RuleDFA, index: dict[str, int]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Each state's calls as (callee's index, return state)."""
    out: list[tuple[tuple[int, int], ...]] = [()] * dfa.size
    for state, callee, ret in dfa.sites:
        out[state] += ((index[callee], ret),)
    return tuple(out)


_RULE_DFAS: OrderedDict[tuple[bytes, frozenset[str] | None], RuleDFA | CountedDFA] = OrderedDict()
_RULE_LOCK = threading.Lock()
RULE_DFA_CACHE_SIZE = 512
"""Rule automata built once per process, by body and by which of its callees can finish: strings, formats,
numbers and keys recur across schemas, and a target with `Verbatim` fields is recompiled for every document
with only its verbatim rules changed. Rules quoting a source text are not kept (each document has its own)."""


def _build(name: str, node: Node, productive: set[str] | None = None) -> RuleDFA | CountedDFA:
    kept = not _quotes_text(node)
    callees = refs(node) if productive is not None else frozenset()  # only a rebuild (callees dropped) needs them
    key = (digest(node) if kept else b"", frozenset(callees & productive) if callees and productive is not None
           else None)
    if kept:
        with _RULE_LOCK:  # grammars are compiled from several threads in a serving engine
            hit = _RULE_DFAS.get(key)
            if hit is not None:
                _RULE_DFAS.move_to_end(key)
                return hit
    with building(name):
        dfa = _construct(name, node, productive)
    if kept:
        with _RULE_LOCK:
            _RULE_DFAS[key] = dfa
            if len(_RULE_DFAS) > RULE_DFA_CACHE_SIZE:
                _RULE_DFAS.popitem(last=False)
    return dfa


def _quotes_text(node: Node) -> bool:
    """Whether a rule body copies from a source text (`Substrings`: a whole body, or a part of its `Both`)."""
    while isinstance(node, (Minus, Counted)):
        node = node.item if isinstance(node, Minus) else node.body
    return isinstance(node, Substrings) or isinstance(node, Both) and any(isinstance(p, Substrings)
                                                                          for p in node.items)


def _construct(name: str, node: Node, productive: set[str] | None) -> RuleDFA | CountedDFA:
    if not isinstance(node, Counted):
        dfa: RuleDFA | CountedDFA = build_dfa(node, productive, table=True)
    else:
        try:
            dfa = build_counted(node, productive)
        except CountedTooComplex as exc:
            raise UnsupportedSchemaError("maxLength" if node.unit is not None else "maxItems", "",
                                         f"rule {name!r}: {exc}") from None
    return dfa


def _distinct(grammar: Grammar, index: dict[str, int], dfas: dict[str, RuleDFA | CountedDFA]) -> frozenset[int]:
    """The distinct rules a matcher can keep apart; unique items it cannot are refused (keys stay free)."""
    out = set()
    for name, pointer in grammar.distinct.items():
        if name not in index:
            continue
        if endless(dfas[name]):
            out.add(index[name])
        elif pointer is not None:
            raise UnsupportedSchemaError(pointer.rsplit("/", 1)[-1], pointer, "over strings of a bounded language, "
                                         "which the matcher cannot keep apart (a repeat could become the only way on)")
    return frozenset(out)


def endless(dfa: RuleDFA | CountedDFA) -> bool:
    """True when every live state short of the end still has infinitely many completions (it reaches a cycle
    on the way to acceptance): however many strings were used, a fresh one can always be finished. States
    with finitely many completions are peeled off from the end (those whose live successors are all peeled);
    only states with no successor at all may be among them."""
    if isinstance(dfa, CountedDFA) or any(dfa.calls):
        return False
    known = _ENDLESS.get(dfa)
    if known is None:
        known = _ENDLESS[dfa] = _endless(dfa)
    return known


_ENDLESS: weakref.WeakKeyDictionary[RuleDFA, bool] = weakref.WeakKeyDictionary()
"""`endless` per rule automaton (they are shared across schemas: key languages recur)."""


def _endless(dfa: RuleDFA) -> bool:
    """Peeling finite states from the end stops at once exactly when every live state with a live successor
    has one that is not a dead end: the dead ends are then the only finite states."""
    if lang_dfa.kernel is not None:
        return lang_dfa.kernel.endless(np.ascontiguousarray(dfa.trans, dtype=np.int32),
                                           dfa.accept.astype(np.uint8), dfa.size, dfa.trimmed)
    trans = dfa.trans
    live = live_mask(trans, dfa.accept)
    moves = trans >= 0
    to_live = moves & live[trans]  # (a -1 target reads the last state's flag: masked by `moves`)
    onward = to_live.any(axis=1)
    to_onward = moves & (live & onward)[trans]
    return bool(np.all(~(live & onward) | to_onward.any(axis=1)))


def _shape(dfa: RuleDFA | CountedDFA) -> RuleDFA:
    """The states and calls of a rule with any counter left out."""
    return dfa.base if isinstance(dfa, CountedDFA) else dfa


def _reachable(grammar: Grammar) -> tuple[list[str], dict[str, RuleDFA | CountedDFA]]:
    """The rules the root reaches through the calls of their automata, each built (calls a dead branch makes
    are gone from its automaton: those rules are not built at all)."""
    order, seen, work = [grammar.root], {grammar.root}, [grammar.root]  # `seen` a set: thousands of rules
    dfas = {}
    while work:
        name = work.pop()
        dfas[name] = _build(name, grammar.rules[name])
        for callee in sorted(_shape(dfas[name]).called):
            if callee not in grammar.rules:
                raise InvalidSchemaError(f"grammar rule {callee!r} is called but not defined")
            if callee not in seen:
                seen.add(callee)
                order.append(callee)
                work.append(callee)
    return order, dfas


def _productive(dfas: dict[str, RuleDFA | CountedDFA]) -> set[str]:
    """Rules that can finish: accepting states reachable through bytes and calls to rules that can.
    A counted rule also needs its count satisfiable (assuming its callees finish, which the rebuild
    loop in `build_automaton` makes true)."""
    productive: set[str] = set()
    waiting: list[str] = []
    for name in _callees_first(dfas):  # a rule's callees mostly decided before it: the quick test applies
        if _finishes(dfas[name], productive):
            productive.add(name)
        else:
            waiting.append(name)
    callers: dict[str, list[str]] = {}  # then those left (a cycle of calls, or a rule that cannot finish) again,
    for name in waiting:  # each time one of their callees turns out to finish
        for callee in _shape(dfas[name]).called:
            callers.setdefault(callee, []).append(name)
    work = waiting
    while work:
        name = work.pop()
        if name not in productive and _finishes(dfas[name], productive):
            productive.add(name)
            work.extend(callers.get(name, ()))
    return productive


def _finishes(dfa: RuleDFA | CountedDFA, productive: set[str]) -> bool:
    return _shape(dfa).finishes(productive) and (
        not isinstance(dfa, CountedDFA) or bool(dfa.reach(np.array([0]), np.array([0]))[0]))


def _callees_first(dfas: dict[str, RuleDFA | CountedDFA]) -> list[str]:
    """The rules in post-order of their calls: each after the rules it calls (but along a cycle of calls)."""
    order: list[str] = []
    done: set[str] = set()
    for top in dfas:
        if top in done:
            continue
        done.add(top)
        stack = [(top, iter(_shape(dfas[top]).called))]
        while stack:
            name, callees = stack[-1]
            for callee in callees:
                if callee not in done and callee in dfas:
                    done.add(callee)
                    stack.append((callee, iter(_shape(dfas[callee]).called)))
                    break
            else:
                stack.pop()
                order.append(name)
    return order


def _check_left_recursion(names: tuple[str, ...], counted_dfas: dict[str, RuleDFA | CountedDFA]) -> None:
    """A rule that can call itself before reading a byte would loop forever: refuse it."""
    dfas = {n: _shape(d) for n, d in counted_dfas.items()}
    calling = [n for n in names if dfas[n].calls[0]]  # a rule with no call at its start has no first call, and
    if not calling:  # is nullable just when it accepts at once
        return  # no rule calls before its first byte: every call follows a byte

    def first_calls(nullable: set[str]) -> dict[str, set[str]]:
        return {n: {c for s in _entry_states(dfas[n], nullable) for c, _ in dfas[n].calls[s]} for n in calling}

    if _cycle(first_calls(set(names))) is None:
        return  # none even with every callee taken as possibly reading nothing: which ones do is not needed
    nullable = {n for n in names if dfas[n].accept[0]}
    changed = True
    while changed:
        changed = False
        for n in calling:
            if n not in nullable and any(dfas[n].accept[s] for s in _entry_states(dfas[n], nullable)):
                nullable.add(n)
                changed = True
    cycle = _cycle(first_calls(nullable))
    if cycle is not None:
        raise InvalidSchemaError(f"the schema refers to itself without consuming input: {' -> '.join(cycle)}")


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle of `graph` (its first rule repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for top in graph:
        if top in state:
            continue
        path, stack = [top], [iter(graph[top])]
        state[top] = 1
        while stack:
            for c in stack[-1]:
                if state.get(c) == 1:
                    return path[path.index(c):] + [c]
                if c not in state:
                    state[c] = 1
                    path.append(c)
                    stack.append(iter(graph.get(c, ())))
                    break
            else:
                state[path.pop()] = 2
                stack.pop()
    return None


def _entry_states(dfa: RuleDFA, nullable: set[str]) -> set[int]:
    """States reachable from the start through calls to rules that may read nothing."""
    seen, work = {0}, [0]
    while work:
        for callee, ret in dfa.calls[work.pop()]:
            if callee in nullable and ret not in seen:
                seen.add(ret)
                work.append(ret)
    return seen


class Fingerprints:
    """`fingerprints[rule]`: a hash of the rule with everything it calls, callees renamed by discovery order, so
    equal rules share table caches. Each is computed when a table of its rule is first asked for (a compile
    pays for none of them; a generation for the rules it visits)."""

    def __init__(self, names: tuple[str, ...], dfas: dict[str, RuleDFA | CountedDFA]) -> None:
        self.names, self.dfas = names, dfas
        self.made: list[str | None] = [None] * len(names)

    def __getitem__(self, rule: int) -> str:
        made = self.made[rule]
        if made is None:
            made = self.made[rule] = self._hash(self.names[rule])
        return made

    def __len__(self) -> int:
        return len(self.names)

    def digest_large(self, min_bytes: int) -> None:
        """Digest now each rule whose table holds at least `min_bytes`: at compile, where building it cost far
        more, instead of in the first mask. The C constructions made most of these digests already, from their
        rows over byte classes (`lang.dfa.DIGEST_AT_BUILD`); the others read the whole table."""
        for d in self.dfas.values():
            if isinstance(d, RuleDFA) and d.trans.nbytes >= min_bytes:
                _ = d.signature  # a cached property: kept on the automaton

    def _hash(self, name: str) -> str:
        order, at = [name], {name: 0}  # breadth first: `order` is the queue
        for n in order:
            for callee in _shape(self.dfas[n]).site_shape[1]:
                if callee not in at:
                    at[callee] = len(order)
                    order.append(callee)
        parts = []
        for n in order:  # one hash call over the joined parts: each rule's own are kept on its automaton
            d = self.dfas[n]
            parts.append(d.signature)
            callees = _shape(d).site_shape[1]
            if callees:
                parts.append(array("i", [at[c] for c in callees]).tobytes())
        return hashlib.sha256(b"".join(parts)).hexdigest()[:32]
