"""Verbatim fields: only substrings of the source text, in canonical JSON spelling, can be written (where they
start and end as a group of its text does, with each run of whitespace written as one space)."""

from __future__ import annotations

import json
import re
from typing import Annotated, Optional

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from extractor import UnsupportedSchemaError
from extractor.automata import build_automaton
from extractor.grammar import CompileOptions, compile_grammar
from extractor.schema import target_ir
from extractor.lang.dfa import SEPARATORS
from extractor.schema.verbatim import Verbatim
from tests.automata.helpers import runs

SOURCE = 'Jane "JD" Doe <jane@example.com>\nPhone: +1 555-0100. Café élan 😀 tab\there\\back'


class Contact(BaseModel):
    name: Annotated[str, Verbatim]
    email: Optional[Annotated[str, Verbatim]] = None


def build(schema, source: str = SOURCE):
    return build_automaton(compile_grammar(target_ir(schema, None), CompileOptions(source=source)))


def test_pydantic_marker_becomes_x_verbatim():
    schema = Contact.model_json_schema()
    assert schema["properties"]["name"]["x-verbatim"] is True
    assert schema["properties"]["email"]["anyOf"][0]["x-verbatim"] is True


def word_substrings(text: str) -> set[str]:
    """Every substring of `text` that cuts no word in two and has no whitespace at either end, whose first
    token begins a group somewhere in the text (after whitespace or a separator) and one of whose
    occurrences ends a group, each run of whitespace in it written as one space; and ""."""
    text = re.sub(r"\s+", " ", text).strip()
    word = [ch.isalnum() or ch == "_" for ch in text]
    cuts = [i for i in range(len(text) + 1) if i in (0, len(text)) or not (word[i - 1] and word[i])]
    closes = [False] * (len(text) + 1)
    for j in range(len(text), -1, -1):
        closes[j] = j == len(text) or text[j] == " " or text[j] in SEPARATORS or (not word[j] and closes[j + 1])

    def first(i: int) -> str:
        return text[i:min(k for k in cuts if k > i)]

    firsts = {first(i) for i in cuts[:-1] if i == 0 or text[i - 1] == " " or text[i - 1] in SEPARATORS} - {" "}
    pieces = [(i, j) for i in cuts for j in cuts if i < j and text[i] != " " and text[j - 1] != " "]
    ending = {text[i:j] for i, j in pieces if closes[j]}
    return {""} | {text[i:j] for i, j in pieces if first(i) in firsts and text[i:j] in ending}


@pytest.mark.parametrize("text,ok", [
    ('{"name":"Jane","email":"jane@example.com"}', True),
    ('{"name":"Jane \\"JD\\" Doe","email":null}', True),
    ('{"name":"Café élan 😀"}', True),
    ('{"name":"555-0100. Café","email":"tab here\\\\back"}', True),  # a tab written as a space
    ('{"name":"tab\\there"}', False),  # whitespace is written as one space
    ('{"name":"555-0100. Caf"}', False),  # in the source, but cut mid-word
    ('{"name":"ane"}', False),
    ('{"name":"e@example.com"}', False),
    ('{"name":"example.com"}', False),  # `@` joins: a copy starts where a group does
    ('{"name":"jane@example"}', False),  # nor ends inside one
    ('{"name":"Doe"}', True),  # `<` separates
    ('{"name":"JD"}', True),  # `"` separates
    ('{"name":"Phone"}', True),  # `:` closes a group
    ('{"name":"555-0100"}', True),  # and so does the `.` before a space
    ('{"name":"0100"}', False),  # `-` joins
    ('{"name":" Jane"}', False),  # whitespace at an end
    ('{"name":"Phone: +1"}', True),
    ('{"name":"Doe>\\nPhone"}', False),  # not in the source
    ('{"name":"John"}', False),
    ('{"name":"Jane \\u0022JD"}', False),  # in the source, but not in canonical spelling
    ('{"name":"Doe <jane@example.com> Phone"}', True),  # across the line break
])
def test_only_substrings_that_cut_no_word_are_accepted(text, ok):
    assert runs(build(Contact), text) is ok


@settings(max_examples=80, deadline=None)
@given(start=st.integers(0, len(SOURCE)), size=st.integers(0, 30))
def test_a_substring_is_accepted_exactly_when_it_cuts_no_word(start, size):
    piece = re.sub(r"\s+", " ", SOURCE[start:start + size])
    text = json.dumps({"name": piece}, ensure_ascii=False, separators=(",", ":"))
    assert runs(build(Contact), text) is (piece in word_substrings(SOURCE))


RECEIPT = "MR. D.I.Y. (KUCHAI) SDN BHD\nDATE: 12-03-18 TOTAL:45.00\nFN:Luca Bianchi, **Diploma in Nursing**,"


@pytest.mark.parametrize("piece,ok", [
    ("12-03-18", True),
    ("18", False),  # `-` joins: not where a group starts
    ("12", False),  # nor where one ends
    ("45.00", True),  # `:` separates
    ("45", False),
    ("KUCHAI", True),  # inside `(...)`
    ("MR. D.I.Y.", True),
    ("D.I.Y", True),  # the `.` before the space may be left out
    ("I.Y.", False),
    ("Luca Bianchi", True),  # the `,` that closes the group may be left out
    ("Luca Bianchi,", True),
    ("Diploma in Nursing", True),  # `*` separates
    ("03-18", False),  # `03` begins no group of the text
])
def test_copies_start_and_end_where_groups_of_the_text_do(piece, ok):
    assert runs(build(Contact, RECEIPT), json.dumps({"name": piece}, separators=(",", ":"))) is ok


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_walks_only_write_substrings(seed):
    auto, rng = build({"type": "string", "x-verbatim": True}), np.random.default_rng(seed)
    config, out = auto.start(), bytearray()
    while True:
        options = [b for b in range(256) if auto.step(config, b)]
        if auto.accepting(config) and (not options or rng.random() < 0.1):
            break
        byte = int(rng.choice(options))
        config, out = auto.step(config, byte), out + bytes([byte])
    assert json.loads(out) in word_substrings(SOURCE)


@pytest.mark.parametrize("extra,text,ok", [
    ({"format": "email"}, '"jane@example.com"', True),
    ({"format": "email"}, '"ane@example.com"', True),  # also a substring that is an email
    ({"format": "email"}, '"Jane"', False),  # in the source, not an email
    ({"format": "email"}, '"john@example.com"', False),  # an email, not in the source
    ({"pattern": "^[0-9+ -]{7,}$"}, '"+1 555-0100"', True),
    ({"pattern": "^[0-9+ -]{7,}$"}, '"+1 555-0199"', False),
    ({"not": {"const": "Jane"}}, '"Jane"', False),
    ({"not": {"const": "Jane"}}, '"Doe"', True),
    ({"not": {"const": "Jane"}}, '"Jan"', False),  # cut mid-word: only a pattern or format lifts that
])
def test_verbatim_beside_format_pattern_and_not(extra, text, ok):
    """The product with the source's automaton: a substring that also matches the other keywords."""
    assert runs(build({"type": "string", "x-verbatim": True, **extra}), text) is ok


def test_a_text_without_a_grounded_value_leaves_only_the_refusal():
    """No substring of a recipe is an email: the target cannot be written, so the grammar is the
    refusal branch alone (and without one, the schema is unsatisfiable for this text)."""
    from extractor import Refusal, UnsatisfiableSchemaError

    schema = {"type": "object", "properties": {"email": {"type": "string", "format": "email", "x-verbatim": True}},
              "required": ["email"]}
    recipe = "Whisk 200 g flour with 2 eggs and 300 ml milk; rest ten minutes, then fry."
    auto = build_automaton(compile_grammar(target_ir(schema, Refusal), CompileOptions(source=recipe)))
    assert runs(auto, '{"error":"no email in the text"}')
    assert not runs(auto, '{"email":"flour"}')
    with pytest.raises(UnsatisfiableSchemaError):
        build(schema, recipe)


def test_verbatim_needs_the_source_and_refuses_lengths():
    with pytest.raises(UnsupportedSchemaError, match="source"):
        build_automaton(compile_grammar(target_ir(Contact, None)))
    with pytest.raises(UnsupportedSchemaError, match="x-verbatim"):
        build({"type": "string", "x-verbatim": True, "maxLength": 5})


def _reads(text: str, piece: str) -> bool:
    from extractor.lang.dfa import _word_positions

    nxt, accept = _word_positions(text)
    state: int | None = 0
    for ch in piece:
        state = nxt[state].get(ch)
        if state is None:
            return False
    return accept[state]


@settings(max_examples=120, deadline=None)
@given(text=st.text(alphabet="ab_ .\n€", max_size=16))
def test_the_whole_word_substring_automaton_is_exact_on_any_text(text):
    wanted = word_substrings(text)
    pieces = {text[i:j] for i in range(len(text) + 1) for j in range(i, len(text) + 1)} | {"a", "ab", " ", "a b"}
    assert {p for p in pieces if _reads(text, p)} == wanted & pieces


def test_the_whole_word_substring_automaton_grows_linearly_with_the_text():
    from extractor.lang.dfa import _word_positions

    text = "word " * 20_000  # as repetitive as a text gets: end-position sets would hold thousands each
    nxt, _ = _word_positions(text)
    assert len(nxt) <= 4 * len(text)
    assert _reads(text, "word word") and not _reads(text, "ord")


def test_only_schemas_with_verbatim_strings_quote_the_source():
    """Decided on the IR, not the schema's text: a description mentioning the keyword is not a field."""
    from typing import Annotated

    from pydantic import BaseModel

    from extractor import Verbatim
    from extractor.schema import quotes_source, target_ir

    class Named(BaseModel):
        name: Annotated[str, Verbatim]

    class Listed(BaseModel):
        items: list[Named]

    class Mentioned(BaseModel):
        """Marks nothing, though it says "x-verbatim": true."""
        name: str

    assert quotes_source(target_ir(Named, None)) and quotes_source(target_ir(Listed, None))
    assert not quotes_source(target_ir(Mentioned, None))
    assert not quotes_source(target_ir({"type": "string", "description": '"x-verbatim": true'}, None))


class Job(BaseModel):
    company: Annotated[str, Verbatim]
    title: str
    start_year: Optional[int] = None


class Cv(BaseModel):
    name: Annotated[str, Verbatim]
    jobs: list[Job] = []


def test_a_new_document_rebuilds_only_the_verbatim_rules(monkeypatch):
    import extractor.automata.pda as pda

    build(Cv, "Ann Lee worked at Helio Energy.")
    built: list[str] = []
    construct = pda._construct
    monkeypatch.setattr(pda, "_construct", lambda name, *rest: built.append(name) or construct(name, *rest))
    automaton = build(Cv, "Bo Chen works at Nordwind Coffee.")
    assert built == ["string verbatim-words"]
    assert runs(automaton, '{"name":"Bo Chen","jobs":[{"company":"Nordwind Coffee","title":"x"}]}')
    assert not runs(automaton, '{"name":"Ann Lee","jobs":[]}')  # the first document's automaton is not reused
