"""The real vocabularies of ../shared/tokenizers, each read once per test session (a read takes seconds)."""

from __future__ import annotations

import functools

import pytest

from extractor.tokens import Vocabulary
from tests.walks import TOKENIZERS


def shared_vocab(name: str) -> Vocabulary:
    """The vocabulary of ../shared/tokenizers/`name`; the test is skipped where ../shared is absent."""
    path = TOKENIZERS / name / "tokenizer.json"
    if not path.exists():
        pytest.skip(f"{path} is absent (../shared is not beside this checkout)")
    return _read(name)


@functools.cache
def _read(name: str) -> Vocabulary:
    return Vocabulary.from_tokenizer_file(TOKENIZERS / name / "tokenizer.json")
