"""The step memo: a walk looked up where one went before, or walked in the C machine from any configuration (a
guard's search), is the walk the automaton makes byte by byte, and the memo stays within its byte bound."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.masks import states as states_module
from extractor.masks.matcher import WALK_MEMO_BYTES
from tests.masks.test_masks import small_vocab

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {
        "enum": ["a", "bc", 7]}}}, "required": ["name"]},
    {"type": "array", "items": {"type": "number"}, "maxItems": 6},
    {"type": "object", "properties": {"s": {"type": "string", "maxLength": 300}, "n": {"type": "array", "items": {
        "type": "integer"}, "minItems": 2, "maxItems": 90}}},  # counted rules: the machine counts as Python does
]


def _plain(grammar, config, data: bytes):
    for byte in data:
        config = grammar.automaton.step(config, byte)
        if not config:
            break
    return config


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
@pytest.mark.parametrize("machine", [True, False], ids=["C machine", "Python walk"])
def test_memoized_walks_equal_byte_by_byte_walks(schema: dict, machine: bool, monkeypatch) -> None:
    if not machine:
        monkeypatch.setattr(states_module, "_kernel", None)
    grammar = compile_schema(schema, small_vocab("llama3"))
    assert (grammar.states().machine is not None) == (machine and states_module._kernel is not None)
    rng, tokens, automaton = np.random.default_rng(2), grammar.vocab.tokens, grammar.automaton
    for _ in range(3):  # the same kind of walks again: later ones are answered by the memo
        m = grammar.matcher()
        for _ in range(40):
            allowed = [t for t in np.flatnonzero(m.mask()) if tokens[t]]
            if not allowed:
                break
            token = int(rng.choice(allowed))
            refused = int(rng.integers(grammar.vocab.size))  # most random tokens are not allowed here
            parents = [automaton.close([st[:-1]]) for st in m.config if len(st) > 1]  # places no step numbered
            for config in (m.config, *parents):
                for data in (tokens[token], tokens[refused], b",", b"", tokens[token] + b'"}'):
                    assert grammar.walk(config, data) == _plain(grammar, config, data)
            m.advance(token)
    assert len(grammar.walks) > 0
    assert grammar.walks.bytes <= grammar.walks.max_bytes


def test_long_spans_are_walked_without_the_memo() -> None:
    grammar = compile_schema({"type": "string"}, small_vocab("llama3"))
    span = b'"' + b"x" * WALK_MEMO_BYTES
    assert grammar.walk(grammar.start, span) == _plain(grammar, grammar.start, span)
    assert all(len(data) <= WALK_MEMO_BYTES for _, data in grammar.walks.items)


@pytest.mark.skipif(states_module._kernel is None, reason="the C kernel is not built here: no machine to fill")
def test_walks_from_new_places_leave_the_machine_bounded(monkeypatch) -> None:
    monkeypatch.setattr(states_module, "MAX_MACHINE_CONFIGS", 8)
    rng = np.random.default_rng(5)
    words = sorted({bytes(rng.choice(list(b"abcdefgh"), 12).tolist()).decode() for _ in range(100)})
    grammar = compile_schema({"enum": words}, small_vocab("llama3"))
    for word in words:  # each walk goes where none went before: the machine numbers 12 new places
        data = b'"' + word.encode()
        assert grammar.walk(grammar.start, data) == _plain(grammar, grammar.start, data)
        assert states_module._kernel.machine_size(grammar._states.machine)[1] <= 8 + len(data) + 2
