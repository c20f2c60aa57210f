"""Masks against brute force: every token's bytes walked through the automaton one by one."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from extractor import Refusal, compile_schema
from extractor.automata import Distinct
from extractor.automata.counted import CountedDFA
from extractor.grammar import CompileOptions
from extractor.masks import TableCache
from extractor.masks.matcher import CompiledGrammar
from extractor.masks.tables import counted_table, leaf_table, unit_paths
from extractor.masks.trie import _kernel
from extractor.tokens import Vocabulary
from tests.models_zoo import ZOO
from tests.vocabs import shared_vocab
from tests.walks import closers, sample


@functools.cache  # one object per cut: a grammar's token trie is built once per vocabulary object
def small_vocab(name: str, size: int = 3000, seed: int = 0) -> Vocabulary:
    """A real vocabulary cut down (every 1-byte token, structural tokens, a random rest) so brute force is quick."""
    full = shared_vocab(name)
    rng = np.random.default_rng(seed)
    keep = {i for i, t in enumerate(full.tokens) if len(t) == 1 or (t and any(c in t for c in b'"{}[],:'))}
    keep |= set(rng.choice(full.size, size, replace=False).tolist())
    keep |= set(full.eos_ids)
    tokens = tuple(t if i in keep else b"" for i, t in enumerate(full.tokens))
    return Vocabulary(tokens=tokens, eos_ids=full.eos_ids)


def brute_force(grammar: CompiledGrammar, config: frozenset, distinct: Distinct | None = None) -> np.ndarray:
    """Every token run byte by byte: allowed when each byte is and it finishes no distinct string again."""
    out = np.zeros(grammar.vocab.size, dtype=bool)
    for tid, data in enumerate(grammar.vocab.tokens):
        if data and (grammar.walk(config, data) if distinct is None else _fresh(distinct, config, data)):
            out[tid] = True
    if grammar.automaton.accepting(config):
        out[list(grammar.vocab.eos_ids)] = True
    return out


def _fresh(distinct: Distinct, config: frozenset, data: bytes) -> bool:
    """The token stepped byte by byte through the tracker (not the mask's lookup of string endings)."""
    return bool(distinct.after(config, data)[0])


def masks_match_brute_force(grammar: CompiledGrammar, rounds: int, limit: int, seed: int) -> int:
    """Random walks under the mask, every mask on the way compared with brute force; how many were."""
    vocab = grammar.vocab
    rng, bonus, checked = np.random.default_rng(seed), closers(vocab), 0
    for _ in range(rounds):
        matcher = grammar.matcher()
        while not matcher.finished and checked < limit:
            fast, slow = matcher.mask(), brute_force(grammar, matcher.config, matcher.distinct)
            diff = np.flatnonzero(fast != slow)
            assert not len(diff), [(int(t), vocab.tokens[t], bool(fast[t])) for t in diff[:5]]
            matcher.advance(sample(fast, bonus, rng))
            checked += 1
    return checked


@pytest.mark.parametrize("tokenizer", ["gpt2", "mistral"])
@pytest.mark.parametrize("model", ZOO, ids=lambda m: m.__name__)
def test_mask_equals_brute_force(model: type, tokenizer: str) -> None:
    grammar = compile_schema(model, small_vocab(tokenizer), refusal=Refusal)
    grammar.tables = TableCache()  # fresh: computed here, not reused from other tests
    assert masks_match_brute_force(grammar, rounds=3, limit=60, seed=7)


def test_matcher_rejects_forbidden_tokens_and_early_eos() -> None:
    vocab = small_vocab("gpt2")
    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, vocab)
    matcher = grammar.matcher()
    eos = next(iter(vocab.eos_ids))
    with pytest.raises(ValueError, match="EOS"):
        matcher.advance(eos)
    forbidden = next(i for i, t in enumerate(vocab.tokens) if t == b"[")
    with pytest.raises(ValueError, match="not allowed"):
        matcher.advance(forbidden)
    assert matcher.forced_bytes() == b'{"a":'
    matcher.advance_bytes(b'{"a":12')
    assert not matcher.accepting()
    matcher.advance_bytes(b"}")
    assert matcher.accepting()
    assert np.flatnonzero(matcher.mask()).tolist() == [eos]
    matcher.advance(eos)
    assert matcher.finished and not matcher.mask().any()


@pytest.mark.parametrize("schema", [
    {"type": "string", "maxLength": 90},
    {"type": "string", "minLength": 70, "maxLength": 75},
    {"type": "array", "items": {"type": "integer"}, "minItems": 30, "maxItems": 40},
])
def test_counted_masks_equal_brute_force_near_the_bounds(schema: dict) -> None:
    """Tables are shared between counts far from the bounds; near them each count gets its own."""
    vocab = small_vocab("gpt2")
    grammar = compile_schema(schema, vocab, options=CompileOptions(count_from=16))
    grammar.tables = TableCache()
    matcher = grammar.matcher()
    unit = b"a" if schema["type"] == "string" else b"7,"
    matcher.advance_bytes(b'"' if schema["type"] == "string" else b"[")
    steps = 0
    while grammar.walk(matcher.config, unit):
        fast, slow = matcher.mask(), brute_force(grammar, matcher.config, matcher.distinct)
        diff = np.flatnonzero(fast != slow)
        assert not len(diff), (bytes(matcher.output[-12:]), [(vocab.tokens[t], bool(fast[t])) for t in diff[:5]])
        matcher.advance_bytes(unit)
        steps += 1
    assert steps == schema.get("maxLength", schema.get("maxItems", 0) - 1)


@pytest.mark.parametrize("schema", [
    {"type": "string", "maxLength": 40},
    {"type": "string", "minLength": 20, "maxLength": 30},
    {"type": "string", "minLength": 25},
    {"type": "string", "pattern": "^[a-z\u00e9]+$", "minLength": 3, "maxLength": 24},
])
@pytest.mark.parametrize("tokenizer", ["gpt2", "llama3", "long"])
@pytest.mark.skipif(_kernel is None, reason="the base walk is the C mask kernel's (not built here: no C compiler)")
def test_counted_tables_read_off_the_base_walk_equal_the_walked_ones(schema: dict, tokenizer: str) -> None:
    """Every count of every state of a counted string: the table `counted_table` derives from one walk of the
    base state, and the one `leaf_table` walks with the count ("long": tokens deeper than the walk's first room)."""
    if tokenizer == "long":
        vocab = small_vocab("gpt2", size=300)
        tokens = vocab.tokens + (b"a" * 300, b"ab" * 200, b'"' + b"b" * 299 + b'"')
        vocab = Vocabulary(tokens=tokens, eos_ids=vocab.eos_ids)
    else:
        vocab = small_vocab(tokenizer)
    grammar = compile_schema(schema, vocab, options=CompileOptions(count_from=4))
    dfas = [d for r, d in enumerate(grammar.automaton.dfas) if isinstance(d, CountedDFA) and r in grammar.automaton.leaves]
    assert dfas
    for dfa in dfas:
        for base in range(dfa.n):
            paths = unit_paths(dfa, grammar.trie, base)
            for count in range((dfa.hi if dfa.hi is not None else dfa.lo) + 1):
                walked, derived = leaf_table(dfa, grammar.trie, count * dfa.n + base), counted_table(dfa, paths, count)
                assert np.array_equal(walked.allowed, derived.allowed), (base, count)
                assert np.array_equal(walked.exit_nodes, derived.exit_nodes), (base, count)


def _tamper(path, how: str) -> None:
    import io

    import numpy as np

    if how == "empty":
        path.write_bytes(b"")
    elif how == "torn":
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])
    else:  # well-formed files that must not be trusted
        with np.load(path) as data:
            fields = dict(data)
        if how == "flipped":  # a bit of the mask changed, checksum kept
            fields["allowed"] = fields["allowed"] ^ np.uint8(1)
        elif how == "resized":  # the mask of another vocabulary size
            fields["size"] = np.array(int(fields["size"]) + 8)
        elif how == "moved":  # another key's file copied over this one
            fields["key"] = np.array("other/key/0")
        buffer = io.BytesIO()
        np.savez(buffer, **fields)
        path.write_bytes(buffer.getvalue())


@pytest.mark.parametrize("how", ["empty", "torn", "flipped", "resized", "moved"])
def test_tables_on_disk_are_reused_only_when_whole_and_their_own(tmp_path, how) -> None:
    vocab = small_vocab("gpt2")
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 80}}, "required": ["name"]}
    first = compile_schema(schema, vocab)
    first.tables = TableCache(directory=tmp_path, save_after=0)
    matcher = first.matcher()
    matcher.advance_bytes(b'{"name":"ab')
    expected = matcher.mask().copy()
    files = sorted(tmp_path.rglob("*.npz"))
    assert files and first.tables.saved == len(files)

    clean = compile_schema(schema, vocab)
    clean.tables = TableCache(directory=tmp_path, save_after=0)
    reused = clean.matcher()
    reused.advance_bytes(b'{"name":"ab')
    assert (reused.mask() == expected).all() and clean.tables.saved == 0  # a later process pays nothing

    for path in files:
        _tamper(path, how)
    second = compile_schema(schema, vocab)
    second.tables = TableCache(directory=tmp_path, save_after=0)
    again = second.matcher()
    again.advance_bytes(b'{"name":"ab')
    assert (again.mask() == expected).all()
    assert second.tables.saved == len(files)  # every faulty file computed again and rewritten


def test_tables_missed_in_memory_are_looked_for_in_one_listing_per_folder(tmp_path, monkeypatch) -> None:
    """No stat per table missed: a server's compile thread would hand the GIL over at each one."""
    import os

    vocab = small_vocab("gpt2")
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 80}, "n": {"type": "integer"}}}
    writer = compile_schema(schema, vocab)
    writer.tables = TableCache(directory=tmp_path, save_after=0)
    writer.prepare(60.0)
    assert writer.tables.saved
    listings, stats, real, exists = [], [], os.listdir, os.path.exists
    monkeypatch.setattr(os, "listdir", lambda folder: listings.append(folder) or real(folder))
    monkeypatch.setattr(os.path, "exists", lambda path: stats.append(path) or exists(path))
    reader = compile_schema(schema, vocab)
    reader.tables = TableCache(directory=tmp_path, save_after=0)
    assert reader.prepare(60.0) == writer.prepare(60.0)
    assert len(listings) == 1 and reader.tables.saved == 0  # every table read back off the one listing
    assert not [path for path in stats if str(tmp_path) in str(path)]


def test_a_table_file_past_the_size_bound_is_not_read(tmp_path, monkeypatch) -> None:
    from extractor.masks import tables

    vocab = small_vocab("gpt2")
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 80}}, "required": ["name"]}
    writer = compile_schema(schema, vocab)
    writer.tables = TableCache(directory=tmp_path, save_after=0)
    writer.prepare(60.0)
    monkeypatch.setattr(tables, "MAX_FILE_BYTES", 16)  # every file is now "too large"
    reader = compile_schema(schema, vocab)
    reader.tables = TableCache(directory=tmp_path, save_after=0)
    reader.prepare(60.0)
    assert reader.tables.saved == writer.tables.saved  # each computed again and rewritten, none read


def test_only_tables_slow_to_build_are_kept_on_disk(tmp_path) -> None:
    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "integer"}}}, small_vocab("gpt2"))
    grammar.tables = TableCache(directory=tmp_path, save_after=60.0)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"a":')  # past the first mask, which is walked whole without tables
    matcher.mask()
    assert grammar.tables.entries and not list(tmp_path.rglob("*.npz"))  # computed, kept in memory only


def test_packed_bitmask_matches_the_bool_mask_on_device() -> None:
    import torch

    from extractor.masks.device import PackedMasks, apply_token_bitmask

    vocab = small_vocab("gpt2")
    grammar = compile_schema({"type": "object", "properties": {"a": {"enum": ["x", "yz"]}}}, vocab)
    matcher = grammar.matcher()
    matcher.advance_bytes(b'{"a":')
    words = matcher.bitmask()
    assert words.dtype == np.int32 and len(words) == (vocab.size + 31) // 32
    batch = np.zeros((2, len(words)), dtype=np.int32)
    matcher.fill_bitmask(batch, row=1)
    assert (batch[1] == words).all() and not batch[0].any()
    device = PackedMasks(grammar, "cpu")
    on_device = device.get(matcher.config)
    assert device.get(matcher.config) is on_device  # cached: no second copy
    logits = torch.zeros(vocab.size + 5)  # models often pad their output width past the vocabulary
    apply_token_bitmask(logits, on_device)
    assert ((logits[: vocab.size] == 0).numpy() == matcher.mask()).all()
    assert torch.isinf(logits[vocab.size:]).all()


def _natively(schema: dict, tokenizer: str, otherwise: str) -> CompiledGrammar:
    """`schema` compiled for a whole real vocabulary, where the C mask kernel is built (skipped, saying what runs
    instead, where it is not)."""
    if _kernel is None:
        pytest.skip(f"the C mask kernel is not built here (no C compiler at install): {otherwise}")
    return compile_schema(schema, shared_vocab(tokenizer), options=CompileOptions(count_from=8))


@pytest.mark.parametrize("tokenizer", ["llama3", "gpt2"])
@pytest.mark.parametrize("schema", [
    {"type": "string"},
    {"type": "string", "format": "date-time"},
    {"type": "string", "pattern": "^[a-z]{2,5}-\\d+$"},
    {"type": "string", "minLength": 3, "maxLength": 40},
    {"type": "number", "minimum": -5, "maximum": 1e6},
    {"type": "array", "items": {"type": "integer"}, "minItems": 2},
])
def test_native_and_numpy_tables_agree(schema: dict, tokenizer: str) -> None:
    """The C walk over the preorder trie gives the NumPy walk's tables, state by state, on a full vocabulary."""
    from extractor.masks.tables import leaf_table, numpy_leaf_table

    grammar = _natively(schema, tokenizer, "only the NumPy walk exists")
    aut, trie = grammar.automaton, grammar.trie
    compared = 0
    for rule in sorted(aut.leaves):
        dfa = aut.dfas[rule]
        if isinstance(dfa, CountedDFA):  # counts at, around and far from the bounds
            states = [c * dfa.n + s for c in sorted({0, 1, dfa.lo, dfa.lo + 5, (dfa.hi or 9) - 1}) for s in range(dfa.n)]
        else:
            states = range(dfa.size)
        for state in states[:80]:
            fast, slow = leaf_table(dfa, trie, state), numpy_leaf_table(dfa, trie, state)
            assert (fast.allowed == slow.allowed).all(), (rule, state)
            assert fast.exit_nodes.tolist() == slow.exit_nodes.tolist(), (rule, state)
            compared += 1
    assert compared


def test_the_mask_cache_is_bounded_in_bytes_and_drops_the_least_recently_used():
    from extractor.masks.lru import ENTRY_BYTES, ByteLRU

    cache: ByteLRU[str, bytes] = ByteLRU(max_bytes=3 * (100 + ENTRY_BYTES))
    for key in "abc":
        cache.put(key, key.encode(), 100)
    assert cache.get("a") == b"a"  # a is now the most recently used
    cache.put("d", b"d", 100)
    assert cache.get("b") is None and [cache.get(k) for k in "acd"] == [b"a", b"c", b"d"]
    cache.put("big", b"x", 10_000)  # larger than the whole budget: kept alone, the rest dropped
    assert len(cache) == 1 and cache.bytes == 10_000 + ENTRY_BYTES


@pytest.mark.parametrize("tokenizer", ["llama3", "gpt2"])
@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]},
    {"type": "object", "additionalProperties": {"type": "number"}, "minProperties": 1},
    {"$defs": {"node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}},
     "$ref": "#/$defs/node"},
    {"type": "array", "items": {"type": "string", "maxLength": 3}, "minItems": 2, "maxItems": 40},
    {"type": "string", "maxLength": 300},
    {"enum": ["a", 1, None, [True]]},
    {},
])
def test_the_first_mask_walked_whole_equals_the_one_composed_from_tables(schema: dict, tokenizer: str) -> None:
    """The start configuration's mask is one walk of every stack to its bottom; it must be the mask the
    tables and exit walks compose for any other configuration."""
    grammar = _natively(schema, tokenizer, "every mask is composed")
    vocab, start = grammar.vocab, grammar.automaton.start()
    walked = grammar.walked(start)
    composed = CompiledGrammar(grammar.automaton, vocab, grammar.trie, tables=TableCache())
    composed.start = frozenset()  # no configuration is the start one: every mask is composed
    assert walked.any()
    assert np.array_equal(walked, composed.mask(start))
    assert grammar.mask(start) is grammar.mask(start)  # kept like any other mask


def test_a_first_mask_walked_whole_allows_eos_where_the_grammar_may_end_at_once() -> None:
    """A grammar whose root takes the empty output (no schema compiles to one, a grammar may): EOS at the start."""
    from extractor.automata import build_automaton
    from extractor.grammar import Grammar
    from extractor.lang.regex import Ref, lit, seq, star

    if _kernel is None:
        pytest.skip("the whole walk is the C mask kernel's (not built here: no C compiler), masks are composed")
    vocab = small_vocab("gpt2", size=500)
    automaton = build_automaton(Grammar(rules={"root": star(Ref("ab")), "ab": seq(lit("a"), lit("b"))}))
    grammar = CompiledGrammar(automaton, vocab, tables=TableCache())
    first = grammar.mask(grammar.start)
    assert first[list(vocab.eos_ids)].all()
    assert np.array_equal(first, brute_force(grammar, grammar.start))


@pytest.mark.parametrize("schema", [{"type": "string"}, {"type": "object", "additionalProperties": {"type": "string"}},
                                    {"type": "string", "maxLength": 5000}])
def test_tokens_longer_than_the_walks_first_room_are_walked_whole(schema: dict) -> None:
    """The C walks keep a state per byte of the token they are in: 3,000-byte tokens make them grow that room."""
    base = small_vocab("gpt2", size=300)
    long = (b'"' + b"a" * 3000, b'{"' + b"a" * 3000, b"a" * 3000, b"a" * 3000 + b'"')
    vocab = Vocabulary(tokens=base.tokens + long, eos_ids=base.eos_ids)
    grammar = compile_schema(schema, vocab)
    grammar.tables = TableCache()
    ids = range(base.size, vocab.size)
    matcher = grammar.matcher()
    for data in (b"", b'{"' if "additionalProperties" in schema else b'"'):
        matcher.advance_bytes(data)
        fast, slow = matcher.mask(), brute_force(grammar, matcher.config, matcher.distinct)
        assert (fast == slow).all() and fast[list(ids)].any()


VERBATIM = {"type": "object", "properties": {"name": {"type": "string", "x-verbatim": True},
                                             "age": {"type": "integer"}}, "required": ["name", "age"]}


@pytest.mark.parametrize("tokenizer", ["gpt2", "mistral"])
def test_tables_of_rules_copying_a_text_stay_with_their_grammar_and_masks_are_unchanged(tokenizer: str) -> None:
    """A rule copying from one text (and every rule calling one) is no other grammar's: its tables are kept on the
    automaton, not in the shared cache, and masks are brute force's all the same."""
    from extractor.masks.reference import _PAIRINGS

    source = "Ann Lee, 42, lives at 12 Elm Street, Springfield. Her colleague is Bob Roe."
    grammar = compile_schema(VERBATIM, small_vocab(tokenizer), refusal=None,
                             options=CompileOptions(source=source))
    auto = grammar.automaton
    assert auto.private and auto.root in auto.private  # the copy rule, and up to the root that calls it
    assert any(n for i, n in enumerate(auto.names) if i not in auto.private)  # numbers, keys: shared
    grammar.tables = TableCache()
    pairings = set(_PAIRINGS)
    assert masks_match_brute_force(grammar, rounds=3, limit=40, seed=3)
    private = {auto.fingerprints[r] for r in auto.private}
    assert auto.own and not {key[1] for key in grammar.tables.entries} & private
    assert not (set(_PAIRINGS) - pairings) & private


def test_table_hits_read_without_the_lock_while_other_threads_fill_and_evict():
    """Threads hitting, building and evicting one small cache at once: every table comes back equal to a fresh
    build, and the bytes held stay the sum of the entries kept (hits read without the lock)."""
    import threading

    grammar = compile_schema({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
                             small_vocab("gpt2", 500))
    aut, trie = grammar.automaton, grammar.trie
    keys = [(r, s) for r in range(len(aut.dfas)) for s in range(aut.dfas[r].size)
            if r not in aut.private][:40]
    fresh = {k: TableCache().get(aut, trie, *k) for k in keys}
    cache = TableCache(max_bytes=4 * max(t.nbytes for t in fresh.values()))  # a few tables: evictions all the time
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        try:
            for k in rng.choice(len(keys), 400).tolist():
                got = cache.get(aut, trie, *keys[k])
                assert np.array_equal(got.allowed, fresh[keys[k]].allowed)
        except BaseException as exc:  # noqa: BLE001 - reported below, from the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert cache.bytes == sum(entry[3] for entry in cache.entries.values())


def test_a_table_hit_makes_it_the_last_one_dropped():
    grammar = compile_schema({"type": "array", "items": {"type": "string"}}, small_vocab("gpt2", 500))
    aut, trie = grammar.automaton, grammar.trie
    keys = [(r, s) for r in range(len(aut.dfas)) for s in range(aut.dfas[r].size) if r not in aut.private][:3]
    tables = [TableCache().get(aut, trie, *k) for k in keys]
    cache = TableCache(max_bytes=sum(t.nbytes for t in tables[:2]))  # room for the first two
    first, second = (cache.get(aut, trie, *k) for k in keys[:2])
    cache.get(aut, trie, *keys[0])  # a hit: the first is now the most recently used
    cache.get(aut, trie, *keys[2])  # the third pushes one out: the second
    held = [entry[0] for entry in cache.entries.values()]
    assert any(t is first.packed for t in held) and not any(t is second.packed for t in held)


@pytest.mark.parametrize("model", ZOO, ids=[m.__name__ for m in ZOO])
def test_the_columns_a_rule_shares_with_the_reference_are_those_of_the_stacked_tables(model) -> None:
    """`reference.shared_columns` (from each rule's byte classes) against the definition: the first byte of each
    class of equal columns of the two tables stacked."""
    from extractor.masks.reference import reference, shared_columns

    ref = reference()[0]
    for rule in compile_schema(model, small_vocab("gpt2"), refusal=Refusal).automaton.dfas:
        if isinstance(rule, CountedDFA):
            continue
        first: dict[bytes, int] = {}
        for byte, column in enumerate(np.ascontiguousarray(np.vstack([rule.trans, ref.trans]).T)):
            first.setdefault(column.tobytes(), byte)
        assert shared_columns(rule, ref).tolist() == sorted(first.values())
