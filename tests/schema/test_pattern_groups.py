"""Undeclared keys grouped by the patterns they may match together: patterns shown apart (anchored on different
literal text) share no group, so many of them compile; a key still obeys every pattern it matches."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.errors import UnsupportedSchemaError
from extractor.lang.pattern import pattern_matches, patterns_apart
from extractor.schema import NormalizeOptions, target_ir
from tests.fuzz.strategies import WRONG, Oracle

# (a, b, shown apart?)
APART_ROWS = [
    ("^name:(en|nl)$", "^title:(en|nl)$", True),  # different literal starts
    ("^contacts:[0-3]:surName$", "^contacts:[0-3]:givenName$", True),  # different literal ends
    ("^x-", "^x-y", False),  # one start extends the other
    ("^ab*", "^ac", False),  # `b*` may be empty: both match "ac"
    ("^a", "b", False),  # unanchored: "ab" matches both
    ("a$", "b$", True),
    ("^a|^b", "^c", False),  # an alternation is not read (apart, but not shown)
    ("^é", "^è", True),  # bytes of the UTF-8 spelling
    ("^a$", "^a$", False),
    ("", "^a", False),
]


@pytest.mark.parametrize("a, b, apart", APART_ROWS)
def test_patterns_shown_apart(a: str, b: str, apart: bool) -> None:
    assert patterns_apart(a, b) is apart and patterns_apart(b, a) is apart


PATTERNS = ["^a", "^ab", "^b", "b$", "^a.*c$", "^x-[0-9]+$", "^x-1", "c", "^ab$", "^[ab]"]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(key=st.text(alphabet="abcx-01", max_size=6))
def test_no_key_matches_two_patterns_shown_apart(key: str) -> None:
    matched = [p for p in PATTERNS if pattern_matches(p, key)]
    assert not any(patterns_apart(p, q) for p in matched for q in matched)


LOCALIZED = {"type": "object", "properties": {"id": {"type": "integer"}},
             "patternProperties": {
                 "^name:(en|nl|pt)$": {"type": "string"}, "^description:(en|nl)$": {"type": "string"},
                 "^contacts:[0-3]:surName$": {"type": "string", "maxLength": 4},
                 "^contacts:[0-3]:givenName$": {"type": "string"},
                 "^contacts:[0-3]:isSecurity$": {"type": "boolean"}, "^url": {"type": "string", "minLength": 3},
                 "Name$": {"maxLength": 2}}}  # unanchored start: may meet the contacts patterns ending in Name


def test_many_patterns_shown_apart_compile_to_few_groups() -> None:
    groups = target_ir(LOCALIZED, None, NormalizeOptions(strict_objects=False)).root.pattern_groups
    sets = {frozenset(g) for g, _ in groups}
    assert len(sets) == 12  # seven alone, and `Name$` with five (not with `isSecurity$`: the ends differ)
    assert frozenset({"^contacts:[0-3]:surName$", "Name$"}) in sets
    assert frozenset({"^contacts:[0-3]:isSecurity$", "Name$"}) not in sets
    assert frozenset({"^name:(en|nl|pt)$", "Name$"}) in sets  # ends in an alternation: no literal end to compare
    assert not any(len(s) > 2 for s in sets)


@pytest.mark.parametrize("instance, valid", [
    ({"id": 1, "name:en": "x", "contacts:1:surName": "Do"}, True),
    ({"contacts:1:surName": "Doe"}, False),  # ends in Name: at most two, from `Name$`
    ({"contacts:1:surName": "Smith"}, False),  # longer than four, the group's own schema
    ({"contacts:1:givenName": "Jo"}, True),
    ({"contacts:1:givenName": "Joe"}, False),  # ends in Name: at most two, from `Name$`
    ({"contacts:2:isSecurity": "yes"}, False),
    ({"url:home": "ab"}, False),
    ({"other": 5}, True),  # matches no pattern: additionalProperties (any)
])
def test_pattern_groups_agree_with_jsonschema(instance: dict[str, Any], valid: bool) -> None:
    verdict = Oracle(LOCALIZED).verdict(instance)
    assert verdict.kind not in WRONG and verdict.reference is valid


def test_too_many_sets_of_patterns_that_may_meet_are_refused() -> None:
    overlapping = {f"^a{'.' * i}": {} for i in range(7)}  # all share the start "a": 2**7 - 1 sets
    with pytest.raises(UnsupportedSchemaError, match="sets of patterns"):
        target_ir({"type": "object", "patternProperties": overlapping}, None)
