"""Windows over a text too long for one prompt: cut on the text's own structure (blank lines, lines, sentences,
words), counted in the model's tokens, overlapping by a few tokens, a table's header repeated above its rows."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

BREAKS = ((re.compile(r"\n[ \t]*\n\s*|\n(?=#{1,6} |[A-Z0-9][A-Z0-9 .,&'-]{2,60}\n)"), 4),
          (re.compile(r"\n\s*"), 3),
          (re.compile(r"(?<=[.!?;:])[\"')\]]*\s+"), 2),
          (re.compile(r"(?<=[,)])\s+"), 1),
          (re.compile(r"\s+"), 0))
"""Where a window may end, strongest first: a blank line or a heading (a `#` line or a short line in capitals),
a line break, a sentence's end, a clause's end, any whitespace. A window ends at the strongest break that
leaves it at least half full, and the next starts after the whitespace."""
_ROW = re.compile(r"^[^\n]*(\|[^\n]*\||\t[^\n]*\t)[^\n]*$", re.MULTILINE)
"""A table row: a line with two or more `|` or tab cells."""
_RULE = re.compile(r"^[\s|:+-]*-[\s|:+-]*$")
"""A Markdown table's rule under its header (`|---|:--:|`)."""


@dataclass(frozen=True)
class Window:
    """One stretch of the document an extraction reads: `document[start:end]`, after the header row of the
    table it starts inside (`document[header[0]:header[1]]`, repeated so its rows keep their columns' names)."""

    index: int
    start: int
    end: int
    header: tuple[int, int] | None = None

    def text(self, document: str) -> str:
        """The window's text as the model reads it."""
        head = "" if self.header is None else document[self.header[0]:self.header[1]] + "\n"
        return head + document[self.start:self.end]

    def offset(self, document: str, at: int) -> int:
        """Where position `at` of the window's text lies in the document, as a span's start or its end: the
        header's end (`at` its length, where the repeated header's line break stands) is the header's end in
        the document, so a span ending on the header's last cell stays inside the header."""
        if self.header is None:
            return self.start + at
        head = self.header[1] - self.header[0]
        return self.header[0] + at if at <= head else self.start + at - head - 1


def windows(document: str, token_ends: Sequence[int], size: int, overlap: int = 0) -> list[Window]:
    """Windows of at most `size` tokens covering `document`, each after the first starting about `overlap` tokens
    before the previous one ended (at a break, so no word is cut). `token_ends[i]` is where the document's token
    `i` ends (ascending, the last at `len(document)`). A stretch with no whitespace longer than a window is cut
    between tokens. Linear in the document's length."""
    if size < 1 or overlap < 0 or overlap >= size:
        raise ValueError(f"a window of {size} tokens cannot overlap by {overlap}")
    breaks, tables = _breaks(document), _Tables(document)
    last = len(document.rstrip())
    out: list[Window] = []
    start = _skip_space(document, 0)
    while start < last:
        header = tables.header(start)
        budget = size - (_tokens(token_ends, *header) + 1 if header else 0)
        if budget < max(1, size // 2):  # a header too long to repeat is left out
            header, budget = None, size
        limit = _reach(token_ends, start, budget)
        if limit >= last:
            out.append(Window(len(out), start, last, header))
            break
        end, after = _cut(breaks, start + max(1, (limit - start) // 2), limit) or (limit, limit)
        out.append(Window(len(out), start, end, header))
        back = _cut(breaks, _back(token_ends, end, overlap), end - 1, earliest=True) if overlap else None
        start = _skip_space(document, back[1] if back is not None and back[1] > start else after)
    return out


def _breaks(document: str) -> list[tuple[int, int, int]]:
    """Every place a window may end, as (position before the break's whitespace, strength, position after it)."""
    found: dict[int, tuple[int, int]] = {}
    for pattern, strength in BREAKS:
        for m in pattern.finditer(document):
            if m.start() > 0 and (m.start() not in found or found[m.start()][0] < strength):
                found[m.start()] = (strength, m.end())
    return sorted((at, strength, after) for at, (strength, after) in found.items())


def _cut(breaks: list[tuple[int, int, int]], low: int, high: int, earliest: bool = False) -> tuple[int, int] | None:
    """The strongest break that ends a window in [low, high] (the latest of equals, or the earliest), as
    (where the window ends, where the next may start); None where there is none."""
    best: tuple[int, int, int] | None = None
    for brk in breaks[bisect_left(breaks, (low, -1, -1)):bisect_right(breaks, (high, 99, 0))]:
        if best is None or brk[1] > best[1] or (brk[1] == best[1] and not earliest):
            best = brk
    return None if best is None else (best[0], best[2])


def _tokens(token_ends: Sequence[int], start: int, end: int) -> int:
    """How many tokens end inside document[start:end]."""
    return bisect_right(token_ends, end) - bisect_right(token_ends, start)


def _reach(token_ends: Sequence[int], start: int, budget: int) -> int:
    """The furthest position `budget` tokens from `start` reach."""
    first = bisect_right(token_ends, start)
    return token_ends[min(first + budget, len(token_ends)) - 1] if first < len(token_ends) else start


def _back(token_ends: Sequence[int], end: int, count: int) -> int:
    """The position `count` tokens before `end`."""
    last = bisect_right(token_ends, end)
    return token_ends[last - count - 1] if last - count > 0 else 0


def _skip_space(document: str, at: int) -> int:
    while at < len(document) and document[at].isspace():
        at += 1
    return at


class _Tables:
    """The document's tables: runs of two or more rows, each with its header (the first row, and a Markdown
    `|---|` rule under it)."""

    def __init__(self, document: str) -> None:
        runs: list[list[int]] = []  # [start, end, rows, header end]
        for m in _ROW.finditer(document):
            if runs and document[runs[-1][1]:m.start()].strip() == "":
                run = runs[-1]
                run[1], run[2] = m.end(), run[2] + 1
                if run[2] == 2 and _RULE.match(m.group()):
                    run[3] = m.end()
            else:
                runs.append([m.start(), m.end(), 1, m.end()])
        self.runs = [(a, b, (a, head)) for a, b, rows, head in runs if rows >= 2]
        self.starts = [a for a, _, _ in self.runs]

    def header(self, at: int) -> tuple[int, int] | None:
        """The header of the table `at` lies inside, below its header; None elsewhere."""
        i = bisect_right(self.starts, at) - 1
        if i >= 0 and self.runs[i][2][1] < at < self.runs[i][1]:
            return self.runs[i][2]
        return None
