"""The parts of a long text worth reading: the text cut on a grid of stretches, each scored for how much it holds of
the target (`lexical.py`), and the stretches scoring near the best (with their neighbours) joined into the regions
that are read; the rest of the text is never decoded, so a contract around a buried invoice writes nothing."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

_SPACE = re.compile(r"\s")
WORD = 100
"""Characters an end inside a word moves at most to the word's edge: a text without whitespace is cut there, so
widening every stretch of a long text stays linear."""


def grid(length: int, size: int) -> list[tuple[int, int]]:
    """The stretches of a text of `length` characters, `size` characters each (the last shorter)."""
    if size < 1:
        raise ValueError(f"a stretch of {size} characters holds nothing")
    return [(k, min(k + size, length)) for k in range(0, length, size)]


def counted(scores: Sequence[float], share: float) -> list[int]:
    """The stretches (indices) scoring at least `share` of the best; always the best one. A score that is not a
    number (NaN) never counts; where none is a number, or the best is 0 or less (nothing of the target anywhere),
    every stretch counts (nothing tells them apart)."""
    if not 0 <= share <= 1:
        raise ValueError(f"a share of the best stretch's score must be between 0 and 1, got {share!r}")
    real = [s for s in scores if not math.isnan(s)]
    if not real or max(real) <= 0:
        return list(range(len(scores)))
    bar = max(real) * share
    return [i for i, s in enumerate(scores) if s >= bar]


def regions(text: str, stretches: Sequence[tuple[int, int]], chosen: Sequence[int], pad: int) -> list[tuple[int, int]]:
    """The stretches `chosen` (indices into `stretches`), each widened by `pad` characters on both sides to the
    nearest whitespace (at most `WORD` characters more), joined where they touch or overlap: (start, end) pairs of
    `text`, in order."""
    return joined([_widened(text, stretches[i][0] - pad, stretches[i][1] + pad, WORD) for i in sorted(set(chosen))])


def joined(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans joined where they touch or overlap, in order."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _widened(text: str, start: int, end: int, reach: int) -> tuple[int, int]:
    """[start, end) clipped to the text, each end inside a word moved outward to the word's edge, by at most
    `reach` characters."""
    start, end = max(0, start), min(len(text), end)
    if 0 < start < len(text) and not _SPACE.match(text[start - 1]) and not _SPACE.match(text[start]):
        before = [m.end() for m in _SPACE.finditer(text, max(0, start - reach), start)]
        start = before[-1] if before else max(0, start - reach)
    if 0 < end < len(text) and not _SPACE.match(text[end - 1]) and not _SPACE.match(text[end]):
        found = _SPACE.search(text, end, end + reach)
        end = found.start() if found else min(len(text), end + reach)
    return start, end


def lines(text: str, start: int, end: int, size: int) -> list[tuple[int, int]]:
    """The text's lines that overlap [start, end), whole (a line running past either end is kept to its own ends),
    blank ones left out; a line longer than `size` characters is cut into pieces of `size` counted from its start
    (a wider range gives the same pieces where the two overlap), only those overlapping the range kept: (start, end)
    pairs of `text`, in order."""
    if size < 1:
        raise ValueError(f"a piece of {size} characters holds nothing")
    at = text.rfind("\n", 0, max(0, start)) + 1
    out: list[tuple[int, int]] = []
    while at < min(end, len(text)):
        stop = text.find("\n", at)
        stop = len(text) if stop < 0 else stop
        first = at + max(0, start - at) // size * size
        out += [(a, min(a + size, stop)) for a in range(first, min(stop, end), size)
                if not text[a:min(a + size, stop)].isspace()]
        at = stop + 1
    return out


def best_run(scores: Sequence[float], anchor: int) -> tuple[int, int]:
    """The run of consecutive items holding `anchor` whose scores add up to the most (the first and last index):
    the anchor, grown on each side while what it takes in adds more than it costs."""
    if not 0 <= anchor < len(scores):
        raise IndexError(f"anchor {anchor} of {len(scores)} scores")
    lo, best, total = anchor, float("-inf"), 0.0
    for i in range(anchor, -1, -1):
        total += scores[i]
        if total > best:
            lo, best = i, total
    hi, best, total = anchor, 0.0, 0.0
    for i in range(anchor + 1, len(scores)):
        total += scores[i]
        if total > best:
            hi, best = i, total
    return lo, hi
