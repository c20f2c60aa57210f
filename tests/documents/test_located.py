"""Each scalar member of a long text's target looked for where its own words stand (`documents/located.py`) and read
there in a short stretch, its value ranked above every window's in the merge (a stand-in engine, scripted)."""

from __future__ import annotations

import datetime
import enum
from typing import Any

import pytest
from pydantic import BaseModel

from extractor import ExtractOptions
from extractor.documents import lexical
from extractor.documents.located import NAME_WEIGHT, PAD, STRETCH, TOP, locate, member_scores, scalar_members
from extractor.pipeline import windowed
from extractor.pipeline.windowed import read_in_windows
from extractor.schema import json_schema
from tests.documents.test_read_in_windows import Stub


class Level(enum.Enum):
    LOW = "low"
    HIGH = "high"


class Inner(BaseModel):
    city: str


class Mixed(BaseModel):
    name: str
    nickname: str | None = None
    age: int | None = None
    start: datetime.date | None = None
    level: Level = Level.LOW
    active: bool = False
    tags: list[str] = []
    address: Inner | None = None
    either: int | list[int] = 0


def test_the_members_that_hold_one_scalar_are_looked_for() -> None:
    assert scalar_members(json_schema(Mixed)) == ["name", "nickname", "age", "start", "level", "active"]


@pytest.mark.parametrize("schema, members", [
    ({"properties": {"a": {"type": ["string", "null"]}, "b": {"enum": [1, "x", None]}, "c": {"enum": [[1], 2]}}},
     ["a", "b"]),
    ({"properties": {"a": {"const": 3}, "b": {"enum": ["only"]}, "c": {"enum": "x"}}}, []),  # fixed, or malformed
    ({"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"$ref": "#/$defs/A"}}}, []),  # a cycle ends
    ({"properties": {"a": {"anyOf": []}, "b": True, "c": {"type": []}}}, []),
    ({"properties": []}, []),  # a malformed keyword is passed over (the compile refuses it loudly)
], ids=["types_and_enums", "fixed_values", "ref_cycle", "empty_branches", "malformed"])
def test_scalar_members_of_odd_schemas(schema: dict[str, Any], members: list[str]) -> None:
    assert scalar_members(schema) == members


CLAUSES = " ".join(f"Clause {i}. Each party shall keep the property and premises of the other in good order."
                   for i in range(120))  # about 11,000 characters of a lease's boilerplate
OPENING = 'RESIDENTIAL LEASE\nThis lease is made by Ji-woo Jung (the "Landlord") with Tomasz Nowak (the "Tenant").'
RENT = "The monthly rent is $2600, payable on the first day of each month."
NOTICE = "Either party may end the lease by giving 60 days' written notice."
LEASE = f"{OPENING} {CLAUSES[:5000]} {RENT} {CLAUSES[5000:]} {NOTICE}"


class Lease(BaseModel):
    landlord: str | None = None
    monthly_rent: int | None = None
    notice_days: int | None = None
    parties: list[str] = []


@pytest.mark.parametrize("key, sentence", [
    ("landlord", OPENING), ("monthly_rent", RENT), ("notice_days", NOTICE),
])
def test_each_member_is_found_where_its_own_words_stand(key: str, sentence: str) -> None:
    (found,) = locate(LEASE, json_schema(Lease), [key])
    start = LEASE.index(sentence)
    a, b = found.snippets[0]
    assert a <= start and start + len(sentence) <= b  # the best stretch, widened, holds the whole sentence
    assert b - a <= STRETCH + 2 * PAD + 200 and len(found.snippets) <= TOP


def test_a_member_whose_words_stand_nowhere_is_not_looked_for() -> None:
    schema = {"properties": {"zebra_count": {"type": "integer"}}}
    assert locate(CLAUSES, schema, ["zebra_count"]) == []


def test_a_members_name_counts_more_than_its_description() -> None:
    schema = {"properties": {"tenant": {"type": "string", "description": "Person who rents the property"}}}
    named, described = "The Tenant signs here.", "A person came by."  # one word each, written once each
    counted = [lexical.stretch_terms(t) for t in (named, described, *["Nothing at all here."] * 8)]
    by_name, by_description = member_scores(counted, schema, "tenant")[:2]
    assert by_name > by_description > 0 and NAME_WEIGHT > 1


def small_model(text: str) -> dict[str, Any]:
    """What a small model writes: in a long window of clauses it copies the first number it meets for every number
    and no landlord; in a short stretch it reads the sentence there. Parties are listed wherever they stand."""
    numbers = [int(w.strip("$.,'")) for w in text.split() if w.strip("$.,'").isdigit()]
    parties = [n for n in ("Ji-woo Jung", "Tomasz Nowak") if n in text]
    if len(text) > 2000:
        return {"landlord": None, "monthly_rent": numbers[0] if numbers else None,
                "notice_days": numbers[0] if numbers else None, "parties": parties}
    return {"landlord": "Ji-woo Jung" if "Ji-woo Jung" in text else None,
            "monthly_rent": 2600 if "$2600" in text else None,
            "notice_days": 60 if "60 days" in text else None, "parties": parties}


@pytest.mark.parametrize("locate_on, expected", [
    (True, {"landlord": "Ji-woo Jung", "monthly_rent": 2600, "notice_days": 60}),
    (False, {"landlord": None, "monthly_rent": 0, "notice_days": 0}),  # "Clause 0" wins where windows alone read
], ids=["located", "windows_only"])
def test_a_member_read_where_its_words_stand_outranks_the_windows(monkeypatch: pytest.MonkeyPatch, locate_on: bool,
                                                                   expected: dict[str, Any]) -> None:
    monkeypatch.setattr(windowed, "LOCATE", locate_on)
    stub = Stub(small_model)
    traced = read_in_windows(stub, stub.extract_many, Lease, LEASE, ExtractOptions(conflicts="merge"), 1000,
                             with_trace=True)
    assert {k: getattr(traced.result, k) for k in expected} == expected
    assert traced.result.parties == ["Ji-woo Jung", "Tomasz Nowak"]  # a list is the windows' as before
    if not locate_on:
        return
    windows = traced.trace.windows
    read = [t for _, texts in stub.calls for t in texts]
    assert len(read) == len(windows)
    located = [t for t in read if len(t) < 2000]  # the stretches, read after the windows
    assert read[-len(located):] == located and len(located) <= TOP * 3  # at most TOP a scalar member
    assert all(len(t) <= STRETCH + 2 * (PAD + 100) for t in located)  # widened to a word's edge, 100 at most
    by = {v.pointer: v for v in traced.trace}
    assert LEASE[by["/notice_days"].spans[0].start:by["/notice_days"].spans[0].end] == "60"  # traced into the text
    (notice,) = [c for c in traced.trace.conflicts if c.pointer == "/notice_days"]
    assert notice.kept == 60 and 0 in {v for v, _ in notice.others}  # the windows' values kept beside it
    assert windows[notice.window].end - windows[notice.window].start < 2000


def test_a_text_read_whole_is_not_looked_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windowed, "locate", lambda *a: pytest.fail("a text of one window was looked through"))
    stub = Stub(small_model)
    traced = read_in_windows(stub, stub.extract_many, Lease, OPENING, ExtractOptions(), 1000, with_trace=True)
    assert traced.result.landlord == "Ji-woo Jung"


def test_a_stretch_longer_than_a_window_is_read_in_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    stub = Stub(small_model)
    traced = read_in_windows(stub, stub.extract_many, Lease, LEASE, ExtractOptions(conflicts="merge", overlap=8), 60,
                             with_trace=True)  # windows of 60 tokens: a 768-character stretch is several
    from extractor.pipeline.windowed import token_ends

    ends = token_ends(stub.tokenizer, LEASE)
    sizes = [sum(1 for e in ends if w.start < e <= w.end) for w in traced.trace.windows]
    assert max(sizes) <= 60


class Parties(BaseModel):
    landlord: str | None = None
    tenant: str | None = None


class FirstName(Stub):
    """A small model on a short stretch: asked for one party alone it copies the first name it meets; asked for both,
    it writes them in the order the form asks."""

    def extract_many(self, target: dict, texts: list[str], options: ExtractOptions, **kw: Any) -> list[Any]:
        keys = list(target["properties"])
        self.asked.append(keys)
        names = lambda text: [n for n in ("Ji-woo Jung", "Tomasz Nowak") if n in text]  # noqa: E731
        self.answers = lambda text: dict(zip(keys, names(text))) if len(text) < 2000 else {}
        return super().extract_many(target, texts, options, **kw)


def test_members_found_in_one_stretch_are_read_together_in_the_schemas_order() -> None:
    stub = FirstName(lambda text: {})
    stub.asked = []
    traced = read_in_windows(stub, stub.extract_many, Parties, LEASE, ExtractOptions(), 1000, with_trace=True)
    assert (traced.result.landlord, traced.result.tenant) == ("Ji-woo Jung", "Tomasz Nowak")
    assert ["landlord", "tenant"] in stub.asked  # one reading of the opening for both, landlord first
