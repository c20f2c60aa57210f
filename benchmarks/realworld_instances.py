"""Candidate instances of a JSON Schema built straight from its keywords, for the schemas hypothesis-jsonschema
cannot draw from (recursive references, slow canonicalization). Nothing here decides validity: every candidate is
checked by jsonschema afterwards and only the valid ones are kept (benchmarks/realworld_collect.py).

A candidate takes the required keys of an object (and, when `full`, its other declared properties), the shortest
arrays the bounds allow (at least one item when `full`), the first option of a union that yields a value the
option's own keywords admit, an enum's or const's value, a string from its format or pattern (rstr) padded to its
length bounds, and a number inside its bounds. Depth is capped, so recursive schemas end.
"""

from __future__ import annotations

import random
import re
from typing import Any

FORMATS = {
    "date-time": "2024-05-06T07:08:09Z", "date": "2024-05-06", "time": "07:08:09Z", "email": "ada@example.com",
    "idn-email": "ada@example.com", "hostname": "example.com", "idn-hostname": "example.com", "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1", "uri": "https://example.com/a", "uri-reference": "/a/b", "iri": "https://example.com/a",
    "iri-reference": "/a", "uuid": "123e4567-e89b-42d3-a456-426614174000", "duration": "P1D",
    "json-pointer": "/a/0", "relative-json-pointer": "0/a", "regex": "^a+$", "uri-template": "/a/{b}",
}
MAX_DEPTH = 14
BUDGET = 400
"""Values one candidate may hold before only required keys and minimal arrays are added (wide schemas)."""


class Candidates:
    """Values built from one root schema; `rng` makes the choices (enum values, union order, pattern strings)."""

    def __init__(self, root: Any, rng: random.Random) -> None:
        import rstr

        self.root, self.rng, self.xeger = root, rng, rstr.Rstr(rng).xeger
        self.budget = BUDGET

    def resolve(self, schema: Any) -> Any:
        seen = 0
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and seen < 50:
            ref, seen = schema["$ref"], seen + 1
            if not ref.startswith("#"):
                return {}
            node: Any = self.root
            for part in [p for p in ref[1:].split("/") if p]:
                part = part.replace("~1", "/").replace("~0", "~")
                node = node[int(part)] if isinstance(node, list) else node.get(part, {})
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**node, **rest} if isinstance(node, dict) and rest else node
        return schema

    def value(self, schema: Any, full: bool, depth: int = 0) -> Any:
        schema = self.resolve(schema)
        self.budget -= 1
        full = full and self.budget > 0  # past the budget, only what is required
        if schema is True or schema == {} or not isinstance(schema, dict):
            return "x" if schema is not False else None
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        if isinstance(schema.get("allOf"), list):
            merged = dict(schema)
            for part in merged.pop("allOf"):
                part = self.resolve(part)
                if isinstance(part, dict):
                    for key, val in part.items():
                        if key == "properties" and isinstance(merged.get("properties"), dict):
                            merged["properties"] = {**merged["properties"], **val}
                        elif key == "required" and isinstance(merged.get("required"), list):
                            merged["required"] = [*merged["required"], *val]
                        else:
                            merged.setdefault(key, val)
            return self.value(merged, full, depth)
        for union in ("oneOf", "anyOf"):
            if isinstance(schema.get(union), list) and schema[union]:
                options = list(schema[union])
                self.rng.shuffle(options)
                base = {k: v for k, v in schema.items() if k != union}
                option = options[0]
                option = self.resolve(option)
                if isinstance(option, dict) and base:
                    option = {**base, **option}
                return self.value(option, full, depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = self.rng.choice([k for k in kind if k != "null"] or kind)
        if kind is None:
            kind = self.implied(schema)
        return getattr(self, f"_{kind}", self._string)(schema, full, depth)

    @staticmethod
    def implied(schema: dict[str, Any]) -> str:
        if {"properties", "required", "additionalProperties", "patternProperties"} & schema.keys():
            return "object"
        if {"items", "prefixItems", "minItems", "maxItems"} & schema.keys():
            return "array"
        if {"minimum", "maximum", "multipleOf", "exclusiveMinimum"} & schema.keys():
            return "number"
        return "string"

    def _object(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = [k for k in schema.get("required", []) if isinstance(k, str)]
        keys = list(dict.fromkeys(required + (list(props) if full and depth < MAX_DEPTH // 2 else [])))
        wanted = schema.get("minProperties", 0)
        for key in props:
            if len(keys) >= wanted:
                break
            keys.append(key) if key not in keys else None
        out = {}
        for key in keys:
            if depth >= MAX_DEPTH and key not in required:
                continue
            sub = props.get(key)
            if sub is None:
                sub = next((s for p, s in (schema.get("patternProperties") or {}).items() if re.search(p, key)),
                           schema.get("additionalProperties", {}))
            out[key] = self.value(sub, full and depth < MAX_DEPTH, depth + 1)
        return out

    def _array(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        prefix = schema.get("prefixItems") or (schema["items"] if isinstance(schema.get("items"), list) else [])
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        count = max(schema.get("minItems", 0), 1 if full and depth < MAX_DEPTH else 0)
        count = min(count, schema.get("maxItems", count))
        return [self.value(prefix[i] if i < len(prefix) else items, full, depth + 1) for i in range(count)]

    def _string(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        text = FORMATS.get(schema.get("format", ""), "text")
        if isinstance(schema.get("pattern"), str):
            try:
                text = self.xeger(schema["pattern"])
            except Exception:  # noqa: BLE001 - a pattern rstr cannot read: the plain candidate stays
                pass
        low, high = schema.get("minLength", 0), schema.get("maxLength", 10**9)
        text = (text + "a" * low)[: max(low, min(len(text), high))]
        return text[:high]

    def _integer(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        low = schema.get("minimum", schema.get("exclusiveMinimum", -1) + 1
                         if isinstance(schema.get("exclusiveMinimum"), (int, float)) else 0)
        high = schema.get("maximum", low + 100)
        step = schema.get("multipleOf", 1)
        value = int(low + self.rng.random() * max(high - low, 0))
        return int(value // step * step) if isinstance(step, int) and step > 0 else value

    def _number(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        return self._integer(schema, full, depth)

    def _boolean(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        return self.rng.random() < 0.5

    def _null(self, schema: dict[str, Any], full: bool, depth: int) -> Any:
        return None


def candidates(schema: Any, seed: int, tries: int = 24) -> list[Any]:
    """Candidate instances of `schema`, minimal and full ones, from `tries` seeded attempts."""
    out = []
    for attempt in range(tries):
        builder = Candidates(schema, random.Random(seed * 1000 + attempt))
        try:
            out.append(builder.value(schema, full=attempt % 2 == 1))
        except (RecursionError, TypeError, ValueError, KeyError, IndexError, AttributeError):
            continue
    return out
