"""A schema's `uniqueItems: false` reaches the guards: the arrays it marks may hold an item twice under the default
`fresh_items` rule."""

from __future__ import annotations

import pytest

from extractor import ExtractOptions
from extractor.pipeline.target import Target

SCHEMAS = [  # (schema, the arrays the guards let repeat)
    ({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": False}}},
     {("tags",)}),
    ({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}, set()),
    ({"type": "array", "items": {"type": "integer"}, "uniqueItems": False}, {()}),
]


@pytest.mark.parametrize("schema, repeatable", SCHEMAS)
def test_the_targets_repeatable_arrays_reach_the_guards(schema, repeatable) -> None:
    target = Target(schema)
    assert set(target.repeatable) == repeatable
    guards = ExtractOptions().guards_for("some text", False, target.repeatable)
    assert set(guards.repeatable) == repeatable and guards.fresh_items
