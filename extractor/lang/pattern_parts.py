"""A `pattern` rewritten into parts the automata take exactly, where the pattern as written would be refused or
unrolled into too many states.

- Leading lookaheads of an anchored pattern, `^(?=X)(?!Y)Z`: the string matches `^Z`, also `^X`, and not `^Y`
  (an intersection and a complement of automata, as for `allOf` and `not`).
- A pattern that is one character class repeated, `^[^\\r\\n]{3,4357}$`: the class's star and a length bound,
  counted beside the automaton instead of unrolled (ECMA-262 with the `u` flag counts code points, as
  `minLength` does).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Parts:
    """The strings a pattern admits: those matching every `patterns`, none of `anti_patterns`, within lengths."""

    patterns: tuple[str, ...]
    anti_patterns: tuple[str, ...] = ()
    min_length: int = 0
    max_length: int | None = None


_ATOM = r"""(?:\[(?:\\.|[^\]\\])+\]|\\[pP]\{[^}]*\}|\\u\{[0-9a-fA-F]+\}|\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|\\.|\.|[^\\\[\](){}|*+?^$.])"""
_REPEATED = re.compile(rf"\^({_ATOM})\{{(\d+)(,?)(\d*)\}}\$\Z")
"""`^` one character (a class, an escape, `.` or a literal) `{m}`, `{m,}` or `{m,n}` `$`."""


def split(pattern: str, count_from: int = 64) -> Parts:
    """The parts of `pattern` (itself alone where no rewriting applies); `count_from`: the smallest repetition
    bound worth counting instead of unrolling."""
    core, must, must_not = pattern, [], []
    alternatives = any(c == "|" and depth == 0 for _, c, depth in _structure(pattern))
    while not alternatives and core.startswith(("^(?=", "^(?!")):  # `^(?=X)a|b`: the lookahead binds `a` only
        end = group_end(core, 1)
        if end is None:
            break
        (must if core[3] == "=" else must_not).append(_anchored(core[4:end]))
        core = "^" + core[end + 1:]
    lo, hi = 0, None
    repeated = _REPEATED.match(core)
    if repeated and max(int(repeated[2]), int(repeated[4] or 0)) > count_from:
        atom, lo = repeated[1], int(repeated[2])
        hi = lo if not repeated[3] else (int(repeated[4]) if repeated[4] else None)
        core = f"^{atom}*$"
    return Parts((core, *must), tuple(must_not), lo, hi)


def group_end(text: str, start: int) -> int | None:
    """The index of the `)` closing the group opened at `start`."""
    return next((i for i, c, depth in _structure(text, start) if c == ")" and depth == 0), None)


def _anchored(body: str) -> str:
    """A lookahead's body as a pattern matched from the start of the string."""
    if any(c == "|" and depth == 0 for _, c, depth in _structure(body)):
        return f"^(?:{body})"
    return body if body.startswith("^") else "^" + body


def _structure(text: str, start: int = 0) -> Iterator[tuple[int, str, int]]:
    """(index, character, groups open around it) for each character outside escapes and character classes."""
    depth, i, in_class = 0, start, False
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        else:
            depth -= c == ")"
            yield i, c, depth
            depth += c == "("
        i += 1
