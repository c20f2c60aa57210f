"""A "" the model wrote for a verbatim string read as "the text does not hold it": null where the field may be null,
left out where it need not be given, a "missing" problem (the attempt retried) where it must."""

import json
from typing import Annotated, Optional

import pytest
from pydantic import BaseModel, Field

from extractor.decode.loop import Generation
from extractor.pipeline.grounding import Grounding, blanks
from extractor.pipeline.outcome import Invalid, Parsed, outcome
from extractor.schema.verbatim import Verbatim


class Invoice(BaseModel):
    number: str
    seller: Optional[str] = None
    note: str = "none"
    emails: list[str] = []
    total: float


class Marked(BaseModel):
    number: Annotated[str, Verbatim]
    seller: str


class Free(BaseModel):
    number: str = Field(json_schema_extra={"x-verbatim": False})
    status: str = Field(json_schema_extra={"enum": ["", "paid"]})
    code: Annotated[str, Field(pattern="^[A-Z]*$")]


BLANKS = [  # (target, verbatim mode, output) -> (output read, pointers missing)
    (Invoice, "all", '{"number": "INV-17", "seller": "", "note": "x", "emails": [], "total": 2}',
     '{"number": "INV-17", "seller": null, "note": "x", "emails": [], "total": 2}', []),
    (Invoice, "all", '{"number": "", "seller": "Lumen", "note": "x", "emails": [], "total": 2}',
     '{"number": "", "seller": "Lumen", "note": "x", "emails": [], "total": 2}', [("number",)]),
    (Invoice, "all", '{"number": "7", "seller": null, "note": "", "emails": [], "total": 2}',
     '{"number": "7", "seller": null, "emails": [], "total": 2}', []),  # not required: left out, default stands
    (Invoice, "all", '{\n  "note": "",\n  "number": "7",\n  "total": 2\n}',
     '{\n  "number": "7",\n  "total": 2\n}', []),  # the first member: the comma after it goes
    (Invoice, "all", '{"number": "7", "emails": ["", "a@b.io", ""], "total": 2}',
     '{"number": "7", "emails": ["a@b.io"], "total": 2}', []),  # list items the text does not hold
    (Invoice, "auto", '{"number": "", "total": 2}', '{"number": "", "total": 2}', [("number",)]),
    (Invoice, "marked", '{"number": "", "seller": "", "total": 2}', '{"number": "", "seller": "", "total": 2}',
     []),  # plain strings are free under "marked": "" is a value
    (Marked, "marked", '{"number": "", "seller": ""}', '{"number": "", "seller": ""}', [("number",)]),
    (Free, "all", '{"number": "", "status": "", "code": ""}', '{"number": "", "status": "", "code": ""}', []),
    (Invoice, "all", '{"number": "a\\"\\"b", "total": 2}', '{"number": "a\\"\\"b", "total": 2}', []),  # not empty
    ({"type": "object", "properties": {"k": {"anyOf": [{"type": "string"}, {"const": ""}]}}, "required": ["k"]},
     "all", '{"k": ""}', '{"k": ""}', []),  # the schema spells "" itself
]


@pytest.mark.parametrize("target,verbatim,output,read,missing", BLANKS)
def test_an_empty_copy_is_read_as_absent(target, verbatim, output, read, missing):
    got = blanks(output, target, verbatim)
    assert got.output == read and json.loads(got.output) is not None
    assert [p.loc for p in got.missing] == missing and all(p.type == "missing" for p in got.missing)
    assert got.moved is ('"emails": [""' in output and verbatim != "marked")  # a list item left out


TEXT = "Invoice INV-17 from Lumen Ltd. Total due: 200.00 EUR."
OUTCOMES = [  # (output) -> what the attempt came to
    ('{"number": "INV-17", "seller": "", "total": 200.0}', Invoice(number="INV-17", total=200.0)),
    ('{"number": "", "seller": "Lumen Ltd.", "total": 200.0}', None),  # a required field written "": retried
]


@pytest.mark.parametrize("output,expected", OUTCOMES)
def test_an_attempt_with_an_empty_copy_is_parsed_or_retried(output, expected):
    gen = Generation(output, output.encode(), complete=True)
    attempt, came = outcome(Invoice, None, gen, [], 64, [], None, Grounding(Invoice, TEXT))
    if expected is None:
        assert isinstance(came, Invalid) and [e.type for e in attempt.errors] == ["missing"]
        assert attempt.errors[0].loc == ("number",) and attempt.text == output  # the attempt kept as written
    else:
        assert isinstance(came, Parsed) and came.result == expected and attempt.errors == []
