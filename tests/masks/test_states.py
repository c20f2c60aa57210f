"""Numbered configurations: a step looked up by (id, token) is the walk the automaton makes byte by byte, a
row is the packed mask of its configuration, the tables stay within their bounds, and threads sharing one
grammar number each configuration once."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

from extractor import compile_schema
from extractor.automata.distinct import shape, shape_of
from extractor.masks import states as states_module
from extractor.masks.matcher import CompiledGrammar, pack
from extractor.masks.states import NOT_ALLOWED
from tests.masks.test_masks import small_vocab
from tests.masks.test_walk_memo import _plain

SCHEMAS = [
    {"type": "object", "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {
        "enum": ["a", "bc", 7]}}}, "required": ["name"]},
    {"type": "object", "properties": {"s": {"type": "string", "maxLength": 300}, "n": {"type": "array", "items": {
        "type": "integer"}, "minItems": 2, "maxItems": 90}}},  # counted rules: the machine counts as Python does
    {"type": "array", "items": {"type": "number"}, "maxItems": 6},
    {"type": "object", "additionalProperties": {"type": "integer"}},  # distinct keys: the matcher's own walk
]


def _walks(grammar, seed: int, n: int = 3, steps: int = 40):
    """Random walks under the mask; per step (config before, token taken, a token most likely refused)."""
    rng, tokens = np.random.default_rng(seed), grammar.vocab.tokens
    for _ in range(n):
        m = grammar.matcher()
        for _ in range(steps):
            allowed = [t for t in np.flatnonzero(m.mask()) if tokens[t]]
            if not allowed:
                break
            token = int(rng.choice(allowed))
            yield m, token, int(rng.integers(grammar.vocab.size))
            m.advance(token)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
@pytest.mark.parametrize("machine", [True, False], ids=["C machine", "Python walk"])
def test_steps_rows_and_acceptance_by_id_equal_the_plain_automaton(schema: dict, machine: bool, monkeypatch) -> None:
    if not machine:
        monkeypatch.setattr(states_module, "_kernel", None)
    grammar = compile_schema(schema, small_vocab("llama3"))
    assert (grammar.states().machine is not None) == (machine and states_module._kernel is not None)
    tokens, automaton = grammar.vocab.tokens, grammar.automaton
    for m, token, refused in _walks(grammar, 4):  # later walks are answered from the tables
        table, config = m.states, m.config
        assert table.configs[m.state] == config
        assert np.array_equal(table.row(m.state), pack(grammar.mask(config)))
        assert table.accepting(m.state) == automaton.accepting(config)
        if automaton.distinct:  # keys written before decide, not the configuration: the matcher walks itself
            if table.machine is not None:  # where, reading only its top frames in C, the shape of the configuration
                low, tops = states_module._kernel.machine_tops(table.machine, table._to_machine(m.state),
                                                               table.distinct_rules)
                assert shape_of(automaton, low, np.frombuffer(tops, dtype=np.int32).reshape(-1, 3).tolist()) == \
                    shape(automaton, config)
            continue
        for tid in (token, refused):
            if not tokens[tid]:  # EOS and other empty tokens end the matcher, never step it
                continue
            plain = _plain(grammar, config, tokens[tid])
            step = table.step(m.state, tid)
            assert (step == NOT_ALLOWED) == (not plain)
            assert step == NOT_ALLOWED or table.configs[step] == plain
        data = tokens[token] + tokens[refused]  # any bytes, not one token's: a way out checked whole
        plain, walked = _plain(grammar, config, data), table.after(m.state, data)
        assert (walked == NOT_ALLOWED) == (not plain) and (walked == NOT_ALLOWED or table.configs[walked] == plain)
    assert len(grammar.states().steps) > 0 or automaton.distinct


def test_the_tables_forget_steps_and_rows_past_their_bounds_and_walk_the_same(monkeypatch) -> None:
    monkeypatch.setattr(states_module, "MAX_STEPS", 8)
    monkeypatch.setattr(states_module, "ROW_BYTES", 3 * ((small_vocab("llama3").size + 31) // 32) * 4)
    grammar = compile_schema(SCHEMAS[0], small_vocab("llama3"))
    table = grammar.states()
    for m, token, _ in _walks(grammar, 7):
        assert len(table.steps) <= 8 and table.row_bytes <= states_module.ROW_BYTES
        assert np.array_equal(m.bitmask(), pack(grammar.mask(m.config)))
        before = m.config
        m.advance(token)
        assert m.config == _plain(grammar, before, grammar.vocab.tokens[token])
        m.rollback(1)
        assert m.config == before


def test_a_full_table_is_replaced_for_new_generations_and_kept_by_those_under_way(monkeypatch) -> None:
    grammar = compile_schema({"type": "array", "items": {"type": "number"}}, small_vocab("llama3"))
    old = grammar.matcher()
    monkeypatch.setattr(states_module, "MAX_STATES", len(old.states.configs))
    new = grammar.matcher()
    assert new.states is not old.states and new.config == old.config == grammar.start
    for m in (old, new):  # both go on, each numbering in its own table
        m.advance(grammar.vocab.tokens.index(b"["))
        assert m.config == _plain(grammar, grammar.start, b"[")


def test_threads_sharing_a_grammar_number_each_configuration_once() -> None:
    grammar = compile_schema(SCHEMAS[0], small_vocab("llama3"))
    seen: list[list[tuple]] = [[] for _ in range(4)]

    def run(k: int) -> None:
        for m, token, _ in _walks(grammar, 11, n=4):  # the same seed: every thread takes the same walks
            seen[k].append((m.config, token))

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[0] and all(walk == seen[0] for walk in seen)
    table = grammar.states()
    assert len(table.ids) == len(table.configs) == len(set(table.configs))
    assert all(table.ids[config] == i for i, config in enumerate(table.configs))


@pytest.mark.parametrize("schema", [*SCHEMAS, {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
                                    {"type": "integer"}], ids=range(len(SCHEMAS) + 2))
def test_rows_read_off_packed_tables_equal_the_packed_bool_masks(schema: dict) -> None:
    """A server's first visit makes the row from the tables' packed rows (no bool mask): the same bits."""
    plain = compile_schema(schema, small_vocab("llama3"))
    rows = CompiledGrammar(plain.automaton, plain.vocab, plain.trie)  # nothing cached: every row is a first visit
    configs = {m.config for m, _, _ in _walks(plain, 6, n=6)}
    assert len(configs) >= 2 and (len(schema) > 1 or any(plain.automaton.accepting(c) for c in configs))
    for config in configs:
        assert np.array_equal(rows.packed(config), pack(plain.mask(config)))
        assert np.array_equal(rows.bitmask(config), pack(plain.mask(config)))


TINY = [{"enum": ["ab", 7, None]}, {"type": "object", "properties": {"a": {"type": "boolean"}}, "required": ["a"]},
        {"type": "array", "items": {"type": "integer"}, "maxItems": 2}]


@pytest.mark.parametrize("schema", TINY, ids=range(len(TINY)))
def test_exploring_numbers_exactly_the_configurations_tokens_reach(schema: dict) -> None:
    """Breadth first from the start in the C machine: the configurations numbered are those the plain walk of
    every token reaches, each with its row made."""
    plain = compile_schema(schema, small_vocab("llama3"))
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie)
    table = grammar.states()
    if table.machine is None:
        pytest.skip("the C kernel is not built: nothing explores")
    found = table.explore(60.0, 10_000)
    tokens, reach, queue = grammar.vocab.tokens, {grammar.start}, [grammar.start]
    while queue:
        config = queue.pop()
        for data in tokens:
            after = _plain(grammar, config, data) if data else None
            if after and after not in reach:
                reach.add(after)
                queue.append(after)
    assert found == len(table.configs) == len(reach) and set(table.configs) == reach
    assert all(np.array_equal(table.rows[table.ids[c]], pack(plain.mask(c))) for c in reach)


def test_exploring_stops_at_its_limit() -> None:
    plain = compile_schema(SCHEMAS[0], small_vocab("llama3"))
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie)  # (a table is used beside its grammar)
    table = grammar.states()
    if table.machine is None:
        pytest.skip("the C kernel is not built: nothing explores")
    assert table.explore(60.0, 5) == 5 and len(table.rows) <= 5


@pytest.mark.parametrize("machine", [True, False], ids=["C machine", "Python walk"])
def test_a_token_outside_the_vocabulary_is_refused_not_read_as_another_states_step(machine: bool, monkeypatch) -> None:
    """Steps are keyed state * size + token: -1 or size would name a neighbouring state's token."""
    if not machine:
        monkeypatch.setattr(states_module, "_kernel", None)
    grammar = compile_schema(SCHEMAS[0], small_vocab("llama3"))
    for m, token, _ in _walks(grammar, 2, n=2, steps=20):
        size, table = grammar.vocab.size, m.states
        assert table.step(m.state, token) != NOT_ALLOWED  # remembered under state * size + token, which is also
        assert table.step(m.state + 1, token - size) == NOT_ALLOWED  # the key of the next state and token - size
        assert table.step(m.state - 1, token + size) == NOT_ALLOWED  # and of the one before and token + size
        for outside in (-1, -size, size, size + token):
            assert table.step(m.state, outside) == NOT_ALLOWED
            with pytest.raises(ValueError, match="not allowed"):
                m.advance(outside)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_a_dropped_grammar_is_freed_without_the_cyclic_collector(schema: dict) -> None:
    """Nothing of a grammar's own refers back to it (its table reaches it weakly): once its last matcher is gone it
    goes with its tables, rows and machine, not at the next full collection."""
    gc.disable()
    try:
        grammar = compile_schema(schema, small_vocab("llama3"))
        for m, _, _ in _walks(grammar, 3, n=2, steps=12):
            m.bitmask()
        alive, table = weakref.ref(grammar), grammar.states()
        del grammar, m
        assert alive() is None
        with pytest.raises(ReferenceError):  # a table kept past its grammar says so
            table.bitmask(table.start)
    finally:
        gc.enable()


@pytest.mark.skipif(states_module._kernel is None, reason="the C kernel is not built here (no compiler)")
@pytest.mark.parametrize(("call", "args"), [
    ("machine_step", lambda m, nodes, bad: (m, bad, b"a")),
    ("machine_stacks", lambda m, nodes, bad: (m, bad)),
    ("machine_tops", lambda m, nodes, bad: (m, bad, b"\0")),
    ("machine_next", lambda m, nodes, bad: (m, nodes, bad)),
])
@pytest.mark.parametrize("bad", [-1, 1 << 30])
def test_a_configuration_the_machine_never_made_is_an_index_error(call, args, bad) -> None:
    grammar = compile_schema(SCHEMAS[3], small_vocab("llama3"))
    table = grammar.states()
    with pytest.raises(IndexError, match=f"{call}: no such configuration"):
        getattr(states_module._kernel, call)(*args(table.machine, grammar.trie.packed, bad))
