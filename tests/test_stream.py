"""Streaming: completed top-level members of every prefix of a document."""

from __future__ import annotations

import json

import pytest

from extractor.stream import Members

def completed_members(prefix: str) -> dict:
    """The members complete in one prefix, fed at once."""
    return Members().feed(prefix.encode())


DOC = {"name": "Ann \"A\" {x}", "tags": ["a", "b,c"], "meta": {"k": [1, {"z": "}"}]}, "n": -1.5e3, "ok": True}


def test_every_prefix_yields_exactly_the_members_already_complete():
    text = json.dumps(DOC, ensure_ascii=False, separators=(",", ":"))
    seen: list[str] = []
    for end in range(len(text) + 1):
        got = completed_members(text[:end])
        assert list(got) == list(DOC)[: len(got)]
        assert all(got[k] == DOC[k] for k in got)
        if list(got) != seen:
            seen = list(got)
    assert seen == list(DOC)


@pytest.mark.parametrize("prefix,expected", [
    ('{"a":1', {}),
    ('{"a":1,', {"a": 1}),
    ('{"a":"x,y","b":[1,2', {"a": "x,y"}),
    ('{"a":{"b":1},"c":2}', {"a": {"b": 1}, "c": 2}),
    ("", {}),
])
def test_rows(prefix, expected):
    assert completed_members(prefix) == expected


def test_bytes_fed_in_pieces_give_the_members_of_the_whole():
    """Fed a token at a time (multi-byte characters split across pieces), each byte is scanned once."""
    data = json.dumps(DOC, ensure_ascii=False, separators=(",", ":")).replace("Ann", "Änn").encode()
    members = Members()
    for i in range(len(data)):
        members.feed(data[i:i + 1])
    assert members.done == {**DOC, "name": DOC["name"].replace("Ann", "Änn")}
