"""The corpus the Ray tests extract: a tiny target, short texts and cheap options. Actors receive these by value
(`ray.cloudpickle.register_pickle_by_value`): Ray's workers cannot import a test folder."""

from __future__ import annotations

import pyarrow as pa
import ray.data
from pydantic import BaseModel

from extractor import ExtractOptions
from extractor.errors import Usage
from extractor.tracing import Conflict, Incomplete, Repeated, Span, Trace, Traced


class Person(BaseModel):
    """Someone a short note names."""

    name: str
    email: str


TEXTS = {
    "anna": "Anna Berg, anna@berg.se, +46 70 123 4567",
    "bob": "Bob Stone, bob@stone.com",
    "blank": "   ",
    "carl": "Carl Dahl, carl@dahl.org",
    "dora": "Dora Eck <dora@eck.de> wrote:",
    "emil": "Contact Emil Falk at emil.falk@example.com",
}
"""Short texts, so a job is seconds of decoding; "blank" fails (`InputError`: nothing to extract from)."""

OPTIONS = ExtractOptions(max_tokens=48, max_retries=0)


def corpus(texts: dict[str, str] = TEXTS) -> ray.data.Dataset:
    """The texts as a Dataset of `id` and `text`, a block a row (an actor takes a block at a time)."""
    return ray.data.from_arrow([pa.table({"id": [k], "text": [v]}) for k, v in texts.items()])


WINDOWS = (Span(0, 40), Span(30, 80))
TRACES = {
    "unread": Trace(windows=WINDOWS, unread=(1,)),
    "left_out": Trace(windows=WINDOWS, left_out=(Incomplete("/emails/1", {"address": None}, (0, 1),
                                                            ("/emails/1/address",)),)),
    "conflicts": Trace(windows=WINDOWS, conflicts=(Conflict("/name", "Ann", 0, (("Anne", 1),)),)),
    "repeated": Trace(repeated=(Repeated("/emails/1", {"address": "ann@x.org"}),)),
}
"""The traces of texts, by text: read in windows, a window not read, a list item left out, values that disagree;
read whole, a repeat taken out."""


def answer(text: str) -> Traced[Person]:
    """A Person named by the text, with its trace in `TRACES` (else a text read whole)."""
    return Traced(Person(name=text, email=f"{text}@x.org"), TRACES.get(text, Trace()))


class Windowed:
    """`answer` as an engine, to both `extract` (the plain command line) and `extract_many` (an actor): comparable."""

    def __init__(self, model: object = None) -> None:
        pass

    def extract(self, target: object, text: str, options: object = None, *, with_trace: bool = False,
                **kw: object) -> object:
        return answer(text) if with_trace else answer(text).result

    def extract_many(self, target: object, texts: list[str], options: object = None,
                     **kw: object) -> list[tuple[Traced[Person], Usage]]:
        return [(answer(text), Usage()) for text in texts]
