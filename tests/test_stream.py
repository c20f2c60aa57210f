"""Streaming: which values of a document are complete in every prefix, and the partial target built then."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from pydantic_core import from_json

from extractor.pipeline.stream import Completed, Partial

DOC = {"name": "Ann \"A\" {x}", "tags": ["a", "b,c"], "meta": {"k": [1, {"z": "}"}]}, "n": -1.5e3, "ok": True}
VALUES = 12  # 7 strings and scalars (keys aside) and 5 containers (the document, tags, meta, k, {z})


def completed(prefix: str) -> int:
    return Completed().feed(prefix.encode())


@pytest.mark.parametrize("prefix,count", [
    ("", 0), ('{"a":1', 0), ('{"a":1,', 1), ('{"a":"x,y"', 1), ('{"a":"x,y","b":[1,2', 2),
    ('{"a":{"b":1}', 2), ('{"a":{"b":1},"c":2}', 4), ('["k"]', 2), ('{"k"', 0), ('[true ,null]', 3),
])
def test_rows(prefix, count):
    assert completed(prefix) == count


def test_every_prefix_counts_what_partial_json_parsing_has_whole():
    """Where the count grows, the partial parse holds the completed values so far, ending with the document."""
    text = json.dumps(DOC, ensure_ascii=False, separators=(",", ":"))
    previous, parsed = 0, []
    for end in range(1, len(text) + 1):
        count = completed(text[:end])
        assert previous <= count  # (one byte may complete two: `true}`)
        if count > previous:
            parsed.append(from_json(text[:end].encode(), allow_partial=True))
        previous = count
    assert previous == VALUES and parsed[-1] == DOC
    assert all(set(a) <= set(b) for a, b in zip(parsed, parsed[1:]))  # fields only ever come in


def test_bytes_fed_in_pieces_count_as_the_whole():
    """Fed a byte at a time (multi-byte characters split across pieces), each byte is scanned once."""
    data = json.dumps(DOC, ensure_ascii=False, separators=(",", ":")).replace("Ann", "Änn").encode()
    scanner = Completed()
    for i in range(len(data)):
        scanner.feed(data[i:i + 1])
    assert scanner.count == VALUES


class Card(BaseModel):
    name: str
    tags: list[str]


class _Output:
    """Stands in for a matcher: what the partial reads is its output."""

    def __init__(self) -> None:
        self.output = bytearray()


def test_partials_show_nested_values_as_they_complete_and_start_over_with_a_new_attempt():
    partial, out = Partial(Card), _Output()
    shown = []
    for chunk in [b'{"na', b'me":"Al', b'"', b',"tags":["x"', b',"y"]', b"}"]:
        out.output += chunk
        update = partial.update(out)  # type: ignore[arg-type]
        if update is not None:
            shown.append(update.model_dump(exclude_unset=True))
    assert shown == [{"name": "Al"}, {"name": "Al", "tags": ["x"]}, {"name": "Al", "tags": ["x", "y"]}]
    retry = _Output()
    retry.output += b'{"name":"Bo"'
    assert partial.update(retry).name == "Bo"  # type: ignore[arg-type, union-attr]
