"""Undeclared keys never repeat within one object, and `uniqueItems` strings never repeat within one array:
the matcher remembers what was written, its mask forbids a repeat and advancing refuses one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typing import Annotated

from pydantic import BaseModel, StringConstraints

from extractor import compile_schema
from extractor.errors import UnsupportedSchemaError
from extractor.masks.matcher import Matcher
from extractor.tokens import Vocabulary
from tests.walks import TOKENIZERS, closers, sample

KEYS = {"type": "object", "propertyNames": {"pattern": "^[ab]+$"},
        "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9}}


AB = Annotated[str, StringConstraints(pattern="^[ab]+$")]  # a small alphabet: repeats come fast


class Tags(BaseModel):
    tags: set[AB]
    scores: dict[AB, int]


def vocabulary(name: str) -> Vocabulary:
    path = TOKENIZERS / name / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"../shared/tokenizers is absent: no {name} vocabulary")
    return Vocabulary.from_tokenizer_file(str(path))


def long_walk(matcher: Matcher, rng: np.random.Generator, keep_open: int) -> bytes:
    """A walk that favours tokens ending a string (so keys and items stay short) and may not close an object
    or array for its first `keep_open` steps (so they pile up and repeats become likely)."""
    tokens = matcher.grammar.vocab.tokens
    closing = np.array([t[:1] in (b"}", b"]") for t in tokens])
    ending = closers(matcher.grammar.vocab)
    steps = 0
    while not matcher.finished and steps < 4 * keep_open:
        mask = matcher.mask()
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
    grammar = compile_schema(target, vocabulary(name))
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
    vocab = vocabulary("llama3")
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
    matcher = compile_schema(schema, vocabulary("llama3")).matcher()
    matcher.advance_bytes(b'[{"a":1},{"a":2,"b":3}]')
    assert matcher.accepting()


def test_unique_items_over_a_bounded_pattern_language_are_refused():
    with pytest.raises(UnsupportedSchemaError, match="uniqueItems"):
        compile_schema({"type": "array", "items": {"type": "string", "pattern": "^[ab]$"}, "uniqueItems": True},
                       vocabulary("llama3"))
