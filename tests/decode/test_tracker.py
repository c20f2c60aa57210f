"""The JSON tracker in C against the one in Python: the same place, the same frames, the same checks, after any
bytes fed in any chunks, and after marks restored."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.decode import tracker as tracking
from extractor.decode.tracker import (FIRST, NO_CHECKS, Checks, JsonTracker, NativeTracker, _Array, source_digits,
                                      tracker)

pytestmark = pytest.mark.skipif(tracking._native is None, reason="the C tracker is not built (no C compiler)")


def _seen(js: JsonTracker | NativeTracker) -> tuple:
    """Everything the guards read off a tracker."""
    frames = [("array", f.item_start, f.opened, list(f.items), dict(f.alike), list(f.objects), f.near)
              if isinstance(f, _Array)
              else ("object", f.key, list(f.strings)) for f in js.stack]
    return (bytes(js.data), js.in_string, js.escape, js.string_start, js.digits, js.number_start, js.member,
            js.filled, js.value(), js.check(), frames)


def _checks(source: bytes, max_string: int | None, loops: bool, stutter: int | None, max_digits: int | None) -> Checks:
    return Checks(max_string=max_string, loops=loops, stutter=stutter, max_digits=max_digits, source=source,
                  digits=source_digits(source))


@pytest.mark.parametrize("chunks, seen", [
    ([b'{"a":["x,]\\"y",12'], {"in_string": False, "digits": 2, "items": [b'"x,]\\"y"']}),
    ([b'{"a":"b', b'c"', b',"d":"', b'ef'], {"in_string": True, "member": True, "value": b"ef"}),
    ([b"[1,", b"1, 1 ,", b"-12.5e"], {"in_string": False, "value": b"-12.5e", "digits": 3}),
    ([b'["\\', b'"', b'q"]'], {"in_string": False, "value": b""}),
])
def test_native_tracker_reads_as_the_python_one(chunks, seen):
    js = NativeTracker()
    for chunk in chunks:
        js.feed(chunk)
    plain = JsonTracker()
    plain.feed(b"".join(chunks))
    assert _seen(js) == _seen(plain)
    for name, want in seen.items():
        got = js.value() if name == "value" else [f.items for f in js.stack if isinstance(f, _Array)][-1] \
            if name == "items" else getattr(js, name)
        assert got == want, name


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**12) | st.sampled_from(["1.1.1.20", "ANANANANAS", "x\"y\\z"])
    | st.text(alphabet="ab0129 \"\\,]}", max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from("abc"), inner, max_size=3),
    max_leaves=20)

_BYTES = st.binary(max_size=12) | st.text(alphabet='{}[]":,\\ 0123456789-.eEab', max_size=12).map(str.encode)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, raw=st.lists(_BYTES, max_size=6), cuts=st.lists(st.integers(1, 7), min_size=1, max_size=40),
       ops=st.lists(st.integers(0, 9), max_size=40), source=st.sampled_from([b"", b"ANANAS 100,000,000", b"abab"]),
       max_string=st.sampled_from([None, -3, 0, 5, 40]), loops=st.booleans(),
       stutter=st.sampled_from([None, 1, 2, 4]), max_digits=st.sampled_from([None, 0, 3, 20]))
def test_native_tracker_follows_the_python_one_through_marks_and_restores(value, raw, cuts, ops, source, max_string,
                                                                           loops, stutter, max_digits):
    checks = _checks(source, max_string, loops, stutter, max_digits)
    native, plain = NativeTracker(checks), JsonTracker(checks)
    text = json.dumps(value, separators=(",", ":")).encode() * 2 + b"".join(raw)  # valid JSON, then repeats, then noise
    marks: list[tuple] = []
    at = 0
    for k, op in enumerate(ops + [0] * len(cuts)):
        if op == 8:  # a mark, as a speculative decoder takes one before its drafts
            marks.append((native.mark(), plain.mark(), at))
        elif op == 9 and marks:  # back to the latest mark or one before it; marks after it are gone
            pick = k % len(marks)
            native_mark, plain_mark, at = marks[pick]
            del marks[pick + 1:]
            native.restore(native_mark)
            plain.restore(plain_mark)
        else:
            chunk = text[at:at + cuts[k % len(cuts)]]
            at += len(chunk)
            native.feed(chunk)
            plain.feed(chunk)
        assert _seen(native) == _seen(plain)


def test_native_checks_decide_as_the_python_ones_at_every_byte():
    """Loops, stutters, long strings and long numbers, fed one byte at a time: the same bits at every step."""
    outputs = [b'{"a":"' + b"MALANANANANANANA" + b'"}',
               b'["2022-01-01, 2022-01-02, 2022-01-03, 2022-01-04, 2022-01-05"]',
               b'{"n":1000000000000000,"m":-0.00000',
               b'{"s":"' + b"the cat sat on the mat. " * 4 + b'"',
               b'["abcdef-12 abcdef-13 abcdef-14 abcdef-15 abcdef-16"]']
    for source in (b"", b"a MALANANANANANANA 1000000000000000"):
        checks = _checks(source, 64, True, 4, 20)
        for out in outputs:
            native, plain = NativeTracker(checks), JsonTracker(checks)
            bits = []
            for byte in out:
                native.feed(bytes([byte]))
                plain.feed(bytes([byte]))
                assert native.check() == plain.check(), (out, len(plain.data))
                bits.append(native.check())
            assert any(b & 3 for b in bits) or source, out  # every one trips some check without its source


@pytest.mark.parametrize("out,first", [
    (b"[29,30]", "-XX----"),  # the first item, from its first byte to the `,` that ends it
    (b'{"i": [\n  29\n]}', "----------XXX--"),  # ... and the layout's whitespace after it
    (b"[ ]", "---"),
    (b'[{"n":1},{"n":2}]', "-XXXXXXX---------"),  # an object item is under way from its `{`
    (b'[{"n":[2]}]', "-XXXXX-XXX-"),  # then the inner array's first item (none yet where it opens)
    (b"[" + b" " * 70 + b"1]", "-" * 73),  # begun past FIRST_BYTES: not looked for
])
def test_the_first_item_bit_is_read_alike_by_either_tracker(out, first):
    """`FIRST` after each byte, on the Python tracker and the C one."""
    native, plain = NativeTracker(NO_CHECKS), JsonTracker(NO_CHECKS)
    seen = ""
    for byte in out:
        native.feed(bytes([byte]))
        plain.feed(bytes([byte]))
        assert native.check() == plain.check(), (out, len(plain.data))
        seen += "X" if plain.check() & FIRST else "-"
    assert seen == first


def test_native_checks_decide_as_the_python_ones_at_every_period():
    """Every stretch length the loop and stutter rules name, and one past each bound, repeated up to five times in
    a string and in a number (digits shaped alike or not): the same bits at every byte."""
    import random

    rng = random.Random(5)
    sources = [b"", b"costs 100,000,000 or 12.000.000, ANANAS", b"0000 1212"]
    for period in range(1, 70):
        stretch = bytes(rng.choice(b"abcdefghij") for _ in range(period))
        counted = bytes(rng.choice(b"ab-123456789") for _ in range(period))
        digits = bytes(rng.choice(b"0123456789") for _ in range(period))
        for out in (b'["x' + stretch * 5 + b'"', b'["x' + counted * 5 + b'"', b"[1" + digits * 5 + b",",
                    b'{"a":"' + b"1,000," * 5, b"[100000000,1000000000000,12000000]"):
            for source in sources:
                checks = _checks(source, 300, True, 3, 400)
                native, plain = NativeTracker(checks), JsonTracker(checks)
                for byte in out:
                    native.feed(bytes([byte]))
                    plain.feed(bytes([byte]))
                    assert native.check() == plain.check(), (out, source, len(plain.data))


@pytest.mark.parametrize("checks, native", [
    (Checks(), True),
    (Checks(stutter=4), True),
    (Checks(stutter=0), False),  # a run of no bytes: the C checks do not take it, Python's do
])
def test_tracker_picks_c_where_it_runs_the_checks(checks, native):
    assert isinstance(tracker(checks), NativeTracker) is native


def test_the_output_changed_behind_the_tracker_is_an_error():
    js = NativeTracker()
    js.feed(b'{"a":')
    js.data.extend(b"1")
    with pytest.raises(RuntimeError, match="changed outside the tracker"):
        js.feed(b"2")
    with pytest.raises(RuntimeError, match="changed outside the tracker"):
        js.check()  # (never a read past the bytes there are)


def test_the_output_fed_to_itself_is_refused_not_read_freed():
    js = NativeTracker()
    js.feed(b'["ab')
    with pytest.raises(BufferError):
        js.feed(js.data)
    js.feed(bytes(js.data[1:]))  # a copy is fine
    plain = JsonTracker()
    plain.feed(b'["ab"ab')
    assert _seen(js) == _seen(plain)


def test_a_mark_of_another_tracker_is_refused():
    a, b = NativeTracker(), NativeTracker()
    b.feed(b"[[[")
    with pytest.raises(ValueError, match="not a mark of this tracker"):
        a.restore(b.mark())
    at, frames = b.mark()
    for bad in (b"", at[:-1], (-1).to_bytes(8, "little", signed=True) + at[8:]):  # short, cut, a negative size
        with pytest.raises(ValueError, match="not a mark of this tracker"):
            b.restore((bad, frames))


_ITEMS = st.lists(st.fixed_dictionaries({"name": st.sampled_from(["Ann", "Bo", "Ann Lee"]),
                                         "year": st.integers(2019, 2023)}), max_size=6)


@settings(max_examples=60, deadline=None)
@given(items=_ITEMS, tags=st.lists(st.sampled_from(["a1", "a2", "b", "ANANANANANAS"]), max_size=7),
       cuts=st.lists(st.integers(1, 6), min_size=1, max_size=9))
def test_guards_plan_alike_on_either_tracker(gpt2_grammar, items, tags, cuts):
    """A guard over the C tracker and one over the Python tracker plan the same narrowing at every step: the same
    kind, the same tokens taken out."""
    from extractor.decode.guards import Guard, Guards

    guards = Guards(distinct_members=True, similar_items=2, alike_objects=1)
    native = Guard(guards, gpt2_grammar, source=b"Ann 2020")
    built, tracking._native = tracking._native, None
    try:
        plain = Guard(guards, gpt2_grammar, source=b"Ann 2020")
    finally:
        tracking._native = built
    assert isinstance(native.json, NativeTracker) and isinstance(plain.json, JsonTracker)
    out = json.dumps({"items": items, "tags": tags}, separators=(",", ":")).encode()
    at, k = 0, 0
    while at < len(out):
        chunk = out[at:at + cuts[k % len(cuts)]]
        at, k = at + len(chunk), k + 1
        native.feed(chunk)
        plain.feed(chunk)
        a, b = native.plan(), plain.plan()
        assert (a is None) == (b is None), out[:at]
        if a is not None:
            assert a.kind == b.kind and sorted(set().union(*map(set, a.banned))) == \
                sorted(set().union(*map(set, b.banned))), out[:at]


@pytest.fixture(scope="module")
def gpt2_grammar():
    from extractor import compile_schema
    from tests.decode.fakes import hf_tokenizer

    schema = {"type": "object", "properties": {
        "items": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "year": {"type": "integer"}}, "required": ["name", "year"]}},
        "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["items", "tags"]}
    return compile_schema(schema, hf_tokenizer("gpt2"), refusal=None)


@pytest.mark.parametrize("make", [JsonTracker, NativeTracker])
def test_each_array_knows_where_it_opened(make):
    """`opened` (where the rule `fresh_items` reads an array's place from) stays on the `[` as items go by."""
    js = make()
    js.feed(b'{"a": [1, 2], "b": [{"c": ["x", "y", "z"')
    arrays = [f for f in js.stack if isinstance(f, _Array)]
    assert [bytes(js.data[f.opened:f.opened + 1]) for f in arrays] == [b"[", b"["]
    assert [f.opened for f in arrays] == [19, 26]
