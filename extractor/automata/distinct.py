"""Strings that must differ within one object or array (undeclared keys; items of a `uniqueItems` array of
strings): no automaton of fixed size can remember every key written, so the matcher does, per depth, and
forbids a token that would finish one of them again. Whole items of other `uniqueItems` arrays are kept
apart the same way, by value (`items.py`)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

import numpy as np

from extractor.automata.items import Items
from extractor.automata.pda import Automaton, Config

class Distinct:
    """The strings of the `Automaton.distinct` rules finished so far, by the stack depth they were written at."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.items = Items() if automaton.unique else None  # arrays whose items must differ by value
        self.seen: dict[int, frozenset[str]] = {}
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
        if self.escaped:
            self.escaped = False
        elif self.in_string and byte == 0x5C:
            self.escaped = True
        elif byte == 0x22:
            self.in_string = not self.in_string
        if not self.automaton.distinct:
            return nxt, False
        depth = self._inside(nxt)
        repeated = False
        if self.depth is not None and depth is None:  # the string ended, or only another path went on
            if self._finished(nxt, self.depth):  # (a declared key is no undeclared one)
                text = json.loads(b'"' + (self.raw or b"") + b'"')
                old = self.seen.get(self.depth, frozenset())
                repeated = text in old
                self.seen[self.depth] = old | {text}  # a new set: forks share the old one
            self.raw = None
        elif depth is not None:
            if self.depth is None:
                self.raw = b""  # the opening quote
            else:
                self.raw = self.raw + bytes([byte])  # type: ignore[operator]  # new bytes: forks share the old
        self.depth = depth
        low = min(len(st) for st in nxt)  # an object or array that closed takes its strings along
        for d in [d for d in self.seen if d > low]:
            del self.seen[d]
        return nxt, repeated

    def narrow(self, mask: np.ndarray, config: Config, tokens: tuple[bytes, ...], quoted: Quoted) -> np.ndarray:
        """`mask` less the tokens that would finish a string already written at its depth (a copy where any
        is removed). Only tokens holding a quote can: one ending the open string (looked up by the text before
        its first quote), or one opening and ending a new string (run byte by byte: few tokens hold two)."""
        out = mask
        if not any(self.seen.values()):  # only a token that finishes two strings can repeat one: three quotes
            many = quoted.many[0 if self.depth is not None else 1]  # from inside a kept string, four otherwise
            for token in many[mask[many]].tolist():
                if not self.after(config, tokens[token])[0]:
                    out = out if out is not mask else mask.copy()
                    out[token] = False
            return out
        ids, counts = quoted.ids, quoted.counts
        allowed = mask[ids]
        if self.depth is not None:  # inside a string: a token's first quote ends it, whatever the automaton
            ends = self._endings()
            if ends is None:
                candidates = ids[allowed]
            else:
                for end in ends:
                    hit = quoted.by_head.get(end)
                    if hit is not None and mask[hit].any():
                        out = out if out is not mask else mask.copy()
                        out[hit] = False
                candidates = ids[allowed & (counts >= 3)]  # may end this string, then open and end another
        else:  # must open a string before it can end one, and first end the one it is in, if any
            candidates = ids[allowed & (counts >= (3 if self.in_string else 2))]
        for token in candidates.tolist():
            if not self.after(config, tokens[token])[0]:  # allowed by the grammar: empty means a repeat
                out = out if out is not mask else mask.copy()
                out[token] = False
        return out

    def _endings(self) -> set[str] | None:
        """What may follow the open string's text so far to make one already written at its depth; None
        where that text ends inside an escape or a surrogate pair (tokens are then run byte by byte)."""
        try:
            so_far = json.loads(b'"' + (self.raw or b"") + b'"')
        except ValueError:
            return None
        if so_far and "\ud800" <= so_far[-1] <= "\udbff":
            return None
        return {k[len(so_far):] for k in self.seen.get(self.depth, ()) if k.startswith(so_far)}  # type: ignore[arg-type]

    def after(self, config: Config, data: bytes) -> tuple[Config, Distinct]:
        """The configuration after `data` and the state it leaves (this one unchanged); the configuration is
        empty where a byte is not allowed or finishes a string already written."""
        fork = copy.copy(self)
        fork.seen = dict(self.seen)  # the sets themselves are replaced, never changed, by `step`
        for byte in data:
            config, repeated = fork.step(config, byte)
            if not config or repeated:
                return frozenset(), fork
        return config, fork

    def _finished(self, config: Config, depth: int) -> bool:
        """Whether a distinct rule's frame at `depth` has just read its last byte (its closing quote)."""
        dfas, rules = self.automaton.dfas, self.automaton.distinct
        return any(len(st) - 1 == depth and st[-1][0] in rules and dfas[st[-1][0]].accept[st[-1][1]]
                   for st in config)

    def _inside(self, config: Config) -> int | None:
        """The depth of a distinct rule's frame past its opening quote and short of its end, if any."""
        dfas, rules = self.automaton.dfas, self.automaton.distinct
        for st in config:
            rule, state = st[-1]
            if rule in rules and state != 0 and not dfas[rule].accept[state]:
                return len(st) - 1
        return None


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
    many: tuple[np.ndarray, np.ndarray]  # ids of those with at least three quotes, and at least four

    @classmethod
    def of(cls, tokens: tuple[bytes, ...]) -> Quoted:
        counts = np.array([t.count(b'"') for t in tokens], dtype=np.int64)
        ids = np.flatnonzero(counts)
        heads: dict[str, list[int]] = {}
        for i in ids[counts[ids] < 3].tolist():
            head = _head(tokens[i])
            if head is not None:
                heads.setdefault(head, []).append(i)
        return cls(ids, counts[ids], {h: np.array(v, dtype=np.int64) for h, v in heads.items()},
                   (np.flatnonzero(counts >= 3), np.flatnonzero(counts >= 4)))


def _head(token: bytes) -> str | None:
    """The text a token adds to an open string (at a character boundary) before its first unescaped quote."""
    at, escaped = 0, False
    while at < len(token) and (escaped or token[at] != 0x22):
        escaped = not escaped and token[at] == 0x5C
        at += 1
    try:
        return json.loads(b'"' + token[:at] + b'"')
    except ValueError:
        return None
