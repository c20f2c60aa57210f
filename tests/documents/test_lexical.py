"""The words and value shapes a target's schema looks for, and BM25 over a long text's own stretches: a buried
document's stretch scores above the text around it, a word every stretch writes weighs nothing."""

from __future__ import annotations

import datetime

import pytest
from pydantic import BaseModel, Field

from extractor.documents.lexical import bm25, spread, stretch_terms, terms, words


class Line(BaseModel):
    description: str
    unit_price: float


class Invoice(BaseModel):
    """An invoice sent to a customer."""

    invoice_number: str
    issued: datetime.date
    contact_email: str
    lines: list[Line] = Field(description="Items billed, as written in the text")


@pytest.mark.parametrize("text, expected", [
    ("unitPrice", ["unit", "price"]),
    ("contact_email", ["contact", "email"]),
    ("Skills and Addresses", ["skill", "and", "addresse"]),  # a plural's s dropped on both sides alike
    ("class business 2024 x", ["class", "business"]),  # -ss kept, digits and single letters left to the shapes
    ("Straße Ünïcode", ["straße", "ünïcode"]),
], ids=["camel", "snake", "plural", "kept", "unicode"])
def test_words_are_split_lowered_and_stemmed(text: str, expected: list[str]) -> None:
    assert words(text) == expected


def test_terms_hold_names_titles_descriptions_nested_fields_and_shapes() -> None:
    found = terms(Invoice.model_json_schema())
    assert {"invoice", "number", "issued", "contact", "email", "line", "description", "unit", "price",
            "customer", "billed", "item"} <= set(found)
    assert {"<date>", "<email>", "<amount>"} <= set(found)  # a date field, an e-mail, a number
    assert not {"the", "as", "in", "text", "written"} & set(found)  # words about the answer, not the document
    assert len(found) == len(set(found))


@pytest.mark.parametrize("text, shape", [
    ("write to dana@reyes.io today", "<email>"),
    ("see https://example.org/x", "<url>"),
    ("call +44 161 401 9185", "<phone>"),
    ("Total: $12.50", "<amount>"),
    ("due 14.10.2025", "<date>"),
    ("on Oct 14 we", "<date>"),
    ("since 2019", "<year>"),
], ids=["email", "url", "phone", "amount", "numeric_date", "month_day", "year"])
def test_a_stretch_counts_the_value_shapes_it_writes(text: str, shape: str) -> None:
    assert stretch_terms(text)[shape] == 1


def scores(stretches: list[str], query: list[str]) -> list[float]:
    return bm25([stretch_terms(s) for s in stretches], query)


CLAUSE = "The Company shall keep the Confidential Information secret and the date of disclosure recorded. "


def test_a_buried_document_outscores_the_text_around_it() -> None:
    card = ("INVOICE INV-0042 issued 3 March 2025 to ops@acme.example. Lines: Widget, unit price 12.50; "
            "Gadget, unit price 7.25.")
    stretches = [CLAUSE * 4] * 5 + [card] + [CLAUSE * 4] * 5
    got = scores(stretches, terms(Invoice.model_json_schema()))
    assert max(range(len(got)), key=got.__getitem__) == 5
    assert got[0] == got[10] and got[5] > 3 * got[0]


def test_a_word_every_stretch_writes_weighs_nothing_more_than_a_rare_one() -> None:
    common = scores(["date alpha", "date beta", "date gamma"], ["date"])
    rare = scores(["date alpha", "beta", "gamma"], ["date"])
    assert common[0] < rare[0] and common[0] == common[1] == common[2]


@pytest.mark.parametrize("stretches", [[], ["", ""], ["no match here"]], ids=["none", "empty", "no_term"])
def test_nothing_to_score_scores_zero(stretches: list[str]) -> None:
    assert scores(stretches, ["invoice"]) == [0.0] * len(stretches)


@pytest.mark.parametrize("stretches, query, expected", [
    (["01/02/2025 Shop 12.50", "02/02/2025 Cafe 3.20", "03/02/2025 Bar 9.99"], ["<date>", "<amount>"], 1.0),
    (["clause one", "INVOICE 12.50 due 01/02/2025", "clause two", "clause three"], ["<date>", "<amount>"], 0.25),
    (["01/02/2025", "02/02/2025"], ["date"], 0.0),  # no shape asked for
    ([], ["<date>"], 0.0),
], ids=["statement", "buried", "no_shape", "none"])
def test_spread_is_the_largest_share_of_stretches_writing_a_shape(stretches: list[str], query: list[str],
                                                                  expected: float) -> None:
    assert spread([stretch_terms(s) for s in stretches], query) == expected


@pytest.mark.parametrize("schema, found", [
    ({"properties": [1]}, []),
    ({"$defs": [1], "properties": {"email": {"type": "string"}}}, ["email", "<email>"]),
    ({"properties": {"email": {"type": "string", "format": ["email"]}}}, ["email", "<email>"]),
    ({"properties": {"total": {"type": 5}, "note": {"anyOf": 7}}}, ["total", "<amount>", "note"]),
], ids=["properties", "defs", "format", "type-anyof"])
def test_a_keyword_of_the_wrong_type_is_passed_over_not_raised_on(schema, found) -> None:
    """The screen reads a schema's words before it is compiled: a malformed keyword is the compile's to refuse."""
    assert terms(schema) == found
