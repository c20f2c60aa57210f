"""What a served request may carry (a schema, extractor's options in one vendor key), and the caches a serving
engine shares between threads; no vLLM needed."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from extractor.errors import UnsupportedSchemaError
from extractor.integrations.vllm import OPTIONS_KEY, with_options
from extractor.integrations.vllm.spec import GrammarCache, Spec
from extractor.masks.lru import ByteLRU
from tests.masks.test_masks import small_vocab

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
          "required": ["name", "age"]}

PARSED = [
    ("JSON", json.dumps(PERSON), Spec(PERSON)),
    ("JSON", json.dumps(with_options(PERSON, refusal=True, layout="pretty")), Spec(PERSON, True, "pretty")),
    ("JSON", json.dumps(with_options(PERSON, guards=False)), Spec(PERSON, guards=False)),
    ("JSON", "true", Spec(True)),
    ("JSON_OBJECT", None, Spec({"type": "object"})),
    ("CHOICE", '["yes", "no", "ça dépend"]', Spec(True, guards=False, choices=("yes", "no", "ça dépend"))),
    ("CHOICE", ["a"], Spec(True, guards=False, choices=("a",))),
    ("REGEX", "[0-9]{3}-[A-Z]+", Spec(True, guards=False, regex="[0-9]{3}-[A-Z]+")),
    ("GRAMMAR", 'root ::= "a"+', Spec(True, guards=False, ebnf='root ::= "a"+')),
]


@pytest.mark.parametrize("kind, text, expected", PARSED, ids=range(len(PARSED)))
def test_a_request_is_parsed_with_its_options(kind: str, text: str | None, expected: Spec) -> None:
    assert Spec.parse(kind, text) == expected


REFUSED = [
    ("STRUCTURAL_TAG", None, "structural tag request is JSON text"),
    ("XML", "<a/>", "structural tags"),
    ("GRAMMAR", None, "GBNF text"),
    ("REGEX", None, "pattern string"),
    ("CHOICE", "[]", "non-empty list of strings"),
    ("CHOICE", '["a", 1]', "non-empty list of strings"),
    ("CHOICE", '"a"', "non-empty list of strings"),
    ("JSON", "[1, 2]", "object or a boolean"),
    ("JSON", json.dumps({**PERSON, OPTIONS_KEY: {"refusal": True, "colour": 1}}), OPTIONS_KEY),
    ("JSON", json.dumps({**PERSON, OPTIONS_KEY: {"layout": "wavy"}}), "layout"),
    ("JSON", "[" * 100_000 + "]" * 100_000, "nests too deeply"),  # a RecursionError in json's parser otherwise
    ("CHOICE", "[" * 100_000 + "]" * 100_000, "nests too deeply"),
]


@pytest.mark.parametrize("kind, text, message", REFUSED, ids=range(len(REFUSED)))
def test_what_the_backend_cannot_take_is_refused_by_name(kind: str, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Spec.parse(kind, text)


def test_a_regex_the_pattern_compiler_refuses_is_refused_before_compiling() -> None:
    with pytest.raises(ValueError, match="lookahead|lookaround|refus|support"):
        Spec.parse("REGEX", "(?=a)b").check()


def test_a_grammar_that_cannot_be_read_is_refused_before_compiling() -> None:
    with pytest.raises(ValueError, match="Lark grammars are not read"):
        Spec.parse("GRAMMAR", 'start: "a"').check()


def test_an_unsupported_keyword_is_refused_before_compiling() -> None:
    with pytest.raises(UnsupportedSchemaError):
        Spec.parse("JSON", json.dumps({"type": "string", "contentSchema": {"type": "object"}})).check()


def test_a_choice_utf8_cannot_write_is_refused() -> None:
    with pytest.raises(ValueError, match="lone surrogate"):
        Spec.parse("CHOICE", '["ok", "\\ud800"]').compile(small_vocab("llama3"))


def test_a_choice_request_writes_exactly_one_of_its_strings() -> None:
    choices = ["yes", "no", "not sure", "ça dépend"]
    grammar = Spec.parse("CHOICE", json.dumps(choices)).compile(small_vocab("llama3"))
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(40):  # random walks under the mask end in one of the strings, whole
        m = grammar.matcher()
        while not m.finished:
            allowed = np.flatnonzero(m.mask())
            m.advance(int(rng.choice(allowed)))
        seen.add(bytes(m.output).decode())
    assert seen <= set(choices) and len(seen) > 1
    for text, whole in (("no", True), ("not", False), ("maybe", None)):
        m = grammar.matcher()
        try:
            m.advance_bytes(text.encode())
        except ValueError:
            assert whole is None, text
            continue
        assert m.accepting() is whole


def test_the_first_mask_is_made_when_the_grammar_is_compiled() -> None:
    """vLLM compiles in a thread pool while the prompt is prefilled: the start's mask is ready before the first
    step asks for it."""
    grammar, _ = GrammarCache(small_vocab("llama3")).get("JSON", json.dumps(PERSON))
    assert grammar.bitmasks.get(grammar.start) is not None


def test_key_order_is_kept() -> None:
    ordered = {"type": "object", "properties": {"z": {"const": 1}, "a": {"const": 2}}, "required": ["z", "a"]}
    matcher = Spec.parse("JSON", json.dumps(ordered)).compile(small_vocab("llama3")).matcher()
    matcher.advance_bytes(b'{"z":1,"a":2}')
    assert matcher.accepting()


def test_threads_compiling_at_once_share_one_grammar_per_schema() -> None:
    cache = GrammarCache(small_vocab("llama3"))
    texts = [json.dumps({**PERSON, "properties": {**PERSON["properties"], f"f{i % 4}": {"type": "boolean"}}})
             for i in range(32)]
    with ThreadPoolExecutor(8) as pool:
        grammars = list(pool.map(lambda t: cache.get("JSON", t)[0], texts))
    assert len(cache.items) == 4
    for text, grammar in zip(texts, grammars):  # a grammar two threads compiled at once is equal, if not shared
        m, again = grammar.matcher(), cache.get("JSON", text)[0].matcher()
        m.advance_bytes(b'{"name":"A","age":1,')
        again.advance_bytes(b'{"name":"A","age":1,')
        assert np.array_equal(m.mask(), again.mask())


def test_masks_filled_from_threads_equal_masks_filled_in_order() -> None:
    grammar = Spec.parse("JSON", json.dumps(PERSON)).compile(small_vocab("llama3"))
    prefixes = [b"", b"{", b'{"name":"', b'{"name":"Al', b'{"name":"Al","age":', b'{"name":"Al","age":4']

    def masks() -> list[np.ndarray]:
        out = []
        for prefix in prefixes:
            m = grammar.matcher()
            m.advance_bytes(prefix) if prefix else None
            out.append(m.bitmask().copy())
        return out

    with ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda _: masks(), range(16)))
    alone = masks()
    assert all(all(np.array_equal(a, b) for a, b in zip(run, alone)) for run in together)


def test_the_byte_lru_stays_consistent_under_threads() -> None:
    lru: ByteLRU[int, bytes] = ByteLRU(64 * 300)
    barrier = threading.Barrier(8)

    def hammer(seed: int) -> None:
        rng = np.random.default_rng(seed)
        barrier.wait()
        for key in rng.integers(0, 500, 5000).tolist():
            if lru.get(key) is None:
                lru.put(key, b"x" * 64, 64)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(hammer, range(8)))
    assert lru.bytes == sum(n for _, n in lru.items.values()) <= lru.max_bytes


@pytest.mark.parametrize(("env", "seconds"), [(None, 0.05), ("", 0.05), ("0", 0.0), ("12.5", 0.0125)])
def test_the_preparation_budget_comes_from_the_environment(monkeypatch, env, seconds) -> None:
    from extractor.integrations.vllm.spec import PREPARE_ENV
    if env is None:
        monkeypatch.delenv(PREPARE_ENV, raising=False)
    else:
        monkeypatch.setenv(PREPARE_ENV, env)
    assert GrammarCache(small_vocab("llama3")).prepare == pytest.approx(seconds)


@pytest.mark.parametrize("env", ["fast", "-1", "nan"])
def test_a_preparation_budget_that_is_not_milliseconds_is_refused_naming_the_variable(monkeypatch, env) -> None:
    from extractor.integrations.vllm.spec import PREPARE_ENV
    monkeypatch.setenv(PREPARE_ENV, env)
    with pytest.raises(ValueError, match=PREPARE_ENV):
        GrammarCache(small_vocab("llama3"))


@pytest.mark.parametrize("prepare", [0.0, 5.0])
def test_a_compile_prepares_configurations_and_rows_only_within_its_budget(prepare: float) -> None:
    from extractor.masks import _kernel
    grammar, _ = GrammarCache(small_vocab("llama3"), prepare=prepare).get("JSON", json.dumps(PERSON))
    table = grammar.states()
    numbered = len(table.configs)
    if prepare and _kernel is not None:
        assert numbered > 10 and len(table.rows) > 10  # explored ahead: the whole small grammar
    else:
        assert numbered <= 1 and not table.rows  # nothing numbered ahead (the start mask is made, not its row by id)
    from extractor.masks.finish import _WAYS
    ways = _WAYS.get(grammar.automaton)  # the wrap-up guard's shortest ways out: computed here, or on a step
    assert (ways is not None and ways.whole is not None) == bool(prepare)


def test_the_cache_drops_the_least_recently_used_grammars_past_its_bytes() -> None:
    cache = GrammarCache(small_vocab("llama3"), prepare=5.0, max_bytes=1)  # every grammar holds more than a byte
    first, _ = cache.get("JSON", json.dumps(PERSON))
    assert first.held_bytes() > 1
    cache.get("JSON", json.dumps({"type": "array", "items": {"type": "integer"}}))
    assert list(cache.items) == [("JSON", json.dumps({"type": "array", "items": {"type": "integer"}}))]
    big = GrammarCache(small_vocab("llama3"), prepare=5.0)
    for schema in (PERSON, {"type": "integer"}):
        big.get("JSON", json.dumps(schema))
    assert len(big.items) == 2  # far below the default budget


TAGS = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": False},
                                         "names": {"type": "array", "items": {"type": "string"}}}}
SERVED_GUARDS = [
    (json.dumps(TAGS), frozenset({("tags",)})),  # the schema's own uniqueItems: false lets that array repeat
    (json.dumps(PERSON), frozenset()),
    (json.dumps(with_options(TAGS, guards=False)), None),  # guards off: none at all
]


@pytest.mark.parametrize("text, repeatable", SERVED_GUARDS, ids=range(len(SERVED_GUARDS)))
def test_a_served_request_is_guarded_as_its_schema_says(text: str, repeatable: frozenset | None) -> None:
    guards = Spec.parse("JSON", text).served_guards()
    assert (None if guards is None else guards.repeatable) == repeatable
    assert guards is None or guards.wrap_up
