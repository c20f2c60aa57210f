"""How deep a recursive target may nest: recursion found through $refs, levels read off the text."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, compile_grammar
from extractor.schema import nesting, recursive, target_ir
from tests.automata.helpers import runs


class Section(BaseModel):
    title: str
    subsections: list["Section"]


class A(BaseModel):
    b: "B | None" = None


class B(BaseModel):
    a: A | None = None


@pytest.mark.parametrize("schema,expected", [
    (Section.model_json_schema(), True),
    (A.model_json_schema(), True),  # through another definition
    ({"type": "object", "properties": {"next": {"$ref": "#"}}}, True),
    ({"$defs": {"X": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/X"}, "y": {"$ref": "#/$defs/X"}}},
     False),  # used twice, never inside itself
    ({"type": "string"}, False),
])
def test_recursion_is_found_through_refs(schema, expected):
    assert recursive(schema) is expected


@pytest.mark.parametrize("text,levels", [
    ("one flat line of prose", 2),
    ("Outline\n1. Intro\n  1.1 Why\n  1.2 How\n2. End\n", 3),
    ("Plan\n1.2.3 Deep heading\n", 4),
    ("- a\n  - b\n    - c\n", 4),
])
def test_levels_are_read_off_indentation_and_numbered_headings(text, levels):
    assert nesting(text) == levels


def tree(levels: int) -> str:
    def node(k: int) -> dict:
        return {"title": "x", "subsections": [node(k - 1)] if k > 1 else []}

    return json.dumps(node(levels), separators=(",", ":"))


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_max_nesting_bounds_recursion_in_the_grammar(limit):
    auto = build_automaton(compile_grammar(target_ir(Section, None), CompileOptions(max_nesting=limit)))
    assert [runs(auto, tree(k)) for k in range(1, 5)] == [k <= limit for k in range(1, 5)]
    unbounded = build_automaton(compile_grammar(target_ir(Section, None)))
    assert runs(unbounded, tree(6))
