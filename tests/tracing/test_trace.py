"""Traces: every leaf value placed in the text (string indices of the text as passed), with how it was found."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Literal, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from extractor import FromText, Refusal, Trace, Verbatim, trace
from extractor.tracing import agrees
from extractor.tracing.leaves import output_ranges

# (text, value, status, how, the text under each span)
FINDS = [
    ("会社：東京電機株式会社、担当：山田太郎。", "山田太郎", "found", "exact", ["山田太郎"]),
    ("😀😀 Zoë Ng 👩‍👩‍👧 writes to zoë@例え.jp", "zoë@例え.jp", "found", "exact", ["zoë@例え.jp"]),
    ("Cafe\u0301 Mu\u0308ller, Wien", "Café Müller", "found", "folded", ["Cafe\u0301 Mu\u0308ller"]),
    ("ＡＣＭＥ　Ｌｔｄ．", "ACME Ltd.", "found", "folded", ["ＡＣＭＥ　Ｌｔｄ．"]),
    ("Name:  DR   kenji\nWATANABE", "Dr Kenji Watanabe", "found", "folded", ["DR   kenji\nWATANABE"]),
    ("Sold by São-Paulo Trading, Ltd.", "Sao Paulo Trading Ltd", "found", "words", ["São-Paulo Trading, Ltd"]),
    ("Annual report of the Annex", "Ann", "not_found", "", []),  # never inside a word
    ("Mail k@helix.co.uk, United Kingdom", "UK", "not_found", "", []),  # short values only as written
    ("Mail k@helix.co.uk, United Kingdom", "uk", "found", "exact", ["uk"]),
    ("Total: 1.500,00 €", 1500.0, "found", "number", ["1.500,00"]),
    ("Total: $1,500", 1500, "found", "number", ["1,500"]),
    ("Refund -12.50 issued", -12.5, "found", "number", ["-12.50"]),
    ("Ref ABC-12.50", -12.5, "not_found", "", []),  # a hyphen after a word is no minus sign
    ("Room 12 15 guests", 1215, "not_found", "", []),  # two numbers, not one
    ("Dated 05/01/17.", "2017-01-05", "found", "date", ["05/01/17"]),
    ("le 14 octobre 2025 à Paris", "2025-10-14", "found", "date", ["14 octobre 2025"]),
    ("made this 15th day of November, 2018 by", "2018-11-15", "found", "date", ["15th day of November, 2018"]),
    ("Starts October 14th, 2025", "2025-10-14", "found", "date", ["October 14th, 2025"]),
    ("Dated 05/01/17.", "2017-05-01", "found", "date", ["05/01/17"]),  # day and month read either way
    ("Dated 05/01/17.", "2017-01-06", "not_found", "", []),
    ("From Mar 2019 to now", "2019-03", "found", "month", ["Mar 2019"]),
    ("Cuándo: del 15 al 16 de junio de 2026", "2026-06-15", "found", "date", ["del 15 al 16 de junio de 2026"]),
    ("We'll meet on October 5–7, 2026.", "2026-10-05", "found", "date", ["October 5–7, 2026"]),
    ("DTSTART:20250208T193000", "2025-02-08", "found", "date", ["20250208T193000"]),
    ("DTSTART:20250208T193000", "19:30", "found", "time", ["20250208T193000"]),
    ("Hora: 8.30 h", "08:30", "found", "time", ["8.30 h"]),
    ("Doors open 2 pm sharp", "14:00", "found", "time", ["2 pm"]),
    ("Beginn 18h30", "18:30", "found", "time", ["18h30"]),
    ("Call +1 (415) 555-0192", "14155550192", "found", "digits", ["+1 (415) 555-0192"]),
    ("Call +1 (415) 555-0192", "123-456-7890", "not_found", "", []),
    ("Berlin, Berlin and BERLIN", "Berlin", "found", "exact", ["Berlin", "Berlin"]),  # every occurrence, in order
]


@pytest.mark.parametrize("text,value,status,how,written", FINDS, ids=[repr(f[1]) for f in FINDS])
def test_a_value_is_found_where_the_text_holds_it(text, value, status, how, written):
    [found] = trace({"v": value}, text, {"type": "object", "properties": {"v": {}}})
    assert (found.pointer, found.status, found.how) == ("/v", status, how)
    assert [s.of(text) for s in found.spans] == written
    assert all(agrees(value, w, how) for w in written)


class Invoice(BaseModel):
    number: Annotated[str, Verbatim]
    kind: Literal["invoice", "credit note"]
    issued: datetime.date
    seller: str
    buyer: Optional[str] = None
    paid: bool = False
    notes: Annotated[list[str], FromText] = []


TEXT = "Invoice INV-7 from  Nordwind Coffee AG\nto ACME Ltd, dated 15 March 2024."
INVOICE = Invoice(number="INV-7", kind="credit note", issued=datetime.date(2024, 3, 15), seller="Nordwind Coffee AG",
                  notes=["dated 15 March", "paid in full"])


def test_each_leaf_gets_its_status_in_document_order():
    found = trace(INVOICE, TEXT)
    assert [(v.pointer, v.status, v.how, v.marked) for v in found] == [
        ("/number", "copied", "verbatim", False),  # the grammar let nothing else through
        ("/kind", "fixed", "", False),  # a Literal the text does not hold: the schema spelled it
        ("/issued", "found", "date", False),
        ("/seller", "found", "exact", False),
        ("/buyer", "absent", "", False),
        ("/paid", "fixed", "", False),
        ("/notes/0", "found", "exact", True),
        ("/notes/1", "not_found", "", True),
    ]
    assert [v.pointer for v in found.not_found] == ["/notes/1"]
    assert found["/seller"].spans[0].of(TEXT) == "Nordwind Coffee AG"
    with pytest.raises(KeyError):
        found["/nowhere"]


def test_a_refusal_has_an_empty_trace():
    assert trace(Refusal(error="no invoice here"), TEXT) == Trace()


def test_the_schema_is_read_as_the_compiler_reads_it():
    """allOf parts merged, undeclared keys valued by additionalProperties or their pattern group, refs followed,
    pointers escaped."""
    schema = {"type": "object", "allOf": [{"properties": {"a/b": {"type": "string"}}},
                                          {"properties": {"k": {"$ref": "#/definitions/Kind"}}}],
              "patternProperties": {"^x-": {"const": "fixed"}}, "additionalProperties": {"type": "string"},
              "definitions": {"Kind": {"enum": ["k1", "ACME"]}}}
    found = trace({"a/b": "gone", "k": "ACME", "x-1": "fixed", "other": "Coffee"}, TEXT, schema)
    assert [(v.pointer, v.status) for v in found] == [("/a~1b", "not_found"), ("/k", "found"), ("/x-1", "fixed"),
                                                      ("/other", "found")]


def test_the_trace_round_trips_through_json():
    found = trace(INVOICE, TEXT)
    assert Trace.from_json(json.loads(json.dumps(found.to_json()))) == found


# The decoder's record of what it copied: (output offset, source offset, length) in bytes.
COPIED_TEXT = "Ünïcödé 😀 header. Name: Zoë Ng\nAlso Zoë Ng here."


def _output(value: dict) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def test_a_copied_value_maps_to_the_occurrence_the_decoder_copied():
    out = _output({"name": "Zoë Ng"})
    second = COPIED_TEXT.encode().rindex("Zoë Ng".encode())
    at = out.index(b"Zo")
    runs = [(at + 2, second + 2, len("ë Ng".encode()))]  # the model wrote "Zo", the decoder copied the rest
    found = trace({"name": "Zoë Ng"}, COPIED_TEXT, {"type": "object"}, output=out, copies=runs)
    [value] = found
    assert (value.status, value.how, value.occurrences) == ("copied", "decoder", 1)
    [span] = value.spans
    assert span.start == COPIED_TEXT.rindex("Zoë Ng") and span.of(COPIED_TEXT) == "Zoë Ng"
    without = trace({"name": "Zoë Ng"}, COPIED_TEXT, {"type": "object"})  # no record: every occurrence, found
    assert [s.start for s in without["/name"].spans] == [COPIED_TEXT.index("Zoë"), COPIED_TEXT.rindex("Zoë")]


def test_a_copy_the_model_then_changed_is_not_claimed():
    out = _output({"name": "Zoë Nguyen"})
    at, src = out.index("Zoë".encode()), COPIED_TEXT.encode().index("Zoë".encode())
    runs = [(at, src, len("Zoë Ng".encode()))]
    [value] = trace({"name": "Zoë Nguyen"}, COPIED_TEXT, {"type": "object"}, output=out, copies=runs)
    assert value.status == "not_found"


def test_a_copied_value_with_escapes_in_its_output():
    text = 'He said "hi"\nthere, Zoë'
    value = 'said "hi"\nthere, Zoë'
    out = _output({"q": value})
    start = out.index(b"said")
    runs = [(out.index(b"there"), text.encode().index(b"there"), len("there, Zoë".encode()))]
    [found] = trace({"q": value}, text, {"type": "object"}, output=out, copies=runs)
    assert found.status == "copied" and found.spans[0].of(text) == value and start > 0


@pytest.mark.parametrize("value", [{"a": [1, {"b": "x\"y"}], "c": None, "d/e": -2.5e3, "f": True}, [], "s", 3])
def test_output_ranges_point_at_each_scalar(value):
    out = json.dumps(value, indent=2).encode()
    ranges = output_ranges(out)
    for pointer, (a, b) in ranges.items():
        raw = out[a:b]
        node = value
        for part in pointer.split("/")[1:]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        assert (json.loads(b'"' + raw + b'"') if out[a - 1:a] == b'"' else json.loads(raw)) == node


WORD = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(WORD, min_size=1, max_size=12), st.data())
def test_every_span_is_the_value_under_its_stated_normalization(words, data):
    """Any run of a text's words is found, and every span reported reads as the value (exact, folded or as words)."""
    text = " ".join(words)
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i + 1, len(words)))
    value = " ".join(words[i:j])
    [found] = trace({"v": value}, text, {"type": "object"})
    if found.status == "absent":
        return
    assert found.status == "found" and found.spans
    assert all(agrees(value, s.of(text), found.how) for s in found.spans)
