"""Rollback and non-mutating validation, as a speculative decoder uses them: after any walk under the mask,
rolling back k steps gives exactly the state k steps earlier, and validating drafted tokens changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.masks import Matcher
from tests.masks.test_masks import small_vocab

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
     "required": ["name", "age"]},
    {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 4},
    {"type": "array", "items": {"enum": ["red", "green", 7, None]}},
]


def _state(m: Matcher) -> tuple:
    return m.config, bytes(m.output), m.finished, m.distinct and m.distinct.state()  # (a rollback makes it anew)


def _walk(m: Matcher, rng: np.random.Generator, steps: int) -> list[tuple[tuple, int]]:
    """Advance by random allowed tokens: the state before each step, and the token taken."""
    taken = []
    for _ in range(steps):
        allowed = np.flatnonzero(m.mask())
        if not len(allowed):
            break
        taken.append((_state(m), int(rng.choice(allowed))))
        m.advance(taken[-1][1])
    return taken


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_rolling_back_k_steps_restores_the_state_k_steps_earlier(schema: dict) -> None:
    grammar = compile_schema(schema, small_vocab("llama3"))
    rng = np.random.default_rng(5)
    for _ in range(12):
        m = grammar.matcher()
        states = [state for state, _ in _walk(m, rng, 40)]
        while states:
            k = int(rng.integers(1, len(states) + 1))
            m.rollback(k)
            assert _state(m) == states[-k]
            del states[-k:]
            states += [state for state, _ in _walk(m, rng, int(rng.integers(0, 6)))]  # walking on stays consistent
        with pytest.raises(ValueError, match="roll back 0 to"):
            m.rollback(1 + m.steps)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_validating_drafted_tokens_returns_the_allowed_prefix_and_changes_nothing(schema: dict) -> None:
    grammar = compile_schema(schema, small_vocab("llama3"))
    rng = np.random.default_rng(9)
    for _ in range(12):
        m = grammar.matcher()
        _walk(m, rng, int(rng.integers(0, 8)))
        draft = [token for _, token in _walk(m, rng, 6)]  # drafted from here by walking, then taken back
        forbidden = np.flatnonzero(~m.mask())
        finished = m.finished
        m.rollback(len(draft))
        before = _state(m)
        assert m.validate_tokens(draft) == draft and _state(m) == before
        if len(forbidden) and not finished:
            assert m.validate_tokens([*draft, int(forbidden[0]), *draft]) == draft and _state(m) == before
