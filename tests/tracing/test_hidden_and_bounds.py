"""Values found through the invisible format characters PDF text holds inside words (soft hyphens, zero-width
spaces and joiners), spans covering them; and the search bounded on texts that repeat one letter or one number."""

from __future__ import annotations

import time
import unicodedata
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.tracing import agrees, trace
from extractor.tracing.forms import index
from extractor.tracing.views import (
    MAX_SPANS, View, _build, _fold_cluster, _not_word, _word_cluster, folded_view, occurrences, visible_view,
    words_view,
)

HIDDEN = ["\u00ad", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
"""Soft hyphen, zero-width space, non-joiner, joiner, word joiner, byte-order mark (all Unicode category Cf)."""

# (value, its occurrence with `|` where an invisible character goes, how it is found)
THROUGH = [
    ("Acme Corporation", "Acme Cor|poration", "folded"),
    ("ACME CORPORATION", "Acme Cor|poration", "folded"),
    ("Sao Paulo Trading", "São-Pau|lo Trading", "words"),
    ("Ann", "An|n", "folded"),  # a short value: as written, the invisible character aside
    ("2017-09-05", "5 Sep|tember 2017", "date"),
    (1500.0, "1.5|00,00", "number"),
    ("14155550192", "+1 (415) 555|-0192", "digits"),
]
BEFORE, AFTER = "Seen: ", ", thanks."


@pytest.mark.parametrize("hidden", HIDDEN, ids=[f"U+{ord(c):04X}" for c in HIDDEN])
@pytest.mark.parametrize("value,written,how", THROUGH, ids=[repr(r[0]) for r in THROUGH])
def test_a_value_is_found_through_an_invisible_character_its_span_covering_it(hidden, value, written, how):
    text = BEFORE + written.replace("|", hidden) + AFTER
    [found] = trace({"v": value}, text, {"type": "object"})
    assert (found.status, found.how) == ("found", how)
    assert [s.of(text) for s in found.spans] == [written.replace("|", hidden)]
    assert agrees(value, found.spans[0].of(text), how)


def test_a_word_joined_by_an_invisible_character_is_not_cut_out_of_it():
    """`ANN` is not found in `x\u2060Ann`, which reads `xAnn`; `Ann` as written still is after a zero-width space,
    which the exact search takes for no letter."""
    assert trace({"v": "ANN"}, "Dear x\u2060Ann,", {"type": "object"})["/v"].status == "not_found"
    assert trace({"v": "Ann"}, "Dear x\u200bAnn,", {"type": "object"})["/v"].how == "exact"


LETTERS = st.text(st.sampled_from("abcdeéXY"), min_size=1, max_size=6)
FORMS = [(v, w.replace("|", "")) for v, w, _ in THROUGH]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(LETTERS, min_size=1, max_size=4).map(" ".join).map(lambda v: (v, v)), st.sampled_from(FORMS)),
       st.lists(st.tuples(st.integers(0, 99), st.sampled_from(HIDDEN)), max_size=4))
def test_invisible_characters_inside_an_occurrence_never_hide_it(pair, inserts):
    """A value found in a text is still found when format characters go anywhere inside its occurrence, and a
    span covers the whole occurrence, the characters included."""
    value, written = pair
    assert trace({"v": value}, BEFORE + written + AFTER, {"type": "object"})["/v"].status == "found"
    chars = list(written)
    for at, c in inserts if len(written) > 1 else ():
        chars.insert(1 + at % (len(chars) - 1), c)
    text = BEFORE + "".join(chars) + AFTER
    found = trace({"v": value}, text, {"type": "object"})["/v"]
    assert found.status == "found"
    assert (len(BEFORE), len(text) - len(AFTER)) in [(s.start, s.end) for s in found.spans]
    assert all(agrees(value, s.of(text), found.how) for s in found.spans)


def plain_occurrences(form: str, needle: str) -> list[int]:
    """Every place `form` holds `needle` cutting no word in two, one `find` after another: the search
    `occurrences` replaces (its cost grows with the occurrences times the needle's length)."""
    out, at = [], form.find(needle) if needle else -1
    while at >= 0:
        end = at + len(needle)
        if not (needle[0].isalnum() and at > 0 and form[at - 1].isalnum()) and not (
                needle[-1].isalnum() and end < len(form) and form[end].isalnum()):
            out.append(at)
        at = form.find(needle, at + 1)
    return out


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("ab -"), max_size=60), st.text(st.sampled_from("ab -"), min_size=1, max_size=8),
       st.integers(0, 5))
def test_occurrences_are_those_of_the_plain_search(form, needle, limit):
    """The run-measuring search finds the places, in order, and the count that one find after another does."""
    every = plain_occurrences(form, needle)
    assert occurrences(form, needle, limit) == (every[:limit], len(every))


# (text, needle, places listed, how many)
REPEATS = [
    ("a" * 1_000_000, "a" * 5_000, [], 0),  # every occurrence cuts a word
    ("ab " * 300_000, "ab ab", list(range(0, 3 * MAX_SPANS, 3)), 299_999),
    ("-" * 1_000_000, "-" * 5_000, list(range(MAX_SPANS)), 995_001),
]


@pytest.mark.parametrize("text,needle,listed,count", REPEATS, ids=["letter", "words", "dashes"])
def test_a_needle_repeated_through_a_long_text_is_counted_in_linear_time(text, needle, listed, count):
    """A plain search verifies the needle at each of a million overlapping places (tens of seconds)."""
    start = time.perf_counter()
    assert occurrences(text, needle) == (listed, count)
    assert time.perf_counter() - start < 2


def test_tracing_a_long_value_in_a_text_of_one_letter_is_bounded():
    start = time.perf_counter()
    found = trace({"v": "a" * 5_000}, "a" * 300_000, {"type": "object"})["/v"]
    assert found.status == "not_found" and time.perf_counter() - start < 10


def _least_seconds(call, times: int = 2) -> float:
    """The shortest of `times` runs of `call`: a busy machine's pauses lengthen a run, never shorten it."""
    spent = []
    for _ in range(times):
        start = time.perf_counter()
        call()
        spent.append(time.perf_counter() - start)
    return min(spent)


def test_a_number_written_many_times_is_indexed_in_linear_time():
    """Each span was checked against every span of its meaning filed before it (a minute for 40,000 ones): four
    times the ones take about four times as long (sixteen if quadratic), a ratio a busy machine leaves standing."""
    found: list[dict] = []
    small = _least_seconds(lambda: index("1 " * 10_000))
    large = _least_seconds(lambda: found.append(index("1 " * 40_000)))
    spans = found[-1][("number", 1)]
    assert len(spans) == 40_000 and spans[:2] == [(0, 1), (2, 3)]
    assert large / small < 10, f"40,000 numbers took {large / small:.1f}× the time of 10,000"


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=40))
def test_the_views_of_an_ascii_text_are_those_of_the_plain_loop(text):
    """The whole-array views of an ASCII text equal the views the cluster by cluster loop builds."""
    assert folded_view(text) == _build(text, _fold_cluster, str.isspace)
    assert words_view(text) == _build(text, _word_cluster, _not_word)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*HIDDEN, "\ud800", "\U0001f600"]) | st.characters(), max_size=40).map("".join))
def test_the_visible_view_is_the_text_less_its_invisible_characters(text):
    """Character by character, surrogates and characters past the first plane among them; empty where the text
    holds no invisible character."""
    kept = [i for i, c in enumerate(text) if unicodedata.category(c) != "Cf"]
    expected = View("".join(text[i] for i in kept), array("q", kept), array("q", [i + 1 for i in kept]))
    assert visible_view(text) == (expected if len(kept) < len(text) else View("", array("q"), array("q")))


def test_the_visible_view_of_a_long_text_is_built_in_whole_array_steps():
    text = "Sep\u00adtember 5, 2017: r\u00e9sum\u00e9 \u200b " * 40_000
    start = time.perf_counter()
    view = visible_view(text)
    assert view.form == text.replace("\u00ad", "").replace("\u200b", "") and time.perf_counter() - start < 1
