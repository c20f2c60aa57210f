"""Minimization: the C refinement (lang/_partition.c) and the Python one give the same automaton, which is the
minimal DFA of the same language (checked against Moore's algorithm and by running both on random inputs)."""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.errors import SchemaTooComplexError
from extractor.lang import dfa
from extractor.lang.budget import Budget, metered
from extractor.lang.dfa import RuleDFA, build_dfa
from extractor.lang.json_terms import CANONICAL_STRING, NUMBER
from extractor.lang.pattern import ANY, MAX_REPEAT, chars, compile_pattern
from extractor.lang.regex import Both, Minus, Ref, alt, lit, seq, star

needs_native = pytest.mark.skipif(dfa.kernel is None, reason="lang/_partition.c is not built here (no C compiler)")

PATTERNS = ["^[a-z]{2,5}$", "^(ab|ac|b)*c$", "^\\d{3}-\\d{4}$", "^(foo|bar|baz)+$", "^(a|b)*a(a|b){3}$", "^$", "[^x]"]
PRODUCTS = {"string-minus-keys": Minus(CANONICAL_STRING, alt(lit('"name"'), lit('"nick"'))),
            "both-patterns": Both((compile_pattern("^[a-z]+$"), compile_pattern("^.{3,6}$"), compile_pattern("o"))),
            "minus-empty": Minus(compile_pattern("^a*$"), compile_pattern("^a*$"))}


def _same(a: RuleDFA, b: RuleDFA) -> bool:
    return np.array_equal(a.trans, b.trans) and np.array_equal(a.accept, b.accept) and a.calls == b.calls


@needs_native
@pytest.mark.parametrize("node", [compile_pattern(p) for p in PATTERNS] + [CANONICAL_STRING, NUMBER, *PRODUCTS.values()],
                         ids=PATTERNS + ["json-string", "json-number", *PRODUCTS])
def test_native_and_python_refinement_build_the_same_automaton(node, monkeypatch: pytest.MonkeyPatch) -> None:
    native = build_dfa(node)
    monkeypatch.setattr(dfa, "kernel", None)
    assert _same(native, build_dfa(node))


def _moore(trans: list[list[int]], accept: list[bool]) -> int:
    """The number of states of the minimal automaton: classes of equivalent live states, and the start state
    where it is not live (an independent, slow oracle)."""
    n = len(accept)
    live = set(np.flatnonzero(accept).tolist())
    changed = True
    while changed:
        changed = False
        for s in range(n):
            if s not in live and any(t in live for t in trans[s]):
                live.add(s)
                changed = True
    block = {s: int(accept[s]) for s in live}
    while True:
        sig = {s: (block[s], *(block.get(t, -1) for t in trans[s])) for s in live}
        ids = {v: i for i, v in enumerate(sorted(set(sig.values())))}
        new = {s: ids[sig[s]] for s in live}
        if len(set(new.values())) == len(set(block.values())):
            return len(set(new.values())) + (0 not in live)
        block = new


def _runs(d: RuleDFA, text: list[int]) -> bool:
    state = 0
    for byte in text:
        state = int(d.trans[state, byte])
        if state < 0:
            return False
    return bool(d.accept[state])


def _runs_table(trans: list[list[int]], accept: list[bool], text: list[int]) -> bool:
    state = 0
    for byte in text:
        state = trans[state][byte]
        if state < 0:
            return False
    return accept[state]


@st.composite
def dfas(draw: st.DrawFn) -> tuple[list[list[int]], list[bool]]:
    n = draw(st.integers(1, 14))
    k = draw(st.integers(1, 3))
    trans = [[draw(st.integers(-1, n - 1)) for _ in range(k)] for _ in range(n)]
    accept = [draw(st.booleans()) for _ in range(n)]
    return trans, accept


@settings(max_examples=150, deadline=None)
@given(dfas(), st.booleans())
def test_minimized_automata_are_minimal_and_keep_the_language(machine, native: bool) -> None:
    trans, accept = machine
    k = len(trans[0])
    of_byte = np.minimum(np.arange(256), k - 1)  # byte b reads column b, the bytes from k - 1 on the last one
    saved = dfa.kernel
    try:
        if not native:
            dfa.kernel = None
        small = dfa._from_table(np.array(trans, dtype=np.int32)[:, of_byte], accept)
    finally:
        dfa.kernel = saved
    assert small.size == _moore(trans, accept)
    rng = random.Random(len(trans))
    for _ in range(60):
        text = [rng.randrange(k) for _ in range(rng.randrange(8))]
        assert _runs(small, text) == _runs_table(trans, accept, text)


def _copies(states: int, copies: int, symbols: int, seed: int) -> tuple[np.ndarray, list[bool]]:
    """A random DFA of `states` states blown up into `copies` copies of each (any copy of a target will do):
    equivalent states to merge, each entered by many symbols."""
    rng = np.random.default_rng(seed)
    small = rng.integers(-1, states, size=(states, symbols))
    n = states * copies
    trans = np.where(small[np.arange(n) % states] < 0, -1,
                     small[np.arange(n) % states] + states * rng.integers(0, copies, size=(n, symbols)))
    return trans.astype(np.int32), (rng.random(states) < 0.4)[np.arange(n) % states].tolist()


@needs_native
@pytest.mark.parametrize("states, copies, symbols, seed", [
    (3, 4, 40, 1), (12, 3, 64, 2), (40, 2, 9, 3), (5, 30, 200, 4), (25, 5, 1, 5),
])
def test_native_refinement_over_many_symbols_is_the_python_one(states, copies, symbols, seed) -> None:
    """Targets entered by many symbols (the C refinement finds a symbol's sources among a target's by binary
    search) minimize to the Python refinement's automaton, which is minimal."""
    trans, accept = _copies(states, copies, symbols, seed)
    table = trans[:, np.minimum(np.arange(256), symbols - 1)]
    native = dfa._from_table(table, accept)
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = dfa._from_table(table, accept)
    finally:
        dfa.kernel = saved
    assert _same(native, python) and native.size == _moore(trans.tolist(), accept)


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("budget", [Budget(max_states=2_000, timeout=None), Budget(max_states=None, timeout=0.0)],
                         ids=["states", "seconds"])
def test_the_subset_construction_stops_at_the_compile_budget(native: bool, budget: Budget,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if native and dfa.kernel is None:
        pytest.skip("lang/_partition.c is not built here (no C compiler)")
    if not native:
        monkeypatch.setattr(dfa, "kernel", None)
    with metered(budget), pytest.raises(SchemaTooComplexError, match="states" if budget.max_states else "took more"):
        build_dfa(compile_pattern("^.*a.{12}$"))  # 2^13 subsets


@needs_native
def test_native_subsets_stop_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The C construction checks the clock itself (every 256 states): given no time left, it stops there."""
    monkeypatch.setattr(dfa, "remaining", lambda: (-1, 0.0))
    with metered(Budget(max_states=None, timeout=60.0)), pytest.raises(SchemaTooComplexError, match="took more"):
        build_dfa(compile_pattern("^.*a.{12}$"))


def _difference() -> Callable[[], RuleDFA]:
    a, b = build_dfa(compile_pattern("^[a-z]{0,40}$")), build_dfa(compile_pattern("^(ab)*$"))  # outside the budget
    return lambda: dfa._product(a, b, minus=True)


def _key_rule() -> Callable[[], RuleDFA]:  # the names a key rule excludes are states built, with or without their DFA
    return lambda: build_dfa(Minus(CANONICAL_STRING, alt(*(lit(f'"name{i}"') for i in range(500)))))


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("prepare, states", [(_difference, 20), (_key_rule, 1_000)], ids=["difference", "key rule"])
def test_a_product_stops_at_the_compile_budget(native: bool, prepare, states: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if native and dfa.kernel is None:
        pytest.skip("lang/_partition.c is not built here (no C compiler)")
    if not native:
        monkeypatch.setattr(dfa, "kernel", None)
    build = prepare()
    with metered(Budget(max_states=states, timeout=None)), pytest.raises(SchemaTooComplexError, match="states"):
        build()


def test_an_empty_language_is_a_start_state_with_no_edges() -> None:
    empty = build_dfa(Minus(compile_pattern("^a*$"), compile_pattern("^a*$")))
    assert empty.size == 1 and not empty.accept[0] and (empty.trans == -1).all() and empty.calls == ((),)


def _endless_by_peeling(trans: np.ndarray, accept: np.ndarray) -> bool:
    """`endless` spelled out: peel the states with finitely many completions from the end, one by one."""
    succ = [set(row[row >= 0].tolist()) for row in trans]
    live = {s for s in range(len(accept)) if accept[s]}
    grew = True
    while grew:
        grew = False
        for s, targets in enumerate(succ):
            if s not in live and targets & live:
                live.add(s)
                grew = True
    finite: set[int] = set()
    grew = True
    while grew:
        grew = False
        for s in live - finite:
            if not (succ[s] & live) - finite:
                finite.add(s)
                grew = True
    return all(not succ[s] & live for s in finite)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 7), st.data(), st.booleans())
def test_endless_is_the_peeling_of_finite_states(n, data, native):
    from extractor.automata.pda import _endless

    if native and dfa.kernel is None:
        return  # the C check is not built here: the Python one is drawn too
    columns = data.draw(st.lists(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n), min_size=1, max_size=3))
    trans = np.full((n, 256), -1, dtype=np.int32)
    for byte, column in enumerate(columns):
        trans[:, 0x61 + byte] = column
    accept = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    saved = dfa.kernel
    try:
        if not native:
            dfa.kernel = None
        found = _endless(RuleDFA(trans=trans, accept=accept, calls=((),) * n))
        minimal = dfa._from_table(trans, accept.tolist())  # trimmed: the search for live states is skipped
        assert minimal.trimmed and _endless(minimal) == found  # merging equal states keeps every completion
    finally:
        dfa.kernel = saved
    assert found == _endless_by_peeling(trans, accept)


@pytest.mark.parametrize("schema", [
    {"type": "string", "pattern": "^(ab|c{2,5})*d{3}$"},
    {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(8)}, "required": ["p3"]},
    {"type": "array", "items": {"anyOf": [{"type": "string", "format": "email"}, {"type": "null"}]}, "minItems": 2},
    {"type": "object", "additionalProperties": {"type": "number", "minimum": 3}, "maxProperties": 3},
])
def test_the_native_rule_construction_builds_what_python_does(schema) -> None:
    """Thompson, byte classes, subsets and minimization in one C call give the automaton the Python steps give,
    calls included: with every callee, and with only some able to finish (the others' calls not taken)."""
    from extractor.grammar import compile_grammar
    from extractor.lang.regex import Counted, Minus, Multiple, Substrings, refs
    from extractor.schema import target_ir

    if dfa.kernel is None:
        pytest.skip("the C construction is not built here (no compiler)")
    for node in compile_grammar(target_ir(schema, None)).rules.values():
        if isinstance(node, (Counted, Minus, Both, Multiple, Substrings)):
            continue
        callees = sorted(refs(node))
        for productive in (None, set(callees[::2])):
            native = build_dfa(node, productive)
            saved = dfa.kernel
            try:
                dfa.kernel = None
                python = build_dfa(node, productive)
            finally:
                dfa.kernel = saved
            assert _same(native, python) and native.sites == python.sites


def test_the_native_digest_is_the_python_digest() -> None:
    from extractor.lang import regex
    from extractor.lang.regex import Alt, Both, Bytes, Counted, Minus, Ref, Repeat, Seq, Suffix

    if regex._native is None:
        pytest.skip("the C digest is not built here (no compiler)")

    def body() -> regex.Node:  # every kind, made afresh (no digest kept yet), a suffix shared twice
        tail = Suffix(Seq((Bytes(1 << 0x7D), Ref("value"))))
        word = Repeat(Bytes((1 << 0x7B) - (1 << 0x61)), 1, None)
        return Alt((Seq((Bytes(1 << 0x7B), tail)), Seq((Bytes(1 << 0x5B), Repeat(Ref("item"), 0, 7), tail)),
                    Counted(Seq((Bytes(1 << 0x22), word)), 2, 9), Minus(word, Both((word, Bytes(1 << 0x78)))), Seq(())))

    native = regex.digest(body())
    saved = regex._native
    try:
        regex._native = None
        python = regex.digest(body())
    finally:
        regex._native = saved
    assert native == python


def test_the_call_sites_kept_by_minimization_are_the_calls() -> None:
    from extractor.automata import build_automaton
    from extractor.grammar import compile_grammar
    from extractor.schema import target_ir

    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}},
                                               "b": {"anyOf": [{"type": "string"}, {"type": "object"}]}}}
    automaton = build_automaton(compile_grammar(target_ir(schema, None)))
    called = [d for d in automaton.dfas if isinstance(d, RuleDFA) and any(d.calls)]
    assert called
    for d in called:
        assert d.sites == tuple((s, c, t) for s, state in enumerate(d.calls) for c, t in state)


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.data())
def test_the_native_search_for_acceptance_agrees_with_the_python_one(n, data):
    """`finishes` through some callees: C searches forward from the start, Python marks what reaches acceptance."""
    trans = np.full((n, 256), -1, dtype=np.int32)
    for byte in range(data.draw(st.integers(0, 3))):
        trans[:, 0x61 + byte] = data.draw(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n))
    accept = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    sites = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.sampled_from("abc"), st.integers(0, n - 1)),
                               max_size=6))
    returns = {(s, c): t for s, c, t in sites}  # a DFA: one return state per state and callee
    calls = [tuple((c, t) for (s, c), t in sorted(returns.items()) if s == state) for state in range(n)]
    callees = sorted(data.draw(st.sets(st.sampled_from("abc"))))
    native = RuleDFA(trans=trans, accept=accept, calls=tuple(calls))._finishes(callees)
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = RuleDFA(trans=trans, accept=accept, calls=tuple(calls))._finishes(callees)
    finally:
        dfa.kernel = saved
    assert native == python


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 6), st.data())
def test_the_native_content_digest_is_the_python_one(n, data):
    """A table's content digest (its distinct columns found through a hash of each) is the bytes the Python one
    hashes."""
    columns = data.draw(st.lists(st.lists(st.integers(-1, n - 1), min_size=n, max_size=n), min_size=1, max_size=4))
    of_byte = data.draw(st.lists(st.integers(0, len(columns) - 1), min_size=256, max_size=256))
    trans = np.array(columns, dtype=np.int32).T[:, of_byte].copy()
    accept = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    native = RuleDFA(trans=trans, accept=accept, calls=((),) * n).content
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = RuleDFA(trans=trans, accept=accept, calls=((),) * n).content
    finally:
        dfa.kernel = saved
    assert native == python


@needs_native
@pytest.mark.parametrize("node", [compile_pattern(p) for p in PATTERNS] + [CANONICAL_STRING, NUMBER, *PRODUCTS.values(),
                                  seq(lit("["), Ref("item"), star(seq(lit(","), Ref("item"))), lit("]")),
                                  compile_pattern("^[a-z]{70}$")],
                         ids=PATTERNS + ["json-string", "json-number", *PRODUCTS, "calling", "71-states"])
def test_a_construction_digests_its_table_as_reading_it_whole_does(node, monkeypatch: pytest.MonkeyPatch) -> None:
    """The digest a C construction makes from its rows over byte classes, for tables as large as a compile digests
    (every table here), is the bytes the digest of its whole table gives, in C and in Python (rules, intersections,
    differences with words and with automata)."""
    small = build_dfa(node, table=True)
    assert ("content" in small.__dict__) == (small.size >= dfa.DIGEST_AT_BUILD)
    assert "content" not in build_dfa(node).__dict__  # a part of a rule's table: digested when a fingerprint asks
    monkeypatch.setattr(dfa, "DIGEST_AT_BUILD", 1)
    built = build_dfa(node, table=True)
    made = built.__dict__["content"]
    native = RuleDFA(trans=built.trans, accept=built.accept, calls=built.calls).content
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = RuleDFA(trans=built.trans, accept=built.accept, calls=built.calls).content
    finally:
        dfa.kernel = saved
    assert made == native == python


def test_constructions_digest_the_tables_a_compile_digests() -> None:
    """Tables of DIGEST_AT_BUILD states or more are digested as they are built, none of them again at compile."""
    from extractor.masks.matcher import DIGEST_AT_COMPILE_BYTES

    assert DIGEST_AT_COMPILE_BYTES == dfa.DIGEST_AT_BUILD * 256 * 4


@needs_native
@pytest.mark.parametrize("minus", [False, True])
def test_the_native_product_numbers_its_pairs_as_python_does(minus: bool) -> None:
    """A product's table, acceptance and pair of each state (what counted strings mark their units by)."""
    a, b = build_dfa(CANONICAL_STRING), build_dfa(compile_pattern("^\"[a-c]{0,3}\"$"))
    native = dfa.pairs_product(a, b, minus)
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = dfa.pairs_product(a, b, minus)
    finally:
        dfa.kernel = saved
    assert all(np.array_equal(x, y) for x, y in zip(native, python))


@needs_native
@settings(max_examples=150, deadline=None)
@given(st.sampled_from([CANONICAL_STRING, compile_pattern("^[a-c]*$"), compile_pattern("^(ab|é)+x?$")]),
       st.lists(st.text(alphabet="abcé\"x\\", min_size=1, max_size=5), min_size=1, max_size=6))
def test_a_difference_with_words_is_the_product_with_their_automaton(item, texts):
    """`A` less some literal strings (every key rule) is built without the words' automaton: the same table,
    accepting states and content digest as the product with that automaton, in C and in Python."""
    words = [t.encode() for t in texts] + [b'"' + texts[0].encode() + b'"']  # and one a JSON string
    node = Minus(item, alt(*(lit(w) for w in words)))
    built = build_dfa(node)
    product = dfa._product(dfa.part(item), dfa.part(node.other), minus=True)
    saved = dfa.kernel
    try:
        dfa.kernel = None
        python = build_dfa(node)
    finally:
        dfa.kernel = saved
    assert _same(built, product) and _same(built, python)
    assert built.content == product.content


def _collision() -> np.ndarray:
    """Two different columns with one column hash (bytes 3 and 9): the digest must still tell them apart."""
    table = np.full((2, 256), -1, dtype=np.int32)
    h = lambda col: ((((5381 * 33) ^ int(col[0])) * 33) & 0xFFFFFFFF) ^ int(col[1])  # the C column hash
    table[:, 3], table[:, 9] = (0, 0), (1, h((0, 0)) ^ ((((5381 * 33) ^ 1) * 33) & 0xFFFFFFFF))
    assert h(table[:, 3]) == h(table[:, 9]) and not np.array_equal(table[:, 3], table[:, 9])
    return table


_rng = np.random.default_rng(5)


def _unsampled() -> np.ndarray:
    """Bytes 7 and 8 equal on every row the C guess hashes (a large table samples every 11th of its 3,000 rows) and
    different on row 5 alone: the guess fails its check and the columns are told apart from every row."""
    table = np.repeat(_rng.integers(-1, 3000, (3000, 8), dtype=np.int32), 32, axis=1)
    table[:, 8] = table[:, 7]
    table[5, 8] = (table[5, 7] + 1) % 3000
    return table


@needs_native
@pytest.mark.parametrize("table", [
    np.full((1, 256), -1, dtype=np.int32),  # one state, no edges
    _rng.integers(-1, 4, (4, 256), dtype=np.int32),  # every column likely its own
    np.repeat(_rng.integers(-1, 3000, (3000, 8), dtype=np.int32), 32, axis=1),  # 8 classes of 32 bytes, 3,000 states
    _collision(),
    _unsampled(),
    np.where(_rng.random((3000, 256)) < 0.01, _rng.integers(0, 3000, (3000, 256), dtype=np.int32), -1),  # sparse
], ids=["empty", "random", "classes", "collision", "unsampled", "sparse"])
def test_the_native_content_digest_holds_on_large_tables_and_column_hash_collisions(
        table: np.ndarray, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C digest checks its guess of equal columns (from a sample of a large table's rows) in one pass over the
    rows, redoes it from every row where the sample misled it, and falls back to comparing columns where two
    different ones share a hash: the same bytes as Python's either way."""
    accept = np.arange(len(table)) % 3 == 0
    native = RuleDFA(trans=table, accept=accept, calls=((),) * len(table)).content
    monkeypatch.setattr(dfa, "kernel", None)
    assert native == RuleDFA(trans=table, accept=accept, calls=((),) * len(table)).content


def test_patterns_and_their_classes_are_built_once_per_process():
    """A pattern read when its schema is normalized (`max_repeat` left out) and again when its grammar is built
    (passed) is one entry, and the any-text class around every unanchored pattern is one tree, not one a pattern."""
    assert compile_pattern("^q[0-9]+z$") is compile_pattern("^q[0-9]+z$", MAX_REPEAT)
    first, second = compile_pattern("a\\P{C}b").items, compile_pattern("c\\P{C}d").items  # (any text, a, class, b, any)
    assert first[0].item is second[0].item is chars(ANY) and first[2] is second[2]


@needs_native
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 1200), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_native_byte_classes_are_the_python_ones(states, values, seed) -> None:
    """`RuleDFA.byte_classes` in C (rows sampled, then checked in row order) against the columns compared whole:
    tables past 512 rows take the sampled guess, and a guess that one unsampled row breaks is redone."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, rng.integers(1, 40), 256)  # bytes meant to share a column
    trans = rng.integers(-1, values, (states, 256), dtype=np.int32)[:, groups]
    if rng.random() < 0.5:  # one row telling apart two bytes of a group: what a sampled guess misses
        row, byte = int(rng.integers(states)), int(rng.integers(256))
        trans[row, byte] = values + 1
    machine = RuleDFA(trans=np.ascontiguousarray(trans), accept=np.zeros(states, dtype=bool), calls=((),) * states)
    assert machine.byte_classes.tolist() == dfa._column_classes(trans)[0].tolist()
