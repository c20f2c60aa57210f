"""Strings that must differ within one object or array (undeclared keys; items of a `uniqueItems` array of
strings): no automaton of fixed size can remember every key written, so the matcher does, per depth, and
forbids a token that would finish one of them again."""

from __future__ import annotations

import json

import numpy as np

from extractor.automata.pda import Automaton, Config

class Distinct:
    """The strings of the `Automaton.distinct` rules finished so far, by the stack depth they were written at."""

    def __init__(self, automaton: Automaton) -> None:
        self.automaton = automaton
        self.seen: dict[int, set[str]] = {}
        self.raw: bytearray | None = None  # the open string's bytes after its opening quote
        self.depth: int | None = None  # where that string's frame is

    def step(self, config: Config, byte: int) -> tuple[Config, bool]:
        """The configuration after `byte`, and whether that byte finished a string already written."""
        nxt = self.automaton.step(config, byte)
        if not nxt:
            return nxt, False
        depth = self._inside(nxt)
        repeated = False
        if self.depth is not None and depth is None:  # the closing quote
            text = json.loads(b'"' + bytes(self.raw or b"") + b'"')
            repeated = text in self.seen.get(self.depth, ())
            self.seen.setdefault(self.depth, set()).add(text)
            self.raw = None
        elif depth is not None:
            if self.depth is None:
                self.raw = bytearray()  # the opening quote
            else:
                self.raw.append(byte)  # type: ignore[union-attr]
        self.depth = depth
        low = min(len(st) for st in nxt)  # an object or array that closed takes its strings along
        for d in [d for d in self.seen if d > low]:
            del self.seen[d]
        return nxt, repeated

    def narrow(self, mask: np.ndarray, config: Config, tokens: tuple[bytes, ...], quoted: np.ndarray,
               quotes: np.ndarray) -> np.ndarray:
        """`mask` less the tokens that would finish a string already written at its depth (a copy where any
        is removed). `quoted` are the ids of the tokens holding a quote, `quotes` how many each holds: a
        token finishes a string only with its closing quote, and one that first opens it needs two."""
        if not any(self.seen.values()):
            return mask
        candidates = quoted[mask[quoted] & (quotes >= (1 if self.depth is not None else 2))]
        out = mask
        for token in candidates.tolist():
            if self.repeats(config, tokens[token]):
                if out is mask:
                    out = mask.copy()
                out[token] = False
        return out

    def repeats(self, config: Config, data: bytes) -> bool:
        """Whether `data`, read from `config`, finishes a string already written (this state unchanged)."""
        depth, raw = self.depth, None if self.raw is None else bytearray(self.raw)
        added: dict[int, set[str]] = {}
        kept = 1 << 30  # depths at or below this still hold their strings (none closed yet)
        for byte in data:
            config = self.automaton.step(config, byte)
            if not config:
                return False
            now = self._inside(config)
            if depth is not None and now is None:
                text = json.loads(b'"' + bytes(raw or b"") + b'"')
                if (depth <= kept and text in self.seen.get(depth, ())) or text in added.get(depth, ()):
                    return True
                added.setdefault(depth, set()).add(text)
                raw = None
            elif now is not None:
                if depth is None:
                    raw = bytearray()
                else:
                    raw.append(byte)  # type: ignore[union-attr]
            depth = now
            low = min(len(st) for st in config)
            kept = min(kept, low)
            for d in [d for d in added if d > low]:
                del added[d]
        return False

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
    distinct, config = Distinct(automaton), automaton.start()
    for byte in data:
        config, repeated = distinct.step(config, byte)
        if not config or repeated:
            return False
    return automaton.accepting(config)
