"""`Guards.fresh_items`: no array item is written equal to an earlier one more often than the text writes it, and the
rule never leaves the model without a way on (another item, or the array's end)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from extractor import compile_schema
from extractor.decode import Guards, generate
from extractor.decode import fresh as fresh_module
from extractor.decode.fresh import Fresh, fragment_of, path_at, repeatable_arrays, repeats
from extractor.decode.guards import Guard
from extractor.grammar import CompileOptions
from extractor.masks.bits import Row
from tests.decode.fakes import fake_lm, hf_tokenizer

STRINGS = {"type": "array", "items": {"type": "string"}}
NUMBERS = {"type": "array", "items": {"type": "integer"}}
CHOICES = {"type": "array", "items": {"enum": ["a", "b"]}}
NAMES = {"type": "array", "items": {"enum": ["Lars Berg", "Lars Bergman", "Anna"]}}
ONE = {"type": "array", "items": {"enum": [29]}}
PEOPLE = {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}}


@pytest.fixture(scope="module")
def gpt2():
    return hf_tokenizer("gpt2")


_GRAMMARS: dict[str, object] = {}


def _grammar(schema, tok, layout="compact"):
    key = json.dumps([schema, layout])
    if key not in _GRAMMARS:
        _GRAMMARS[key] = compile_schema(schema, tok, refusal=None, options=CompileOptions(layout=layout))
    return _GRAMMARS[key]


def _at(schema, tok, data: bytes, guards: Guards = Guards(unique_items=False), source: bytes = b"",
        layout: str = "compact"):
    grammar = _grammar(schema, tok, layout)
    matcher = grammar.matcher()
    matcher.advance_bytes(data)
    guard = Guard(guards, grammar, source)
    guard.feed(data)
    mask = matcher.mask()
    return grammar.vocab, mask, guard.restrict(mask, matcher.config), guard


def _taken(vocab, mask, out) -> set[bytes]:
    return {vocab.tokens[i] for i in np.flatnonzero(mask & ~out)}


def _left(vocab, out) -> set[bytes]:
    return {vocab.tokens[i] for i in np.flatnonzero(out)}


@pytest.mark.parametrize(("schema", "written", "source", "taken", "kept"), [
    # the repeat's closing quote (and every token holding it) is taken; going on with the string is not
    (STRINGS, b'["Lars Berg","Anna","Lars Berg', b"", {b'"', b'",', b'"]', b'","'}, {b"man", b"s"}),
    # a text that writes the item twice lets it be written twice
    (STRINGS, b'["Lars Berg","Anna","Lars Berg', b"Lars Berg met Anna; Lars Berg left.", set(), {b'"', b'",'}),
    # ... but not three times
    (STRINGS, b'["Lars Berg","Lars Berg","Lars Berg', b"Lars Berg met Anna; Lars Berg left.", {b'"', b'",'}, set()),
    # a name inside a longer word does not count as written
    (STRINGS, b'["Lars","Lars', b"Larsson and Lars", {b'"', b'",'}, set()),
    # a number is finished by the first byte that cannot go on with it; digits may go on
    (NUMBERS, b"[12,3,12", b"", {b",", b"]"}, {b"0", b"5"}),
    (NUMBERS, b"[12,3,12", b"12 and 12", set(), {b",", b"]"}),
    (NUMBERS, b"[12,3,1", b"", set(), {b"2", b","}),  # `2` alone does not finish 12: 120 may follow
    # no repeat reachable: nothing taken
    (STRINGS, b'["Lars Berg","Anna","Dana', b"", set(), {b'"', b'",'}),
    # a choice that can only become a repeat is not begun
    (CHOICES, b'["a","', b"", {b"a"}, {b"b"}),
    (NAMES, b'["Lars Berg","Lars Bergman","', b"", {b"L", b"La"}, {b"A", b"Anna"}),
    (NAMES, b'["Lars Berg","Lars Berg', b"", {b'"', b'",'}, {b"m", b"man"}),
    # no new item left to write: the array may not go on
    (CHOICES, b'["a","b"', b"", {b",", b',"'}, {b"]"}),
    # ... nor after its first item where that is the only one (a number the text writes once, narrowed to it)
    (ONE, b"[29", b"Zoe, age 29", {b","}, {b"]"}),
    (ONE, b"[29", b"29 and 29", set(), {b",", b"]"}),
    ({"type": "array", "items": {"enum": ["a"]}}, b'["a"', b"a or b", {b",", b',"'}, {b"]"}),
    (ONE, b"[29", b"", set(), {b",", b"]"}),  # a served request (no text): first items are not checked
    ({"type": "array", "items": {"type": "object", "properties": {"n": ONE["items"]}, "required": ["n"]}},
     b'[{"n":29', b"age 29", {b"},"}, {b"}"}),
    # an object item: the value that would make it a repeat may not close
    (PEOPLE, b'[{"n":"x"},{"n":"x', b"", {b'"', b'"}'}, {b"y"}),
])
def test_tokens_that_would_complete_a_repeat_are_taken(gpt2, schema, written, source, taken, kept):
    vocab, mask, out, _ = _at(schema, gpt2, written, source=source)
    assert not (out & ~mask).any()
    assert taken <= _taken(vocab, mask, out), _taken(vocab, mask, out)
    assert kept <= _left(vocab, out)
    if not taken:
        assert not (_taken(vocab, mask, out) & kept)


def test_a_held_back_repeat_ends_its_array(gpt2):
    """The model wrote a repeat all but its end: the item may go on, then the array closes."""
    vocab, mask, out, guard = _at(STRINGS, gpt2, b'["not cheap","not cheap')
    assert b'"' not in _left(vocab, out) and b" enough" in _left(vocab, out)
    guard.feed(b" enough")
    matcher = guard.grammar.matcher()
    matcher.advance_bytes(b'["not cheap","not cheap enough')
    mask = matcher.mask()
    out = guard.restrict(mask, matcher.config)
    assert b'"' in _left(vocab, out) and b'"]' in _left(vocab, out)
    assert b'",' not in _left(vocab, out) and b'","' not in _left(vocab, out)


def test_the_rule_off_takes_nothing_it_would_have(gpt2):
    vocab, mask, out, _ = _at(STRINGS, gpt2, b'["Lars Berg","Anna","Lars Berg', Guards(fresh_items=False,
                                                                                       unique_items=False))
    assert out is mask


def test_a_schema_that_lets_items_repeat_is_followed(gpt2):
    schema = {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                                        "uniqueItems": False},
                                               "names": STRINGS}}
    places = repeatable_arrays(schema)
    assert places == {("tags",)}
    guards = Guards(repeatable=places, unique_items=False)
    vocab, mask, out, _ = _at(schema, gpt2, b'{"tags":["x","x', guards)
    assert b'"' in _left(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, b'{"tags":["x"],"names":["x","x', guards)
    assert b'"' not in _left(vocab, out)


@pytest.mark.parametrize(("schema", "places"), [
    ({"type": "array", "uniqueItems": False}, {()}),
    ({"type": "array", "items": {"type": "array", "uniqueItems": False}}, {(None,)}),
    ({"$defs": {"T": {"type": "array", "uniqueItems": False}},
      "type": "object", "properties": {"a": {"$ref": "#/$defs/T"}, "b": {"anyOf": [{"$ref": "#/$defs/T"}]}}},
     {("a",), ("b",)}),
    ({"type": "object", "additionalProperties": {"type": "array", "uniqueItems": False}}, {(None,)}),
    ({"type": "array", "uniqueItems": True}, set()),
    ({"$defs": {"N": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/N"},
                                                                 "uniqueItems": False}}}}, "$ref": "#/$defs/N"},
     {("kids",), ("kids", None, "kids")}),  # recursive: found to a bounded depth (the first levels here)
])
def test_repeatable_arrays_are_read_from_the_schema(schema, places):
    found = repeatable_arrays(schema, max_depth=6)
    assert set(places) <= found and all(p[:1] in {("kids",), ()} or p in places for p in found)


@pytest.mark.parametrize(("data", "path"), [
    (b'[', ()),
    (b'{"a": [', ("a",)),
    (b'{"a": "x,\\"]", "b": [{"c": 1}, {"d": [', ("b", None, "d")),
    (b'[[1], [', (None,)),
    (b'{"a": {"b": 1}, "c": [', ("c",)),
])
def test_the_place_of_an_array_is_read_off_the_output(data, path):
    assert path_at(data + b"]", len(data) - 1) == path


def _walk(grammar, guards: Guards, source: bytes, rng: random.Random, steps: int = 60):
    """A random walk under the guarded mask; the output, and whether the rule ever had to stand aside."""
    matcher, guard = grammar.matcher(), Guard(guards, grammar, source)
    stood_aside, data = False, b""
    for _ in range(steps):
        if matcher.accepting() and not grammar.allowed_bytes(matcher.config):
            break
        mask = matcher.mask().copy()
        mask[grammar.eos] = False
        plan = guard.plan(matcher.config)
        if plan is not None and plan.banned and not Row(mask).without(np.concatenate(plan.banned)).any():
            stood_aside = True
        out = guard.restrict(mask, matcher.config)
        ids = np.flatnonzero(out)
        if not len(ids):
            break
        token = int(rng.choice(list(ids)))
        matcher.advance(token)
        guard.feed(grammar.vocab.tokens[token])
        data += grammar.vocab.tokens[token]
    return data, stood_aside


@pytest.mark.parametrize("schema", [
    {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 6},
    {"type": "array", "items": {"enum": ["ab", "abc", "b"]}},
    {"type": "array", "items": {"type": "integer", "enum": [1, 2, 12, 21]}},
    {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "object", "properties": {
        "k": {"enum": ["p", "q"]}, "v": {"enum": [1, 2]}}, "required": ["k", "v"]}}}, "required": ["x"]},
])
def test_random_walks_never_repeat_and_never_stand_aside(gpt2, schema):
    """Property: whatever tokens a model picks under the mask, no list holds a repeat the text does not write, and
    the rule never had to stand aside (there was always another item or the end)."""
    grammar = _grammar(schema, gpt2)
    rng = random.Random(7)
    for _ in range(40):
        data, stood_aside = _walk(grammar, Guards(similar_items=None, alike_objects=None), b"", rng)
        assert not stood_aside, data
        try:
            value = json.loads(data)
        except ValueError:
            continue  # the walk ran out of steps
        assert not repeats(value, ""), data


@pytest.mark.parametrize("layout", ["pretty", "spaced"])
def test_random_walks_under_other_layouts_never_repeat(gpt2, layout):
    schema = {"type": "object", "properties": {"x": {"type": "array", "items": {"type": "object", "properties": {
        "k": {"enum": ["p", "q"]}}, "required": ["k"]}}, "y": {"type": "array", "items": {"enum": ["a", "b"]}}},
        "required": ["x", "y"]}
    grammar = _grammar(schema, gpt2, layout)
    rng = random.Random(5)
    for _ in range(25):
        data, stood_aside = _walk(grammar, Guards(similar_items=None, alike_objects=None), b"", rng, steps=80)
        assert not stood_aside, data
        try:
            value = json.loads(data)
        except ValueError:
            continue
        assert not repeats(value, ""), data


def test_a_repeat_the_text_writes_still_ends_its_list(gpt2):
    """`unique_items` beside the rule: the list ends after the first repeat the text lets through."""
    vocab, mask, out, _ = _at(NUMBERS, gpt2, b"[12,3,12", Guards(), b"12 and 12")
    assert b"]" in _left(vocab, out) and b"," not in _left(vocab, out)


def test_random_walks_repeat_what_the_text_repeats(gpt2):
    grammar = _grammar({"type": "array", "items": {"enum": ["a", "b"]}}, gpt2)
    rng, seen = random.Random(3), 0
    for _ in range(40):
        data, _ = _walk(grammar, Guards(similar_items=None, alike_objects=None), b"a, a and b", rng)
        value = json.loads(data) if data.endswith(b"]") else []
        assert value.count("a") <= 2 and value.count("b") <= 1, data
        seen += value.count("a") == 2
    assert seen


def test_generation_with_the_rule_holds_no_repeat(gpt2):
    """The decoding loop end to end (a fake model that likes to close values): no repeat in any output."""
    lm, vocab = fake_lm(gpt2)
    grammar = compile_schema({"type": "object", "properties": {"tags": {"type": "array", "items": {
        "enum": ["x", "y", "z"]}}}, "required": ["tags"]}, gpt2, refusal=None)
    for seed in range(6):
        lm.model.seed = seed
        out = generate(lm, vocab, vocab_prompt(gpt2), grammar.matcher(), max_tokens=60, guards=Guards())
        if out.complete:
            tags = json.loads(out.text)["tags"]
            assert len(tags) == len(set(tags)), out.text


def vocab_prompt(tok) -> list[int]:
    return tok("Tags:", add_special_tokens=False)["input_ids"]


def _old_guards() -> types.ModuleType | None:
    """The guards module as it was before `fresh_items` (the commit before it), where git can show it."""
    root = Path(__file__).resolve().parents[2]
    try:
        source = subprocess.run(["git", "show", "e61efe1:extractor/decode/guards.py"], cwd=root, check=True,
                                capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    module = sys.modules["tests_old_guards"] = types.ModuleType("tests_old_guards")  # (dataclasses look it up)
    exec(compile(source, "old_guards.py", "exec"), module.__dict__)  # noqa: S102 - the repository's own code
    return module


def test_with_the_rule_off_every_mask_is_as_before(gpt2):
    """Differential: along random walks, the guards with `fresh_items=False` narrow every mask as the guards before
    the rule did."""
    old = _old_guards()
    if old is None:
        pytest.skip("git cannot show the guards before the rule")
    rng = random.Random(11)
    for schema in (STRINGS, NUMBERS, CHOICES, PEOPLE):
        grammar = _grammar(schema, gpt2)
        for _ in range(8):
            matcher = grammar.matcher()
            new, before = Guard(Guards(fresh_items=False), grammar), old.Guard(old.Guards(), grammar)
            for _ in range(30):
                mask = matcher.mask()
                a, b = new.restrict(mask, matcher.config), before.restrict(mask, matcher.config)
                assert np.array_equal(a, b)
                ids = np.flatnonzero(a)
                ids = ids[~np.isin(ids, grammar.eos)]
                if not len(ids):
                    break
                token = int(rng.choice(list(ids)))
                matcher.advance(token)
                new.feed(grammar.vocab.tokens[token])
                before.feed(grammar.vocab.tokens[token])


def test_an_object_equal_but_for_members_left_out_may_not_close(gpt2):
    """An optional member written null in one item and left out in the next: validated, the two are one object."""
    schema = {"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "string"}, "y": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}, "required": ["n"]}}
    vocab, mask, out, _ = _at(schema, gpt2, b'[{"n":"x","y":null},{"n":"x"')
    assert b"}" in _left(vocab, mask) and b"}" not in _left(vocab, out) and b"," in _left(vocab, out)
    vocab, mask, out, _ = _at(schema, gpt2, b'[{"n":"x","y":null},{"n":"z"')
    assert b"}" in _left(vocab, out)


def test_under_the_pretty_layout_the_object_goes_on_rather_than_close_as_a_repeat(gpt2):
    """Pretty: the `}` comes after a newline and indentation the layout forces; the newline is taken too, so the model
    writes another member (`,`) rather than be led to a `}` it may not write."""
    schema = {"type": "array", "items": {"type": "object", "properties": {
        "n": {"type": "string"}, "y": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}, "required": ["n"]}}
    written = b'[\n  {\n    "n": "x",\n    "y": null\n  },\n  {\n    "n": "x"'
    vocab, mask, out, _ = _at(schema, gpt2, written, layout="pretty")
    left = _left(vocab, out)
    assert b"," in left and not any(t.strip() == b"" or t.lstrip().startswith(b"}") for t in left)


FRAGMENTS = [  # (item, earlier items, text, whether it is an earlier item cut short)
    ("555 0192 or mail", ["555 0192 or mail dana@reyes.io"], "Call Dana on +1 415 555 0192 or mail dana@reyes.io", True),
    ("555", ["555 0192 or mail dana@reyes.io"], "Call Dana on +1 415 555 0192 or mail dana@reyes.io", True),
    ("C", ["C++"], "Skills: C++, C, Java", False),
    ("C", ["C++"], "Skills: C++ and Java", True),
    ("Dana", ["Dana Reyes"], "Dana Reyes; Dana", False),
    ("Ann", ["Bob"], "Ann and Bob", False),
    ("Ann", ["Ann Lee"], "no such names here", False),
]


@pytest.mark.parametrize("short, earlier, text, cut", FRAGMENTS)
def test_an_item_the_text_writes_only_inside_an_earlier_one_is_that_item_cut_short(short, earlier, text, cut) -> None:
    assert fragment_of(short, earlier, text) is cut



COUNTS = [  # (source, item): whole occurrences counted as the plain search counts them (at least once)
    ("", "Lars"), ("Lars Berg, Lars", "Lars"), ("Larsen", "Lars"), ("297.80 and 297", 297), ("2970", 297),
    ("C and C++ and C", "C"), ("1.5 1.5", 1.5), ("", 12), ("no digits", 7), ("Oslo, Oslo, Oslo", "Oslo"),
]


@pytest.mark.parametrize("source, item", COUNTS)
def test_an_item_is_counted_as_the_plain_search_counts_it(source: str, item: str | float) -> None:
    import re

    from extractor.decode.fresh import times_written

    text, number = (item, False) if isinstance(item, str) else (json.dumps(item), True)
    pattern = (rf"(?<![0-9.]){re.escape(text)}(?![0-9]|\.[0-9])" if number
               else rf"(?<![0-9A-Za-z]){re.escape(text)}(?![0-9A-Za-z])")
    assert times_written(item, source) == max(1, sum(1 for _ in re.finditer(pattern, source)))


OBJECTS = [  # (source, item, times): an object as often as each value's occurrences allow, a value held twice taking two
    ("Senior Software Engineer; Software Engineer", {"company": "Software", "title": "Software"}, 1),
    ("Software at Stripe; Software at Dropbox", {"company": "Software", "title": "Stripe"}, 1),
    ("Oslo, Oslo, Oslo, Oslo", {"from": "Oslo", "to": "Oslo"}, 2),
    ("2018 - 2021, 2021 - 2023", {"start": 2021, "end": 2021}, 1),
    ("Lars Berg, Lars Berg", {"name": "Lars Berg"}, 2),
    ("nothing", {"a": "x", "b": "x"}, 1),
]


@pytest.mark.parametrize("source, item, times", OBJECTS)
def test_an_object_is_written_as_often_as_its_values_occurrences_allow(source: str, item: dict, times: int) -> None:
    from extractor.decode.fresh import times_written

    assert times_written(item, source) == times


def _plain_escapes(grammar, config, written: bytes, spent: frozenset[bytes]) -> bool:
    """The search for a way off the spent items as first written: every place walked, nothing remembered."""
    work, seen = [(config, written)], set()
    while work:
        config, s = work.pop()
        if (config, s) in seen:
            continue
        seen.add((config, s))
        ahead = {item[len(s)] for item in spent if len(item) > len(s) and item.startswith(s)}
        whole = s in spent
        for byte in sorted(grammar.allowed_bytes(config), key=lambda b: b in ahead):
            nxt = grammar.walk(config, bytes((byte,)))
            if not nxt:
                continue
            if not s and byte in b" \t\n\r":
                work.append((nxt, s))
            elif whole and not (s[:1] in b"-0123456789" and byte in b"+-.0123456789eE"):
                continue
            elif byte in ahead:
                work.append((nxt, s + bytes((byte,))))
            else:
                return True
    return False


class _PlainFresh(Fresh):
    """The rule with its searches as first written: spent items counted afresh, no answer (way off, an item's
    endings, a number's ends) remembered or reused."""

    def _spent(self, items):
        return frozenset(item for item, n in Counter(items).items()
                         if item and item[0] in b'"{-0123456789' and n >= self._in_text(item))

    def _spent_with(self, items, item):
        return self._spent([*items, item])

    def _way_off(self, config, written, spent):
        return b"" if _plain_escapes(self.grammar, config, written, spent) else None

    def _exits(self, config, closer):
        return self.walk_exits(config, closer)

    def _number_ends(self, node):
        return self.scan_number_ends(node)


@pytest.mark.parametrize(("schema", "layout", "source"), [
    ({"type": "array", "items": {"type": "string", "pattern": "^[ab]{1,3}$"}}, "compact", b""),
    ({"type": "array", "items": {"enum": ["ab", "abc", "b", "ba"]}}, "compact", b""),
    ({"type": "array", "items": {"enum": ["a", "b", "c"]}}, "spaced", b"a, a and b"),
    ({"type": "array", "items": {"type": "integer", "enum": [1, 2, 12, 21, 211]}}, "compact", b""),
    ({"type": "object", "properties": {"x": {"type": "array", "items": {"type": "object", "properties": {
        "k": {"enum": ["p", "q"]}, "v": {"enum": [1, 2]}}, "required": ["k", "v"]}}}, "required": ["x"]},
     "compact", b""),
    ({"type": "array", "items": {"enum": ["ab", "abc", "b"]}}, "pretty", b""),
    ({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 130}}, "compact", b""),
    ({"type": "array", "items": {"type": "string", "maxLength": 3}}, "spaced", b""),
])
def test_the_remembered_searches_take_what_the_plain_search_takes(gpt2, schema, layout, source):
    """Differential: at every step of random walks, the rule's remembered searches (and the shortcut through an
    earlier answer) ban exactly the tokens the plain search bans."""
    grammar = _grammar(schema, gpt2, layout)
    rng, guards, banning = random.Random(11), Guards(similar_items=None, alike_objects=None, unique_items=False), 0
    for _ in range(12):
        matcher, fast, plain = grammar.matcher(), Guard(guards, grammar, source), Guard(guards, grammar, source)
        plain.fresh = _PlainFresh(grammar, plain.classes, plain.source, guards.repeatable)
        for _ in range(40):
            plans = [guard.plan(matcher.config) for guard in (fast, plain)]
            banned = [set() if p is None else {int(i) for ids in p.banned for i in ids} for p in plans]
            assert banned[0] == banned[1], matcher.output
            banning += bool(banned[0])
            ids = np.flatnonzero(fast.restrict(matcher.mask(), matcher.config))
            if not len(ids) or matcher.accepting() and not grammar.allowed_bytes(matcher.config):
                break
            token = int(rng.choice(list(ids)))
            matcher.advance(token)
            fast.feed(grammar.vocab.tokens[token])
            plain.feed(grammar.vocab.tokens[token])
    assert banning  # the walks went where the rule bans tokens


class _Grammar:
    """A stand-in for a compiled grammar: the memo table keys by it weakly."""


@pytest.mark.parametrize("grammars", [1, fresh_module.MAX_MEMOS, fresh_module.MAX_MEMOS + 1, 3 * fresh_module.MAX_MEMOS])
def test_the_rule_remembers_answers_for_a_bounded_number_of_grammars(grammars):
    fresh_module._MEMOS.clear()
    held = [_Grammar() for _ in range(grammars)]
    memos = [fresh_module.memo_of(g) for g in held]
    assert len(fresh_module._MEMOS) <= fresh_module.MAX_MEMOS
    assert fresh_module.memo_of(held[-1]) is memos[-1]  # the latest grammar's memo is shared, not made again
    fresh_module._MEMOS.clear()


@pytest.mark.parametrize(("item", "variants"), [
    (b'{"n":"x","y":null}', [b'{"n":"x"}']),
    (b'{\n    "n": "x",\n    "y": null\n  }', [b'{\n    "n": "x"\n  }']),
    (b'{"a":null,"b":{"c":null},"d":null}', [b'{"b":{"c":null},"d":null}', b'{"a":null,"b":{"c":null}}',
                                             b'{"b":{"c":null}}']),
    (b'{"s":"a,b}\\"","t":null}', [b'{"s":"a,b}\\""}']),  # a `,` or `}` inside a string is no member's end
    (b'{"a":null}', []),  # all left out: `{}`, which the layout may write otherwise
    (b'{"a":1}', []), (b'{}', []), (b'[1,null]', []), (b'"x"', []), (b'{"a":', []),
])
def test_an_object_is_also_spelled_with_its_null_members_left_out(item, variants):
    assert fresh_module.null_variants(item) == variants


def test_many_null_members_are_left_out_from_the_end():
    item = b'{"a":null,"b":null,"c":null,"d":null,"e":null,"f":1}'
    assert fresh_module.null_variants(item) == [b'{"a":null,"b":null,"c":null,"d":null,"f":1}'[:0] + v for v in (
        b'{"f":1}', b'{"a":null,"f":1}', b'{"a":null,"b":null,"f":1}', b'{"a":null,"b":null,"c":null,"f":1}',
        b'{"a":null,"b":null,"c":null,"d":null,"f":1}')]


def test_an_object_with_many_nulls_has_a_bounded_number_of_spellings():
    item = b"{" + b",".join(b'"m%d":null' % i for i in range(40)) + b',"k":1}'
    spellings = fresh_module.null_variants(item)
    assert len(spellings) == (1 << fresh_module.MAX_NULL_MEMBERS) + 1
    kept = [b"{" + b",".join([*(b'"m%d":null' % i for i in range(k)), b'"k":1']) + b"}" for k in range(24, 40)]
    assert spellings == [b'{"k":1}', *kept]  # every null left out, then the last runs of them


NULLS_ONLY = {"type": "array", "items": {"type": "object", "properties": {
    "n": {"type": "string"}, "y": {"type": "null"}}, "required": ["n"]}}


@pytest.mark.parametrize(("layout", "written"), [
    ("compact", b'[{"n":"x","y":null},{"n":"x'),
    ("pretty", b'[\n  {\n    "n": "x",\n    "y": null\n  },\n  {\n    "n": "x'),
])
def test_a_repeat_that_only_leaves_out_a_null_is_no_way_off(gpt2, layout, written):
    """After `"x"` the item can only be `{"n":"x"}` or `{"n":"x","y":null}`: the same object once validated, so the
    string may not close there (it may go on)."""
    vocab, mask, out, _ = _at(NULLS_ONLY, gpt2, written, layout=layout)
    assert b'"' in _left(vocab, mask) and b'"' not in _left(vocab, out)
    assert b"y" in _left(vocab, out)
    vocab, mask, out, _ = _at(NULLS_ONLY, gpt2, written + b"y", layout=layout)  # another name closes as before
    assert b'"' in _left(vocab, out)


@pytest.mark.parametrize("schema, seed", [
    ({"type": "array", "items": {"type": "object", "properties": {
        "k": {"enum": ["p", "q"]}, "y": {"type": "null"}, "z": {"type": "null"}}, "required": ["k"]}}, 13),
    ({"type": "array", "items": {"type": "object", "properties": {
        "k": {"enum": ["p", "q"]}, "y": {"type": "null"}, "n": {"enum": ["a", "b"]}}, "required": ["k"]}}, 29),
], ids=["nulls after", "a name after a null"])
def test_random_walks_never_repeat_an_object_but_for_its_nulls(gpt2, schema, seed):
    """Property: where the rule did not stand aside, no item of a list of objects is an earlier one once members
    written null are taken as left out, whichever of the two wrote the null (the rule searches along the earlier
    items with their nulls left out; an item writing null for a member an earlier one left out is refused at its
    `}`, where the rule may have to stand aside; two names only in the second schema, so walks meet repeats
    often)."""
    grammar = _grammar(schema, gpt2)
    rng, checked = random.Random(seed), 0
    for _ in range(60):
        data, stood_aside = _walk(grammar, Guards(similar_items=None, alike_objects=None), b"", rng)
        try:
            value = json.loads(data)
        except ValueError:
            continue
        checked += not stood_aside
        plain = [fresh_module._plain(item) for item in (value if not stood_aside else [])]
        assert len(set(plain)) == len(plain), data
    assert checked >= 10  # most walks are read
