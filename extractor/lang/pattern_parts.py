"""A `pattern` rewritten into parts the automata take exactly, where the pattern as written would be refused or
unrolled into too many states.

- Leading lookaheads of an anchored pattern, `^(?=X)(?!Y)Z`: the string matches `^Z`, also `^X`, and not `^Y`
  (an intersection and a complement of automata, as for `allOf` and `not`).
- A tempered repeat, `^(?:(?!X)C)+$`: the string matches `^C+$` and holds no match of `X` (a complement).
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


MAX_LOOKAHEADS = 32
"""Leading lookaheads rewritten at most (each rewrite rescans the pattern); any more are left to the parser."""

_LITERAL = re.compile(r"\^((?:[^\\\[\](){}|*+?^$.]|\\[^A-Za-z0-9])*)\(\?[=!]")
"""`^`, a plain literal (no class, group or quantifier), then a lookahead: the lookahead's position is fixed."""


def split(pattern: str, count_from: int = 64) -> Parts:
    """The parts of `pattern` (itself alone where no rewriting applies); `count_from`: the smallest repetition
    bound worth counting instead of unrolling."""
    core, must, must_not = _end_anchor_out(pattern), [], []
    alternatives = any(c == "|" and depth == 0 for _, c, depth in _structure(core))
    while not alternatives and len(must) + len(must_not) < MAX_LOOKAHEADS and (head := _LITERAL.match(core)):
        # (`^(?=X)a|b`: the lookahead binds `a` only, so none is taken where there is a top-level `|`)
        start = head.end() - 3
        end = group_end(core, start)
        if end is None:
            break
        (must if core[start + 2] == "=" else must_not).append(_end_anchor_out(_anchored(head[1], core[start + 3:end])))
        core = "^" + head[1] + core[end + 1:]
    if not must and not must_not and (tempered := _tempered(core)) is not None:
        core, avoided = tempered
        must_not.append(avoided)
    lo, hi = 0, None
    repeated = _REPEATED.match(core)
    if repeated and max(int(repeated[2]), int(repeated[4] or 0)) > count_from:
        atom, lo = repeated[1], int(repeated[2])
        hi = lo if not repeated[3] else (int(repeated[4]) if repeated[4] else None)
        core = f"^{atom}*$"
    return Parts((core, *must), tuple(must_not), lo, hi)


_TEMPERED_TAIL = re.compile(rf"({_ATOM})\)([*+]|\{{\d+(?:,\d*)?\}})\$\Z")
_NON_EMPTY_HEAD = re.compile(rf"{_ATOM}(?![*?]|\{{0)")


def _tempered(core: str) -> tuple[str, str] | None:
    """`^(?:(?!X)C)Q$` (one character `C` repeated, none where `X` starts): `^CQ$`, and `X` found nowhere in
    the string. Taken only where `X` cannot match the empty string (it starts with a character that must be
    there) and has no top-level `|`."""
    if not core.startswith("^(?:(?!") or (end := group_end(core, 4)) is None:
        return None
    avoided, tail = core[7:end], _TEMPERED_TAIL.match(core, end + 1)
    if tail is None or not _NON_EMPTY_HEAD.match(avoided) or \
            any(c == "|" and depth == 0 for _, c, depth in _structure(avoided)):
        return None
    return f"^{tail[1]}{tail[2]}$", avoided


def _end_anchor_out(pattern: str) -> str:
    """`$` moved out of the groups that close each top-level alternative (`^a(b$)|c` -> `^a(b)$|c`), where
    those groups hold no alternation and are not repeated: the same language, in the form the parser takes."""
    bars = [i for i, c, depth in _structure(pattern) if c == "|" and depth == 0]
    pieces, start = [], 0
    for end in [*bars, len(pattern)]:
        piece = pattern[start:end]
        while piece.endswith("$)") and _closing_group_plain(piece):
            piece = piece[:-2] + ")$"
        pieces.append(piece)
        start = end + 1
    return "|".join(pieces)


def _closing_group_plain(piece: str) -> bool:
    """Whether the group closed by `piece`'s last `)` is a plain group (no lookaround) with no top-level `|`
    (it ends the piece: not repeated), and its `$` is not escaped."""
    if piece.endswith("\\$)"):
        return False
    opened: list[int] = []
    start = None
    for i, c, _ in _structure(piece):  # one pass: the `(` that the last `)` closes
        if c == "(":
            opened.append(i)
        elif c == ")":
            start = opened.pop() if opened else None
    if start is None or piece.startswith(("(?=", "(?!", "(?<=", "(?<!"), start):  # a lookaround is no group
        return False
    body = piece[start + 1:-1]
    return not any(c == "|" and depth == 0 for _, c, depth in _structure(body))


def group_end(text: str, start: int) -> int | None:
    """The index of the `)` closing the group opened at `start`."""
    return next((i for i, c, depth in _structure(text, start) if c == ")" and depth == 0), None)


def _anchored(prefix: str, body: str) -> str:
    """A lookahead's body as a pattern matched from the start of the string, after the literal `prefix`."""
    if not prefix and body.startswith("^") and not any(c == "|" and depth == 0 for _, c, depth in _structure(body)):
        return body
    return f"^{prefix}(?:{body})"


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
