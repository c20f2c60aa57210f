"""A verbatim string that must be given and may not be null copies at least one byte: a "" there is no value the
text wrote (the embedded model wrote one for totals it did not find), so the grammar forbids it from the first
attempt; an optional one may still be "" (read as null or left out), and a field whose schema spells "" keeps it."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field

from extractor import ExtractOptions
from extractor.grammar import CompileOptions
from extractor.masks.compiler import compile_schema
from extractor.pipeline.document import Document, Pipeline
from extractor.pipeline.grounding import required_copies
from extractor.pipeline.outcome import accepts
from extractor.pipeline.target import Target
from extractor.schema.verbatim import Verbatim, filled
from extractor.tokens import Vocabulary


class Item(BaseModel):
    name: str
    sku: Optional[str] = None


class Receipt(BaseModel):
    store: str
    total: str
    note: str = "none"
    buyer: Optional[str] = None
    items: list[Item] = []
    tags: list[str]
    status: Literal["", "paid"]
    code: Annotated[str, Field(pattern="^[A-Z]+$")]
    free: str = Field(json_schema_extra={"x-verbatim": False})


class Marked(BaseModel):
    ref: Annotated[str, Verbatim]
    seller: str


REQUIRED = [  # (target, verbatim mode) -> the schema pointers of the strings that copy at least one byte
    (Receipt, "all", ("/$defs/Item/properties/name", "/properties/store", "/properties/total")),
    (Receipt, "auto", ("/$defs/Item/properties/name", "/properties/store", "/properties/total")),
    (Marked, "marked", ("/properties/ref",)),  # plain strings are free under "marked": "" is a value there
    (Marked, "all", ("/properties/ref", "/properties/seller")),
    ({"type": "object", "properties": {"k": {"anyOf": [{"type": "string"}, {"const": ""}]}}, "required": ["k"]},
     "all", ()),  # the schema spells "" itself
    ({"type": "object", "properties": {"k": {"type": ["string", "null"]}}, "required": ["k"]}, "all", ()),  # null
    ({"type": "string"}, "all", ()),  # no member: nothing says it must be given
    (True, "all", ()),
]


@pytest.mark.parametrize("target,verbatim,pointers", REQUIRED)
def test_the_strings_copying_a_byte_are_the_required_verbatim_ones(target, verbatim, pointers):
    assert required_copies(target, verbatim) == pointers


TEXT = "Invoice INV-17 from Lumen Ltd. Total due: 200.00 EUR."
BYTES = Vocabulary(tuple(bytes([b]) for b in range(256)) + (b"</s>",), eos_ids=frozenset({256}))
STRING = {"type": "string", "x-verbatim": True}
FILLED = [  # (member schema, pointers filled) -> whether "", "INV-17", "Lumen Ltd." and "XYZ" are accepted
    (STRING, (), [True, True, True, False]),
    (STRING, ("/properties/n",), [False, True, True, False]),
    ({**STRING, "not": {"const": "INV-17"}}, ("/properties/n",), [False, False, True, False]),  # its own `not` kept
    ({"anyOf": [STRING, {"type": "integer"}]}, ("/properties/n/anyOf/0",), [False, True, True, False]),
]


@pytest.mark.parametrize("member,pointers,accepted", FILLED)
def test_a_filled_copy_is_one_byte_at_least_and_still_a_copy(member, pointers, accepted):
    schema = {"type": "object", "properties": {"n": member}, "required": ["n"]}
    grammar = compile_schema(filled(schema, pointers), BYTES, refusal=None, options=CompileOptions(source=TEXT))
    outputs = [f'{{"n":"{v}"}}'.encode() for v in ("", "INV-17", "Lumen Ltd.", "XYZ")]
    assert [accepts(grammar, o) for o in outputs] == accepted
    assert filled(schema, pointers) is not schema and schema["properties"]["n"] == member  # a copy, the schema kept


class Engine:
    """Records the target each grammar is compiled for."""

    tokenizer, retries_cut, batch_size = None, True, 1

    def __init__(self) -> None:
        self.targets: list[Target] = []

    def grammar(self, target: Target, text: str, *args: Any) -> object:
        self.targets.append(target)
        return object()


DECODED = [  # (target, verbatim mode) -> the members of the decoded schema that may not be ""
    (Receipt, "all", {"store", "total"}),
    (Marked, "marked", {"ref"}),
    (Marked, "all", {"ref", "seller"}),
]


@pytest.mark.parametrize("target,verbatim,members", DECODED)
def test_the_first_attempt_is_decoded_with_required_copies_filled(target, verbatim, members):
    engine = Engine()
    opts = ExtractOptions(refusal=False, min_relevance=None, verbatim=verbatim)
    pipe = Pipeline(engine, Target(target, opts), opts)  # type: ignore[arg-type]
    pipe.grammar(Document(0, TEXT))
    properties = engine.targets[0].schema["properties"]
    assert {name for name, sub in properties.items() if sub.get("not") == {"const": ""}} == members
    assert "not" not in Target(target, opts).schema["properties"]["total" if target is Receipt else "ref"]
