"""The merge of windows' objects by the schema, as a table: lists joined and de-duplicated, scalars from the window
whose text holds them, disagreements kept, required members no window wrote named."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from extractor.documents.merge import merge
from extractor.schema import json_schema


class Party(BaseModel):
    name: str
    role: str | None = None


class Line(BaseModel):
    date: str
    amount: float


class Contract(BaseModel):
    title: str
    effective_date: str | None = None
    parties: list[Party] = []
    lines: list[Line] = []
    tags: list[str] = []


SCHEMA = json_schema(Contract)
NOWHERE: set[tuple[int, str]] = set()

CASES = [  # (name, windows' values, pointers grounded (window, pointer), merged value, conflicts, missing)
    ("scalars: the first written", [(0, {"title": "NDA"}), (1, {"title": None})], NOWHERE,
     {"title": "NDA"}, [], []),
    ("scalars: the grounded one wins over an earlier invention", [(0, {"title": "Lease"}), (1, {"title": "NDA"})],
     {(1, "/title")}, {"title": "NDA"}, [("/title", "NDA", 1, (("Lease", 0),))], []),
    ("scalars: case and spacing differences are not conflicts",
     [(0, {"title": "Mutual NDA"}), (1, {"title": " mutual \u00a0 nda "})], NOWHERE, {"title": "Mutual NDA"}, [], []),
    ("scalars: an end stop is a difference", [(0, {"title": "Mutual NDA"}), (1, {"title": "Mutual NDA."})],
     NOWHERE, {"title": "Mutual NDA"}, [("/title", "Mutual NDA", 0, (("Mutual NDA.", 1),))], []),
    ("lists: joined in window order, repeated items once",
     [(0, {"title": "T", "tags": ["a", "b"]}), (1, {"title": None, "tags": ["B", "c"]}), (2, {"tags": ["a"]})],
     NOWHERE, {"title": "T", "tags": ["a", "b", "c"]}, [], []),
    ("objects in lists: one by their identifying members, filled from both",
     [(0, {"title": "T", "parties": [{"name": "Acme Inc.", "role": None}]}),
      (1, {"title": None, "parties": [{"name": "ACME  INC.", "role": "Seller"},
                                      {"name": "Beta LLC", "role": "Buyer"}]})],
     NOWHERE, {"title": "T", "parties": [{"name": "Acme Inc.", "role": "Seller"}, {"name": "Beta LLC", "role": "Buyer"}]},
     [], []),
    ("rows in an overlap: once", [(0, {"title": "T", "lines": [{"date": "1 Jan", "amount": 3.5},
                                                              {"date": "2 Jan", "amount": 4.0}]}),
                                  (1, {"title": None, "lines": [{"date": "2 Jan", "amount": 4.0},
                                                                {"date": "3 Jan", "amount": 1.0}]})],
     NOWHERE, {"title": "T", "lines": [{"date": "1 Jan", "amount": 3.5}, {"date": "2 Jan", "amount": 4.0},
                                       {"date": "3 Jan", "amount": 1.0}]}, [], []),
    ("an item without a required member is left out", [(0, {"title": "T", "lines": [{"date": None, "amount": 2.0}]})],
     NOWHERE, {"title": "T", "lines": []}, [], []),
    ("a required member no window wrote is named", [(0, {"title": None, "tags": ["x"]}), (1, {"title": None})],
     NOWHERE, {"title": None, "tags": ["x"]}, [], ["/title"]),
    ("an optional member no window wrote stays null", [(0, {"title": "T", "effective_date": None})], NOWHERE,
     {"title": "T", "effective_date": None}, [], []),
]


@pytest.mark.parametrize("name, values, grounded, expected, conflicts, missing", CASES, ids=[c[0] for c in CASES])
def test_merge(name, values, grounded, expected, conflicts, missing) -> None:
    merged = merge(SCHEMA, values, lambda w, p: (w, p) in grounded)
    assert merged.value == expected
    assert [(c.pointer, c.kept, c.window, c.others) for c in merged.conflicts] == conflicts
    assert merged.missing == missing


def test_left_out_items_are_kept_aside_with_their_windows() -> None:
    merged = merge(SCHEMA, [(0, {"title": "T", "lines": [{"date": None, "amount": 2.0}]}),
                            (1, {"lines": [{"date": "5 May", "amount": 1.0}]})], lambda w, p: False)
    assert merged.value["lines"] == [{"date": "5 May", "amount": 1.0}]
    [aside] = merged.incomplete
    assert aside.item == {"date": None, "amount": 2.0} and aside.windows == (0,) and aside.missing == ("/lines/0/date",)


def test_every_leaf_says_which_window_it_came_from() -> None:
    merged = merge(SCHEMA, [(0, {"title": None, "tags": ["a"]}), (3, {"title": "T", "tags": ["a", "b"]})],
                   lambda w, p: False)
    assert merged.origin == {"/title": (3, "/title"), "/tags/0": (0, "/tags/0"), "/tags/1": (3, "/tags/1")}
