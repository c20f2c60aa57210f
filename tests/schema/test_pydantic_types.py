"""Types whose Pydantic JSON Schema is looser than their validator generate only what the validator accepts."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Annotated

import numpy as np
import pytest
from pydantic import BaseModel, Field, HttpUrl, PostgresDsn, ValidationError

from extractor import compile_schema
from extractor.schema import json_schema
from tests.automata.helpers import accepts
from tests.vocabs import shared_vocab
from tests.walks import closers, constrained_walk


class Loose(BaseModel):
    amount: Decimal
    price: Annotated[Decimal, Field(max_digits=5, decimal_places=2, ge=0)]
    by_id: dict[int, str]
    weights: dict[float, int]
    site: HttpUrl
    took: timedelta
    signal: complex
    database: PostgresDsn


# (field, a value the validator accepts, one it refuses that the plain Pydantic schema allowed)
ROWS = [
    ("amount", "12.50", '"twelve"'),
    ("price", "999.99", "1000"),
    ("price", "0.5", "0.125"),
    ("by_id", '{"7":"x"}', '{"seven":"x"}'),
    ("weights", '{"2.5":1}', '{"heavy":1}'),
    ("site", '"https://example.com/a?b=1"', '"ftp://example.com/a"'),
    ("took", '"P1DT2H30M"', '"PT9999999999H"'),
    ("signal", '"1.5+2j"', '"two"'),
    ("database", '"postgresql://db.example.com:5432/app"', '"mysql://db.example.com/app"'),
]


@pytest.mark.parametrize("field,good,bad", ROWS, ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_narrowed_schema_keeps_what_validates_and_drops_what_does_not(field, good, bad):
    schema = {"type": "object", "properties": {field: json_schema(Loose)["properties"][field]}, "required": [field]}
    assert accepts(schema, f'{{"{field}":{good}}}')
    Loose.__pydantic_validator__.validate_assignment(Loose.model_construct(), field, json.loads(good))
    assert not accepts(schema, f'{{"{field}":{bad}}}')


@pytest.mark.parametrize("name", ["llama3", "gpt2"])
def test_random_walks_over_loose_types_all_validate(name):
    vocab = shared_vocab(name)
    grammar, bonus, rng = compile_schema(Loose, vocab), closers(vocab), np.random.default_rng(7)
    rejected = []
    for _ in range(25):
        walk = constrained_walk(grammar, rng, bonus, max_steps=3000)
        if walk.complete:
            try:
                Loose.model_validate_json(walk.text)
            except ValidationError as exc:
                rejected.append((walk.text[:200], str(exc)[:300]))
    assert not rejected
