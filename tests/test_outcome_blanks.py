"""A "" the model wrote for a verbatim string read as "the text does not hold it": null where the field may be null,
left out where it need not be given; kept where it must be given."""

import json
from typing import Annotated, Optional

import pytest
from pydantic import BaseModel, Field

from extractor.decode.loop import Generation
from extractor.pipeline.grounding import Grounding, blanks
from extractor.pipeline.outcome import Parsed, outcome
from extractor.schema.verbatim import Verbatim


class Invoice(BaseModel):
    number: str
    seller: Optional[str] = None
    note: str = "none"
    emails: list[str] = []
    total: float


class Marked(BaseModel):
    ref: Annotated[str, Verbatim] = "none"
    seller: str = "none"


class Free(BaseModel):
    number: str = Field(json_schema_extra={"x-verbatim": False})
    status: str = Field(json_schema_extra={"enum": ["", "paid"]})
    code: Annotated[str, Field(pattern="^[A-Z]*$")]


BLANKS = [  # (target, verbatim mode, output) -> the output read
    (Invoice, "all", '{"number": "INV-17", "seller": "", "note": "x", "emails": [], "total": 2}',
     '{"number": "INV-17", "seller": null, "note": "x", "emails": [], "total": 2}'),
    (Invoice, "all", '{"number": "", "seller": "Lumen", "note": "x", "emails": [], "total": 2}',
     '{"number": "", "seller": "Lumen", "note": "x", "emails": [], "total": 2}'),  # must be given: kept
    (Invoice, "all", '{"number": "7", "seller": null, "note": "", "emails": [], "total": 2}',
     '{"number": "7", "seller": null, "emails": [], "total": 2}'),  # not required: left out, default stands
    (Invoice, "all", '{\n  "note": "",\n  "number": "7",\n  "total": 2\n}',
     '{\n  "number": "7",\n  "total": 2\n}'),  # the first member: the comma after it goes
    (Invoice, "all", '{"number": "7", "emails": ["", "a@b.io", ""], "total": 2}',
     '{"number": "7", "emails": ["a@b.io"], "total": 2}'),  # list items the text does not hold
    (Invoice, "auto", '{"number": "7", "seller": "", "total": 2}', '{"number": "7", "seller": null, "total": 2}'),
    (Invoice, "marked", '{"number": "", "seller": "", "total": 2}',
     '{"number": "", "seller": "", "total": 2}'),  # plain strings are free under "marked": "" is a value
    (Marked, "marked", '{"ref": "", "seller": ""}', '{"seller": ""}'),  # only the member marked Verbatim
    (Invoice, "all", '{"number": "a\\"\\"b", "seller": "", "total": 2}',
     '{"number": "a\\"\\"b", "seller": null, "total": 2}'),  # escaped quotes are not an empty string
    (Free, "all", '{"number": "", "status": "", "code": ""}', '{"number": "", "status": "", "code": ""}'),
    ({"type": "object", "properties": {"k": {"anyOf": [{"type": "string"}, {"const": ""}]}}, "required": ["k"]},
     "all", '{"k": ""}', '{"k": ""}'),  # the schema spells "" itself
]


@pytest.mark.parametrize("target,verbatim,output,read", BLANKS)
def test_an_empty_copy_is_read_as_absent(target, verbatim, output, read):
    got = blanks(output, target, verbatim)
    assert got.output == read and json.loads(got.output) is not None
    assert got.moved is ('"emails": [""' in output and verbatim != "marked")  # a list item left out


TEXT = "Invoice INV-17 from Lumen Ltd. Total due: 200.00 EUR."
OUTCOMES = [  # (output) -> the result, and values of its trace by pointer
    ('{"number": "INV-17", "seller": "", "note": "", "total": 200.0}', Invoice(number="INV-17", total=200.0),
     {"/number": "INV-17", "/seller": None}),
    ('{"number": "", "seller": "Lumen Ltd.", "emails": ["", "a@b.io"], "total": 200.0}',
     Invoice(number="", seller="Lumen Ltd.", emails=["a@b.io"], total=200.0),  # a required field keeps its ""
     {"/number": "", "/emails/0": "a@b.io"}),  # the item left out: the next one traced in its place
]


@pytest.mark.parametrize("output,expected,traced", OUTCOMES)
def test_an_attempt_is_parsed_with_its_empty_copies_read_as_absent(output, expected, traced):
    gen = Generation(output, output.encode(), complete=True)
    attempt, came = outcome(Invoice, None, gen, [], 64, [], None, Grounding(Invoice, TEXT, keep=True))
    assert isinstance(came, Parsed) and came.result == expected and attempt.errors == []
    assert attempt.text == output  # the attempt kept as written
    assert {v.pointer: v.value for v in came.trace if v.pointer in traced} == traced
