"""Guards: they only narrow the grammar's mask, and each stops the loop it is meant for."""

from __future__ import annotations

import json

import numpy as np
import pytest

from extractor import compile_schema
from extractor.decode import Guards
from extractor.decode.guards import Guard
from extractor.decode.tracker import JsonTracker, _Object, agree, looping, source_digits, stuttering
from extractor.grammar import CompileOptions
from tests.decode.fakes import hf_tokenizer


@pytest.fixture(scope="module")
def gpt2():
    return hf_tokenizer("gpt2")


def _at(schema, tok, data: bytes, guards: Guards, layout: str = "compact"):
    grammar = compile_schema(schema, tok, refusal=None, options=CompileOptions(layout=layout))
    matcher = grammar.matcher()
    matcher.advance_bytes(data)
    guard = Guard(guards, grammar)
    guard.feed(data)
    mask = matcher.mask()
    return grammar.vocab, mask, guard.restrict(mask, matcher.config), guard


def _allowed(vocab, mask) -> set[bytes]:
    return {vocab.tokens[i] for i in np.flatnonzero(mask)}


def test_tracker_follows_strings_numbers_and_arrays():
    js = JsonTracker()
    js.feed(b'{"a":["x,]\\"y",12')
    assert not js.in_string and js.digits == 2
    assert isinstance(js.stack[0], _Object) and js.stack[1].items == [b'"x,]\\"y"']
    js.feed(b',"q')
    assert js.in_string and len(js.data) - js.string_start == 1
    js.feed(b'"]}')
    assert js.stack == []


def test_a_repeated_item_cannot_be_followed_by_a_comma(gpt2):
    """`unique_items`, where `fresh_items` (which keeps a repeat from being written at all) is off."""
    schema = {"type": "array", "items": {"type": "string"}}
    vocab, mask, out, guard = _at(schema, gpt2, b'["Python","SQL","Python"', Guards(fresh_items=False))
    assert any(t.startswith(b",") for t in _allowed(vocab, mask))
    assert not any(t.startswith(b",") for t in _allowed(vocab, out))
    assert b"]" in _allowed(vocab, out) and guard.fired == 1
    assert not (out & ~mask).any()
    # mid-item: tokens that would finish the repeat and go on are gone, others stay
    vocab, mask, out, _ = _at(schema, gpt2, b'["Python","SQL","Python', Guards(fresh_items=False))
    assert b'",' in _allowed(vocab, mask) and b'",' not in _allowed(vocab, out)
    assert {b'"', b'"]', b"s"} <= _allowed(vocab, out)


def test_the_tracker_keeps_each_objects_string_members():
    js = JsonTracker()
    js.feed(b'{"company":"Sonya","n":3,"tags":["x"],"t":"a\\"b","inner":{"k":"v"},"title":"')
    assert js.in_string and js.member and js.stack[-1].strings == [b"Sonya", b'a\\"b']
    js.feed(b'x","l":["item"')
    assert not js.member and js.stack[-1].items == []


@pytest.mark.parametrize(("written", "closes"), [
    (b'{"company":"Sonya","title":"Sonya', False),  # equal to a sibling: may not close
    (b'{"company":"Sonya","title":"Son', True),  # `ya"` would make it equal: gone; other tokens stay
    (b'{"company":"Sonya","title":"Stripe', True),
    (b'{"company":"Stripe Inc","title":"Stripe', True),
    (b'{"company":"","title":"', True),  # empty siblings are not compared
])
def test_a_member_may_not_close_equal_to_another_member_of_its_object(gpt2, written, closes):
    schema = {"type": "object", "properties": {"company": {"type": "string"}, "title": {"type": "string"}}}
    vocab, mask, out, _ = _at(schema, gpt2, written, Guards(distinct_members=True))
    assert (b'"' in _allowed(vocab, out)) is closes
    if written.endswith(b"Son"):
        assert b'ya"' not in _allowed(vocab, out) and b"ya" in _allowed(vocab, out)
    _, mask_off, out_off, _ = _at(schema, gpt2, written, Guards())  # off by default
    assert b'"' in _allowed(vocab, out_off)


def test_no_gold_object_has_two_members_alike():
    """`distinct_members` cuts no correct value: no object of any labeled set's gold holds one string twice."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
    stack = [json.loads(line)["gold"] for path in [root / "quality" / "documents.jsonl",
                                                   *sorted(root.glob("real/*/documents.jsonl"))]
             for line in path.read_text().splitlines() if line.strip()]
    objects = 0
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            strings = [v for v in value.values() if isinstance(v, str) and v]
            assert len(strings) == len(set(strings)), value
            objects += 1
        if isinstance(value, (dict, list)):
            stack += value.values() if isinstance(value, dict) else value
    assert objects > 700


def test_a_new_item_is_untouched(gpt2):
    schema = {"type": "array", "items": {"type": "string"}}
    vocab, mask, out, guard = _at(schema, gpt2, b'["Python","SQL","Rust"', Guards())
    assert out is mask and guard.fired == 0


def test_numbers_end_after_max_digits(gpt2):
    schema = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
    vocab, mask, out, _ = _at(schema, gpt2, b'{"n":1.50000000000000000', Guards(max_number_digits=18))
    assert any(t[:1].isdigit() for t in _allowed(vocab, mask))
    assert _allowed(vocab, out) and not any(t[:1].isdigit() for t in _allowed(vocab, out))
    assert b"}" in _allowed(vocab, out)


def test_long_strings_must_close(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"abcdefgh', Guards(max_string_bytes=8))
    assert all(b'"' in t for t in _allowed(vocab, out)) and b'"}' in _allowed(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"abcdefg', Guards(max_string_bytes=8))
    assert out is mask


def test_a_guard_that_would_forbid_everything_stands_aside(gpt2):
    schema = {"type": "array", "items": {"const": "a"}, "minItems": 3}
    vocab, mask, out, guard = _at(schema, gpt2, b'["a","a"', Guards())
    assert out is mask and guard.fired == 0  # `]` is not allowed yet: the repeat must go on


@pytest.mark.parametrize(("text", "loops"), [
    (b"20457-Hafenweg 3, 20457-Hafenweg 3, ", True),     # 18 bytes, twice
    (b"skills_description_description_description", True),  # 12 bytes, three times
    (b"skills_description_description", False),            # 12 bytes, only twice
    (b"ha ha ha ha", False),                                # 3 bytes, 11 in all: too short to count
    (b"Nordwind-Coffee-A-L-L-L-L-L-L-L-L-L-L-L", True),        # 2 bytes over 24
    (b"Nordwind-Coffee-A-L-L-L-L-L-L-L-L", False),             # 2 bytes over 18
    (b"Ticket ==========", False),
    (b"Factory Berlin, Rheinsberger Str. 76, Berlin", False),
    (b"+44 7700 900456", False),
    (b"AG, 2022-01-01, 2022-01-02, 2022-01-03, 2022-01-04, ", True),  # counting: 12 bytes four times, digits aside
    (b"AG, 2022-01-01, 2022-01-02, 2022-01-03, ", False),              # three times
    (b"DE89 3704 0044 0532 0130 00", False),                           # 5 bytes a group: too short to count
    (b"4111 1111 1111 1111", False),
])
def test_looping_strings(text, loops):
    data = bytearray(b'{"s":"' + text)
    assert looping(data, 6) is loops


def test_a_looping_string_must_close(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string"}}, "required": ["s"]}
    vocab, mask, out, guard = _at(schema, gpt2, b'{"s":"Hafenweg 3, 20457-Hafenweg 3, 20457-', Guards())
    assert all(b'"' in t for t in _allowed(vocab, out)) and guard.fired == 1
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"Hafenweg 3, 20457-Hafenweg 3, 20457-', Guards(string_loops=False))
    assert out is mask


def test_items_equal_but_for_digits_end_the_array_after_four(gpt2):
    schema = {"type": "array", "items": {"type": "string"}}
    counting = b'["1.1.1.20","1.1.1.21","1.1.1.22","1.1.1.23"'
    vocab, mask, out, guard = _at(schema, gpt2, counting, Guards())
    assert any(t.startswith(b",") for t in _allowed(vocab, mask))
    assert not any(t.lstrip().startswith(b",") for t in _allowed(vocab, out)) and b"]" in _allowed(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, counting[:-1], Guards())  # mid-item: `",` would end the fourth
    assert b'",' in _allowed(vocab, mask) and b'",' not in _allowed(vocab, out) and b'"' in _allowed(vocab, out)
    for data in (counting[:counting.rindex(b",")], b'["1.1.1.20","x","1.1.1.22","1.1.1.23"'):  # three alike
        vocab, mask, out, _ = _at(schema, gpt2, data, Guards())
        assert out is mask
    alternating = b'["20 years in logistics","21 years in planning","22 years in logistics","23 years in planning",' \
                  b'"24 years in logistics","25 years in planning","26 years in logistics"'
    vocab, mask, out, _ = _at(schema, gpt2, alternating, Guards())  # four alike, never in a row
    assert not any(t.lstrip().startswith(b",") for t in _allowed(vocab, out)) and b"]" in _allowed(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, counting, Guards(similar_items=None))
    assert out is mask


YEARS = b"Years on record: 2018, 2019, 2020, 2021, 2022 and 2023; phone 555-0101, 555-0102, 555-0103, 555-0104."


@pytest.mark.parametrize(("written", "source", "ends"), [
    (b'["2018","2019","2020","2021"', YEARS, False),  # a real list of years, each in the text: kept whole
    (b'["2018","2019","2020","2021","2022"', YEARS, False),
    (b'["555-0101","555-0102","555-0103","555-0104"', YEARS, False),
    (b'[2018,2019,2020,2021', YEARS, False),  # numbers alike
    (b'["2018","2019","2020","2021"', b"", True),  # no text given (a server's request): four alike end it
    (b'["2020","2021","2022","2023","2024"', YEARS, True),  # counting past the text: 2024 is not in it
    (b'["2018","2019","2020","2021"', b"2018 2019 2020 in 12021", True),  # `2021` only inside a longer number
])
def test_items_alike_but_each_in_the_source_are_a_list_not_a_count(gpt2, written, source, ends):
    grammar = compile_schema({"type": "array", "items": {"type": ["string", "integer"]}}, gpt2, refusal=None,
                             options=CompileOptions(layout="compact"))
    matcher = grammar.matcher()
    matcher.advance_bytes(written)
    guard = Guard(Guards(), grammar, source=source or b"")
    guard.feed(written)
    mask = matcher.mask()
    out = guard.restrict(mask, matcher.config)
    commas = {t for t in _allowed(grammar.vocab, mask) if t.lstrip().startswith(b",")}
    assert commas, written
    assert (not commas & _allowed(grammar.vocab, out)) is ends, written


@pytest.mark.parametrize(("item", "sourced"), [
    (b'"2019"', True), (b"2019", True), (b'"20"', False), (b'" "', False), (b"true", False),
    (b"[" * 5000 + b"]" * 5000, False),  # an array item is never parsed (nor recursed into)
    (b'{"a":"2019"}', False), (b'"2019', False),  # an object; a string not closed
])
def test_an_item_stands_in_the_source_as_a_whole_string_or_number(gpt2, item, sourced):
    grammar = compile_schema({"type": "array", "items": {"type": "string"}}, gpt2, refusal=None)
    assert Guard(Guards(), grammar, source=YEARS)._sourced(item) is sourced


JOBS = {"type": "array", "items": {"type": "object", "properties": {
    "company": {"type": "string"}, "title": {"type": "string"}, "start": {"type": "integer"}}}}


@pytest.mark.parametrize("layout", ["compact", "pretty", "free"])
def test_object_items_alike_on_most_members_end_the_array_at_the_second(gpt2, layout):
    """Items agreeing with an earlier one on 2 of 3 members: the first such item may be followed by `,`,
    the second not (right after its `}`); items agreeing on one member never end the array."""
    items = [{"company": c, "title": "Vacant", "start": 2019} for c in ("Acme", "Globex", "Initech")]
    data = json.dumps(items, indent=2 if layout == "pretty" else None, separators=None if layout == "pretty"
                      else (",", ":")).encode().rstrip(b"]").rstrip()
    first = data[:data.index(b"}", data.index(b"Globex")) + 1]
    for prefix, ended in ((first, False), (data, True)):
        vocab, mask, out, guard = _at(JOBS, gpt2, prefix, Guards(), layout)
        assert any(t.lstrip().startswith(b",") for t in _allowed(vocab, mask))
        assert ended == (not any(t.lstrip().startswith(b",") for t in _allowed(vocab, out)))
        assert not (out & ~mask).any()
    # closing the item and going on in one token (`},`, whitespace aside) is gone too, closing alone stays
    vocab, mask, out, _ = _at(JOBS, gpt2, data[:-1], Guards(), layout)
    goes_on = [t for t in _allowed(vocab, mask)
               if t.strip().startswith(b"}") and t.strip()[1:].lstrip().startswith(b",")]
    assert b"}," in goes_on and (layout != "free" or any(t != b"}," for t in goes_on))
    assert not set(goes_on) & _allowed(vocab, out) and b"}" in _allowed(vocab, out)
    different = [{"company": c, "title": t, "start": 2019} for c, t in (("Acme", "CTO"), ("Globex", "CFO"),
                                                                          ("Initech", "COO"))]
    vocab, mask, out, _ = _at(JOBS, gpt2, json.dumps(different, separators=(",", ":")).encode()[:-1], Guards())
    assert out is mask
    vocab, mask, out, _ = _at(JOBS, gpt2, data, Guards(alike_objects=None), layout)
    assert out is mask


def test_agree_counts_members_either_item_has():
    assert agree({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "c": 4})
    assert not agree({"a": 1, "b": 2}, {"a": 1, "b": 3})  # one member alike
    assert not agree({"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3, "d": 4})  # two of four is not more than half


def test_a_repeat_is_caught_whatever_whitespace_sits_between_items(gpt2):
    schema = {"type": "array", "items": {"type": "string"}}
    for data in (b'[\n  "Python",\n  "SQL",\n  "Python"', b'[ "Python" , "SQL" , "Python"  '):
        vocab, mask, out, _ = _at(schema, gpt2, data, Guards(fresh_items=False), layout="free")
        assert any(t.lstrip().startswith(b",") for t in _allowed(vocab, mask))
        assert not any(t.lstrip().startswith(b",") for t in _allowed(vocab, out))


def test_a_string_that_cannot_close_yet_is_steered_along_the_shortest_way_out(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^[a-z]+@[a-z]+\\.com$"}},
              "required": ["s"]}
    vocab, mask, out, guard = _at(schema, gpt2, b'{"s":"abcabcabcabc', Guards(max_string_bytes=8))
    assert not (mask & guard.classes.has_quote).any()  # the pattern is unmet: no token may close the string
    allowed = _allowed(vocab, out)
    assert allowed and all(b'@a.com"'.startswith(t) for t in allowed) and not (out & ~mask).any()
    assert guard.fired == 1


def test_wrap_up_steers_to_a_complete_output_when_the_budget_runs_low(gpt2):
    schema = {"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}},
                                               "b": {"type": "integer"}}, "required": ["a", "b"]}
    data = b'{"a":["x","y","z'
    vocab, mask, out, guard = _at(schema, gpt2, data, Guards(wrap_up=True))
    assert out is mask  # plenty left (restrict without `left`)
    grammar = compile_schema(schema, gpt2, refusal=None)
    matcher = grammar.matcher()
    matcher.advance_bytes(data)
    guard = Guard(Guards(wrap_up=True), grammar)
    guard.feed(data)
    assert guard.restrict(matcher.mask(), matcher.config, left=300) is matcher.mask()
    steered = guard.restrict(matcher.mask(), matcher.config, left=8)  # the way out, '"],"b":0}', is 9 bytes
    assert all(b'"],"b":0}'.startswith(t) for t in _allowed(vocab, steered)) and _allowed(vocab, steered)
    for token in (b'"],', b'"b', b'":', b"0", b"}"):  # following it to the end leaves only EOS
        matcher.advance_bytes(token)
        guard.feed(token)
    assert set(np.flatnonzero(guard.restrict(matcher.mask(), matcher.config, left=2))) == set(grammar.eos.tolist())


def test_wrap_up_finds_its_way_out_of_a_deep_free_form_value(gpt2):
    """Thirty open levels of an untyped array, inside a string: too far for a search over configurations, found
    from the rules' shortest ways, and followed to the end."""
    schema = {"type": "object", "properties": {"x": {"type": "array"}}}
    data = b'{"x":[' + b'{"a":[' * 30 + b'{"k":"abc'
    way = b'"}' + b"]}" * 30 + b"]}"
    grammar = compile_schema(schema, gpt2, refusal=None)
    matcher = grammar.matcher()
    matcher.advance_bytes(data)
    guard = Guard(Guards(wrap_up=True), grammar)
    guard.feed(data)
    steered = guard.restrict(matcher.mask(), matcher.config, left=len(way))
    allowed = _allowed(grammar.vocab, steered)
    assert allowed and all(way.startswith(t) for t in allowed)


def test_tightened_guards_stop_repeats_sooner_and_wrap_up():
    tight = Guards(max_string_bytes=100).tightened()
    assert tight.wrap_up and tight.similar_items == 2 and tight.unique_items and tight.max_string_bytes == 100
    assert Guards(max_string_bytes=5000).tightened().max_string_bytes == 256


def test_a_repeat_is_stopped_while_the_string_loop_guard_also_fires(gpt2):
    """`"UX design design design` both repeats an earlier item and loops inside itself: the string must
    close (a quote), and the quote may not go on with `,`."""
    schema = {"type": "array", "items": {"type": "string"}}
    vocab, mask, out, _ = _at(schema, gpt2, b'["UX design design design","UX design design design',
                              Guards(fresh_items=False))
    allowed = _allowed(vocab, out)
    assert allowed and all(b'"' in t for t in allowed) and b'",' not in allowed and b'"]' in allowed


def test_no_gold_value_of_the_quality_set_trips_a_guard():
    """The guards' thresholds may not cut a correct value: every gold list keeps fewer alike items than
    `similar_items` and fewer items agreeing with an earlier one than `alike_objects`, and no gold string reads as a loop at any prefix while it is written."""
    import json
    from collections import Counter
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "quality" / "documents.jsonl"
    alike, looped = Guards().similar_items, []
    stack = [json.loads(line)["gold"] for line in data.read_text().splitlines() if line.strip()]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            text = bytearray(b'"' + value.encode())
            looped += [value for end in range(2, len(text) + 1) if looping(text[:end], 1)][:1]
        elif isinstance(value, list):
            shapes = Counter(json.dumps(v, ensure_ascii=False).translate(str.maketrans("123456789", "0" * 9))
                             for v in value)
            assert max(shapes.values(), default=0) < alike, value
            objects = [v for v in value if isinstance(v, dict)]
            near = sum(any(agree(v, w) for w in objects[:i]) for i, v in enumerate(objects))
            assert near < Guards().alike_objects, value
            stack += value
        elif isinstance(value, dict):
            stack += value.values()
    assert not looped


STUTTERS = [  # (the value so far, the source text, whether it stutters)
    (b"MALANANANANANANANANANA", b"NO. 2, JALAN MALA, MELAKA", True),  # 2 bytes, nine times
    (b"SELANANANANANANANANANA", b"", True),
    (b"1000000,000,000,000,000,000,000,", b"TOTAL 1,000.00", True),  # 4 bytes (`000,`), six times
    (b"MALANANA", b"", False),  # three times: not yet
    (b"BANANANAN", b"BANANANANAS AND MORE", False),  # the text holds the run
    (b"1000000000", b"Total: 1,000,000,000 EUR", False),  # its digits, separators dropped
    (b"1000000000", b"Total: 1,000 EUR", True),
    (b"1,000,000.00", b"", False),
    (b"4111 1111 1111 1111", b"", False),
    (b"+44 7700 900456", b"", False),
]


@pytest.mark.parametrize(("value", "source", "stutters"), STUTTERS)
def test_a_short_stretch_repeated_four_times_stutters_unless_the_text_holds_it(value, source, stutters):
    assert stuttering(bytearray(value), 0, 4, source, source_digits(source)) is stutters


def test_a_stuttering_string_must_close_and_a_stuttering_number_must_end(gpt2):
    schema = {"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["s", "n"]}
    vocab, mask, out, guard = _at(schema, gpt2, b'{"s":"MALANANANANA', Guards())
    assert all(b'"' in t for t in _allowed(vocab, out)) and guard.fired == 1
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"MALANANANANA', Guards(stutter=None))
    assert out is mask
    vocab, mask, out, _ = _at(schema, gpt2, b'{"s":"x","n":12121212', Guards())
    assert any(t[:1].isdigit() for t in _allowed(vocab, mask)) and not any(t[:1].isdigit()
                                                                          for t in _allowed(vocab, out))


def test_no_gold_value_stutters_at_any_prefix_given_its_text():
    """Every gold string and number of the labeled set, written byte by byte with its own document as the
    source, never stutters: the rule lets through what the text holds."""
    import json
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "quality" / "documents.jsonl"
    tripped = []
    for doc in map(json.loads, data.read_text().splitlines()):
        source = doc["text"].encode()
        digits = source_digits(source)
        stack = [doc["gold"]]
        while stack:
            value = stack.pop()
            if isinstance(value, (dict, list)):
                stack += value.values() if isinstance(value, dict) else value
            elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
                written = value.encode() if isinstance(value, str) else json.dumps(value).encode()
                if any(stuttering(bytearray(written[:end]), 0, 4, source, digits) for end in range(1, len(written) + 1)):
                    tripped.append((doc["id"], value))
    assert not tripped


def test_an_object_item_nested_past_what_json_parses_is_simply_not_compared():
    for depth in (1500, 3000):  # within MAX_ITEM_BYTES but past json's recursion; over the bound
        js = JsonTracker()
        deep = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
        js.feed(b"[" + deep + b"," + deep + b",")
        assert js.stack[-1].near == 0 and js.stack[-1].objects == []


def _draw(rng: np.random.Generator, alphabet: bytes, low: int, high: int) -> bytes:
    """Random bytes of `alphabet`, low to high - 1 of them."""
    return bytes(rng.choice(list(alphabet), size=int(rng.integers(low, high))).tolist())


def _repeats_brute(text: bytes, shortest: int, longest: int, times) -> bool:
    """Every period tried one by one: the plain check `_repeats_at_end` skips periods of."""
    size = len(text)
    return any(period * times(period) <= size
               and len({text[size - k * period:size - (k - 1) * period] for k in range(1, times(period) + 1)}) == 1
               for period in range(shortest, min(longest, size // 2) + 1))


@pytest.mark.parametrize("alphabet", [b"ab", b"abc", b"a-b ", b"0123456789-"])
def test_loop_ends_found_by_rfind_are_the_ones_every_period_finds(alphabet):
    from extractor.decode.tracker import _repeats_at_end
    rng = np.random.default_rng(len(alphabet))
    rules = [(6, 128, lambda p: 2 if p >= 16 else 3), (1, 5, lambda p: -(-24 // p)), (6, 64, lambda p: 4)]
    seen = set()
    for _ in range(3000):
        unit = _draw(rng, alphabet, 1, 20)
        text = _draw(rng, alphabet, 0, 30) + unit * int(rng.integers(1, 6))
        text += _draw(rng, alphabet, 0, 3)
        for shortest, longest, times in rules:
            found = _repeats_at_end(text, shortest, longest, times)
            assert found == _repeats_brute(text, shortest, longest, times), (text, shortest, longest)
            seen.add(found)
    assert seen == {True, False}
    for text in (b"abcdefghijklmnopq" * 2, b"abcdefg" * 3, b"ab" * 12, b"x" * 24, b"2022-01-0" * 4,  # the
                 (b"uvwxyz" + b"-" * 8 + b"uvwxyz") * 2):
        for shortest, longest, times in rules:  # longest period the text holds: the first copy starts at 0
            assert _repeats_at_end(text, shortest, longest, times) == _repeats_brute(text, shortest, longest, times)
        assert any(_repeats_at_end(text, *rule) for rule in rules)


def test_the_tracker_counts_arrays_holding_items_as_they_open_fill_and_close():
    js = JsonTracker()
    counts = []
    for byte in b'[[1,2],[3],{"a":[4,5]},6]':
        js.feed(bytes([byte]))
        counts.append(js.filled)
    # the outer array holds an item from its first `,` on; inner arrays only while open and past their first `,`
    #                 [  [  1  ,  2  ]  ,  [  3  ]  ,  {  "  a  "  :  [  4  ,  5  ]  }  ,  6  ]
    assert counts == [0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 0]


def _looping_brute(text: bytes) -> bool:
    return _repeats_brute(text, 6, 128, lambda p: 2 if p >= 16 else 3) or \
        _repeats_brute(text, 1, 5, lambda p: -(-24 // p)) or \
        _repeats_brute(text.translate(bytes.maketrans(b"123456789", b"000000000")), 6, 64, lambda p: 4)


def _stuttering_brute(text: bytes, times: int, source: bytes, digits: bytes) -> bool:
    for period in (2, 3, 4):
        count = 1
        while len(text) >= (count + 1) * period and \
                text[len(text) - (count + 1) * period:len(text) - count * period] == text[len(text) - period:]:
            count += 1
        run = text[len(text) - count * period:]
        plain = bytes(b for b in run if 0x30 <= b <= 0x39)
        if len(text) >= period * times and count >= times and run not in source and \
                not (plain == run and plain in digits):
            return True
    return False


@pytest.mark.parametrize("alphabet", [b"ab", b"a1-", b"0123456789,", b"xy 12"])
def test_loops_and_stutters_read_off_the_window_are_those_of_the_whole_string(alphabet):
    """Only the last 256 bytes are read for loops, only the last stretches until a run is long enough for stutter:
    the same answers as reading every byte."""
    rng = np.random.default_rng(len(alphabet) + 7)
    answers = set()
    for _ in range(1500):
        unit = _draw(rng, alphabet, 1, 70)
        text = _draw(rng, alphabet, 0, 300) + unit * int(rng.integers(1, 6))
        text += _draw(rng, alphabet, 0, 3)
        data, start = bytearray(b'{"s":"' + text), 6
        source = _draw(rng, alphabet, 0, 40)
        assert looping(data, start) == _looping_brute(text), text
        assert stuttering(data, start, 4, source, source_digits(source)) == \
            _stuttering_brute(text, 4, source, source_digits(source)), (text, source)
        answers.add((looping(data, start), stuttering(data, start, 4)))
    assert {a for a, _ in answers} == {True, False} and {b for _, b in answers} == {True, False}


PACKED_WALKS = [  # (schema, guards, budget, what the guards must have done): each way a guard narrows a mask
    ({"type": "array", "items": {"type": "string"}}, Guards(max_string_bytes=12), 60, {"string"}),
    ({"type": "array", "items": {"type": "integer"}}, Guards(max_number_digits=3), 40, {"number"}),
    ({"type": "array", "items": {"enum": ["a1", "a2", "b", 7]}}, Guards(similar_items=2, fresh_items=False), 40,
     {"banned"}),
    ({"type": "array", "items": {"enum": ["x1", "x12", "x123", "x2", "x21", 7, 71]}}, Guards(), 60,
     {"banned"}),  # fresh_items
    ({"type": "object", "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {
        "a": {"type": "integer"}, "b": {"type": "string"}}}}}, "required": ["rows"]},
     Guards(wrap_up=True, alike_objects=1, distinct_members=True), 30, {"finish"}),
    ({"type": "object", "properties": {"code": {"type": "string", "pattern": "^[a-z]{6}$"}}, "required": ["code"]},
     Guards(max_string_bytes=2), 40, {"string"}),  # must close, cannot yet: steered to where it can
]


@pytest.mark.parametrize(("schema", "guards", "budget", "done"), PACKED_WALKS, ids=range(len(PACKED_WALKS)))
def test_narrowing_a_packed_row_takes_out_what_narrowing_the_bool_mask_does(gpt2, schema, guards, budget, done):
    """`apply` on a server's packed rows against `apply` on the bool mask, on twin guards fed the same random
    walks: the same plan, the same tokens taken out, the same steps counted as fired."""
    from extractor.masks.bits import pack

    grammar = compile_schema(schema, gpt2, refusal=None)
    rng, decided, fired, kinds = np.random.default_rng(5), 0, 0, set()
    for _ in range(12):
        matcher, plain, packed = grammar.matcher(), Guard(guards, grammar), Guard(guards, grammar)
        while not matcher.finished and matcher.steps < budget:
            left, config, mask = budget - matcher.steps, matcher.config, matcher.mask()
            plan, twin = plain.plan(config, left), packed.plan(config, left)
            assert (plan is None) == (twin is None)
            if plan is None:
                out = mask
            else:
                decided += 1
                kinds |= {plan.kind} | ({"banned"} if plan.banned else set())
                assert plan.kind == twin.kind and len(plan.banned) == len(twin.banned)
                out = plain.apply(plan, mask, config)
                words = packed.apply(twin, pack(mask), config)
                assert (pack(out) == words).all() and plain.fired == packed.fired
            allowed = np.flatnonzero(out)
            going = [t for t in allowed if t not in grammar.vocab.eos_ids]
            token = int(rng.choice(going if going and rng.random() < 0.9 else allowed))
            matcher.advance(token)
            for guard in (plain, packed):
                guard.feed(b"" if matcher.finished else grammar.vocab.tokens[token])
        fired += plain.fired
    assert decided >= 10 and fired and done <= kinds  # the guards decided, and took tokens out
