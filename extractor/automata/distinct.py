"""Strings that must differ within one object or array (undeclared keys; items of a `uniqueItems` array of
strings): no automaton of fixed size can remember every key written, so the matcher does, per depth, and
forbids a token that would finish one of them again. Whole items of other `uniqueItems` arrays are kept
apart the same way, by value (`items.py`)."""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

import numpy as np

from extractor.automata.items import Items
from extractor.automata.pda import Automaton, Config
from extractor.lang.collector import collector_paused

Strings = tuple[Union[str, None], tuple[tuple[str, int], ...]]
"""What a token's quotes cut it into (`Quoted.strings`)."""


Seen = tuple[Union[int, str], ...]
"""Strings finished so far and the depth each was written at, as one flat tuple (depth, string, depth, string, ...;
depths ascending): never changed, only replaced, so forks share it. Flat, and a state kept for rollback one level
above it: the cyclic collector untracks a tuple of atoms at a young pass, but a tuple holding a tuple only at the
pass after the one that untracked what it holds (each pass moves what only its holder reaches behind it), by
which time the holder may have aged into the full passes' books."""

State = tuple[Union["Items", None], Seen, Union[bytes, None], Union[int, None], bool, bool]
"""A `Distinct`'s fields as the matcher keeps them per step for rollback (`Distinct.state`, `Distinct.restore`)."""


class Distinct:
    """The strings of the `Automaton.distinct` rules finished so far, by the stack depth they were written at.
    Slots, not a `__dict__`: one is made a step, and the matcher keeps each step's as a `State` tuple."""

    __slots__ = ("automaton", "items", "seen", "raw", "depth", "in_string", "escaped")

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.items = Items() if automaton.unique else None  # arrays whose items must differ by value
        self.seen: Seen = ()
        self.raw: bytes | None = None  # the open string's bytes after its opening quote
        self.depth: int | None = None  # where that string's frame is
        self.in_string = self.escaped = False  # inside some JSON string, and after its backslash

    def step(self, config: Config, byte: int) -> tuple[Config, bool]:
        """The configuration after `byte`, and whether that byte finished a string already written."""
        nxt = self.automaton.step(config, byte)
        if nxt and self.items is not None:
            closing = self.in_string and not self.escaped and byte == 0x22
            nxt, self.items = self.items.step(self.automaton, config, nxt, byte, not self.in_string, closing)
        if not nxt:
            return nxt, False
        return nxt, self.read(byte, shape(self.automaton, nxt) if self.automaton.distinct else None)

    def read(self, byte: int, at: Shape | None) -> bool:
        """Take a byte the grammar allowed into a configuration of shape `at` (None: the grammar has no distinct
        strings); whether it finished a string already written. A caller stepping configurations its own way
        (a server's C machine) keeps the strings through this."""
        if self.escaped:
            self.escaped = False
        elif self.in_string and byte == 0x5C:
            self.escaped = True
        elif byte == 0x22:
            self.in_string = not self.in_string
        if at is None:
            return False
        depth, finished, low = at
        repeated = False
        if self.depth is not None and depth is None:  # the string ended, or only another path went on
            if self.depth in finished:  # (a declared key is no undeclared one)
                text = json.loads(b'"' + (self.raw or b"") + b'"')
                repeated = text in _at(self.seen, self.depth)
                if not repeated:  # a new tuple: forks share the old one
                    self.seen = _with(self.seen, self.depth, text)
            self.raw = None
        elif depth is not None:
            if self.depth is None:
                self.raw = b""  # the opening quote
            else:
                self.raw = self.raw + bytes([byte])  # type: ignore[operator]  # new bytes: forks share the old
        self.depth = depth
        if self.seen and self.seen[-2] > low:  # type: ignore[operator]  # a closed object or array takes its strings
            self.seen = _below(self.seen, low)
        return repeated

    def repeats(self, has: Callable[[np.ndarray], np.ndarray], config: Config, tokens: tuple[bytes, ...],
                quoted: Quoted, present: Present, passes: Callable[[bytes], bool] | None = None) -> list[int]:
        """The allowed tokens that would finish a string already written at its depth (`has(ids)`: whether each
        is allowed; a bool mask and a packed row alike). Only tokens holding a quote can: one ending the open
        string (looked up by the text before its first quote), or one opening and ending a new string (run byte
        by byte where one of the strings it finishes could be a repeat). `present[k]`: the ids of the allowed
        tokens with more than k quotes. `passes(data)`: whether `data` may follow here, no string repeated (a
        walk of the caller's; `after`'s by default)."""
        out: list[int] = []
        so_far = None
        written = bool(self.seen)
        if not written:  # only a token that finishes two strings can repeat one: three quotes
            candidates = present[2 if self.depth is not None else 3]  # from inside a kept string, four otherwise
        elif self.depth is not None:  # inside a string: a token's first quote ends it, whatever the automaton
            so_far = self._so_far()
            ends = None if self.escaped else self._endings(so_far)  # (heads are read outside an escape)
            if ends is None:
                candidates = present[0]
            else:
                for end in ends:
                    hit = quoted.by_head.get(end)
                    if hit is not None:
                        out.extend(hit[has(hit)].tolist())
                candidates = present[2]  # may end this string, then open and end another
        else:  # must open a string before it can end one, and first end the one it is in, if any
            candidates = present[2 if self.in_string else 1]
        if not candidates:  # the usual case: nothing to run, nothing more to read
            return out
        if self.depth is not None and not written:
            so_far = self._so_far()
        seen = frozenset(self.seen[1::2])
        if passes is None:
            passes = lambda data: bool(self.after(config, data)[0])  # noqa: E731
        for token in candidates:
            if self.items is None and not self._may_repeat(quoted.strings(token, tokens[token], self.in_string,
                                                                          self.escaped), so_far, seen):
                continue
            if not passes(tokens[token]):  # allowed by the grammar: not passing means a repeat
                out.append(token)
        return out

    def _so_far(self) -> str | None:
        """The open string's text, before its backslash where an escape has just begun (the next token's first
        character completes it: `Quoted.strings` reads that token's text with the backslash); None where it ends
        inside a `\\u` escape or a surrogate pair."""
        raw = self.raw or b""
        try:
            so_far = json.loads(b'"' + (raw[:-1] if self.escaped else raw) + b'"')
        except ValueError:
            return None
        return None if so_far and "\ud800" <= so_far[-1] <= "\udbff" else so_far

    def _endings(self, so_far: str | None) -> set[str] | None:
        """What may follow the open string's text so far to make one already written at its depth (None where
        that text is not known: tokens are then run byte by byte)."""
        if so_far is None:
            return None
        return {k[len(so_far):] for k in _at(self.seen, self.depth) if k.startswith(so_far)}  # type: ignore[arg-type]

    def _may_repeat(self, strings: Strings | None, so_far: str | None, seen: frozenset[str]) -> bool:
        """Whether a token whose quotes cut it into `strings` (see `Quoted.strings`) may finish a string already
        written: one it finishes is among those written at any depth, or equals one it finished before a comma
        (two strings of one object or array have a comma between them). Where a text is not known, it may."""
        if strings is None:
            return True
        head, full = strings
        if self.depth is not None:  # the open string is kept: its end is one of the strings, before a comma
            if so_far is None:
                return True
            if head is not None:  # (None: the token leaves it open, and so finishes no string)
                end = so_far + head
                if end in seen:
                    return True
                for text, commas in full:
                    if text == end and commas:
                        return True
        # loops over indices, no generators or slices: this runs for every allowed token holding quotes, and
        # each container made here counts toward the collector's next pass, which would land in the mask
        for i in range(len(full)):
            text, commas = full[i]
            if text in seen:
                return True
            for j in range(i + 1, len(full)):
                if full[j][0] == text and full[j][1] != commas:
                    return True
        return False

    def after(self, config: Config, data: bytes) -> tuple[Config, Distinct]:
        """The configuration after `data` and the state it leaves (this one unchanged); the configuration is
        empty where a byte is not allowed or finishes a string already written."""
        fork = self.fork()
        for byte in data:
            config, repeated = fork.step(config, byte)
            if not config or repeated:
                return frozenset(), fork
        return config, fork

    def fork(self) -> Distinct:
        """A copy to step on, this one left as it is."""
        fork = Distinct.__new__(Distinct)  # a shallow copy (copy.copy's protocol costs more than the step)
        fork.automaton = self.automaton
        fork.items = self.items
        fork.seen = self.seen  # replaced, never changed, by `read`
        fork.raw = self.raw
        fork.depth = self.depth
        fork.in_string = self.in_string
        fork.escaped = self.escaped
        return fork

    def state(self) -> State:
        """What this holds, as plain tuples (every field is replaced, never changed, by a step)."""
        return self.items, self.seen, self.raw, self.depth, self.in_string, self.escaped

    @classmethod
    def restore(cls, automaton: Automaton, state: State) -> Distinct:
        """The `Distinct` a `state` was read from."""
        out = cls.__new__(cls)
        out.automaton = automaton
        out.items, out.seen, out.raw, out.depth, out.in_string, out.escaped = state
        return out


def _at(seen: Seen, depth: int | None) -> list[str]:
    """The strings finished at `depth`."""
    return [seen[i + 1] for i in range(0, len(seen), 2) if seen[i] == depth]  # type: ignore[misc]


def _with(seen: Seen, depth: int, text: str) -> Seen:
    """`seen` with `text` finished at `depth`, after the strings of that depth and before deeper ones."""
    i = len(seen)
    while i and seen[i - 2] > depth:  # type: ignore[operator]
        i -= 2
    return (*seen[:i], depth, text, *seen[i:])


def _below(seen: Seen, low: int) -> Seen:
    """`seen` without the strings deeper than `low`."""
    i = len(seen)
    while i and seen[i - 2] > low:  # type: ignore[operator]
        i -= 2
    return seen[:i]


Shape = tuple[Union[int, None], tuple[int, ...], int]
"""A configuration as `Distinct` reads it: the depth of a distinct rule's frame past its opening quote and short of
its end (the least, if several; None: none), the depths where a distinct rule's frame has just read its last byte
(its closing quote; ascending), and the shortest stack's length (an object or array closed below it takes its
strings). Ints and tuples only: a grammar keeps one per configuration of its machine (tens of thousands), which the
cyclic collector stops tracking in its young passes; a frozenset it would walk at every full one."""


def shape(automaton: Automaton, config: Config) -> Shape:
    """`config`'s `Shape` (a non-empty configuration of an automaton with distinct rules)."""
    rules = automaton.distinct
    return shape_of(automaton, min(len(st) for st in config),
                    [(len(st), *st[-1]) for st in config if st and st[-1][0] in rules])


def shape_of(automaton: Automaton, low: int, tops: Iterable[tuple[int, int, int]] | Iterable[list[int]]) -> Shape:
    """The `Shape` of a configuration whose shortest stack has `low` frames and whose stacks topped by a distinct
    rule's frame are `tops` (frames, rule, state each): all `shape` reads of it, however the caller found them."""
    dfas = automaton.dfas
    inside, finished = None, set()
    for size, rule, state in tops:
        depth = size - 1
        if dfas[rule].accept[state]:
            finished.add(depth)
        elif state != 0 and (inside is None or depth < inside):
            inside = depth
    return inside, tuple(sorted(finished)), low


def accepts(automaton: Automaton, data: bytes) -> bool:
    """Whether `data` is in the automaton's language: every byte allowed, no distinct string repeated, and
    the end accepting."""
    config, _ = Distinct(automaton).after(automaton.start(), data)
    return bool(config) and automaton.accepting(config)


@dataclass(frozen=True, eq=False)
class Quoted:
    """A vocabulary's tokens that hold a double quote (built once per vocabulary)."""

    ids: np.ndarray  # their ids
    counts: np.ndarray  # how many quotes each holds
    by_head: dict[str, np.ndarray]  # ids of those with fewer than three, by the text before their first quote
    _strings: dict[int, Strings | None] = field(default_factory=dict)  # by token id, in string, escaped

    def present(self, has: Callable[[np.ndarray], np.ndarray], nbytes: int) -> Present:
        """The allowed tokens that hold quotes, by how many (what `Distinct.repeats` reads): `has(ids)` says
        whether each is allowed, reading a mask of `nbytes` (kept alive)."""
        return Present(self, has, nbytes)

    @cached_property
    def more_than(self) -> tuple[np.ndarray, ...]:
        """`more_than[k]`: the ids of the tokens with more than k quotes, for k < 4."""
        return tuple(self.ids[self.counts > k] for k in range(4))

    @cached_property
    def more_than_bytes(self) -> int:
        """What `more_than`'s ids take as lists of Python ints, at most."""
        return 8 * sum(map(len, self.more_than))

    def strings(self, token_id: int, token: bytes, in_string: bool, escaped: bool) -> Strings | None:
        """The text a token adds to the open string before its first quote (None: no string is open, or the token
        leaves it open), and the texts of the strings it opens and closes, each with the commas outside strings
        before it, read from the given lexical state; None where a text is not JSON string content (not whole
        characters)."""
        key = 4 * token_id + 2 * in_string + escaped  # an int, not a tuple a call: see `_may_repeat`
        hit = self._strings.get(key, self)
        if hit is self:
            hit = self._strings[key] = _strings(token, in_string, escaped)
        return hit

    @classmethod
    def of(cls, tokens: tuple[bytes, ...]) -> Quoted:
        counts = quote_counts(tokens)
        ids = np.flatnonzero(counts)
        heads: dict[str, list[int]] = {}
        for i in ids[counts[ids] < 3].tolist():
            head = _head(tokens[i])
            if head is not None:
                heads.setdefault(head, []).append(i)
        return cls(ids, counts[ids], {h: np.array(v, dtype=np.int64) for h, v in heads.items()})


def quote_counts(tokens: tuple[bytes, ...]) -> np.ndarray:
    """How many double quotes each token holds, counted over the tokens joined (a vocabulary of 128k tokens:
    a few milliseconds, where a count per token took a tenth of a second of the first compile needing it)."""
    sizes = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    quote = np.frombuffer(b"".join(tokens), dtype=np.uint8) == 0x22
    ends = np.cumsum(sizes)
    before = np.concatenate(([0], np.cumsum(quote, dtype=np.int64)))
    return before[ends] - before[ends - sizes]


class Present:
    """`present[k]`: the ids of a mask's tokens with more than k quotes (k < 4), each list made when first read
    (a mask mostly needs a short one: tokens that can finish two strings are few)."""

    __slots__ = ("quoted", "has", "mask_bytes", "made")

    def __init__(self, quoted: Quoted, has: Callable[[np.ndarray], np.ndarray], mask_bytes: int) -> None:
        self.quoted, self.has, self.mask_bytes = quoted, has, mask_bytes
        self.made: list[list[int] | None] = [None] * 4

    def __getitem__(self, k: int) -> list[int]:
        made = self.made[k]
        if made is None:
            ids = self.quoted.more_than[k]
            made = self.made[k] = ids[self.has(ids)].tolist()
        return made

    @property
    def nbytes(self) -> int:
        """The most it holds: the mask it reads (kept alive), and the lists of at most every quoted token."""
        return self.mask_bytes + self.quoted.more_than_bytes


def closing_quote(token: bytes) -> int:
    """Where a token's first unescaped quote is, read from inside a string; -1 where every quote in it is
    escaped (it ends no string)."""
    at, escaped = 0, False
    while at < len(token) and (escaped or token[at] != 0x22):
        escaped = not escaped and token[at] == 0x5C
        at += 1
    return at if at < len(token) else -1


def _head(token: bytes) -> str | None:
    """The text a token adds to an open string (at a character boundary) before its first unescaped quote;
    None where it has none."""
    at = closing_quote(token)
    if at < 0:
        return None
    try:
        return json.loads(b'"' + token[:at] + b'"')
    except ValueError:
        return None


def _strings(token: bytes, in_string: bool, escaped: bool) -> Strings | None:
    """`Quoted.strings`, computed: the token cut at its unescaped quotes as `Distinct.step` reads them."""
    opened, parts, part, commas = in_string, [], bytearray(b"\\" if escaped else b""), 0  # (the escape's backslash)
    for byte in token:
        if escaped:
            escaped = False
        elif in_string and byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            if in_string:
                parts.append((bytes(part), commas))
            part.clear()
            in_string = not in_string
            continue
        elif not in_string and byte == 0x2C:
            commas += 1
        part += bytes([byte])
    head: str | None = None
    if opened and parts:
        head = _decoded(parts.pop(0)[0])
        if head is None:
            return None
    full = tuple((_decoded(raw), before) for raw, before in parts)
    if any(text is None for text, _ in full):
        return None
    return head, full  # type: ignore[return-value]


def _decoded(raw: bytes) -> str | None:
    try:
        return json.loads(b'"' + raw + b'"')
    except ValueError:
        return None


SEARCH_NODES = 2048
"""Bytes `fresh` may try before it answers yes: a search that long has not ruled out a new value, and
items with more ways out than that are not about to run out of them."""
_FIRST = b'"}],123456789-0.' + bytes(range(0x61, 0x7B)) + bytes(range(0x41, 0x5B))
_LAST = b"\\ \t\r\n"
ORDER = _FIRST + bytes(b for b in range(256) if b not in _FIRST + _LAST) + _LAST
"""The order `fresh` tries bytes in: whatever ends a string, item or array first; digits 1-9 before 0 (a
trailing zero spells the same number again); escapes and whitespace, which respell values, last."""


@collector_paused
def fresh(distinct: Distinct, config: Config) -> bool:
    """Whether the item under way of the outermost array being kept apart (and so every item inside it) can
    still end as a value not written before: a depth-first search over bytes, ways out first. Exact within
    `SEARCH_NODES` bytes tried; past them it answers yes. The cyclic collector is paused while it runs: the
    search holds up to thousands of forks at once, all freed by reference counting when it returns, and a young
    collection meanwhile would carry them into the old generation, where they count toward a full pass (on a
    long array of unique items, a full pass every few masks)."""
    items = distinct.items
    if items is None or items.settled:
        return True
    target = items.records[0]
    work = [(config, distinct, _ordered(distinct.automaton, config), 0)]  # where, state, bytes to try, next
    tried = 0
    while work:
        cfg, state, options, at = work.pop()
        if at == len(options):
            continue
        work.append((cfg, state, options, at + 1))  # its next byte, once this one's search is over
        tried += 1
        if tried > SEARCH_NODES:
            return True
        nxt, fork = state.after(cfg, options[at:at + 1])
        if not nxt:
            continue
        records = fork.items.records  # type: ignore[union-attr]
        if not records or records[0].level != target.level or records[0].done > target.done or fork.items.settled:
            return True  # the item ended as a new value (or its array closed after it), or can only end as one
        work.append((nxt, fork, _ordered(distinct.automaton, nxt), 0))
    return False


_ORDERED: weakref.WeakKeyDictionary[Automaton, dict[frozenset[tuple[int, int]], bytes]] = weakref.WeakKeyDictionary()


def _ordered(automaton: Automaton, config: Config) -> bytes:
    """The bytes some stack of `config` allows, in `ORDER` (kept per automaton by the stacks' top frames)."""
    tops = frozenset(st[-1] for st in config)
    known = _ORDERED.setdefault(automaton, {})
    hit = known.get(tops)
    if hit is None:
        rows = automaton.rows
        hit = known[tops] = bytes(b for b in ORDER if any(rows[r][s][b] >= 0 for r, s in tops))
    return hit
