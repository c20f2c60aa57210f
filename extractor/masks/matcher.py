"""A compiled grammar for one tokenizer, and the per-generation Matcher that drives it."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from extractor.automata import Automaton, Stack
from extractor.masks.tables import TABLES, TableCache
from extractor.masks.trie import TokenTrie
from extractor.tokens import Vocabulary

Config = frozenset[Stack]


class CompiledGrammar:
    """An automaton paired with a vocabulary; masks are computed lazily and cached here."""

    def __init__(self, automaton: Automaton, vocab: Vocabulary, trie: TokenTrie | None = None,
                 tables: TableCache = TABLES, mask_cache_size: int = 4096) -> None:
        self.automaton = automaton
        self.vocab = vocab
        self.trie = trie or TokenTrie(vocab)
        self.tables = tables
        self.masks: OrderedDict[Config, np.ndarray] = OrderedDict()
        self.mask_cache_size = mask_cache_size
        self.eos = np.array(sorted(vocab.eos_ids), dtype=np.int64)
        self.next_bytes: dict[tuple[int, int], tuple[int, ...]] = {}

    def matcher(self) -> Matcher:
        return Matcher(self)

    def mask(self, config: Config) -> np.ndarray:
        """Allowed token ids as a bool vector over the vocabulary; never mutate the result."""
        cached = self.masks.get(config)
        if cached is not None:
            self.masks.move_to_end(config)
            return cached
        aut = self.automaton
        out = np.zeros(self.vocab.size, dtype=bool)
        for st in config:
            rule, state = st[-1]
            table = self.tables.get(aut, self.trie, rule, state)
            out |= table.allowed
            if len(st) > 1 and len(table.exit_ids):
                parent = aut.close([st[:-1]])
                for tid, off in zip(table.exit_ids.tolist(), table.exit_offsets.tolist()):
                    if not out[tid] and self.walk(parent, self.vocab.tokens[tid][off:]):
                        out[tid] = True
        if aut.accepting(config):
            out[self.eos] = True
        self.masks[config] = out
        if len(self.masks) > self.mask_cache_size:
            self.masks.popitem(last=False)
        return out

    def walk(self, config: Config, data: bytes) -> Config:
        """Configurations after `data`; empty when some byte is not allowed."""
        for byte in data:
            config = self.automaton.step(config, byte)
            if not config:
                break
        return config

    def allowed_bytes(self, config: Config) -> set[int]:
        """Bytes that may come next from any configuration."""
        out: set[int] = set()
        for st in config:
            key = st[-1]
            nb = self.next_bytes.get(key)
            if nb is None:
                row = self.automaton.dfas[key[0]].trans[key[1]]
                nb = self.next_bytes[key] = tuple(np.flatnonzero(row >= 0).tolist())
            out.update(nb)
        return out


class Matcher:
    """One generation's position in the grammar: mask(), advance(token), forced_bytes(), accepting()."""

    def __init__(self, grammar: CompiledGrammar) -> None:
        self.grammar = grammar
        self.config: Config = grammar.automaton.start()
        self.output = bytearray()
        self.finished = False

    def mask(self) -> np.ndarray:
        """Bool vector of the tokens allowed next (EOS only where the output may end)."""
        if self.finished:
            return np.zeros(self.grammar.vocab.size, dtype=bool)
        return self.grammar.mask(self.config)

    def accepting(self) -> bool:
        """True when the output so far is a complete value."""
        return self.grammar.automaton.accepting(self.config)

    def advance(self, token: int) -> None:
        """Consume one token; raises ValueError for a token the mask forbids."""
        if self.finished:
            raise ValueError("the matcher has already finished")
        if token in self.grammar.vocab.eos_ids:
            if not self.accepting():
                raise ValueError(f"EOS token {token} before the output is complete")
            self.finished = True
            return
        data = self.grammar.vocab.tokens[token] if 0 <= token < self.grammar.vocab.size else b""
        nxt = self.grammar.walk(self.config, data) if data else frozenset()
        if not nxt:
            raise ValueError(f"token {token} ({data!r}) is not allowed after {bytes(self.output[-40:])!r}")
        self.config = nxt
        self.output += data

    def advance_bytes(self, data: bytes) -> None:
        """Consume raw bytes (forced text); raises ValueError where the grammar forbids them."""
        nxt = self.grammar.walk(self.config, data)
        if not nxt:
            raise ValueError(f"bytes {data!r} are not allowed after {bytes(self.output[-40:])!r}")
        self.config = nxt
        self.output += data

    def forced_bytes(self, limit: int = 256) -> bytes:
        """The bytes every continuation must start with (stops where the output could end)."""
        out = bytearray()
        config = self.config
        while len(out) < limit and not self.grammar.automaton.accepting(config):
            nxt = self.grammar.allowed_bytes(config)
            if len(nxt) != 1:
                break
            byte = nxt.pop()
            out.append(byte)
            config = self.grammar.automaton.step(config, byte)
        return bytes(out)
