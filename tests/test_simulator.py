"""benchmarks/simulator.py reduced (10 walks, one schema): every constrained random walk that finishes is valid."""

from __future__ import annotations

import numpy as np
import pytest
from tokenizers import Tokenizer

from benchmarks.simulator import embedded_tokenizer, simulate, targets
from extractor.decode.guards import Guards
from extractor.tokens import Vocabulary
import schemas


def test_constrained_walks_are_valid() -> None:
    try:
        path = embedded_tokenizer()
    except ImportError as exc:
        pytest.skip(f"the embedded model's tokenizer is not available: {exc}")
    assert {schemas.ContactCard, schemas.Event, schemas.Invoice, schemas.Resume} <= set(targets())
    vocab, tokenizer = Vocabulary.from_tokenizer_file(path), Tokenizer.from_file(str(path))
    row = simulate(schemas.Event, vocab, tokenizer, 10, np.random.default_rng(0), 512, Guards(max_string_bytes=32))
    walks, slips = row["constrained"], row["slip"]
    assert walks["finished"] > 0
    assert walks["valid_jsonschema"] == walks["valid_pydantic"] == walks["finished"]
    assert slips["valid"] == slips["judged"] - slips["left_mask"]  # a slip that lands inside the mask is harmless
