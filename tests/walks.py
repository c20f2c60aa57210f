"""A random model for property tests: Gumbel-random logits, so greedy picks follow softmax(bias)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from extractor.masks import CompiledGrammar
from extractor.tokens import Vocabulary

CLOSE_BONUS = 3.0
"""Logit bonus for tokens that end something (`"`, `]`, `}`, `,`) and open nothing (`{`, `[`):
without it a uniform walk writes strings of thousands of tokens, since few of a large
vocabulary's tokens close one, and recursive schemas branch without end."""


@dataclass
class Walk:
    text: bytes
    complete: bool
    steps: int


_PER_VOCAB: dict[tuple[int, str], tuple[Vocabulary, np.ndarray]] = {}


def _kept(vocab: Vocabulary, kind: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    """One read-only array per vocabulary and kind: each is a pass over the whole vocabulary in Python, and
    `sample` prepares an array of allowed tokens once per object, so walks must share them."""
    entry = _PER_VOCAB.get((id(vocab), kind))
    if entry is None or entry[0] is not vocab:
        made = make()
        made.flags.writeable = False
        entry = _PER_VOCAB[(id(vocab), kind)] = (vocab, made)
    return entry[1]


def closers(vocab: Vocabulary) -> np.ndarray:
    return _kept(vocab, "closers", lambda: np.array(
        [any(c in t for c in b'"]},') and not any(c in t for c in b"{[") for t in vocab.tokens], dtype=bool))


def _drawable(vocab: Vocabulary) -> np.ndarray:
    """Every token a free walk may draw: the non-empty ones and EOS."""
    def make() -> np.ndarray:
        allowed = np.array([bool(t) for t in vocab.tokens])
        allowed[list(vocab.eos_ids)] = True
        return allowed
    return _kept(vocab, "drawable", make)


_PREPARED: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}


def sample(allowed: np.ndarray, bonus: np.ndarray, rng: np.random.Generator) -> int:
    """A draw from softmax(bias) over the allowed tokens, i.e. argmax of bias plus Gumbel noise."""
    entry = _PREPARED.get(id(allowed))
    if entry is None or entry[0] is not allowed:  # masks are cached objects: prepare each once
        ids = np.flatnonzero(allowed)
        entry = _PREPARED[id(allowed)] = (allowed, ids, np.cumsum(np.where(bonus[ids], np.exp(CLOSE_BONUS), 1.0)))
    _, ids, cumulative = entry
    return int(ids[min(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"), len(ids) - 1)])


def constrained_walk(grammar: CompiledGrammar, rng: np.random.Generator, bonus: np.ndarray,
                     max_steps: int = 20000) -> Walk:
    matcher = grammar.matcher()
    steps = 0
    while not matcher.finished and steps < max_steps:
        matcher.advance(sample(matcher.mask(), bonus, rng))
        steps += 1
    return Walk(bytes(matcher.output), matcher.finished, steps)


def free_walk(vocab: Vocabulary, rng: np.random.Generator, bonus: np.ndarray, length: int) -> Walk:
    """The same random model with no mask: `length` tokens (the constrained walk's count) or EOS."""
    allowed = _drawable(vocab)
    out = bytearray()
    for step in range(length):
        token = sample(allowed, bonus, rng)
        if token in vocab.eos_ids:
            return Walk(bytes(out), True, step)
        out += vocab.tokens[token]
    return Walk(bytes(out), False, length)


def parses(data: bytes) -> object | None:
    try:
        return json.loads(data.decode("utf-8"))
    except ValueError:  # bad UTF-8, bad JSON, or an integer past Python's 4,300-digit parse limit
        return None


def accepts_text(grammar: CompiledGrammar, text: str) -> bool:
    """Whether the grammar's matcher takes `text` whole, as its UTF-8 bytes, and may end there."""
    m = grammar.matcher()
    try:
        m.advance_bytes(text.encode())
    except ValueError:
        return False
    return m.accepting()
