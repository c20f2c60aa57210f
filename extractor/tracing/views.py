"""Normalized views of a text, each character of a view mapped back to the span of the text it came from.

A value is looked for in the text as written, then in two views: `folded` (Unicode compatibility forms, case
and runs of whitespace ignored) and `words` (accents and punctuation ignored too: only the words and their
order count). A view is built on the first search that needs it, one pass over the text. Combining marks stay
with their base character, so a span never splits a character from its accents. Both views, and the `visible`
form, leave out the text's invisible format characters (Unicode category Cf: a soft hyphen, zero-width spaces
and joiners, the word joiner, a byte-order mark, as PDF text holds them inside words); a span over a value found
through them covers them.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

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
        starts, count = occurrences(self.form, needle)
        return [(self.starts[at], self.ends[at + len(needle) - 1]) for at in starts], count


def occurrences(form: str, needle: str, limit: int = MAX_SPANS) -> tuple[list[int], int]:
    """Where `form` holds `needle` without cutting a word in two (where the needle's own edge is a word's): the
    first `limit` places, in order, and how many there are. Linear in the two lengths however often the needle
    repeats (`a` * 5,000 in `a` * 1,000,000): a run of overlapping occurrences is measured, not walked."""
    starts: list[int] = []
    count, size = 0, len(needle)
    step = period(needle) if needle else 0
    at = form.find(needle) if needle else -1
    while at >= 0:
        last = at + (_periodic(form, at + size, step) - at - size) // step * step  # at, at + step, ... last
        inner = range(at + step, last, step)  # each between the first and the last has the same neighbours
        for run in (range(at, at + 1), inner, range(last, last + 1) if last > at else range(0)):
            if run and _whole(form, needle, run[0]):
                count += len(run)
                starts.extend(run[:max(0, limit - len(starts))])
        at = form.find(needle, last + 1)
    return starts, count


def period(s: str) -> int:
    """The shortest shift that maps `s` onto itself where they overlap (`len(s)` where none is shorter): the
    least distance between two occurrences of `s`."""
    border, k = [0] * len(s), 0
    for i in range(1, len(s)):
        while k and s[i] != s[k]:
            k = border[k - 1]
        if s[i] == s[k]:
            k += 1
        border[i] = k
    return len(s) - border[-1]


def _periodic(form: str, at: int, step: int) -> int:
    """The first position from `at` on where `form` stops repeating the character `step` places back (the
    end where it never does), found by slices that double while they agree and halve when they do not."""
    n, width = len(form), 1
    while at < n:
        width = min(width, n - at)
        if form[at:at + width] == form[at - step:at - step + width]:
            at, width = at + width, width * 2
        elif width == 1:
            return at
        else:
            width //= 2
    return n


def _whole(form: str, needle: str, at: int) -> bool:
    """Whether the occurrence of `needle` at `at` cuts no word in two."""
    end = at + len(needle)
    return not (needle[0].isalnum() and at > 0 and form[at - 1].isalnum()) and not (
        needle[-1].isalnum() and end < len(form) and form[end].isalnum())


def hidden(text: str) -> str:
    """The text's invisible format characters (Unicode category Cf), each once."""
    return "".join(c for c in set(text) if unicodedata.category(c) == "Cf")


def visible(text: str) -> str:
    """The text without its invisible format characters."""
    gone = hidden(text)
    return text.translate(dict.fromkeys(map(ord, gone))) if gone else text


def visible_view(text: str) -> View:
    """The text without its invisible format characters, each character mapped to itself; empty where it holds
    none (the view would be the text itself, searched already as written)."""
    gone = hidden(text)
    if not gone:
        return View("", array("q"), array("q"))
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    kept = np.flatnonzero(~np.isin(codes, np.array([ord(c) for c in gone], dtype=np.uint32)))
    return View(codes[kept].tobytes().decode("utf-32-le", "surrogatepass"), *_own(kept))


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
    if text.isascii():
        return _ascii(text, _ASCII_SPACE)
    return _build(text, _fold_cluster, str.isspace)


def words_view(text: str) -> View:
    """The text as `words` reads a value: runs of non-word characters are one space."""
    if text.isascii():
        return _ascii(text, ~_ASCII_WORD)
    return _build(text, _word_cluster, _not_word)


def _fold_cluster(piece: str) -> str:
    return unicodedata.normalize("NFKC", piece).casefold()


def _word_cluster(piece: str) -> str:
    out = "".join(c for c in unicodedata.normalize("NFKD", _fold_cluster(piece)) if not unicodedata.combining(c))
    return "".join(c if _is_word(c) else " " for c in out)


def _is_word(c: str) -> bool:
    return c.isalnum()


def _not_word(c: str) -> bool:
    return not c.isalnum()


_ASCII_SPACE = np.array([chr(i).isspace() for i in range(128)])
_ASCII_WORD = np.array([_is_word(chr(i)) for i in range(128)])


def _ascii(text: str, blank: np.ndarray) -> View:
    """`_build` of an ASCII text in whole-array steps (each character its own cluster, folded by `lower`, a
    blank one of `blank`): a million characters in milliseconds, where the loop takes seconds."""
    data = np.frombuffer(text.lower().encode("ascii"), dtype=np.uint8)
    gap = blank[data]
    keep = ~gap
    keep[1:] |= ~gap[:-1]  # a blank is kept where it follows a kept character: one space per run, none first
    at = np.flatnonzero(keep)
    form = np.where(gap, ord(" "), data)[at].astype(np.uint8).tobytes().decode("ascii")
    return View(form, *_own(at))


def _own(at: np.ndarray) -> tuple[array, array]:
    """A view's starts and ends where each of its characters is the text's character at `at` alone."""
    at = at.astype(np.int64)
    return array("q", at.tobytes()), array("q", (at + 1).tobytes())


def _build(text: str, convert, space) -> View:
    """One pass over the clusters: each converted, whitespace (as `space` judges it) collapsed to one space."""
    out: list[str] = []
    starts, ends = array("q"), array("q")
    gone = hidden(text)
    for start, end in clusters(text):
        piece = text[start:end]
        if piece[0] in gone:
            continue
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
