"""`patterned_from_text`: a string field with a `pattern` is a copy of the text where the text writes its form."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, compile_grammar
from extractor.schema import target_ir, values_from_text
from extractor.lang import json_terms as jt
from extractor.lang.dfa import build_dfa
from extractor.lang.pattern import compile_pattern
from extractor.lang.regex import Both, Substrings
from extractor.schema import patterned
from extractor.schema.patterned import patterned_from_text, writes
from tests.automata.helpers import runs
from tests.schema.test_verbatim_strings import copied, prop

CODE = r"^[A-Z]{3}-\d{4}$"
TEXT = "Order ABC-1234 ships to 10115 Berlin; call +49 30 1234."


@pytest.mark.parametrize("pattern,found", [
    (CODE, True),
    (r"^\d{5}$", True),  # 10115
    (r"^\d{3}$", True),  # `101` of 10115: under a pattern a copy may start and end inside a word
    (r"^[A-Z]{4}-\d{4}$", False),
    (r"^\+\d+$", True),  # `+49`
    (r"^\d{3}-\d{3}-\d{4}$", False),  # a form the text writes another way: the field stays free
    ("abc", False),  # search semantics, case kept
    ("(?<=x)y", False),  # a pattern the engine refuses: free
])
def test_the_text_is_searched_as_the_copy_rule_reads_it(pattern, found):
    assert writes(TEXT, pattern) is found


@pytest.mark.parametrize("schema,marked", [
    (prop({"type": "string", "pattern": CODE}), {"/properties/x"}),
    (prop({"type": "string", "pattern": r"^[A-Z]{4}-\d{4}$"}), set()),  # the text writes none
    (prop({"type": "string", "pattern": CODE, "maxLength": 8}), set()),  # a copy is refused beside a length
    (prop({"type": "string", "pattern": CODE, "format": "email"}), set()),
    (prop({"type": "string", "pattern": CODE, "x-verbatim": False}), set()),
    (prop({"type": "string", "pattern": CODE}, "The code, normalized"), set()),
    (prop({"type": "array", "items": {"type": "string", "pattern": CODE}}), {"/properties/x/items"}),
    (prop({"anyOf": [{"type": "string", "pattern": CODE}, {"type": "null"}]}), {"/properties/x/anyOf/0"}),
    (prop({"type": "array", "items": {"type": "string", "pattern": CODE}, "uniqueItems": True, "minItems": 2}),
     set()),  # copies are not counted toward a minimum
])
def test_patterned_strings_are_copies_where_the_text_writes_their_form(schema, marked):
    assert copied(patterned_from_text(schema, TEXT)) == marked


ORDER = {"type": "object", "properties": {"number": {"type": "string", "pattern": CODE}}, "required": ["number"]}


@pytest.mark.parametrize("number,ok", [
    ("ABC-1234", True),
    ("AJB-1234", False),  # of the form, but not the text's: what a small model wrote
    ("ABC-12345", False),
])
def test_a_patterned_copy_takes_only_the_texts_values_of_its_form(number, ok):
    made = build_automaton(compile_grammar(target_ir(values_from_text(ORDER, TEXT), None),
                                           CompileOptions(source=TEXT)))
    assert runs(made, '{"number":"%s"}' % number) is ok


def _copies_exist(text: str, pattern: str) -> bool:
    """The plain answer `writes` scans for: the copy rule's own automaton (the text's substrings and the pattern's
    string, both) is not empty."""
    return bool(build_dfa(Both((Substrings(text), jt.string(content=compile_pattern(pattern))))).accept.any())


PATTERNS = [CODE, r"^\d{2,3}$", r"^a\\b$", r'^"x"$', r"^\n[a-z]$", r"^é+$", "b", r"^\d*$", r"^[A-Z][a-z]+ [A-Z]"]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet='ab"\\\n\té0129AZ-xX ', max_size=40), st.sampled_from(PATTERNS))
def test_the_scan_answers_as_the_copy_rules_automaton(text, pattern):
    assert writes(text, pattern) is _copies_exist(text, pattern)


def test_a_scan_past_its_bound_leaves_the_field_free(monkeypatch):
    monkeypatch.setattr(patterned, "MAX_STEPS", 50)
    assert writes("a" * 200 + "XYZ", r"^a*XYZ$") is False
    assert writes("a" * 20 + "XYZ", r"^XYZ$") is True  # each start's scan dies at once: 23 characters read
