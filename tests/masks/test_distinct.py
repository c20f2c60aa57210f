"""Undeclared keys never repeat within one object, and `uniqueItems` strings never repeat within one array:
the matcher remembers what was written, its mask forbids a repeat and advancing refuses one. Masks are
checked against brute force at every byte of documents that write repeats, on tokens that hold several
quotes: those whose quotes may finish a string already written are the ones the matcher runs byte by byte."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typing import Annotated

from pydantic import BaseModel, StringConstraints

from extractor import compile_schema
from extractor.automata.distinct import Distinct, _strings, quote_counts
from extractor.errors import UnsupportedSchemaError
from extractor.masks.bits import pack
from extractor.masks.matcher import Matcher
from extractor.masks.states import NOT_ALLOWED
from extractor.schema import NormalizeOptions
from extractor.tokens import Vocabulary
from tests.masks.test_masks import brute_force
from tests.vocabs import shared_vocab
from tests.walks import closers, sample

KEYS = {"type": "object", "propertyNames": {"pattern": "^[ab]+$"},
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9}}


AB = Annotated[str, StringConstraints(pattern="^[ab]+$")]  # a small alphabet: repeats come fast


class Tags(BaseModel):
    tags: set[AB]
    scores: dict[AB, int]


def same_packed(matcher: Matcher, mask: np.ndarray) -> bool:
    """The matcher's packed row (a server's step: the configuration's row narrowed in place) equals its bool
    mask packed."""
    return np.array_equal(matcher.bitmask(), pack(mask))


def held(distinct: Distinct) -> dict[str, object]:
    """What a `Distinct` remembers, slot by slot."""
    return {name: getattr(distinct, name) for name in Distinct.__slots__}


def same_after(matcher: Matcher, tokens: tuple[bytes, ...]) -> None:
    """Every token walked from the matcher's place by the C machine (`States.distinct_after`, what advancing
    takes) and by `Distinct.after` over configurations: the same place after it, the same strings remembered."""
    states, distinct = matcher.states, matcher.distinct
    for token in tokens[1:]:
        fast = states.distinct_after(matcher.state, distinct, token)
        if fast is None:
            return  # no C machine, or whole items kept apart too: `Distinct.after` is the only walk
        config, plain = distinct.after(matcher.config, token)
        assert (fast[0] == NOT_ALLOWED) == (not config), (bytes(matcher.output), token)
        if config:
            assert states.configs[fast[0]] == config, (bytes(matcher.output), token)
            assert held(fast[1]) == held(plain), (bytes(matcher.output), token)


def long_walk(matcher: Matcher, rng: np.random.Generator, keep_open: int) -> bytes:
    """A walk that favours tokens ending a string (so keys and items stay short) and may not close an object
    or array for its first `keep_open` steps (so they pile up and repeats become likely)."""
    tokens = matcher.grammar.vocab.tokens
    closing = np.array([t[:1] in (b"}", b"]") for t in tokens])
    ending = closers(matcher.grammar.vocab)
    steps = 0
    while not matcher.finished and steps < 4 * keep_open:
        mask = matcher.mask()
        assert same_packed(matcher, mask), bytes(matcher.output)
        if steps < keep_open and (mask & ~closing).any():
            mask = mask & ~closing
        matcher.advance(sample(mask, ending, rng))
        steps += 1
    return bytes(matcher.output)


def repeats(text: bytes) -> list[str]:
    """Keys written twice in some object, and strings written twice in some array."""
    found: list[str] = []

    def pairs(items: list[tuple[str, object]]) -> dict:
        keys = [k for k, _ in items]
        found.extend(k for k in set(keys) if keys.count(k) > 1)
        return dict(items)

    def walk(value: object) -> None:
        if isinstance(value, list):
            strings = [v for v in value if isinstance(v, str)]
            found.extend(s for s in set(strings) if strings.count(s) > 1)
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)

    walk(json.loads(text, object_pairs_hook=pairs))
    return found


@pytest.mark.parametrize("name", ["llama3", "gpt2", "qwen3"])
@pytest.mark.parametrize("target", [KEYS, Tags], ids=["free_keys", "set_and_dict"])
def test_random_walks_never_repeat_a_key_or_a_unique_item(name, target):
    grammar = compile_schema(target, shared_vocab(name))
    rng = np.random.default_rng(3)
    written = 0
    for _ in range(6):
        matcher = grammar.matcher()
        text = long_walk(matcher, rng, keep_open=60)
        if matcher.finished:
            assert repeats(text) == [], text[:300]
            written += 1
    assert written


def test_a_repeated_key_is_masked_and_refused():
    vocab = shared_vocab("llama3")
    matcher = compile_schema(KEYS, vocab).matcher()
    matcher.advance_bytes(b'{"ab":1,"a')
    quote = vocab.tokens.index(b'"')
    assert matcher.mask()[quote]  # "a" is new
    matcher.advance_bytes(b"b")
    assert not matcher.mask()[quote]  # "ab" again
    with pytest.raises(ValueError):
        matcher.advance(quote)
    matcher.advance_bytes(b'a":2}')  # "aba" is new
    assert matcher.accepting()


def test_keys_of_sibling_objects_are_independent():
    schema = {"type": "array", "items": KEYS}
    matcher = compile_schema(schema, shared_vocab("llama3")).matcher()
    matcher.advance_bytes(b'[{"a":1},{"a":2,"b":3}]')
    assert matcher.accepting()


def test_unique_items_over_a_bounded_pattern_language_are_refused():
    with pytest.raises(UnsupportedSchemaError, match="uniqueItems"):
        compile_schema({"type": "array", "items": {"type": "string", "pattern": "^[ab]$"}, "uniqueItems": True},
                       shared_vocab("llama3"))


QUOTED = [b'"a"', b'"b"', b'"a":', b'":"', b'","', b'"a","', b',"a"', b'"a","a"', b'"a":1,"a"', b'1,"a":',
          b'\\"', b'"\\u0061"', b'a"', b'"a\\"', b'""', b'"":', b'"\xc3\xa9"', b'a":1,"a', b'b":', b'","b', b'"],"',
          b'"},"a":', b'"ab"', b'"b","', b'":"a","a":"', b'\\u00', b'61"', b'"\\ud83d', b'\\ude00"', b'a":"b","', b'b":1,"', b'":""', b'":"",""',
          b'n":', b'":1,"a', b'\\":', b'"b":']  # (the last four: tokens that finish an escape under way)


def quote_tokens() -> Vocabulary:
    tokens = (b"",) + tuple(bytes([b]) for b in range(256)) + tuple(QUOTED)
    return Vocabulary(tokens=tokens, eos_ids=frozenset({0}))


CASES = [
    ({"type": "object", "additionalProperties": {"type": "integer"}},
     '{"a":1,"b":2,"ab":3,"\\u0062a":4,"é":5}'),
    ({"type": "object", "additionalProperties": {"type": "string"}}, '{"a":"a","b":"a","":"","\\ud83d\\ude00":"b"}'),
    ({"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "integer"}}},
     '{"a":{"a":1,"b":2},"b":{"b":1,"a":1}}'),
    ({"type": "array", "items": {"type": "string"}, "uniqueItems": True}, '["a","b","ab","","é","ba"]'),
    ({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "integer"}},
     '{"b":1,"a":2,"ab":3}'),
    ({"type": "object", "additionalProperties": {"type": "integer"}},  # a token \" (an escaped quote) ends no string
     '{"\\"":1,"\\"\\"":2}'),
    ({"type": "object", "additionalProperties": {"type": "integer"}},  # tokens finishing an escape: repeats or not
     '{"a\\"":1,"\\"":2,"b\\n":3,"\\\\":4,"a\\\\":5,"a\\"b":6,"\\"a":7,"bn":8,"b\\t":9}'),
]


@pytest.mark.parametrize(("schema", "document"), CASES, ids=range(len(CASES)))
def test_masks_at_every_byte_of_a_document_with_repeats_equal_brute_force(schema: dict, document: str) -> None:
    grammar = compile_schema(schema, quote_tokens(), normalize=NormalizeOptions(strict_objects=False))
    matcher = grammar.matcher()
    for byte in document.encode():
        same_after(matcher, grammar.vocab.tokens)
        fast, slow = matcher.mask(), brute_force(grammar, matcher.config, matcher.distinct)
        diff = np.flatnonzero(fast != slow)
        assert not len(diff), (bytes(matcher.output), [(grammar.vocab.tokens[t], bool(fast[t])) for t in diff[:5]])
        assert same_packed(matcher, fast), bytes(matcher.output)
        matcher.advance_bytes(bytes([byte]))
    assert matcher.accepting()


@pytest.mark.parametrize(("schema", "document"), CASES, ids=range(len(CASES)))
def test_a_second_request_writing_the_same_strings_reads_its_narrowing_back(schema: dict, document: str) -> None:
    """The tokens that would repeat a string are remembered by configuration and strings written: a second matcher
    on the same path looks them up, and its masks are brute force's still."""
    grammar = compile_schema(schema, quote_tokens(), normalize=NormalizeOptions(strict_objects=False))
    for walk in range(2):
        matcher = grammar.matcher()
        for byte in document.encode():
            fast = matcher.mask()
            if walk:
                assert np.array_equal(fast, brute_force(grammar, matcher.config, matcher.distinct)), bytes(matcher.output)
            matcher.advance_bytes(bytes([byte]))
        if not walk:
            remembered = len(grammar.repeats)
    assert remembered and len(grammar.repeats) == remembered  # the second walk found every narrowing remembered


@pytest.mark.parametrize(("token", "in_string", "escaped", "expected"), [
    (b'","', False, False, (None, ((",", 0),))),
    (b'","', True, False, ("", ())),
    (b'a":1,"a', True, False, ("a", ())),
    (b'"a","a"', False, False, (None, (("a", 0), ("a", 1)))),
    (b'":"",""', True, False, ("", (("", 0), ("", 1)))),
    (b'"\\u0061"', False, False, (None, (("a", 0),))),
    (b'\\"', True, False, (None, ())),  # an escaped quote ends nothing
    (b'""', True, True, ('"', ())),  # the first quote is escaped: the second ends the string
    (b'n":1,"a', True, True, ("\n", ())),  # the escape's character is read with its backslash
    (b'"a":1,"', True, True, ('"a', ())),
    (b'61"', True, False, ("61", ())),
    (b'\\ude00"', True, False, ("\ude00", ())),
    (b'"\\ud83d', False, False, (None, ())),
    (b'"\\x"', False, False, None),  # not JSON string content
    (b'\xa9"', True, False, None),  # the open string's text not whole characters
])
def test_a_token_is_cut_into_the_strings_it_ends(token: bytes, in_string: bool, escaped: bool, expected) -> None:
    assert _strings(token, in_string, escaped) == expected


PIECES = [b'"', b'a', b'b', b',', b':', b'1', b'\\', b'{', b'}', b'[', b']', b' ']


@settings(max_examples=30, deadline=None)
@given(data=st.data(), extra=st.lists(st.lists(st.sampled_from(PIECES), min_size=2, max_size=7).map(b"".join),
                                       min_size=5, max_size=40))
def test_random_walks_over_quote_heavy_tokens_mask_like_brute_force(data, extra: list[bytes]) -> None:
    """Tokens of quotes, commas, brackets and two letters, random walks under the mask that favour tokens
    finishing strings and keep containers open a while (so repeats come): every mask equals brute force."""
    tokens = (b"",) + tuple(dict.fromkeys([*PIECES, *extra]))
    vocab = Vocabulary(tokens=tokens, eos_ids=frozenset({0}))
    schema = data.draw(st.sampled_from([c[0] for c in CASES]))
    matcher = compile_schema(schema, vocab, normalize=NormalizeOptions(strict_objects=False)).matcher()
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    weight = np.array([1 + 4 * t.count(b'"') for t in tokens], dtype=float)
    closing = np.array([t[:1] in (b"}", b"]") for t in tokens])
    for step in range(60):
        same_after(matcher, tokens)
        fast, slow = matcher.mask(), brute_force(matcher.grammar, matcher.config, matcher.distinct)
        assert np.array_equal(fast, slow), (bytes(matcher.output), [tokens[t] for t in np.flatnonzero(fast != slow)[:5]])
        assert same_packed(matcher, fast), bytes(matcher.output)
        allowed = fast & (np.arange(len(tokens)) != 0)
        if step < 40 and (allowed & ~closing).any():
            allowed &= ~closing
        if not allowed.any():
            break
        p = weight * allowed
        matcher.advance(int(rng.choice(len(tokens), p=p / p.sum())))


@pytest.mark.parametrize("tokens", [(b"",), (b"", b'"', b'a""b', b""), (b'\\"', b'"x"', b"plain", b'""""')],
                         ids=["one_empty", "empty_between", "escaped_and_many"])
def test_quotes_are_counted_per_token_over_the_joined_tokens(tokens: tuple[bytes, ...]) -> None:
    assert quote_counts(tokens).tolist() == [t.count(b'"') for t in tokens]
