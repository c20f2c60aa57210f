"""Which extracted strings do not occur in the source: the opt-in check for fields not marked Verbatim."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from extractor.lang.pattern import pattern_matches
from extractor.schema import Refusal, ir, target_ir


@dataclass(frozen=True)
class Ungrounded:
    """A string value the text does not contain; `path` is a JSON pointer into the result."""

    path: str
    value: str


def ungrounded(result: Any, text: str, target: Any = None) -> list[Ungrounded]:
    """String values of `result` that occur nowhere in `text` (ignoring case and runs of whitespace).

    A grammar can force a value's shape, not its truth: a small model asked for a field the text
    lacks writes something plausible. Values fixed by the schema (enum, const, Literal) and Verbatim
    fields (enforced while decoding) are not reported. `target` is the model or JSON Schema the
    result came from (taken from a Pydantic result when omitted)."""
    if isinstance(result, Refusal):
        return []  # the model declined: nothing was extracted
    if isinstance(result, BaseModel):
        target = type(result) if target is None else target
        result = result.model_dump(mode="json")
    schema = target_ir(target, None) if target is not None else ir.Schema(ir.AnyValue())
    haystack = _fold(text)
    out: list[Ungrounded] = []
    for path, value, node in _strings(result, schema.root, schema.defs, ""):
        if not _fixed(node, schema.defs) and _fold(value) not in haystack:
            out.append(Ungrounded(path, value))
    return out


def _fold(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().casefold()


def _strings(value: Any, node: ir.Node | None, defs: dict[str, ir.Node],
             path: str) -> Iterator[tuple[str, str, ir.Node | None]]:
    """(pointer, string, the IR node it was generated from) for every string leaf, following the IR alongside."""
    if isinstance(value, str):
        yield path, value, node
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, _member(node, key, defs), defs, f"{path}/{_escape(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, _item(node, i, defs), defs, f"{path}/{i}")


def _options(node: ir.Node | None, defs: dict[str, ir.Node]) -> list[ir.Node]:
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


def _member(node: ir.Node | None, key: str, defs: dict[str, ir.Node]) -> ir.Node | None:
    """The schema of an object's member: a declared property, else the pattern group or undeclared keys'."""
    objects = [n for n in _options(node, defs) if isinstance(n, ir.Object)]
    for obj in objects:
        for prop in obj.properties:
            if prop.name == key:
                return prop.value
    for obj in objects:
        matched = tuple(p for group, _ in obj.pattern_groups for p in group if pattern_matches(p, key))
        for group, sub in obj.pattern_groups:
            if set(group) == set(matched):
                return sub
        if obj.additional is not None:
            return obj.additional
    return None


def _item(node: ir.Node | None, index: int, defs: dict[str, ir.Node]) -> ir.Node | None:
    for arr in (n for n in _options(node, defs) if isinstance(n, ir.Array)):
        if index < len(arr.prefix):
            return arr.prefix[index]
        if arr.items is not None:
            return arr.items
    return None


def _fixed(node: ir.Node | None, defs: dict[str, ir.Node]) -> bool:
    """The schema itself supplies or checks the value: enum/const, or Verbatim."""
    return any(isinstance(n, ir.Const) or isinstance(n, ir.String) and n.verbatim for n in _options(node, defs))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
