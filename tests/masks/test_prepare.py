"""Tables built ahead of the first request (a server's compile thread): after `prepare`, walks of any length
build no table on a step, and a prepare out of time stops where it is."""

from __future__ import annotations

import numpy as np
import pytest

from extractor import compile_schema
from extractor.automata.counted import CountedDFA
from extractor.masks import TableCache
from extractor.masks.bits import pack
from extractor.masks.matcher import CompiledGrammar, _table_count
from extractor.masks.tables import Table
from tests.masks.test_masks import small_vocab

SCHEMAS = [  # the first two count (CountedDFA): tables below lo, at lo, and near hi
    {"type": "string", "minLength": 3, "maxLength": 150},
    {"type": "array", "items": {"enum": [1, 22]}, "minItems": 3, "maxItems": 120},
    {"type": "object", "properties": {"name": {"type": "string", "minLength": 3, "maxLength": 40},
                                      "tags": {"type": "array", "items": {"type": "integer"}, "maxItems": 5}},
     "required": ["name", "tags"]},
    {"type": "array", "items": {"type": "string", "pattern": "^[a-z]{2,30}$"}, "minItems": 2, "maxItems": 9},
    {"type": "object", "properties": {"n": {"type": "number", "minimum": 0}, "s": {"enum": ["a", "b", None]}}},
]


class _Counting(TableCache):
    """A table cache that counts the tables it builds."""

    def build(self, *args):  # type: ignore[no-untyped-def]
        self.built = getattr(self, "built", 0) + 1
        return super().build(*args)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_after_prepare_no_step_builds_a_table(schema: dict) -> None:
    plain = compile_schema(schema, small_vocab("llama3"))
    tables = _Counting()
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie, tables=tables)
    assert grammar.prepare(60.0) > 0
    before = tables.built
    rng, tokens = np.random.default_rng(1), grammar.vocab.tokens
    assert schema is not SCHEMAS[0] or any(isinstance(d, CountedDFA) for d in grammar.automaton.dfas)
    for _ in range(30):
        m = grammar.matcher()
        for _ in range(400):
            allowed = [t for t in np.flatnonzero(m.mask()) if tokens[t]]
            if not allowed:
                break
            m.advance(int(rng.choice(allowed)))
    assert tables.built == before


def test_a_prepare_out_of_time_stops_at_once() -> None:
    plain = compile_schema(SCHEMAS[0], small_vocab("llama3"))
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie, tables=_Counting())
    assert grammar.prepare(0.0) == 0
    assert getattr(grammar.tables, "built", 0) == 0


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_prepared_tables_are_held_packed(schema: dict) -> None:
    """A table holds a bit per token, not a byte: a bounded cache keeps eight times the tables, so a server's later
    grammars do not push out an earlier one's before its steps read them; its tokens read back unchanged."""
    plain = compile_schema(schema, small_vocab("llama3"))
    tables = TableCache(directory=None)
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie, tables=tables)
    grammar.prepare(60.0)
    words = (plain.vocab.size + 31) // 32
    for *fields, size in tables.entries.values():
        table = Table(*fields)
        assert size == table.nbytes <= 4 * words + table.exit_nodes.nbytes + 256
        assert table.packed.dtype == np.int32 and np.array_equal(pack(table.allowed), table.packed)


class _Ordered(TableCache):
    """A table cache that records the rule of each table looked up."""

    def get(self, automaton, trie, rule, state):  # type: ignore[no-untyped-def]
        self.rules = [*getattr(self, "rules", []), rule]
        return super().get(automaton, trie, rule, state)


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_prepare_builds_the_rules_with_fewer_tables_first(schema: dict) -> None:
    """A request passes through most states of a small rule and few of a large one: a prepare cut short has built
    the small rules' tables whole."""
    plain = compile_schema(schema, small_vocab("llama3"))
    tables = _Ordered(directory=None)
    grammar = CompiledGrammar(plain.automaton, plain.vocab, plain.trie, tables=tables)
    done = grammar.prepare(60.0)
    counts = [_table_count(plain.automaton.dfas[rule], plain.trie.width) for rule in dict.fromkeys(tables.rules)]
    assert len(tables.rules) == done == sum(_table_count(d, plain.trie.width) for d in plain.automaton.dfas)
    assert counts == sorted(counts) and len(counts) == len(plain.automaton.dfas)
