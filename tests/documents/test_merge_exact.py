"""The merge compares JSON values exactly: strings folded for case and spacing only, numbers by value without a
float in between, so no sign, symbol or digit that tells two values apart is lost, and every difference is
either two list items or a conflict on the trace."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from extractor.documents.merge import merge
from extractor.schema import json_schema
from extractor.tracing.views import fold


class Entry(BaseModel):
    account: str
    amount: float
    note: str | None = None


class Transfer(BaseModel):
    account: str
    amount: str


class Profile(BaseModel):
    name: str | None = None
    code: int | None = None
    skills: list[str] = []
    ids: list[int] = []
    amounts: list[float] = []
    entries: list[Entry] = []
    transfers: list[Transfer] = []


SCHEMA = json_schema(Profile)
BIG = 12345678901234567

CASES = [  # (name, windows' values, merged members expected, conflicts as (pointer, kept, others))
    ("C, C++, C#, F#, F in one window are five skills", [(0, {"skills": ["C", "C++", "C#", "F#", "F"]})],
     {"skills": ["C", "C++", "C#", "F#", "F"]}, []),
    ("C, C++, C#, F#, F read in overlapping windows are five skills",
     [(0, {"skills": ["C", "C++"]}), (1, {"skills": ["C++", "C#", "F#"]}), (2, {"skills": ["F#", "F"]})],
     {"skills": ["C", "C++", "C#", "F#", "F"]}, []),
    ("case and spacing alone make no new skill",
     [(0, {"skills": ["C++"]}), (1, {"skills": [" c++ ", "Visual\tC#"]}), (2, {"skills": ["visual  c#"]})],
     {"skills": ["C++", "Visual\tC#"]}, []),
    ("-500.00 and 500.00 written as text conflict", [(0, {"name": "-500.00"}), (1, {"name": "500.00"})],
     {"name": "-500.00"}, [("/name", "-500.00", (("500.00", 1),))]),
    ("-500.00 and 500.00 are two amounts", [(0, {"amounts": [-500.0]}), (1, {"amounts": [500.0, -500.0]})],
     {"amounts": [-500.0, 500.0]}, []),
    ("big ints one apart are two ids", [(0, {"ids": [BIG]}), (1, {"ids": [BIG + 1, BIG]})],
     {"ids": [BIG, BIG + 1]}, []),
    ("big ints one apart conflict", [(0, {"code": BIG}), (1, {"code": BIG + 1})],
     {"code": BIG}, [("/code", BIG, ((BIG + 1, 1),))]),
    ("an int and the float nearest it conflict", [(0, {"code": BIG}), (1, {"code": float(BIG)})],
     {"code": BIG}, [("/code", BIG, ((float(BIG), 1),))]),
    ("an int and a float of one value are one", [(0, {"code": 500, "amounts": [2]}), (1, {"code": 500.0,
                                                                                       "amounts": [2.0]})],
     {"code": 500, "amounts": [2]}, []),
    ("a bool is not a number", [(0, {"ids": [1, True, 0]}), (1, {"ids": [False]})], {"ids": [1, True, 0, False]}, []),
    ("a debit to C and a credit to C++ are two transfers", [(0, {"transfers": [{"account": "C", "amount": "-5.00"}]}),
                                                           (1, {"transfers": [{"account": "C++", "amount": "5.00"}]})],
     {"transfers": [{"account": "C", "amount": "-5.00"}, {"account": "C++", "amount": "5.00"}]}, []),
    ("a debit of -5.00 and a credit of 5.00 are two entries",
     [(0, {"entries": [{"account": "C", "amount": -5.0}]}), (1, {"entries": [{"account": "C", "amount": 5.0}]})],
     {"entries": [{"account": "C", "amount": -5.0}, {"account": "C", "amount": 5.0}]}, []),
    ("an entry written again fills its note", [(0, {"entries": [{"account": "C", "amount": -5.0, "note": None}]}),
                                               (1, {"entries": [{"account": "c", "amount": -5, "note": "fee"}]})],
     {"entries": [{"account": "C", "amount": -5.0, "note": "fee"}]}, []),
]


@pytest.mark.parametrize("name, values, expected, conflicts", CASES, ids=[c[0] for c in CASES])
def test_red_team_cases(name, values, expected, conflicts) -> None:
    merged = merge(SCHEMA, values, lambda w, p: False)
    assert {k: merged.value[k] for k in expected} == expected
    assert [(c.pointer, c.kept, c.others) for c in merged.conflicts] == conflicts


def key(value: Any) -> Any:
    """The equality the merge must keep, written independently of it: folded strings, exact numbers."""
    if isinstance(value, str):
        return "s", fold(value)
    if isinstance(value, bool):
        return "b", value
    return "n", Fraction(value)


LOOKALIKES = ["C", "C++", "C#", "F#", "F", "c", " C ", "-500.00", "500.00", "+500.00", "500.00.", "(500.00)", "$5"]
STRINGS = st.sampled_from(LOOKALIKES) | st.text(max_size=6)
NUMBERS = st.sampled_from([-500.0, 500.0, 500, -5, 5, 0.1, -0.1]) | st.builds(
    lambda base, d, sign: sign * (base + d), st.sampled_from([BIG, 2**53, 2**64]), st.integers(0, 3),
    st.sampled_from([1, -1])) | st.floats(-1e6, 1e6, allow_nan=False)
INTS = st.sampled_from([BIG, 2**53, -(2**53)]).flatmap(lambda base: st.integers(base - 2, base + 2)) | st.integers()
ENTRIES = st.fixed_dictionaries({"account": STRINGS, "amount": NUMBERS}, optional={"note": st.none() | STRINGS})
PROFILES = st.fixed_dictionaries({
    "name": STRINGS, "code": INTS,
    "skills": st.lists(STRINGS, max_size=8, unique_by=key),
    "ids": st.lists(INTS, max_size=6, unique_by=key),
    "amounts": st.lists(NUMBERS, max_size=6, unique_by=key),
    "entries": st.lists(ENTRIES, max_size=6, unique_by=lambda e: (key(e["account"]), key(e["amount"]))),
    "transfers": st.lists(st.fixed_dictionaries({"account": STRINGS, "amount": STRINGS}), max_size=6,
                          unique_by=lambda e: (key(e["account"]), key(e["amount"]))),
})
LISTS = ("skills", "ids", "amounts", "entries", "transfers")


@st.composite
def read_in_windows(draw, profile: dict[str, Any]) -> list[tuple[int, Any]]:
    """The profile as windows write it: each list cut in order across the windows, each window reading a few items
    of the one before again and maybe repeating one; each scalar written by one window, null in the others."""
    count = draw(st.integers(1, 4))
    values: list[dict[str, Any]] = [{} for _ in range(count)]
    for name in ("name", "code"):
        writer = draw(st.integers(0, count - 1))
        for w in range(count):
            if w == writer or draw(st.booleans()):
                values[w][name] = profile[name] if w == writer else None
    for name in LISTS:
        items = profile[name]
        cuts = sorted(draw(st.lists(st.integers(0, len(items)), min_size=count - 1, max_size=count - 1)))
        for w, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(items)])):
            part = items[max(0, a - draw(st.integers(0, 2))):b]
            if part and draw(st.booleans()):
                part = [*part, draw(st.sampled_from(part))]
            if part or draw(st.booleans()):
                values[w][name] = part or draw(st.sampled_from([[], None]))
    return list(enumerate(values))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_windows_of_any_object_merge_back_to_it(data) -> None:
    """No item one window holds and none contradicts is lost, and no two different items become one."""
    profile = data.draw(PROFILES)
    merged = merge(SCHEMA, data.draw(read_in_windows(profile)), lambda w, p: False)
    assert {**dict.fromkeys(LISTS, []), **merged.value} == profile
    assert merged.conflicts == [] and merged.incomplete == [] and merged.missing == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), STRINGS | NUMBERS), min_size=1, max_size=5))
def test_different_values_for_one_member_are_a_conflict(written) -> None:
    """Values that differ are never one: one is kept, and every other one is on the conflict with its window."""
    merged = merge(SCHEMA, [(w, {"name": v}) for w, v in written], lambda w, p: False)
    kept = merged.value["name"]
    differ = [(v, w) for w, v in written if key(v) != key(kept)]
    assert [(c.pointer, c.kept, c.others) for c in merged.conflicts] == ([("/name", kept, tuple(differ))]
                                                                       if differ else [])


def test_ints_past_the_float_range_are_compared_exactly() -> None:
    """An int no float holds (a 400-digit id) is compared as it is, never turned into a float on the way."""
    huge = 10**400
    merged = merge(SCHEMA, [(0, {"code": huge, "ids": [huge, huge + 1]}), (1, {"code": huge + 1, "ids": [huge]})],
                   lambda w, p: False)
    assert merged.value["ids"] == [huge, huge + 1]
    assert [(c.pointer, c.kept, c.others) for c in merged.conflicts] == [("/code", huge, ((huge + 1, 1),))]


def test_deeply_nested_values_are_compared_without_recursion() -> None:
    """Two windows writing one value nested 768 levels deep (arrays in objects, as `json.loads` reads them) agree,
    and one leaf changed at the bottom makes them a conflict: the values are compared without recursion."""

    def nested(leaf: Any) -> Any:
        value = leaf
        for level in range(768):
            value = {"a": value} if level % 2 else [value]
        return value

    schema = {"type": "object", "properties": {"deep": {}}}
    same = merge(schema, [(0, {"deep": nested("C++")}), (1, {"deep": nested(" c++ ")})], lambda w, p: False)
    assert same.conflicts == []
    differ = merge(schema, [(0, {"deep": nested("C++")}), (1, {"deep": nested("C#")})], lambda w, p: False)
    assert [(c.pointer, c.others) for c in differ.conflicts] == [("/deep", ((nested("C#"), 1),))]
