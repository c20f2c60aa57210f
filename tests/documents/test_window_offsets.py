"""A window's positions map back to the document: a span of a window's text, in its repeated table header or in
its own stretch, is the same text in the document (the trace places values by it), and the windows together
hold every character of any text."""

from __future__ import annotations

import re
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.documents.windows import Window, windows

PIPES = "Statement\n\n| Date | Item | Amount |\n|---|---|---|\n" + "".join(
    f"| {d} May | cake | {d}0.00 |\n" for d in range(9))
TABS = "Statement\n\nDate\tItem\tAmount\n" + "".join(f"{d} May\tcake\t{d}0.00\n" for d in range(9))
HEADERS = {PIPES: "| Date | Item | Amount |\n|---|---|---|", TABS: "Date\tItem\tAmount"}


def in_rows(document: str, row: str) -> Window:
    """A window of `document` from `row` on, its table's header (as `windows` finds it) repeated above it."""
    head = document.index(HEADERS[document])
    return Window(1, document.index(row), len(document), (head, head + len(HEADERS[document])))


CASES = [  # (name, document, the row the window starts at, the text of a span of the window (its first place))
    ("a span inside the header", PIPES, "| 8 May", "Amount |"),
    ("a header ending on a cell's text", TABS, "8 May", "Amount"),
    ("the whole header", TABS, "8 May", "Date\tItem\tAmount"),
    ("a span ending on the header's rule, its end", PIPES, "| 8 May", "|---|---|---|"),
    ("a cell of the window's own rows", PIPES, "| 8 May", "cake"),
    ("the window's whole stretch", TABS, "8 May", "8 May\tcake\t80.00\n"),
]


@pytest.mark.parametrize("name, document, row, needle", CASES, ids=[c[0] for c in CASES])
def test_a_span_maps_to_the_same_text_in_the_document(name, document, row, needle) -> None:
    window = in_rows(document, row)
    text, head = window.text(document), window.header[1] - window.header[0]
    a = text.index(needle)
    start, end = window.offset(document, a), window.offset(document, a + len(needle))
    assert document[start:end] == needle
    if a + len(needle) <= head:
        assert window.header[0] <= start <= end <= window.header[1]


@pytest.mark.parametrize("document", [PIPES, TABS])
def test_windows_repeat_the_headers_these_cases_use(document) -> None:
    parts = windows(document, [m.end() for m in re.finditer(r"\S+\s*", document)], 24)
    assert {document[slice(*w.header)] for w in parts if w.header} == {HEADERS[document]}


@pytest.mark.parametrize("document, row", [(PIPES, "| 8 May"), (TABS, "8 May")])
def test_the_header_s_end_maps_to_the_header_s_end(document, row) -> None:
    window = in_rows(document, row)
    head = window.header[1] - window.header[0]
    assert window.offset(document, head) == window.header[1]
    assert window.offset(document, head + 1) == window.start


WORDS = st.sampled_from(["word", "Ünïcödé", "e\u0301te\u0301", "𝔸𝔹", "😀x", "a\u0308\u0323", "12.50", "-3",
                         "C++", "x\u00a0y", "\u200b", "ﬁne"])
SPACES = st.sampled_from([" ", "  ", "\t", "\u3000"])
ENDS = st.sampled_from(["\n", "\r\n", "\n\n", "\r\n\r\n", "\n \n", "\u2028"])
CELLS = st.lists(WORDS, min_size=2, max_size=3)


@st.composite
def lines(draw) -> str:
    """A line of words between spaces."""
    words = draw(st.lists(WORDS, min_size=1, max_size=5))
    return "".join(w + draw(SPACES) for w in words[:-1]) + words[-1]


@st.composite
def tables(draw) -> str:
    """A `|` or tab table: a header, maybe a Markdown rule, rows."""
    bar = draw(st.booleans())
    row = (lambda cells: "| " + " | ".join(cells) + " |") if bar else "\t".join
    rows = [row(draw(CELLS)), *(["|---|---|"] if bar and draw(st.booleans()) else []),
            *(row(draw(CELLS)) for _ in range(draw(st.integers(1, 6))))]
    return draw(st.sampled_from(["\n", "\r\n"])).join(rows)


@st.composite
def documents(draw) -> str:
    """Lines and tables, separated by line breaks and blank lines, maybe with space at both ends."""
    blocks = draw(st.lists(st.one_of(lines(), tables(), tables()), min_size=1, max_size=8))
    body = "".join(b + draw(ENDS) for b in blocks[:-1]) + blocks[-1]
    return draw(st.sampled_from(["", " ", "\n"])) + body + draw(st.sampled_from(["", "\n", " \r\n"]))


@st.composite
def read(draw) -> tuple[str, list[Window]]:
    """A document and its windows, for random token ends and window sizes."""
    document = draw(documents())
    rng = draw(st.randoms(use_true_random=False))
    ends = sorted({min(e, len(document)) for e in accumulate(rng.randint(1, 6) for _ in document)} | {len(document)})
    size = draw(st.integers(4, 40))
    return document, windows(document, ends, size, draw(st.integers(0, size - 1)))


@settings(max_examples=200, deadline=None)
@given(read())
def test_every_span_of_a_window_maps_to_the_same_text(read) -> None:
    """A span inside the header or inside the window's own stretch is that text in the document."""
    document, parts = read
    for window in parts:
        text = window.text(document)
        head = -1 if window.header is None else window.header[1] - window.header[0]
        for a in range(len(text) + 1):
            for b in range(a, len(text) + 1):
                if a <= head < b:
                    continue  # straddles the line break joining the repeated header to the window's stretch
                start, end = window.offset(document, a), window.offset(document, b)
                assert document[start:end] == text[a:b], (window, a, b)
                if b <= head:
                    assert window.header[0] <= start <= end <= window.header[1]


@settings(max_examples=200, deadline=None)
@given(read())
def test_windows_hold_every_character(read) -> None:
    """No character but spacing lies outside every window."""
    document, parts = read
    held = bytearray(len(document))
    for w in parts:
        held[w.start:w.end] = b"\1" * (w.end - w.start)
    assert [i for i, c in enumerate(document) if not c.isspace() and not held[i]] == []
