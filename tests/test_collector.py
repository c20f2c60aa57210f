"""The garbage collector is held off while a schema compiles, and given back as the caller had it."""

from __future__ import annotations

import gc
import threading

import pytest

from extractor.automata import build_automaton
from extractor.grammar import compile_grammar
from extractor.lang.collector import collector_paused
from extractor.schema import target_ir


@pytest.fixture(autouse=True)
def _enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


@collector_paused
def _state() -> bool:
    return gc.isenabled()


@collector_paused
def _nested() -> tuple[bool, bool]:
    return _state(), gc.isenabled()


@collector_paused
def _fails() -> None:
    raise ValueError("inside")


def test_the_collector_is_off_inside_and_back_after() -> None:
    assert _state() is False and gc.isenabled()
    assert _nested() == (False, False) and gc.isenabled()
    with pytest.raises(ValueError):
        _fails()
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    assert _state() is False and not gc.isenabled()


def test_concurrent_compiles_give_the_collector_back_after_the_last() -> None:
    inside, release = threading.Event(), threading.Event()

    @collector_paused
    def hold() -> None:
        inside.set()
        release.wait(5)

    thread = threading.Thread(target=hold)
    thread.start()
    inside.wait(5)
    assert _state() is False and not gc.isenabled()  # the other compile still runs
    release.set()
    thread.join(5)
    assert gc.isenabled()


def test_each_compile_stage_runs_with_the_collector_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    real = gc.disable
    monkeypatch.setattr(gc, "disable", lambda: (seen.append(True), real())[1])
    build_automaton(compile_grammar(target_ir({"type": "object", "properties": {"a": {"type": "string"}}}, None)))
    assert len(seen) == 3 and gc.isenabled()


ARRAYS = {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 1, "maxItems": 4,
          "items": {"type": "null"}}
CYCLES = [  # schemas whose compile once left reference cycles: each grammar was freed only by the collector
    {"$defs": {"a": {"type": "object", "properties": {"n": {"type": "integer"}, "next": {"$ref": "#/$defs/a"}}}},
     "$ref": "#/$defs/a"},  # the normalizer's exactness reader held the normalizer's bound method
    {"type": "object", "properties": {"xs": ARRAYS}},  # elements after the first: a recursive closure
    {"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}},  # contains split by closures
    {"type": "array", "uniqueItems": True, "items": {"enum": ["a", 1.0, {"b": 2}]}},  # distinct values' tails, and
    # each value's canonical text: closures calling themselves
]


@pytest.mark.parametrize("schema", CYCLES)
def test_a_compile_leaves_no_cycle_for_the_collector(schema) -> None:
    """What a compile made is freed by reference counting when the grammar goes: none is left for a full
    collection to find later, inside whatever call it lands in (a mask's, in a server's step)."""
    from extractor import compile_schema
    from extractor.tokens import Vocabulary

    vocab = Vocabulary(tokens=(*(bytes([b]) for b in range(256)), b"</s>"), eos_ids=frozenset({256}))
    gc.collect()
    gc.disable()
    try:
        grammar = compile_schema(schema, vocab, refusal=None)
        grammar.matcher().mask()
        del grammar
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_tables_held_by_a_cache_are_not_objects_the_collector_walks() -> None:
    """A server's table cache holds tens of thousands of tables: each a tracked object, every full collection would
    walk them all, inside whichever call allocates (a mask). Held as plain tuples, the collector drops them from
    its lists at their first collection; a hit hands out the same arrays."""
    from extractor import compile_schema
    from extractor.masks.tables import TableCache
    from extractor.tokens import Vocabulary

    vocab = Vocabulary(tokens=(*(bytes([b]) for b in range(256)), b"</s>"), eos_ids=frozenset({256}))
    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
                             vocab, refusal=None)
    cache, aut = TableCache(), grammar.automaton
    keys = [(r, s) for r in range(len(aut.dfas)) if r not in aut.private for s in range(aut.dfas[r].size)]
    first = [cache.get(aut, grammar.trie, r, s) for r, s in keys]
    gc.collect()
    assert cache.entries and not any(gc.is_tracked(entry) for entry in cache.entries.values())
    again = [cache.get(aut, grammar.trie, r, s) for r, s in keys]
    assert all(a.packed is b.packed and a.exit_nodes is b.exit_nodes and a.size == b.size
               for a, b in zip(first, again))


def test_a_matchers_rollback_history_is_not_objects_the_collector_walks() -> None:
    """A grammar with distinct keys keeps each step's strings for rollback: as plain tuples, which leave the
    collector's lists in its young passes (an object a step, over a long output, would be walked by every full pass);
    rolled back, the matcher allows and refuses what it did at that step."""
    from extractor import compile_schema
    from extractor.tokens import Vocabulary

    vocab = Vocabulary(tokens=(*(bytes([b]) for b in range(256)), b"</s>"), eos_ids=frozenset({256}))
    grammar = compile_schema({"type": "object", "additionalProperties": {"type": "integer"}}, vocab, refusal=None)
    matcher = grammar.matcher()
    for byte in b'{"a":1,"b":2,"c"':
        matcher.advance(byte)
    gc.collect()  # a step's state holds its strings' tuple: the first pass untracks that, the second the state
    gc.collect()
    assert matcher.steps == 16 and not any(gc.is_tracked(state) for state in matcher._distincts)
    matcher.rollback(3)  # back to just after `"b":2,`
    for byte in b'"a':
        matcher.advance(byte)
    assert not matcher.mask()[ord('"')]  # "a" again: a repeated key
    matcher.rollback(2)
    for byte in b'"d':
        matcher.advance(byte)
    assert matcher.mask()[ord('"')]


def test_numbered_configurations_are_not_objects_the_collector_walks() -> None:
    """A grammar's table of configurations (tens of thousands; hundreds of grammars in a server's cache) holds each
    configuration off the collector's lists: a frozenset of int frames cannot be part of a cycle. Anything else
    the helper is handed stays tracked."""
    from extractor import compile_schema
    from extractor.masks.trie import _kernel
    from extractor.tokens import Vocabulary

    if _kernel is None:
        pytest.skip("the C kernel is not built here: configurations stay tracked (correct, only slower passes)")
    vocab = Vocabulary(tokens=(*(bytes([b]) for b in range(256)), b"</s>"), eos_ids=frozenset({256}))
    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}},
                             vocab, refusal=None)
    matcher = grammar.matcher()
    for byte in b'{"a":["x","y"]}':
        matcher.advance(byte)
    configs = matcher.states.configs
    assert len(configs) > 10 and not any(gc.is_tracked(config) for config in configs)
    assert matcher.accepting()
    kept = [frozenset({(("a", 1),)}), frozenset({((1, 2), (3, (4,)))}), {((1, 2),)}, (((1, 2),),)]
    assert [_kernel.untrack_config(obj) for obj in kept] == [False] * 4
    assert all(gc.is_tracked(obj) for obj in kept[:3])
