"""Counted repetition (lengths and item counts kept beside the state) against the unrolled automaton,
jsonschema, and the no-dead-end property; and large bounds stay exact with small tables."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.automata import build_automaton
from extractor.automata.counted import CountedDFA
from extractor.errors import InvalidSchemaError
from extractor.grammar import CompileOptions, compile_grammar
from extractor.schema import target_ir
from tests.automata.helpers import runs

COUNTED = CompileOptions(count_from=0)
UNROLLED = CompileOptions(count_from=10**9)


def build(schema: dict, options: CompileOptions):
    return build_automaton(compile_grammar(target_ir(schema, refusal=None), options))


SCHEMAS = [
    {"type": "string", "maxLength": 3},
    {"type": "string", "minLength": 2},
    {"type": "string", "minLength": 1, "maxLength": 2},
    {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^(ab)*$"},
    {"type": "string", "minLength": 4, "maxLength": 5, "pattern": "^(abc)+$"},  # empty: 3 and 6 only
    {"type": "string", "maxLength": 12, "format": "date"},
    {"type": "string", "minLength": 11, "format": "date"},  # empty
    {"type": "string", "maxLength": 2, "not": {"enum": ["a"]}},
    {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
    {"type": "array", "items": {"type": "null"}, "minItems": 2, "maxItems": 3},
    {"type": "array", "prefixItems": [{"type": "boolean"}], "items": {"type": "null"}, "minItems": 2, "maxItems": 3},
    {"type": "array", "items": {"type": "array", "items": {"type": "null"}, "maxItems": 1}, "minItems": 1,
     "maxItems": 2},
    {"type": "array", "items": {"enum": [1, "x"]}, "minItems": 1},
]

TEXTS = ['""', '"a"', '"ab"', '"abc"', '"abcd"', '"ababab"', '"abcabc"', '"é"', '"😀😀"', r'"\ud83d\ude00a"',
         r'"\n\n\n"', '"2024-01-01"', "[]", "[1]", "[1,2]", "[1,2,3]", "[null]", "[null,null]", "[null,null,null]",
         "[null,null,null,null]", "[true,null]", "[true,null,null]", "[false]", "[[]]", "[[null],[]]",
         '[[null,null]]', '[1,"x"]', '["x"]', "[1,]", "[,1]"]


def _safe_name(schema: dict) -> str:
    return json.dumps(schema, separators=(",", ":"))[:60]


def _satisfiable(schema: dict) -> bool:
    try:
        build(schema, UNROLLED)
        return True
    except InvalidSchemaError:
        return False


@pytest.mark.parametrize("schema", [s for s in SCHEMAS if _satisfiable(s)], ids=_safe_name)
def test_counted_language_equals_unrolled_and_jsonschema(schema):
    counted, unrolled = build(schema, COUNTED), build(schema, UNROLLED)
    assert any(isinstance(d, CountedDFA) for d in counted.dfas)
    for text in TEXTS:
        got = runs(counted, text)
        assert got == runs(unrolled, text), text
        if got:
            jsonschema.validate(json.loads(text), schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize("schema", [s for s in SCHEMAS if not _satisfiable(s)], ids=_safe_name)
def test_empty_counted_languages_are_refused_like_unrolled(schema):
    with pytest.raises(InvalidSchemaError, match="no JSON value"):
        build(schema, COUNTED)


@settings(max_examples=60, deadline=None)
@given(index=st.integers(0, len(SCHEMAS) - 1), seed=st.integers(0, 2**32 - 1))
def test_random_byte_walks_never_dead_end(index, seed):
    """Any byte the automaton allows leads on to a complete value: the count never strands a walk."""
    schema = SCHEMAS[index]
    if not _satisfiable(schema):
        return
    auto = build(schema, COUNTED)
    rng = np.random.default_rng(seed)
    config, out = auto.start(), bytearray()
    for _ in range(200):
        options = [b for b in range(256) if auto.step(config, b)]
        if auto.accepting(config) and (not options or rng.random() < 0.2):
            jsonschema.validate(json.loads(bytes(out)), schema,
                                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
            return
        assert options, f"dead end after {bytes(out)!r}"
        byte = int(rng.choice(options))
        config = auto.step(config, byte)
        out.append(byte)


@pytest.mark.parametrize("schema,good,bad", [
    ({"type": "string", "maxLength": 10000}, ['"' + "é" * 10000 + '"'], ['"' + "a" * 10001 + '"']),
    ({"type": "string", "minLength": 5000}, ['"' + "a" * 5000 + '"'], ['"' + "a" * 4999 + '"']),
    ({"type": "array", "items": {"type": "integer"}, "maxItems": 1000},
     ["[" + ",".join(["7"] * 1000) + "]"], ["[" + ",".join(["7"] * 1001) + "]"]),
    ({"type": "string", "pattern": "^[a-z]{1,500}$"}, ['"' + "a" * 500 + '"'], ['"' + "a" * 501 + '"', '""']),
    ({"type": "string", "format": "uri", "maxLength": 2048}, ['"https://example.com/' + "a" * 2000 + '"'],
     ['"https://example.com/' + "a" * 2048 + '"', '"not a uri"']),
])
def test_large_bounds_are_exact_and_small(schema, good, bad):
    auto = build(schema, CompileOptions())  # compile time is measured in benchmarks/bounds.py, not here
    assert sum(d.base.trans.nbytes if isinstance(d, CountedDFA) else d.trans.nbytes for d in auto.dfas) < 2**22
    for text in good:
        assert runs(auto, text)
    for text in bad:
        assert not runs(auto, text)


def test_a_counted_body_too_large_for_a_dense_closure_is_refused_at_once():
    """Counting needs the body's reachability closure (states squared): past MAX_COUNTED_STATES the rule is
    refused before any matrix is built, instead of multiplying for minutes."""
    import time

    import numpy as np

    from extractor.automata.counted import MAX_COUNTED_STATES, CountedTooComplex, counted
    from extractor.lang.dfa import RuleDFA

    n = MAX_COUNTED_STATES + 1
    trans = np.full((n, 256), -1, dtype=np.int32)
    trans[np.arange(n - 1), ord("a")] = np.arange(1, n)
    body = RuleDFA(trans=trans, accept=np.arange(n) == n - 1, calls=((),) * n)
    start = time.monotonic()
    with pytest.raises(CountedTooComplex, match="states"):
        counted(body, np.zeros(trans.shape, dtype=bool), frozenset(), 0, 10)
    assert time.monotonic() - start < 1


@pytest.mark.skipif(__import__("extractor.lang.dfa", fromlist=["kernel"]).kernel is None,
                    reason="lang/_partition.c is not built here (no C compiler): only the NumPy loop runs")
@settings(max_examples=150, deadline=None)
@given(st.integers(1, 70), st.integers(0, 2**32 - 1), st.integers(0, 5), st.one_of(st.none(), st.integers(0, 40)),
       st.sampled_from([1 << 22, 60, 7]))
def test_the_native_feasibility_rows_are_the_numpy_ones(n, seed, lo, extra, cells):
    """The counter's rows (which counts can still finish from each state), their prefix and period, made by C
    (steps over the strongly connected parts of the uncounted edges) and by NumPy (a closure by squaring) from
    random bodies with counted and uncounted calls, bounds and table limits: the same tables, or the same refusal."""
    from extractor.automata import counted as module
    from extractor.lang import dfa
    from extractor.lang.dfa import RuleDFA

    rng = np.random.default_rng(seed)
    trans = np.where(rng.random((n, 256)) < rng.random() ** 4 * 0.02, rng.integers(0, n, (n, 256)), -1).astype(np.int32)
    inc = rng.random((n, 256)) < rng.random() * 0.5
    ring = int(rng.integers(1, n + 1))  # a counted cycle through the first states: rows repeat with its length
    trans[np.arange(ring), ord("a")] = (np.arange(ring) + 1) % ring
    inc[:, ord("a")] = True
    calls = [tuple((str(rng.choice(["counted", "free"])), int(rng.integers(0, n))) for _ in range(rng.poisson(0.3)))
             for _ in range(n)]  # calls to a rule that adds one (an array's items) and to one that does not
    body = RuleDFA(trans=trans, accept=rng.random(n) < rng.random() ** 4 * 0.3, calls=tuple(calls))
    hi = None if extra is None else lo + extra

    def tables() -> object:
        try:
            cum, start, period = module._tables(body, inc, frozenset({"counted"}), lo, hi)
            return cum.tolist(), start, period
        except module.CountedTooComplex as exc:
            return str(exc)

    native = dfa.kernel
    try:
        module.MAX_TABLE_CELLS, kept = cells, module.MAX_TABLE_CELLS
        made = tables()
        dfa.kernel = None
        assert tables() == made
    finally:
        dfa.kernel, module.MAX_TABLE_CELLS = native, kept
