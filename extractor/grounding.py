"""Which extracted strings do not occur in the source: the opt-in check for fields not marked Verbatim."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from extractor.schema import Refusal, json_schema


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
    schema = json_schema(target) if target is not None else {}
    haystack = _fold(text)
    out: list[Ungrounded] = []
    for path, value, sub in _strings(result, schema, schema, ""):
        if not _fixed(sub, schema) and _fold(value) not in haystack:
            out.append(Ungrounded(path, value))
    return out


def _fold(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip().casefold()


def _strings(value: Any, sub: Any, root: dict[str, Any], path: str) -> Iterator[tuple[str, str, Any]]:
    """(pointer, string, its subschema) for every string leaf, following the schema alongside."""
    if isinstance(value, str):
        yield path, value, sub
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, _member(sub, key, root), root, f"{path}/{_escape(key)}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, _item(sub, i, root), root, f"{path}/{i}")


def _resolve(sub: Any, root: dict[str, Any]) -> list[dict[str, Any]]:
    """The schema and the branches it may stand for ($ref, anyOf, oneOf, allOf), flattened."""
    if not isinstance(sub, dict):
        return []
    if "$ref" in sub and sub["$ref"].startswith("#/"):
        target: Any = root
        for part in sub["$ref"][2:].split("/"):
            target = target.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(target, dict) else {}
        return [sub, *_resolve(target, root)]
    out = [sub]
    for key in ("anyOf", "oneOf", "allOf"):
        for branch in sub.get(key, []):
            out += _resolve(branch, root)
    return out


def _member(sub: Any, key: str, root: dict[str, Any]) -> Any:
    for s in _resolve(sub, root):
        if key in s.get("properties", {}):
            return s["properties"][key]
    return None


def _item(sub: Any, index: int, root: dict[str, Any]) -> Any:
    for s in _resolve(sub, root):
        prefix = s.get("prefixItems", [])
        if index < len(prefix):
            return prefix[index]
        if isinstance(s.get("items"), dict):
            return s["items"]
    return None


def _fixed(sub: Any, root: dict[str, Any]) -> bool:
    """The schema itself supplies or checks the value: enum/const, or Verbatim."""
    return any("enum" in s or "const" in s or s.get("x-verbatim") for s in _resolve(sub, root))


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")
