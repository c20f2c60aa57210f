"""The native walks against their plain counterparts: the configuration walk against the same walk in
Python, the walk beside the reference table against the walk alone, and masks of objects with
undeclared keys against brute force."""

from __future__ import annotations

import random

import numpy as np
import pytest

from extractor import compile_schema
from extractor.automata import build_dfa
from extractor.automata.counted import CountedDFA
from extractor.automata.configs import config_dfa
from extractor.lang import json_terms as jt
from extractor.lang.regex import Minus, alt, lit
from extractor.masks import TableCache
from extractor.masks.reference import numpy_pair, pair, pairing, reference
from extractor.masks.tables import leaf_table
from extractor.masks.trie import _kernel
from extractor.masks import walk as walk_module
from extractor.masks.walk import _walk_python, walk
from extractor.schema import NormalizeOptions
from tests.masks.test_masks import masks_match_brute_force, small_vocab
from tests.vocabs import shared_vocab

OPEN = NormalizeOptions(strict_objects=False)
UNDECLARED = [
    {"type": "object", "properties": {"name": {"type": "string"}, "nickname": {"type": "string"}}},
    {"type": "object", "properties": {"id": {"type": "integer"}}, "additionalProperties": {"type": "integer"}},
    {"type": "object", "properties": {"a": {"type": "boolean"}}, "patternProperties": {"^x-": {"type": "string"}}},
    {"type": "object", "propertyNames": {"maxLength": 6}, "properties": {"abc": {"type": "null"}}},
    {"type": "array", "items": {"type": "object", "properties": {"k": {"enum": ["v", "w"]}}}},
]
needs_kernel = pytest.mark.skipif(_kernel is None, reason="the C mask kernel is not built here (no C compiler)")


@pytest.mark.parametrize("schema", UNDECLARED, ids=range(len(UNDECLARED)))
def test_masks_with_undeclared_keys_equal_brute_force(schema: dict) -> None:
    grammar = compile_schema(schema, small_vocab("llama3"), normalize=OPEN)
    grammar.tables = TableCache()
    assert masks_match_brute_force(grammar, rounds=4, limit=80, seed=3) >= 8


@needs_kernel
@pytest.mark.parametrize("schema", UNDECLARED[:3], ids=range(3))
def test_walk_beside_the_reference_equals_the_walk_alone(schema: dict) -> None:
    """On the full Llama-3 vocabulary, every state of every undeclared-key rule."""
    vocab = shared_vocab("llama3")
    grammar = compile_schema(schema, vocab, normalize=OPEN)
    aut, trie, tables = grammar.automaton, grammar.trie, TableCache()
    compared = 0
    for rule in sorted(aut.leaves):
        dfa = aut.dfas[rule]
        found = pairing(aut.fingerprints[rule], dfa) if not hasattr(dfa, "base") else None
        if found is None:
            continue
        for state in np.flatnonzero(found.partner >= 0).tolist():
            beside = (found, tables.reference(trie, int(found.partner[state])))
            fast, slow = leaf_table(dfa, trie, state, beside), leaf_table(dfa, trie, state)
            assert (fast.allowed == slow.allowed).all(), (aut.names[rule], state)
            assert fast.exit_nodes.tolist() == slow.exit_nodes.tolist(), (aut.names[rule], state)
            compared += 1
    assert compared


COUNTED = [
    {"type": "array", "items": {"type": "string", "maxLength": 5}, "minItems": 2, "maxItems": 4},
    {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "integer"}, "maxItems": 3}}},
]


WALKED = [(schema, None) for schema in UNDECLARED + COUNTED] + [(schema, 2) for schema in UNDECLARED[:2] + COUNTED[:1]]


@needs_kernel
@pytest.mark.parametrize(("schema", "kept"), WALKED, ids=range(len(WALKED)))
def test_native_pushdown_walk_equals_the_python_walk(schema: dict, kept: int | None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """walk_table's walk and an exit walk, in C and in Python, on the full GPT-2 vocabulary: every
    rule, its first states (counted rules: counts 0 to 2), in a shuffled order. The C walks share one machine per
    grammar, its steps kept from walk to walk; with `kept`, it is opened afresh whenever it holds that many
    configurations (so most walks start in a machine another walk has left part-way)."""
    if kept is not None:
        monkeypatch.setattr(walk_module, "MAX_WALK_CONFIGS", kept)
    vocab = shared_vocab("gpt2")
    grammar = compile_schema(schema, vocab, normalize=OPEN)
    aut, trie = grammar.automaton, grammar.trie
    configs = config_dfa(aut)
    opened, open_machine = [], _kernel.machine
    monkeypatch.setattr(_kernel, "machine", lambda arrays: opened.append(arrays) or open_machine(arrays))
    compared = 0
    places = [(rule, state) for rule, dfa in enumerate(aut.dfas)
              for state in range(min(dfa.base.size * 3 if isinstance(dfa, CountedDFA) else dfa.size, 15))]
    random.Random(len(places)).shuffle(places)
    for rule, state in places:
        start = aut.close([((rule, state),)])
        jobs = np.array([[0, configs.id(start)]], dtype=np.int32)
        native, python = walk(aut, trie, start, np.zeros(1, np.int32), True), _walk_python(configs, trie, jobs, True)
        assert [a.tolist() for a in native] == [a.tolist() for a in python], (aut.names[rule], state)
        exits = native[1]
        if len(exits):
            jobs = np.column_stack([exits, np.full(len(exits), configs.id(aut.start()))]).astype(np.int32)
            assert (walk(aut, trie, aut.start(), exits, False)[0].tolist()
                    == _walk_python(configs, trie, jobs, False)[0].tolist()), (aut.names[rule], state)
        compared += 1
    assert compared and (len(opened) > 1 if kept is not None else len(opened) == 1)


def test_pairing_finds_equal_languages_exactly() -> None:
    ref, _ = reference()
    itself = pair(ref, ref)
    assert all(itself.same[s, s] for s in range(ref.size))
    keys = build_dfa(Minus(jt.CANONICAL_STRING, alt(lit('"name"'), lit('"nick"'))))
    found = pair(keys, ref)
    state = 0
    for byte in b'"na':  # a prefix of an excluded key: not the reference's language
        state = int(keys.trans[state, byte])
    assert not found.equal(state) and found.partner[state] >= 0
    for byte in b"x":  # off every excluded key: any canonical string from here on
        state = int(keys.trans[state, byte])
    assert found.equal(state)


PAIRED = UNDECLARED + COUNTED + [
    {"type": "object", "additionalProperties": {"type": "string", "pattern": "^[a-z]+$"}},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}, "tag": {"enum": ["a", "ab"]}},
     "propertyNames": {"pattern": "^[a-z]{2,8}$"}},
    {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False},
    {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
]


@needs_kernel
@pytest.mark.parametrize("schema", PAIRED, ids=range(len(PAIRED)))
def test_the_native_pairing_equals_the_numpy_pairing(schema: dict) -> None:
    """Differential: every rule that calls nothing and counts nothing, paired with the reference in C and in NumPy,
    gives the same partners (the same state chosen) and the same pairs of equal languages."""
    ref = reference()[0]
    aut = compile_schema(schema, small_vocab("llama3"), normalize=OPEN).automaton
    dfas = [dfa for dfa in aut.dfas if not isinstance(dfa, CountedDFA)]
    for dfa in dfas:
        fast, plain = pair(dfa, ref), numpy_pair(dfa, ref)
        assert fast.partner.tolist() == plain.partner.tolist() and (fast.same == plain.same).all()
        assert fast.same.shape == (dfa.size, ref.size) and fast.same.dtype == plain.same.dtype == np.uint8
    assert dfas


@needs_kernel
def test_the_native_pairing_finds_partners() -> None:
    """The differential above compares rules that have partners, not only rules that have none."""
    ref = reference()[0]
    aut = compile_schema(UNDECLARED[0], small_vocab("llama3"), normalize=OPEN).automaton
    assert any((pair(dfa, ref).partner >= 0).any() for dfa in aut.dfas if not isinstance(dfa, CountedDFA))


def test_masks_without_the_kernel_equal_brute_force(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no C compiler built the kernel: NumPy leaf walks and pairings, and the Python pushdown walk."""
    import extractor.masks.reference as references
    import extractor.masks.tables as tables
    import extractor.masks.walk as walks

    monkeypatch.setattr(tables, "_kernel", None)
    monkeypatch.setattr(walks, "_kernel", None)
    monkeypatch.setattr(references, "_kernel", None)
    vocab = small_vocab("gpt2")
    for schema in (UNDECLARED[0], UNDECLARED[1], COUNTED[0]):
        grammar = compile_schema(schema, vocab, normalize=OPEN)
        grammar.tables = TableCache()
        assert masks_match_brute_force(grammar, rounds=1, limit=25, seed=5), schema
