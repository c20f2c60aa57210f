"""Counted repetition: a DFA with a counter kept beside its state, so that `maxLength: 10000` or
`maxItems: 1000` costs a few states and a small table instead of ten thousand unrolled copies.

A state is the integer `count * n + s` (`s` a state of the base DFA, `n` its size). Each byte
or call either adds one to the count or not. A step is allowed only if the count can still end
inside [lo, hi] from where it lands, so a masked walk never paints itself into a corner: that is
what `reach` decides, from the exact set of counts each base state can still add on its way to
acceptance (eventually periodic, so stored as a prefix plus one period).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from extractor.lang import dfa as lang_dfa
from extractor.lang.budget import clock
from extractor.lang.dfa import RuleDFA, build_dfa, live_mask, pairs_product, part
from extractor.lang.regex import Counted, lit, refs, seq, star

MAX_TABLE_CELLS = 1 << 22
"""Most (count, state) cells a feasibility table may hold (16 MiB) before the rule is refused."""
MAX_COUNTED_STATES = 4096
"""Most states of a counted rule's body: its reachability closure is dense (states squared), so a larger
body is refused instead of taking minutes."""


class CountedTooComplex(ValueError):
    """The feasibility table would exceed MAX_TABLE_CELLS before its periodic tail shows."""


@dataclass(frozen=True, eq=False)
class CountedDFA:
    """A base DFA whose byte steps (`inc`) or calls (to `callees`) are counted into [lo, hi]."""

    base: RuleDFA
    inc: np.ndarray  # (n, 256) bool: the byte starts a counted unit
    callees: frozenset[str]  # a call to one of these is one counted unit (array elements)
    lo: int
    hi: int | None  # None: no upper bound; the count then saturates at lo
    cum: np.ndarray  # (K + 1, n) int32: cumulative feasibility table, see `_tables`
    start: int  # first count of the periodic tail (0 when there is none)
    period: int  # 0: no periodic tail was needed (the table covers every count up to hi)

    @property
    def n(self) -> int:
        return self.base.size

    @property
    def trans(self) -> _Trans:
        return _Trans(self)

    @property
    def accept(self) -> _Accept:
        return _Accept(self)

    @property
    def calls(self) -> _Calls:
        return _Calls(self)

    @cached_property
    def digest(self) -> bytes:
        """Content hash: equal digests mean equal languages (given equal callees)."""
        h = hashlib.sha256(self.base.trans.tobytes() + self.base.accept.tobytes() + self.inc.tobytes())
        h.update(repr((sorted(self.callees), self.lo, self.hi, self.base.calls)).encode())
        return h.digest()

    @cached_property
    def signature(self) -> bytes:
        """The rule's part of a fingerprint: its counter's digest, then its base's."""
        return self.digest + self.base.signature

    def split(self, state: np.ndarray | int) -> tuple:
        return state % self.n, state // self.n

    def after(self, counts: np.ndarray | int, inc: np.ndarray | int) -> np.ndarray | int:
        """The count after a step; without an upper bound it saturates at lo."""
        out = counts + inc
        return out if self.hi is not None else np.minimum(out, self.lo)

    def reach(self, states: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Whether base state `s` holding count `c` can still reach acceptance with lo <= count <= hi."""
        states, counts = np.asarray(states, dtype=np.int64), np.asarray(counts, dtype=np.int64)
        a = np.maximum(self.lo - counts, 0)
        b = (self.hi - counts) if self.hi is not None else np.full_like(counts, 1 << 40)
        ok = b >= a
        last = self.cum.shape[0] - 2  # the largest count the table holds
        if self.period:
            j, p = self.start, self.period
            shift = np.where(a > j, a - (j + (a - j) % p), 0)
            a, b = a - shift, b - shift
            b = np.minimum(b, np.maximum(a, j) + p - 1)
        b = np.minimum(b, last)
        a = np.minimum(a, last + 1)
        hits = self.cum[np.maximum(b + 1, a), states] - self.cum[a, states]
        return ok & (hits > 0)

    def row(self, state: int) -> np.ndarray:
        """Successor states for all 256 bytes (-1: not allowed)."""
        s, c = self.split(state)
        t = self.base.trans[s].astype(np.int64)
        c2 = self.after(c, self.inc[s].astype(np.int64))
        live = t >= 0
        ok = np.zeros(256, dtype=bool)
        ok[live] = self.reach(t[live], c2[live])
        return np.where(ok, c2 * self.n + t, -1)

    def call_edges(self, state: int) -> tuple[tuple[str, int], ...]:
        s, c = self.split(state)
        out = []
        for callee, ret in self.base.calls[s]:
            c2 = int(self.after(c, int(callee in self.callees)))
            if self.reach(np.array([ret]), np.array([c2]))[0]:
                out.append((callee, c2 * self.n + ret))
        return tuple(out)

    def accepts(self, state: np.ndarray | int) -> np.ndarray | bool:
        s, c = self.split(state)
        inside = (c >= self.lo) if self.hi is None else (c >= self.lo) & (c <= self.hi)
        return self.base.accept[s] & inside

    def canonical(self, state: int, window: int) -> int:
        """A representative state with the same token table, for tables keyed by state.

        Within one token the count grows by at most `window`; past lo, and with more than the
        table's span left below hi, every count behaves alike for that many steps."""
        s, c = self.split(state)
        if c < self.lo:
            return state
        if self.hi is None:
            return self.lo * self.n + s
        if self.period and self.hi - c - window >= self.start + self.period:
            return self.lo * self.n + s if self.hi - self.lo - window >= self.start + self.period else state
        return state


class _Trans:
    """`trans[s]` (one row) and `trans[states, bytes]` (vectorized), as on a RuleDFA."""

    def __init__(self, dfa: CountedDFA) -> None:
        self.dfa = dfa

    def __getitem__(self, key: int | tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        d = self.dfa
        if not isinstance(key, tuple):
            return d.row(int(key))
        states, data = key
        s, c = d.split(np.asarray(states, dtype=np.int64))
        t = d.base.trans[s, data].astype(np.int64)
        c2 = d.after(c, d.inc[s, data].astype(np.int64))
        live = t >= 0
        out = np.full(len(t), -1, dtype=np.int64)
        ok = np.zeros(len(t), dtype=bool)
        ok[live] = d.reach(t[live], c2[live])
        out[ok] = (c2 * d.n + t)[ok]
        return out


class _Accept:
    def __init__(self, dfa: CountedDFA) -> None:
        self.dfa = dfa

    def __getitem__(self, state: np.ndarray | int) -> np.ndarray | bool:
        if isinstance(state, (int, np.integer)):
            return bool(self.dfa.accepts(int(state)))
        return self.dfa.accepts(np.asarray(state, dtype=np.int64))


class _Calls:
    def __init__(self, dfa: CountedDFA) -> None:
        self.dfa = dfa

    def __getitem__(self, state: int) -> tuple[tuple[str, int], ...]:
        return self.dfa.call_edges(int(state))


class CountedRows:
    """`rows[s][byte]` for the automaton's scalar stepping, built per visited state (bounded cache)."""

    def __init__(self, dfa: CountedDFA) -> None:
        self.row = lru_cache(maxsize=4096)(lambda s: tuple(dfa.row(s).tolist()))

    def __getitem__(self, state: int) -> tuple[int, ...]:
        return self.row(state)


class CountedCalls:
    """`calls[s]` as (callee index, return state) pairs, for the automaton."""

    def __init__(self, dfa: CountedDFA, index: dict[str, int]) -> None:
        self.calls = lru_cache(maxsize=4096)(
            lambda s: tuple((index[c], ret) for c, ret in dfa.call_edges(s) if c in index))

    def __getitem__(self, state: int) -> tuple[tuple[int, int], ...]:
        return self.calls(state)


def counted(base: RuleDFA, inc: np.ndarray, callees: frozenset[str], lo: int, hi: int | None) -> CountedDFA:
    """Attach a counter to `base` (trimmed: every state reaches acceptance)."""
    cum, start, period = _tables(base, inc, callees, lo, hi)
    return CountedDFA(base=base, inc=inc, callees=callees, lo=lo, hi=hi, cum=cum, start=start, period=period)


def _tables(base: RuleDFA, inc: np.ndarray, callees: frozenset[str], lo: int, hi: int | None
            ) -> tuple[np.ndarray, int, int]:
    """R[k][s]: from base state s, acceptance is reachable adding exactly k to the count.

    R[0] = Z acc and R[k+1] = Z E1 R[k], with Z the closure of uncounted edges and E1 the counted
    ones. The sequence is eventually periodic; it is stored up to hi, or as prefix + period
    (extended by one more period so that any range query maps into the table)."""
    n = base.size
    if n > MAX_COUNTED_STATES:
        raise CountedTooComplex(f"its body has {n:,} states (at most {MAX_COUNTED_STATES:,} are counted)")
    table, start, period = _rows(*_moves(base, inc, callees), (hi + 1) if hi is not None else None)
    return _cumulative(table), start, period


def _moves(base: RuleDFA, inc: np.ndarray, callees: frozenset[str]) -> tuple[np.ndarray, np.ndarray]:
    """Z E1 and Z acc: the states each base state reaches by one counted step (after any uncounted ones), as bit
    sets (n rows of (n + 63) // 64 little-endian uint64 words, as bytes), and whether it reaches acceptance adding
    nothing. In C over the strongly connected parts of the uncounted edges, in time of the edges times n / 64;
    else through the closure Z by repeated squaring (n^3 / 64 a squaring: 0.1 s at 2,700 states)."""
    n = base.size
    calls = np.array([(s, ret, callee in callees) for s, callee, ret in base.sites], dtype=np.int32).reshape(-1, 3)
    native = lang_dfa.kernel
    if native is not None:
        moves, first = native.counted_moves(np.ascontiguousarray(base.trans, dtype=np.int32),
                                            np.ascontiguousarray(inc, dtype=np.uint8), n,
                                            np.ascontiguousarray(calls[:, 0]), np.ascontiguousarray(calls[:, 1]),
                                            calls[:, 2].astype(np.uint8), base.accept.astype(np.uint8))
        return np.frombuffer(moves, dtype=np.uint8).reshape(n, -1), np.frombuffer(first, dtype=bool)
    e0 = np.zeros((n, n), dtype=bool)
    e1 = np.zeros((n, n), dtype=bool)
    src = np.repeat(np.arange(n), 256)
    dst = base.trans.reshape(-1)
    flag = inc.reshape(-1)
    live = dst >= 0
    e0[src[live & ~flag], dst[live & ~flag]] = True
    e1[src[live & flag], dst[live & flag]] = True
    counting = calls[:, 2].astype(bool)
    e1[calls[counting, 0], calls[counting, 1]] = True
    e0[calls[~counting, 0], calls[~counting, 1]] = True
    z = _closure(e0)
    packed = np.zeros((n, (n + 63) // 64 * 8), dtype=np.uint8)
    packed[:, :(n + 7) // 8] = np.packbits(_times(z, e1), axis=1, bitorder="little")
    return packed, _times(z, base.accept)


def _rows(moves: np.ndarray, first: np.ndarray, limit: int | None) -> tuple[np.ndarray, int, int]:
    """first, then each row the states with a move into the row before (moves: `_moves`'s bit sets, s holding t
    where s reaches t by one counted step), until a row repeats (start, period: where it stood and how far back;
    one period is appended) or `limit` rows stand (start = period = 0)."""
    n = len(first)
    native = lang_dfa.kernel
    if native is not None:  # in C: a row is n AND-ed bit sets, not a few NumPy calls
        clock()
        made, start, period, complete = native.counted_rows(moves, first.astype(np.uint8), n, (n + 63) // 64,
                                                            -1 if limit is None else limit, MAX_TABLE_CELLS)
        table = np.frombuffer(made, dtype=np.uint8).reshape(-1, n)
        if not complete:
            raise _no_period(n, len(table))
        return (np.concatenate([table, table[start:start + period]]) if period else table), start, period
    step = moves[:, :(n + 7) // 8]  # rows as bit sets: each step is a few NumPy calls
    r = first
    rows, seen = [r], {r.tobytes(): 0}
    start = period = 0
    while limit is None or len(rows) < limit:
        if len(rows) * n > MAX_TABLE_CELLS:
            raise _no_period(n, len(rows))
        clock()
        r = (step & np.packbits(r, bitorder="little")).any(axis=1)
        key = r.tobytes()
        if key in seen:
            start, period = seen[key], len(rows) - seen[key]
            rows += rows[start:start + period]
            break
        seen[key] = len(rows)
        rows.append(r)
    return np.array(rows), start, period


def _no_period(n: int, rows: int) -> CountedTooComplex:
    return CountedTooComplex(f"the counts reachable from {n} states show no period within {rows} steps")


def _cumulative(table: np.ndarray) -> np.ndarray:
    """cum[k][s]: how many of rows 0..k-1 have state s (a count range's feasibility is a difference of two)."""
    cum = np.zeros((len(table) + 1, table.shape[1]), dtype=np.int32)
    np.cumsum(table, axis=0, out=cum[1:], dtype=np.int32)
    return cum


def _times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Boolean matrix product (`b` a matrix or a vector) through float32 BLAS (every term is 0 or 1, so a sum is
    positive exactly when some term is; integer matmul in numpy has no BLAS and is far slower)."""
    return (a.astype(np.float32) @ b.astype(np.float32)) > 0


def _closure(edges: np.ndarray) -> np.ndarray:
    """Reflexive-transitive closure by repeated squaring (the compile budget's clock checked each time)."""
    reach = edges | np.eye(len(edges), dtype=bool)
    while True:
        clock()
        nxt = _times(reach, reach)
        if (nxt == reach).all():
            return reach
        reach = nxt


def build_counted(node: Counted, productive: set[str] | None = None) -> CountedDFA:
    """The body's DFA with its units marked: calls, or characters between a string's quotes."""
    body = build_dfa(node.body, productive)
    if node.unit is None:
        callees = node.callees if node.callees is not None else frozenset(refs(node.body))
        return counted(body, np.zeros(body.trans.shape, dtype=bool), callees, node.lo, node.hi)
    frame = part(seq(lit('"'), star(node.unit), lit('"')))  # the same for every string counted by this unit
    base, inc = _mark_units(body, frame, boundary=int(frame.trans[0][ord('"')]))
    return counted(base, inc, frozenset(), node.lo, node.hi)


def _mark_units(body: RuleDFA, frame: RuleDFA, boundary: int) -> tuple[RuleDFA, np.ndarray]:
    """Product of a call-free string DFA with the unit framing; a byte leaving the framing's
    boundary state (other than the closing quote) starts a unit."""
    if any(body.calls):
        raise ValueError("counted strings call nothing")
    trans, accept, pairs = pairs_product(body, frame, minus=False)
    quote = np.arange(256) == ord('"')
    marks = (pairs[:, 1] == boundary)[:, None] & (trans >= 0) & ~quote
    reaching = live_mask(trans, accept)
    reaching[0] = True
    keep = np.flatnonzero(reaching)
    renum = np.full(len(accept) + 1, -1, dtype=np.int32)
    renum[keep] = np.arange(len(keep), dtype=np.int32)
    trimmed = renum[trans[keep]]  # -1 indexes the trailing -1
    dfa = RuleDFA(trans=trimmed, accept=accept[keep], calls=((),) * len(keep))
    return dfa, marks[keep] & (trimmed >= 0)
