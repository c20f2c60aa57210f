"""Normalized views of a text, each character of a view mapped back to the span of the text it came from.

A value is looked for in the text as written, then in two views: `folded` (Unicode compatibility forms, case
and runs of whitespace ignored) and `words` (accents and punctuation ignored too: only the words and their
order count). A view is built on the first search that needs it, one pass over the text. Combining marks stay
with their base character, so a span never splits a character from its accents.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

MAX_SPANS = 100
"""Occurrences listed per value at most (the count of all of them is kept): bounded on any text."""


@dataclass(frozen=True)
class View:
    """A normalized form of a text; `starts[i]:ends[i]` is the text span character i of the form came from."""

    form: str
    starts: array
    ends: array

    def find(self, needle: str) -> tuple[list[tuple[int, int]], int]:
        """Spans of the text where the view holds `needle` cutting no word in two (at most MAX_SPANS, in order),
        and how many there are."""
        spans, count = [], 0
        for at in occurrences(self.form, needle):
            count += 1
            if len(spans) < MAX_SPANS:
                spans.append((self.starts[at], self.ends[at + len(needle) - 1]))
        return spans, count


def occurrences(form: str, needle: str) -> Iterator[int]:
    """Where `form` holds `needle` without cutting a word in two (where the needle's own edge is a word's)."""
    at = form.find(needle) if needle else -1
    while at >= 0:
        end = at + len(needle)
        if not (needle[0].isalnum() and at > 0 and form[at - 1].isalnum()) and not (
                needle[-1].isalnum() and end < len(form) and form[end].isalnum()):
            yield at
        at = form.find(needle, at + 1)


def clusters(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each base character with the combining marks after it."""
    start, n = 0, len(text)
    while start < n:
        end = start + 1
        while end < n and unicodedata.combining(text[end]):
            end += 1
        yield start, end
        start = end


def fold(text: str) -> str:
    """The folded form of a value, as `folded_view` reads the text."""
    return folded_view(text).form.strip()


def words(text: str) -> str:
    """The words form of a value, as `words_view` reads the text."""
    return words_view(text).form.strip()


def folded_view(text: str) -> View:
    """The text folded as `fold` folds a value, each character mapped to its cluster."""
    return _build(text, _fold_cluster, space=lambda c: c.isspace())


def words_view(text: str) -> View:
    """The text as `words` reads a value: runs of non-word characters are one space."""
    return _build(text, _word_cluster, space=lambda c: not _is_word(c))


def _fold_cluster(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece).casefold()


def _word_cluster(piece: str) -> str:
    out = "".join(c for c in unicodedata.normalize("NFKD", _fold_cluster(piece)) if not unicodedata.combining(c))
    return "".join(c if _is_word(c) else " " for c in out)


def _is_word(c: str) -> bool:
    return c.isalnum()


def _build(text: str, convert, space) -> View:
    """One pass over the clusters: each converted, whitespace (as `space` judges it) collapsed to one space."""
    out: list[str] = []
    starts, ends = array("q"), array("q")
    for start, end in clusters(text):
        piece = text[start:end]
        converted = " " if space(piece[0]) else convert(piece)
        for c in converted:
            if c == " " or space(c):
                if not out or out[-1] == " ":
                    continue
                c = " "
            out.append(c)
            starts.append(start)
            ends.append(end)
    return View("".join(out), starts, ends)
