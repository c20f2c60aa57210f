"""Windows over a long text: cut on its structure, within the token budget, overlapping, covering every character,
a table's header repeated above its rows."""

from __future__ import annotations

import re

import pytest

from extractor.documents.windows import Window, windows


def word_tokens(text: str) -> list[int]:
    """A stand-in tokenizer: one token per word with its trailing space."""
    ends = [m.end() for m in re.finditer(r"\S+\s*", text)]
    return ends[:-1] + [len(text)] if ends else [len(text)]


def tokens_in(window: Window, text: str) -> int:
    return len(re.findall(r"\S+", window.text(text)))


PARAGRAPHS = "\n\n".join(" ".join(f"p{p}w{w}." if w % 6 == 5 else f"p{p}w{w}" for w in range(30)) for p in range(8))
LINES = "\n".join(f"line {i} has five words" for i in range(60))
ONE_WORD = "x" * 500
TABLE = "Statement\n\n" + "\n".join(["| date | item | amount |", "|---|---|---|"] +
                                    [f"| 2024-01-{d:02d} | coffee number {d} | {d}.50 |" for d in range(1, 41)])

CASES = [  # (name, text, size, overlap, what every window must end with)
    ("paragraphs end at blank lines", PARAGRAPHS, 70, 0, r"p\dw29\.$"),
    ("lines end at line breaks", LINES, 25, 5, r"words$"),
    ("sentences where paragraphs are too long", PARAGRAPHS, 20, 0, r"\.$"),
]


@pytest.mark.parametrize("name, text, size, overlap, ending", CASES, ids=[c[0] for c in CASES])
def test_windows_end_on_the_strongest_break_and_stay_within_budget(name, text, size, overlap, ending) -> None:
    parts = windows(text, word_tokens(text), size, overlap)
    assert len(parts) > 1
    for w in parts:
        assert tokens_in(w, text) <= size
        assert re.search(ending, w.text(text)), (name, w.text(text)[-40:])


@pytest.mark.parametrize("text, size, overlap", [(PARAGRAPHS, 70, 0), (LINES, 25, 5), (PARAGRAPHS, 33, 9),
                                                 (TABLE, 60, 10), (ONE_WORD + " tail", 40, 4)])
def test_windows_cover_the_text_in_order_and_never_cut_a_word(text, size, overlap) -> None:
    parts = windows(text, word_tokens(text), size, overlap)
    assert parts[0].start == 0 and parts[-1].end == len(text.rstrip())
    for a, b in zip(parts, parts[1:]):
        assert a.start < b.start and (b.start <= a.end or not text[a.end:b.start].strip())  # no gap
        assert b.start == 0 or text[b.start - 1].isspace()
    words = set(re.findall(r"\S+", text))
    assert all(set(re.findall(r"\S+", w.text(text))) <= words for w in parts) or ONE_WORD in text


def test_overlap_repeats_about_that_many_tokens() -> None:
    parts = windows(LINES, word_tokens(LINES), 25, 10)
    for a, b in zip(parts, parts[1:]):
        shared = len(re.findall(r"\S+", LINES[b.start:a.end]))
        assert 5 <= shared <= 10  # a whole line of five words at least, at most the overlap asked for


def test_a_window_inside_a_table_starts_with_its_header() -> None:
    parts = windows(TABLE, word_tokens(TABLE), 60, 0)
    assert len(parts) > 2
    for w in parts[1:]:
        lines = w.text(TABLE).splitlines()
        assert lines[:2] == ["| date | item | amount |", "|---|---|---|"], lines[:3]
        assert all(re.fullmatch(r"\| 2024-01-\d\d \| coffee number \d+ \| \d+\.50 \|", row) for row in lines[2:])


def test_offsets_map_window_text_back_to_the_document() -> None:
    parts = windows(TABLE, word_tokens(TABLE), 60, 0)
    w = parts[1]
    text = w.text(TABLE)
    for needle in ("| date", "coffee number"):
        at = text.index(needle)
        start = w.offset(TABLE, at)
        assert TABLE[start:start + len(needle)] == needle


def test_a_word_longer_than_a_window_is_cut_between_tokens() -> None:
    text = "start " + "y" * 400 + " end"
    ends = [6] + list(range(16, 406, 10)) + [406, len(text)]  # the long word split in tokens of ten characters
    parts = windows(text, ends, 12)
    assert "".join(text[w.start:w.end] for w in parts).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize("size, overlap", [(0, 0), (10, 10), (10, -1)])
def test_bad_sizes_are_refused(size, overlap) -> None:
    with pytest.raises(ValueError):
        windows("some text", [4, 9], size, overlap)
