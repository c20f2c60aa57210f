"""The refusal before decoding: a text of doubtful relevance that writes no value of any kind its target asks for
(no amount or date for a receipt, no e-mail address for a contact) is refused, saying which kinds; a text that writes
one, reads plainly as the target, or a target asking for no such kind is decoded."""

from __future__ import annotations

import datetime

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions
from extractor.documents.lexical import asked, writes
from extractor.pipeline.calibration import MIN_RELEVANCE, VALUELESS
from extractor.pipeline.refusing import Screened, before_decoding

INTRO = ("Hi Dimitra, as promised I'd like to introduce you to Mehmet, who runs the design team at Northwind. He "
         "has been looking for someone with your background in research operations, and I think you two would get on.")
FRAGMENT = "Maria Lopez joined the lab in March as a research engineer."


class Receipt(BaseModel):
    merchant: str
    total: float
    date: datetime.date | None = None


class Contact(BaseModel):
    name: str
    email: str | None = None
    phone: str | None = None


class Pet(BaseModel):
    name: str
    age: int


class Agreement(BaseModel):
    parties: list[str]
    effective_date: datetime.date | None = None


WRITES = [  # (text, shapes asked, shapes written)
    ("DTSTART:20260302T094500", ("date", "time", "year"), {"date", "time", "year"}),  # a calendar's compact form
    ("Wann: Freitag, 10. April 2026\nBeginn: 19.00 Uhr", ("date", "time", "year"), {"date", "time", "year"}),
    ("Doors open Oct 14", ("date", "year"), {"date"}),  # a day without its year writes no year
    ("Total due: €12.50", ("amount", "date"), {"amount"}),
    ("Write to ana@example.org or call +44 20 7946 0958", ("email", "phone", "url"), {"email", "phone"}),
    (INTRO, ("amount", "date", "time", "email"), set()),
]


@pytest.mark.parametrize("text,shapes,found", WRITES)
def test_what_a_text_writes_is_read_as_the_grammar_and_the_trace_read_it(text, shapes, found):
    assert writes(text, shapes) == found


def test_the_shapes_asked_come_from_the_fields_names_and_types():
    assert set(asked(Receipt.model_json_schema())) == {"amount", "date"}
    assert set(asked(Contact.model_json_schema())) == {"email", "phone"}
    assert asked(Pet.model_json_schema()) == ()
    assert asked(Agreement.model_json_schema()) == ("date",)


CASES = [  # (target, text, score, require_values, refused with)
    (Receipt, INTRO, VALUELESS - 1, True, "no Receipt in the text: it writes no amount or date, the kinds of value"),
    (Receipt, INTRO, VALUELESS + 0.5, True, None),  # reads plainly as a receipt: decoded
    (Receipt, INTRO, VALUELESS - 1, False, None),  # the check is off
    (Receipt, INTRO + " Lunch was €12.50.", VALUELESS - 1, True, None),  # an amount is written
    (Contact, INTRO, VALUELESS - 1, True, "no Contact in the text: it writes no e-mail address or phone number"),
    (Pet, INTRO, VALUELESS - 1, True, None),  # asks for no kind of value: never refused so
    (Contact, FRAGMENT, VALUELESS - 1, True, None),  # a sentence names a contact without its optional values
    (Agreement, INTRO, VALUELESS - 1, True, None),  # one kind asked: its absence says little
    (Receipt, INTRO, MIN_RELEVANCE - 1, False, "no Receipt in the text: it does not read as one"),
]


@pytest.mark.parametrize("target,text,score,require,refused", CASES)
def test_a_doubtful_text_writing_no_value_asked_for_is_refused_before_decoding(target, text, score, require, refused):
    reason = before_decoding(Screened(score, target.__name__), target.model_json_schema(), text, MIN_RELEVANCE, require)
    assert (reason is None) == (refused is None)
    if refused:
        assert reason.startswith(refused)


@pytest.mark.parametrize("whole,refused", [(VALUELESS + 0.5, False), (VALUELESS - 2, True)])
def test_a_bound_below_doubtful_is_read_to_the_end_before_it_refuses(whole, refused):
    read = []
    screen = Screened(VALUELESS - 3, "Receipt", exact=lambda: read.append(whole) or whole)
    reason = before_decoding(screen, Receipt.model_json_schema(), INTRO, MIN_RELEVANCE, True)
    assert (reason is not None) == refused and read == [whole]
    assert before_decoding(screen, Receipt.model_json_schema(), INTRO + " Paid €3.20", MIN_RELEVANCE, True) is None
    assert read == [whole]  # an amount written: nothing more is read


def test_the_check_is_an_option_on_by_default():
    assert ExtractOptions().require_values is True
