"""One rule's regex -> a minimized byte DFA whose extra edges call other rules."""

from __future__ import annotations

import hashlib
import json
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import groupby
from typing import Any

import numpy as np
import numpy.ma  # noqa: F401 - np.unique imports it on first call (~30 ms): with the package, not in a first mask

from extractor.lang.budget import late, remaining, spend, tick, too_large
from extractor.lang.regex import (
    Alt, Both, Bytes, Minus, Multiple, Node, Ref, Repeat, Seq, Substrings, Suffix, digest, single_byte,
)

try:
    from extractor.lang import _partition as kernel  # lang/_partition.c; automata runs on it too
except ImportError:  # built without a C compiler: the same constructions run in Python instead
    kernel = None

ALL_BYTES = (1 << 256) - 1

DIGEST_AT_BUILD = 64
"""States from which a C construction makes its table's content digest beside it, from its rows over byte classes
(a fraction of the table's bytes): a compile digests tables this large anyway (`masks.matcher`'s
DIGEST_AT_COMPILE_BYTES), and reading the whole table for it cost more than the construction of many rules."""


@dataclass(frozen=True, eq=False)
class RuleDFA:
    """A minimized DFA over bytes; state 0 starts, calls[s] are (callee, return state) edges."""

    trans: np.ndarray  # (n, 256) int32, -1 where the byte is not allowed; never written (shared across schemas)
    accept: np.ndarray  # (n,) bool
    calls: tuple[tuple[tuple[str, int], ...], ...]
    trimmed: bool = False
    """Every state reaches acceptance (through bytes and calls), or the language is empty: minimization's output."""

    @property
    def size(self) -> int:
        return len(self.accept)

    @cached_property
    def rows(self) -> Rows:
        """The table as Python ints, for walks in Python (kept: rule automata are shared across schemas)."""
        return Rows(self.trans)

    def finishes(self, finishing: Container[str] = ()) -> bool:
        """Whether an accepting state is reachable from the start through bytes and calls to `finishing` rules."""
        if self.trimmed and self.called.issubset(finishing):  # every call allowed: trimmed, the
            return self._nonempty  # automaton has an accepting state just when it is not empty
        callees = sorted({name for _, name, _ in self.sites if name in finishing})
        known = self._finishing.get(tuple(callees))
        if known is None:
            known = self._finishing[tuple(callees)] = self._finishes(callees)
        return known

    @cached_property
    def _nonempty(self) -> bool:
        return bool(self.accept.any())

    @cached_property
    def _finishing(self) -> dict[tuple[str, ...], bool]:
        return {}

    def _finishes(self, callees: list[str]) -> bool:
        if kernel is not None:  # a search forward, stopping at the first accepting state
            allowed = set(callees)
            calls = np.array([(s, t) for s, name, t in self.sites if name in allowed], dtype=np.int32).reshape(-1, 2)
            return kernel.reaches(np.ascontiguousarray(self.trans, dtype=np.int32), self.accept.astype(np.uint8),
                                      self.size, np.ascontiguousarray(calls[:, 0]), np.ascontiguousarray(calls[:, 1]))
        if not callees:
            return bool(live_mask(self.trans, self.accept)[0])
        column = {name: j for j, name in enumerate(callees)}
        returns = np.full((self.size, len(callees)), -1, dtype=np.int32)
        for s, name, t in self.sites:
            if name in column:
                returns[s, column[name]] = t
        return bool(live_mask(np.hstack([self.trans, returns]), self.accept)[0])

    @cached_property
    def called(self) -> frozenset[str]:
        return frozenset(name for _, name, _ in self.sites)

    @cached_property
    def sites(self) -> tuple[tuple[int, str, int], ...]:
        """Every call edge as (state, callee, return state), by state (most states call nothing)."""
        return tuple((s, callee, t) for s, state in enumerate(self.calls) if state for callee, t in state)

    @cached_property
    def site_shape(self) -> tuple[bytes, tuple[str, ...]]:
        """The call sites apart from their callees' names: each (state, return state) as int32 bytes, and the
        callees in the same order (fingerprints number the callees themselves)."""
        pairs = array("i", [x for s, _, t in self.sites for x in (s, t)])
        return pairs.tobytes(), tuple(c for _, c, _ in self.sites)

    @cached_property
    def signature(self) -> bytes:
        """The rule's part of a fingerprint: its content, then its call sites apart from the callees."""
        pairs, callees = self.site_shape
        return self.content + len(callees).to_bytes(4, "little") + pairs

    @cached_property
    def byte_classes(self) -> np.ndarray:
        """Each byte's class (int32 x 256): bytes whose columns are equal, numbered by their lowest byte (kept: a
        large rule's table is read once for them; in C, by row, where the extension is built)."""
        if kernel is not None:
            return np.frombuffer(kernel.table_classes(np.ascontiguousarray(self.trans, dtype=np.int32), self.size),
                                 dtype=np.uint8).astype(np.int32)
        return _column_classes(self.trans)[0]

    @cached_property
    def content(self) -> bytes:
        """A digest of the table and accepting states (calls aside): BLAKE2b-128 of each byte's column id and the
        distinct columns' live entries (a table is mostly columns repeated, and mostly -1: each distinct column
        hashed once, as its live states and their targets). The C constructions make it beside the table from its
        rows over byte classes (a fraction of the table's bytes: a compile digests its large tables for the table
        cache, `Fingerprints.digest_large`, which would read them whole); others when a fingerprint first asks.
        In C where the extension is built (the same bytes)."""
        if kernel is not None:
            return kernel.content(np.ascontiguousarray(self.trans, dtype=np.int32), self.accept.astype(np.uint8),
                                      self.size)
        of_byte, firsts = _column_classes(self.trans)
        parts = [b"S", of_byte.astype(np.uint8).tobytes()]
        for column in np.ascontiguousarray(self.trans.T[firsts], dtype="<i4"):  # each distinct column once, sparse
            live = np.flatnonzero(column >= 0)
            parts += [len(live).to_bytes(4, "little"), live.astype("<u4").tobytes(), column[live].tobytes()]
        parts += [self.accept.astype(np.uint8).tobytes(), self.size.to_bytes(4, "little")]
        return hashlib.blake2b(b"".join(parts), digest_size=16).digest()


class Rows:
    """`rows[s][byte]`: a table's rows as tuples of Python ints, each made when first read (most states of a
    large rule are never stepped through in Python; a dict of those made, not a slot per state, gives the cyclic
    collector nothing to walk for the rest)."""

    __slots__ = ("trans", "made")

    def __init__(self, trans: np.ndarray) -> None:
        self.trans = trans
        self.made: dict[int, tuple[int, ...]] = {}

    def __getitem__(self, state: int) -> tuple[int, ...]:
        row = self.made.get(state)
        if row is None:
            if not -len(self.trans) <= state < len(self.trans):
                raise IndexError(f"state {state} of a {len(self.trans)}-state table")
            row = self.made[state] = tuple(self.trans[state].tolist())
        return row

    def __len__(self) -> int:
        return len(self.trans)


CHARGE_EVERY = 1024
"""States a Thompson construction builds between two charges to the compile budget."""
_KINDS = (Bytes, Ref, Seq, Alt, Repeat, Suffix)
"""The node kinds the native Thompson construction reads, in the order it takes them."""


class _NFA:
    """Thompson construction; state 0 starts, state 1 accepts. Edges are kept flat (int32 arrays), in the order
    made: empty moves (`eps_src` to `eps_dst`) and moves on a label (`edge_label`: an index into `labels`, each a
    byte mask or a callee's name). Where the extension is built, `_native_rule` makes the same NFA in C."""

    def __init__(self, node: Node) -> None:
        self.ids: dict[int | str, int] = {}  # label -> its index, in order of first use
        self.size, self.charged = 0, 0  # states built, and charged to the compile budget so far
        self.lists: tuple[list[int], ...] = ([], [], [], [], [])
        self.suffixes: dict[int, tuple[Suffix, int]] = {}  # id(node) -> (node, its start state)
        start, end = self.state(), self.state()
        self.build(node, start, end)
        self.charge()
        self.eps_src, self.eps_dst, self.edge_src, self.edge_label, self.edge_dst = (
            np.array(x, dtype=np.int32) for x in self.lists)
        self.labels = list(self.ids)

    def charge(self) -> None:
        """Charge the states built since the last charge to the compile budget (which refuses an overrun)."""
        spend(self.size - self.charged)
        self.charged = self.size

    def state(self) -> int:
        self.size += 1
        return self.size - 1

    def empty(self, a: int, b: int) -> None:
        self.lists[0].append(a)
        self.lists[1].append(b)

    def label(self, key: int | str) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.ids)
        return found

    def adjacency(self, src: np.ndarray, dst: np.ndarray) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(self.size)]
        for a, b in zip(src.tolist(), dst.tolist()):
            out[a].append(b)
        return out

    def build(self, node: Node, a: int, b: int) -> None:
        """Thompson's construction with an explicit stack, not recursion: a body may be thousands of nodes
        deep (an object of many optional properties nests its suffixes). A part built from `a` to `b` adds
        edges out of `a` and into `b` only, so alternatives share both ends; a byte or a call is an edge,
        made where it is met rather than stacked."""
        eps_src, eps_dst, edge_src, edge_label, edge_dst = (x.append for x in self.lists)
        label = self.label
        work = [(node, a, b)]
        push = work.append
        while work:
            if self.size - self.charged > CHARGE_EVERY:  # unrolled repeats stop at the budget, not past it
                self.charge()
            node, a, b = work.pop()
            kind = type(node)
            if kind is Bytes or kind is Ref:
                edge_src(a)
                edge_label(label(node.mask if kind is Bytes else node.rule))  # type: ignore[union-attr]
                edge_dst(b)
            elif kind is Seq:
                self.seq(node.items, a, b, push)  # type: ignore[union-attr]
            elif kind is Alt:
                for item in node.items:  # type: ignore[union-attr]
                    push((item, a, b))
            elif kind is Suffix:
                entry = self.suffixes.get(id(node))
                if entry is None:
                    entry = self.suffixes[id(node)] = (node, self.state())  # type: ignore[assignment]
                    push((node.item, entry[1], 1))  # type: ignore[union-attr]
                eps_src(a)
                eps_dst(entry[1])
            elif kind is Repeat:
                self.repeat(node, a, b, push)  # type: ignore[arg-type]
            else:
                raise TypeError(f"not a regex node: {node!r}")

    def seq(self, items: tuple[Node, ...], a: int, b: int, push: Callable[[tuple[Node, int, int]], None]) -> None:
        """A sequence from `a` to `b`: a state between each two items, a byte item an edge made at once."""
        if not items:
            self.empty(a, b)
            return
        last = len(items) - 1
        for k, item in enumerate(items):
            nxt = b if k == last else self.state()
            if type(item) is Bytes:
                self.lists[2].append(a)
                self.lists[3].append(self.label(item.mask))
                self.lists[4].append(nxt)
            else:
                push((item, a, nxt))
            a = nxt

    def repeat(self, node: Repeat, a: int, b: int, push: Callable[[tuple[Node, int, int]], None]) -> None:
        """`min` copies in a row, then a loop through a hub (no `max`) or `max - min` optional copies."""
        item, cur = node.item, a
        for _ in range(node.min):
            nxt = self.state()
            push((item, cur, nxt))
            cur = nxt
        if node.max is None:
            hub, back = self.state(), self.state()
            self.empty(cur, hub)
            push((item, hub, back))
            self.empty(back, hub)
            self.empty(hub, b)
            return
        for _ in range(node.max - node.min):
            self.empty(cur, b)
            nxt = self.state()
            push((item, cur, nxt))
            cur = nxt
        self.empty(cur, b)


def _byte_classes(masks: set[int]) -> list[int]:
    """Partition 0..255 so that every label mask is a union of classes, ordered by their lowest byte (the
    automaton built over them is then the same whatever order the masks come in)."""
    singles = 0  # a one-byte mask makes its byte a class of its own: refine by the other masks only
    classes = [ALL_BYTES]
    for m in masks:
        if m & (m - 1):
            classes = [part for c in classes for part in (c & m, c & ~m) if part]
        else:
            singles |= m
    if singles:
        classes = [c & ~singles for c in classes if c & ~singles]
        rest = singles
        while rest:  # each byte of `singles`, lowest first
            low = rest & -rest
            classes.append(low)
            rest ^= low
    return sorted(classes, key=lambda c: c & -c)


def build_dfa(node: Node, productive: set[str] | None = None, table: bool = False) -> RuleDFA:
    """Subset construction, dead-state pruning, then Hopcroft minimization. `table`: the automaton is a rule's
    table (not a part of one), made with its content digest where it is as large as a compile digests."""
    digest_from = DIGEST_AT_BUILD if table else 0
    if isinstance(node, Minus):
        words = _words(node.other) if kernel is not None else None
        if words is not None:
            return _minus_words(part(node.item), words, digest_from)
        return _product(part(node.item), part(node.other), minus=True, digest_from=digest_from)
    if isinstance(node, Multiple):
        return _multiple(node.m, node.places)
    if isinstance(node, Substrings):
        return _substrings(node.text, node.words)
    if isinstance(node, Both):
        result = part(node.items[0])
        for i, item in enumerate(node.items[1:], 2):
            result = _product(result, part(item), minus=False, digest_from=digest_from if i == len(node.items) else 0)
        return result
    if kernel is not None:
        return _native_rule(node, productive, digest_from)
    nfa = _NFA(node)
    classes = _byte_classes({lab for lab in nfa.labels if isinstance(lab, int)})
    names = sorted(lab for lab in nfa.labels if isinstance(lab, str) and (productive is None or lab in productive))
    of_byte = _byte_class(tuple(classes))
    column = {name: len(classes) + j for j, name in enumerate(names)}
    symbols = [_symbols(label, classes, of_byte, column) for label in nfa.labels]
    edges, accept = _subsets(nfa, symbols, len(classes) + len(names))
    return _minimize(edges, accept, names, of_byte)


def _symbols(label: int | str, classes: list[int], of_byte: np.ndarray, column: dict[str, int]) -> list[int]:
    """The DFA symbols an edge label reads: a byte's class, the classes (atoms) of a byte set, a callee's column
    (none for a callee that cannot finish)."""
    if isinstance(label, str):
        return [column[label]] if label in column else []
    if label and not label & (label - 1):
        return [int(of_byte[label.bit_length() - 1])]
    return [ci for ci, c in enumerate(classes) if c & label]


def _native_rule(node: Node, productive: set[str] | None, digest_from: int = 0) -> RuleDFA:
    """`build_dfa`'s steps (Thompson, byte classes, subsets, minimization) in one C call: the same automaton, with
    its content digest where it has `digest_from` states or more (0: none)."""
    built = _native(kernel.rule, node, _KINDS, productive, digest_from)
    nfa_states, subsets, table, accepting, calls, sites, content = built
    spend(nfa_states)
    spend(subsets)
    tick()
    dfa = RuleDFA(trans=np.frombuffer(table, dtype=np.int32).reshape(-1, 256),
                  accept=np.frombuffer(accepting, dtype=bool), calls=calls, trimmed=True)
    dfa.__dict__.update(sites=sites, _nonempty=b"\x01" in accepting,
                        called=frozenset(name for _, name, _ in sites))  # what the cached properties would find
    if content is not None:
        dfa.__dict__["content"] = content
    return dfa


_PARTS: OrderedDict[bytes, RuleDFA] = OrderedDict()
_PARTS_LOCK = threading.Lock()
PARTS_CACHE_SIZE = 256
"""Automata of the parts of intersections and differences, kept per process by their digest: one pattern
often appears in several of them (`allOf` beside `not`), in one schema or many; and the framing of every counted
string (one per unit of length)."""


def part(node: Node) -> RuleDFA:
    """A part of an intersection, a difference or a counted string's product (calling nothing), built once."""
    if isinstance(node, Substrings):  # a source text's: never kept
        return build_dfa(node)
    key = digest(node)
    with _PARTS_LOCK:
        hit = _PARTS.get(key)
        if hit is not None:
            _PARTS.move_to_end(key)
            return hit
    built = build_dfa(node)
    with _PARTS_LOCK:
        _PARTS[key] = built
        if len(_PARTS) > PARTS_CACHE_SIZE:
            _PARTS.popitem(last=False)
    return built


def _subsets(nfa: _NFA, symbols: list[list[int]], m: int) -> tuple[np.ndarray, np.ndarray]:
    """The subset construction: each DFA state's target per symbol (-1: none) and whether it accepts. States
    are numbered as found, breadth first, symbols in order. `symbols` gives the symbols of each edge label
    (a byte mask's classes, a callee's column); edges with none (calls to rules that cannot finish) are not
    taken."""
    moves: list[list[tuple[int, int]]] = [[] for _ in range(nfa.size)]
    for a, lab, t in zip(nfa.edge_src.tolist(), nfa.edge_label.tolist(), nfa.edge_dst.tolist()):
        moves[a] += [(sym, t) for sym in symbols[lab]]
    kernels = _Kernels(nfa.adjacency(nfa.eps_src, nfa.eps_dst), [bool(out) or s == 1 for s, out in enumerate(moves)])
    start = kernels.closure([0])
    index = {start: 0}
    order = [start]
    rows: list[list[int]] = []
    for subset in order:
        spend()
        targets: list[list[int]] = [[] for _ in range(m)]
        for n in subset:
            for a, t in moves[n]:
                targets[a].append(t)
        rows.append([_intern(kernels.closure(ts), index, order) if ts else -1 for ts in targets])
    return np.array(rows, dtype=np.int32).reshape(-1, m), np.array([1 in subset for subset in order], dtype=bool)


def _multiple(m: int, places: int = 0) -> RuleDFA:
    """States: start, after '-', the integer 0, one per remainder mod m of the integer's digits, then per
    decimal place written (0 for the point alone) one per remainder of all the digits so far. A number is
    a multiple of m * 10**-places when its digits, padded to `places` decimals, are a multiple of m."""
    digits = b"0123456789"
    point = 3 + m  # state of (places written f, remainder r): point + f * m + r
    rows = [[-1] * 256 for _ in range(point + (places + 1) * m if places else point)]
    rows[0][ord("-")] = 1
    for s in (0, 1):
        rows[s][ord("0")] = 2
        for d in range(1, 10):
            rows[s][digits[d]] = 3 + d % m
    for r in range(m):
        for d in range(10):
            rows[3 + r][digits[d]] = 3 + (10 * r + d) % m
    accept = [False, False, True] + [r * 10 ** places % m == 0 for r in range(m)]
    if places:
        rows[2][ord(".")] = point
        for r in range(m):
            rows[3 + r][ord(".")] = point + r
        for f in range(places):
            for r in range(m):
                for d in range(10):
                    rows[point + f * m + r][digits[d]] = point + (f + 1) * m + (10 * r + d) % m
        accept += [f > 0 and r * 10 ** (places - f) % m == 0 for f in range(places + 1) for r in range(m)]
    return _from_table(np.array(rows, dtype=np.int32), accept)


def _substrings(text: str, words: bool = False) -> RuleDFA:
    """A quoted JSON string whose characters, in canonical spelling, form a substring of `text` (with
    `words`, one that starts and ends where a group of `text` does: `_word_positions`), each character
    edge spelled out as its bytes through a per-state byte trie."""
    nxt, accept = _word_positions(text) if words else (_suffix_automaton(text), None)
    n = len(nxt)
    rows = [[-1] * 256 for _ in range(n + 2)]  # character states 0..n-1, then the opening and closing quotes
    opening, closing = n, n + 1
    quote = ord('"')
    rows[opening][quote] = 0
    for s in range(n):
        if accept is None or accept[s]:
            rows[s][quote] = closing
        for ch, t in nxt[s].items():
            data = json.dumps(ch, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")
            at = s
            for byte in data[:-1]:
                if rows[at][byte] < 0:
                    rows[at][byte] = len(rows)
                    rows.append([-1] * 256)
                at = rows[at][byte]
            rows[at][data[-1]] = t
    final = np.zeros(len(rows), dtype=bool)
    final[closing] = True
    order = [opening, *range(n), closing, *range(n + 2, len(rows))]  # the start state first
    renum = np.empty(len(rows) + 1, dtype=np.int32)
    renum[order] = np.arange(len(rows), dtype=np.int32)
    renum[-1] = -1
    table = renum[np.array(rows, dtype=np.int32)[order]]
    return RuleDFA(trans=table, accept=final[order], calls=((),) * len(rows))


def _suffix_automaton(text: str) -> list[dict[str, int]]:
    """Character edges of the suffix automaton of `text` (every substring; at most 2n states, minimal)."""
    return _suffix_links(text)[0]


def _suffix_links(text: str) -> tuple[list[dict[str, int]], list[int]]:
    """The suffix automaton's edges and, per state, whether it ends a suffix of `text` (the classic online
    construction; the states on the suffix links from the last one are those)."""
    nxt: list[dict[str, int]] = [{}]
    link, length, last = [-1], [0], 0
    for ch in text:
        cur = len(nxt)
        nxt.append({})
        link.append(0)
        length.append(length[last] + 1)
        p = last
        while p != -1 and ch not in nxt[p]:
            nxt[p][ch] = cur
            p = link[p]
        if p != -1:
            q = nxt[p][ch]
            if length[p] + 1 == length[q]:
                link[cur] = q
            else:
                clone = len(nxt)
                nxt.append(dict(nxt[q]))
                link.append(link[q])
                length.append(length[p] + 1)
                while p != -1 and nxt[p].get(ch) == q:
                    nxt[p][ch] = clone
                    p = link[p]
                link[q] = link[cur] = clone
        last = cur
    ends = [False] * len(nxt)
    while last != -1:
        ends[last] = True
        last = link[last]
    return nxt, ends


def _word_positions(text: str) -> tuple[list[dict[str, int]], list[bool]]:
    """Character edges and accepting states of the substrings of `text` that cut no word in two (a word:
    a run of alphanumeric characters or `_`), whose first token begins a group of the text and which end
    where a group of the text ends, each run of whitespace in them written as one space (a value copied
    across a line break stays on one line). A group starts after whitespace or a `SEPARATORS` mark and
    ends before one, or before the other punctuation that closes it: a copy of `02/01/2018` cannot be
    `2018` or `02`, one of `Stripe,` can be `Stripe`, one of `FN:Luca` can be `Luca`.

    Where the first token begins a group is checked by its spelling: the copy starts with a token that
    begins a group somewhere in the text (the automaton keeps no start positions, which keeps it linear).
    Where it ends is exact: some occurrence of the copy ends a group.

    Built in linear size: the suffix automaton of `text` read as tokens (each word one token, each run
    of whitespace one, every other character its own), each word edge then spelled out character by
    character through a trie per state. After a whole word only a non-word character can follow, so the
    trie node that ends a word takes the edges of the state the word leads to (all single non-word
    characters) beside the word characters that continue longer words: the result stays deterministic."""
    tokens = [" " if kind == "space" else "".join(run) for kind, group in groupby(text.strip(), key=_kind)
              for run in ([list(group)] if kind != "other" else [[ch] for ch in group])]
    sam, ends = _suffix_links(tokens)  # type: ignore[arg-type]
    firsts = {token for i, token in enumerate(tokens) if i == 0 or tokens[i - 1] == " "
              or tokens[i - 1] in SEPARATORS} - {" "}
    closes = _group_ends(sam, ends)
    nxt: list[dict[str, int]] = [{} for _ in sam]
    accept = [False] * len(sam)
    accept[0] = True  # the empty string
    for s, edges in enumerate(sam):
        for token, t in edges.items():
            if s == 0 and token not in firsts:
                continue
            if not _is_word(token):
                nxt[s][token] = t
                accept[t] = closes[t] and not token.isspace()
                continue
            at = s
            for ch in token:
                if ch not in nxt[at]:
                    nxt[at][ch] = len(nxt)
                    nxt.append({})
                    accept.append(False)  # inside a word
                at = nxt[at][ch]
            accept[at] = closes[t]  # a whole word read: it may end here if a group of the text does
            nxt[at].update(sam[t])
    return _reachable(nxt, accept)


SEPARATORS = frozenset('()[]{}<>"“”«»:;|=*!?`~^')
"""Marks that open, close or separate a group of text: a copied value may start after one or end before
one. Marks that join the parts of one value (`.`, `,`, `/`, `-`, `'`, `@`, `&`, `+`, `$`, `%`, `#`) do not."""


def _group_ends(sam: list[dict[str, int]], ends: list[bool]) -> list[bool]:
    """Per state of a token suffix automaton: whether its strings end a group somewhere in the text (the
    text ends there, or whitespace or a separator follows, or other punctuation that leads to one)."""
    order, seen, stack = [], [False] * len(sam), [(0, iter(sam[0].values()))]
    seen[0] = True
    while stack:  # depth-first post-order: every state after the states it leads to
        s, rest = stack[-1]
        t = next(rest, None)
        if t is None:
            order.append(s)
            stack.pop()
        elif not seen[t]:
            seen[t] = True
            stack.append((t, iter(sam[t].values())))
    closes = list(ends)
    for s in order:
        closes[s] = closes[s] or any(token.isspace() or token in SEPARATORS or (not _is_word(token) and closes[t])
                                     for token, t in sam[s].items())
    return closes


def _kind(ch: str) -> str:
    return "word" if ch.isalnum() or ch == "_" else "space" if ch.isspace() else "other"


def _reachable(nxt: list[dict[str, int]], accept: list[bool]) -> tuple[list[dict[str, int]], list[bool]]:
    """Only the states reachable from 0, renumbered in the order they are found (a state a word leads to
    is left behind once its trie node has taken its edges)."""
    order, index = [0], {0: 0}
    for s in order:
        for t in nxt[s].values():
            if t not in index:
                index[t] = len(order)
                order.append(t)
    return [{ch: index[t] for ch, t in nxt[s].items()} for s in order], [accept[s] for s in order]


def _is_word(token: str) -> bool:
    return token[0].isalnum() or token[0] == "_"


def _from_table(table: np.ndarray, accept: list[bool]) -> RuleDFA:
    """Minimize a full (n, 256) call-free table, grouping bytes with equal columns into classes first."""
    if kernel is not None:
        trans, accepting = kernel.from_table(np.ascontiguousarray(table, dtype=np.int32),
                                                 np.asarray(accept, dtype=np.uint8), len(table))
        tick()
        return _trimmed(np.frombuffer(trans, dtype=np.int32).reshape(-1, 256), np.frombuffer(accepting, dtype=bool),
                        np.empty((len(accepting), 0), dtype=np.int32), [])
    of_byte, firsts = _column_classes(table)
    of_byte.flags.writeable = False
    return _minimize(np.ascontiguousarray(table[:, firsts], dtype=np.int32), np.array(accept, dtype=bool), [],
                     of_byte)


def _column_classes(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bytes whose columns of `table` are equal, as classes numbered by their lowest byte: each byte's class
    (int32) and each class's lowest byte, ascending."""
    columns = np.ascontiguousarray(table.T, dtype="<i4")
    _, first, inverse = np.unique(columns.view(np.dtype((np.void, columns.shape[1] * 4))).ravel(),
                                  return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int32)
    rank[np.argsort(first)] = np.arange(len(first), dtype=np.int32)
    return rank[inverse.ravel()], np.sort(first)


def _product(a: RuleDFA, b: RuleDFA, minus: bool, digest_from: int = 0) -> RuleDFA:
    """Both languages (`and`), or `a`'s less `b`'s (`minus`), minimized (in C: over the bytes both tables tell
    apart, without the full product table; digested as `_native_rule` is)."""
    if kernel is None:
        trans, accept, _ = pairs_product(a, b, minus)
        return _from_table(trans, accept)
    return _minimal(_native_product(a, b, minus, minimal=True, digest_from=digest_from))


def _words(node: Node) -> tuple[bytes, ...] | None:
    """The byte strings of an alternation of literals (None: it is something else)."""
    out = []
    for item in node.items if isinstance(node, Alt) else (node,):
        found = [single_byte(p) for p in (item.items if isinstance(item, Seq) else (item,))]
        if None in found:
            return None
        out.append(bytes(found))  # type: ignore[arg-type]
    return tuple(out)


def _minus_words(a: RuleDFA, words: tuple[bytes, ...], digest_from: int) -> RuleDFA:
    """`a`'s language less some byte strings (a key rule: any key but the declared ones), minimized in one C call
    without an automaton of the words: the same automaton `_product` makes with theirs (digested as it is)."""
    return _minimal(_native(kernel.minus_words, *_table_args(a), words, digest_from))


def _minimal(built: tuple) -> RuleDFA:
    """A C product's minimal DFA, from (pairs walked, table, accepting states, content digest or None)."""
    pairs, table, accepting, content = built
    spend(pairs)
    tick()
    dfa = _trimmed(np.frombuffer(table, dtype=np.int32).reshape(-1, 256), np.frombuffer(accepting, dtype=bool),
                   np.empty((len(accepting), 0), dtype=np.int32), [])
    if content is not None:
        dfa.__dict__["content"] = content
    return dfa


def _table_args(dfa: RuleDFA) -> tuple[np.ndarray, np.ndarray, int]:
    """A call-free DFA as the C products read it: table (int32), accepting states (uint8), size."""
    if any(dfa.calls):
        raise ValueError("products apply to rules that call nothing")
    return np.ascontiguousarray(dfa.trans, dtype=np.int32), dfa.accept.astype(np.uint8), dfa.size


def _native(fn: Any, *args: Any) -> tuple:
    """A C construction (lang/_partition.c) under what is left of the compile budget, passed last."""
    states, seconds = remaining()
    built = fn(*args, states, seconds)
    if isinstance(built, int):
        _refuse(built, states)
    return built


def _native_product(a: RuleDFA, b: RuleDFA, minus: bool, minimal: bool, digest_from: int = 0) -> tuple:
    """The C product: its pairs, or with `minimal` their minimal DFA (digested as `_native_rule` is)."""
    (ta, aa, na), (tb, ab, nb) = _table_args(a), _table_args(b)
    return _native(kernel.product, ta, aa, tb, ab, na, nb, minus, minimal, digest_from)


def pairs_product(a: RuleDFA, b: RuleDFA, minus: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of states of two call-free DFAs reachable from (0, 0), numbered breadth first, bytes in order: their
    table (n x 256, a byte moves where both move, or with `minus` where `a` moves, `b` then at -1 once it has no
    edge), which accept (both, or `a` and not `b`), and each state's pair (n x 2)."""
    if kernel is not None:
        trans, accepting, pairs = _native_product(a, b, minus, minimal=False)
        spend(len(accepting))
        return (np.frombuffer(trans, dtype=np.int32).reshape(-1, 256), np.frombuffer(accepting, dtype=bool),
                np.frombuffer(pairs, dtype=np.int32).reshape(-1, 2))
    if any(a.calls) or any(b.calls):
        raise ValueError("products apply to rules that call nothing")
    index: dict[tuple[int, int], int] = {(0, 0): 0}
    order = [(0, 0)]
    rows: list[np.ndarray] = []
    accept: list[bool] = []
    for s, t in order:
        spend()
        ra = a.trans[s]
        rb = b.trans[t] if t >= 0 else np.full(256, -1, dtype=np.int32)
        moving = np.flatnonzero(ra >= 0 if minus else (ra >= 0) & (rb >= 0))
        keys = ra[moving].astype(np.int64) * (b.size + 1) + (rb[moving] + 1)
        found, first, where = np.unique(keys, return_index=True, return_inverse=True)
        ids = np.empty(len(found), dtype=np.int32)
        for j in np.argsort(first).tolist():  # in the order of the first byte reaching each pair
            pair = (int(found[j]) // (b.size + 1), int(found[j]) % (b.size + 1) - 1)
            if pair not in index:
                index[pair] = len(order)
                order.append(pair)
            ids[j] = index[pair]
        row = np.full(256, -1, dtype=np.int32)
        row[moving] = ids[where]
        rows.append(row)
        in_b = t >= 0 and bool(b.accept[t])
        accept.append(bool(a.accept[s]) and (not in_b if minus else in_b))
    return (np.array(rows, dtype=np.int32).reshape(-1, 256), np.array(accept, dtype=bool),
            np.array(order, dtype=np.int32).reshape(-1, 2))


def _refuse(code: int, states: int) -> None:
    """Raise the budget's error a native construction stopped at: 1 past `states`, 2 past the deadline, 3 past
    what it can index."""
    if code == 1:
        spend(states + 1)  # raises
    if code == 2:
        late()  # raises
    too_large("its automaton needs more than 2**31 entries")


class _Kernels:
    """The states reachable by empty moves that read something or accept (`reads`), memoized per state:
    subsets made of these alone are smaller and collapse more often."""

    def __init__(self, eps: list[list[int]], reads: list[bool]) -> None:
        self.eps, self.reads = eps, reads
        self.memo: dict[int, frozenset[int]] = {}

    def of(self, state: int) -> frozenset[int]:
        memo = self.memo.get(state)
        if memo is None:
            seen, work, out = {state}, [state], []
            while work:
                n = work.pop()
                if self.reads[n]:
                    out.append(n)
                for t in self.eps[n]:
                    if t not in seen:
                        seen.add(t)
                        work.append(t)
            memo = self.memo[state] = frozenset(out)
        return memo

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        return frozenset().union(*(self.of(s) for s in states))


def _intern(subset: frozenset[int], index: dict[frozenset[int], int], order: list[frozenset[int]]) -> int:
    if subset not in index:
        index[subset] = len(order)
        order.append(subset)
    return index[subset]


def _minimize(edges: np.ndarray, accept: np.ndarray, names: list[str], of_byte: np.ndarray) -> RuleDFA:
    """Drop states that cannot reach acceptance, then merge equivalent ones (Hopcroft); the start state stays 0
    and the others are numbered in the order of their first member. `edges` has a column per byte class (the
    class of each byte: `of_byte`), then one per called rule of `names`."""
    width = int(of_byte.max()) + 1
    tick()
    live = live_mask(edges, accept)
    empty = not live[0]
    live[0] = True  # an empty language still needs a start state, with no edges
    order = np.flatnonzero(live)  # 0 first
    sink = len(order)
    position = np.full(len(accept) + 1, sink, dtype=np.int32)  # dead and missing (-1) targets: the sink
    position[order] = np.arange(sink, dtype=np.int32)
    if empty:
        position[0] = sink  # the start state kept for an empty language is dead too
    moves = np.vstack([position[edges[order]], np.full((1, edges.shape[1]), sink, dtype=np.int32)])
    labels = np.append(accept[order], False).astype(np.int32)
    block_of = _coarsest(moves, labels)
    firsts = np.sort(np.unique(block_of[:-1], return_index=True)[1])  # each block's first state, in order
    renum = np.full(int(block_of.max()) + 1, -1, dtype=np.int32)
    renum[block_of[firsts]] = np.arange(len(firsts), dtype=np.int32)
    kept = moves[firsts]
    out_edges = np.where(kept == sink, -1, renum[block_of[kept]])
    table = out_edges[:, :width][:, of_byte]
    return _trimmed(np.ascontiguousarray(table, dtype=np.int32), accept[order[firsts]], out_edges[:, width:], names)


def _trimmed(trans: np.ndarray, accept: np.ndarray, returns: np.ndarray, names: list[str]) -> RuleDFA:
    """Minimization's automaton, its calls read off each state's row of return states (-1: no call); its call
    sites (state order, then callee order, as `RuleDFA.sites` lists them) kept from the same pass."""
    calls: list[tuple[tuple[str, int], ...]] = [()] * len(returns)
    sites: tuple[tuple[int, str, int], ...] = ()
    if names:
        rows, cols = np.nonzero(returns >= 0)
        sites = tuple(zip(rows.tolist(), [names[c] for c in cols.tolist()], returns[rows, cols].tolist()))
        for row, group in groupby(sites, key=lambda e: e[0]):
            calls[row] = tuple((name, t) for _, name, t in group)
    dfa = RuleDFA(trans=trans, accept=accept, calls=tuple(calls), trimmed=True)
    dfa.__dict__["sites"] = sites  # what the cached properties would find
    return dfa


@lru_cache(maxsize=1024)
def _byte_class(classes: tuple[int, ...]) -> np.ndarray:
    """Each byte's class index (kept per set of classes, so read-only)."""
    bits = np.frombuffer(b"".join(c.to_bytes(32, "little") for c in classes), dtype=np.uint8).reshape(-1, 32)
    out = np.argmax(np.unpackbits(bits, axis=1, bitorder="little"), axis=0).astype(np.int32)
    out.flags.writeable = False
    return out


def live_mask(edges: np.ndarray, accept: np.ndarray) -> np.ndarray:
    """Which states reach an accepting one along `edges` (n x m targets, -1 for none)."""
    if kernel is not None:
        out = np.zeros(len(accept), dtype=np.uint8)
        kernel.live(np.ascontiguousarray(edges, dtype=np.int32), accept.astype(np.uint8), out, *edges.shape)
        return out.astype(bool)
    back: dict[int, list[int]] = {}
    for s, row in enumerate(edges.tolist()):
        for t in row:
            if t >= 0:
                back.setdefault(t, []).append(s)
    live = accept.copy()
    work = np.flatnonzero(live).tolist()
    while work:
        for s in back.get(work.pop(), ()):
            if not live[s]:
                live[s] = True
                work.append(s)
    return live


def _coarsest(moves: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The block of each state in the coarsest partition that refines `labels` and that every column of `moves`
    (n x m targets, all in 0..n-1) respects (Hopcroft; lang/_partition.c has the same in C)."""
    n, m = moves.shape
    inverse: list[dict[int, list[int]]] = [{} for _ in range(m)]
    for s, row in enumerate(moves.tolist()):
        for a, t in enumerate(row):
            inverse[a].setdefault(t, []).append(s)
    blocks = [set(np.flatnonzero(labels == label).tolist()) for label in np.unique(labels)]
    block_of = {s: i for i, b in enumerate(blocks) for s in b}
    largest = max(range(len(blocks)), key=lambda i: len(blocks[i]))  # stable on all states: the rest suffice
    work = {(b, a) for b in range(len(blocks)) if b != largest for a in range(m)}
    while work:
        tick()
        target, a = work.pop()
        touched: dict[int, set[int]] = {}
        for t in blocks[target]:
            for p in inverse[a].get(t, ()):
                touched.setdefault(block_of[p], set()).add(p)
        for b, inside in touched.items():
            if len(inside) == len(blocks[b]):
                continue
            blocks[b] -= inside  # the split costs what finding `inside` cost, never the block's size
            blocks.append(inside)
            new = len(blocks) - 1
            for s in inside:
                block_of[s] = new
            for sym in range(m):
                if (b, sym) in work:
                    work.add((new, sym))
                else:
                    work.add((new, sym) if len(inside) <= len(blocks[b]) else (b, sym))
    return np.array([block_of[s] for s in range(n)], dtype=np.int64)
