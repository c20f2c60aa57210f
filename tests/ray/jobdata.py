"""The corpus the Ray tests extract: a tiny target, short texts and cheap options. Actors receive these by value
(`ray.cloudpickle.register_pickle_by_value`): Ray's workers cannot import a test folder."""

from __future__ import annotations

import pyarrow as pa
import ray.data
from pydantic import BaseModel

from extractor import ExtractOptions


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
