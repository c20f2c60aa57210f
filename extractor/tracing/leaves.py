"""The leaf values of a result, each with its JSON pointer and what the schema says of it; and where each leaf's
text lies in the decoder's output bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from extractor.lang.pattern import pattern_matches
from extractor.schema import ir


@dataclass(frozen=True)
class Leaf:
    """One scalar of a result: where it is, its value, and how the schema constrains it."""

    pointer: str
    value: Any
    fixed: bool
    """The schema spells the value (an enum or const member, a boolean): the text need not hold it."""
    verbatim: bool
    """A `Verbatim` string: the grammar let the decoder write nothing but a substring of the text."""
    marked: bool
    """Under a member marked `FromText`: it must be found in the text."""
    textual: bool
    """A string or number the model wrote (not fixed, not null, not empty): the text should hold it."""
    top: str
    """The top-level member it belongs to ("" for a scalar result)."""


def leaves(value: Any, schema: ir.Schema) -> list[Leaf]:
    """Every scalar of `value` (its JSON form), depth first in document order, read beside the schema's IR."""
    out: list[Leaf] = []
    stack: list[tuple[Any, ir.Node | None, str, bool, str]] = [(value, schema.root, "", False, "")]
    while stack:
        item, node, pointer, marked, top = stack.pop()
        if isinstance(item, dict):
            members = []
            for key, sub in item.items():
                child, mark = _member(node, key, schema.defs)
                members.append((sub, child, f"{pointer}/{escape(key)}", marked or mark, top or key))
            stack.extend(reversed(members))
        elif isinstance(item, list):
            stack.extend(reversed([(sub, _item(node, i, schema.defs), f"{pointer}/{i}", marked, top)
                                   for i, sub in enumerate(item)]))
        else:
            options = shapes(node, schema.defs)
            fixed = isinstance(item, bool) or any(isinstance(n, ir.Const) for n in options)
            verbatim = isinstance(item, str) and any(isinstance(n, ir.String) and n.verbatim for n in options)
            textual = not fixed and item is not None and (not isinstance(item, str) or bool(item.strip()))
            out.append(Leaf(pointer, item, fixed, verbatim, marked, textual, top))
    return out


def escape(key: str) -> str:
    """A key as one JSON pointer token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def shapes(node: ir.Node | None, defs: dict[str, ir.Node]) -> list[ir.Node]:
    """The shapes a node may stand for: references resolved, union options flattened, in order."""
    out, stack, seen = [], [node], set()
    while stack:
        n = stack.pop()
        if isinstance(n, ir.Ref) and n.name not in seen:
            seen.add(n.name)
            stack.append(defs.get(n.name))
        elif isinstance(n, ir.Union_):
            stack.extend(reversed(n.options))
        elif n is not None and not isinstance(n, ir.Ref):
            out.append(n)
    return out


def _member(node: ir.Node | None, key: str, defs: dict[str, ir.Node]) -> tuple[ir.Node | None, bool]:
    """The schema of an object's member (a declared property, else its pattern group's or undeclared keys'), and
    whether the property is marked `FromText`."""
    objects = [n for n in shapes(node, defs) if isinstance(n, ir.Object)]
    for obj in objects:
        for prop in obj.properties:
            if prop.name == key:
                return prop.value, prop.doc.from_text
    for obj in objects:
        matched = tuple(p for group, _ in obj.pattern_groups for p in group if pattern_matches(p, key))
        for group, sub in obj.pattern_groups:
            if set(group) == set(matched):
                return sub, False
        if obj.additional is not None:
            return obj.additional, False
    return None, False


def _item(node: ir.Node | None, index: int, defs: dict[str, ir.Node]) -> ir.Node | None:
    for arr in (n for n in shapes(node, defs) if isinstance(n, ir.Array)):
        if index < len(arr.prefix):
            return arr.prefix[index]
        if arr.items is not None:
            return arr.items
    return None


_WS = b" \t\r\n"


def output_ranges(data: bytes, containers: bool = False) -> dict[str, tuple[int, int]]:
    """JSON pointer -> (start, end) in `data` of each scalar's text: a string's content between its quotes, a
    number or literal whole; with `containers`, each object and array too, brackets included. `data` is one
    complete JSON value; anything else gives what was read before it."""
    out: dict[str, tuple[int, int]] = {}
    path: list[Any] = []  # per open container: the current key (str) or index (int)
    objects: list[bool] = []
    opened: list[int] = []  # per open container: where it starts
    expect_key, i, n = False, 0, len(data)
    while i < n:
        byte = data[i]
        if byte in _WS or byte == 0x3A:  # whitespace, `:`
            i += 1
        elif byte == 0x22:  # a string: a key or a value
            end = _string_end(data, i + 1)
            if expect_key:
                path[-1] = json.loads(data[i:end + 1])
                expect_key = False
            else:
                out[_pointer(path)] = (i + 1, end)
            i = end + 1
        elif byte in (0x7B, 0x5B):  # { [
            objects.append(byte == 0x7B)
            path.append("" if byte == 0x7B else 0)
            opened.append(i)
            expect_key = byte == 0x7B
            i += 1
        elif byte in (0x7D, 0x5D):  # } ]
            objects.pop()
            path.pop()
            start = opened.pop()
            if containers:
                out[_pointer(path)] = (start, i + 1)
            expect_key = False
            i += 1
        elif byte == 0x2C:  # ,
            if objects and objects[-1]:
                expect_key = True
            elif objects:
                path[-1] += 1
            i += 1
        else:  # a number or literal
            end = i
            while end < n and data[end] not in b",}] \t\r\n":
                end += 1
            out[_pointer(path)] = (i, end)
            i = end
    return out


def _string_end(data: bytes, i: int) -> int:
    """The index of the quote closing the string whose content starts at `i`."""
    while i < len(data):
        if data[i] == 0x5C:
            i += 2
        elif data[i] == 0x22:
            return i
        else:
            i += 1
    return len(data)


def _pointer(path: list[Any]) -> str:
    return "".join(f"/{escape(p) if isinstance(p, str) else p}" for p in path)
