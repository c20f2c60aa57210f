"""The real tokenizers' vocabularies (tests/data.py finds them), each read once per test session (a read takes
seconds) and shared by every test that asks."""

from __future__ import annotations

import functools

from extractor.tokens import Vocabulary
from tests.data import need_tokenizer


def shared_vocab(name: str) -> Vocabulary:
    """The vocabulary of tokenizer `name`; the test is skipped, naming `make data`, where it was never fetched."""
    need_tokenizer(name)
    return _read(name)


@functools.cache
def _read(name: str) -> Vocabulary:
    return Vocabulary.from_tokenizer_file(need_tokenizer(name))
