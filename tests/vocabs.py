"""The real tokenizers' vocabularies (tests/data.py finds them), each read once per test session (a read takes
seconds) and shared by every test that asks."""

from __future__ import annotations

import functools
from pathlib import Path

from extractor.tokens import Vocabulary
from tests.data import need_tokenizer


def shared_vocab(name: str) -> Vocabulary:
    """The vocabulary of tokenizer `name`; the test is skipped, naming `make data`, where it was never fetched."""
    return _read(need_tokenizer(name))


@functools.cache
def _read(path: Path) -> Vocabulary:
    return Vocabulary.from_tokenizer_file(path)
