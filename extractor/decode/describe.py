"""A compact, readable description of a JSON Schema for the system prompt (small models read it better)."""

from __future__ import annotations

import json
from typing import Any

FORMATS = {"date": "a date as YYYY-MM-DD", "date-time": "a date and time as YYYY-MM-DDTHH:MM:SS",
           "time": "a time as HH:MM:SS", "email": "an email address", "uri": "a URI"}
"""How a string format is said in words (the grammar enforces it; the words say what to convert to)."""


def describe(schema: dict[str, Any]) -> str:
    """The target's description, then one line per field (name, type, constraints, whether required,
    description, examples); nested models after."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    lines = [schema["description"].strip()] if schema.get("description") else []
    lines += _fields(schema, defs)
    for name, sub in defs.items():
        if "properties" in sub:
            doc = f" ({sub['description'].strip().rstrip('.')})" if sub.get("description") else ""
            lines += ["", f"{name}{doc} has:", *_fields(sub, defs)]
    return "\n".join(lines)


def _fields(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    if "properties" not in schema:
        return [f"a JSON value of type {_type(schema, defs)}{_doc(schema)}"]
    required = set(schema.get("required", []))
    return [f"- {name} ({_type(sub, defs)}{'' if name in required else ', optional'}){_doc(sub)}"
            for name, sub in schema["properties"].items()]


DESCRIBED_DEPTH = 16
"""Types nested deeper than this are described as "a nested value": the prompt stays short and the walk
bounded on any schema."""


def _type(schema: Any, defs: dict[str, Any], depth: int = 0) -> str:
    if not isinstance(schema, dict):
        return "any"
    if depth > DESCRIBED_DEPTH:
        return "a nested value"
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        target = defs.get(name, {})
        return _type(target, defs, depth + 1) if "enum" in target else name
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type(s, defs, depth + 1) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}), defs, depth + 1)}{_count(schema)}"
    if kind == "object" and "additionalProperties" in schema:
        return f"map of string to {_type(schema['additionalProperties'], defs, depth + 1)}"
    if isinstance(kind, list):
        return " or ".join(kind)
    if "format" in schema:
        return FORMATS.get(schema["format"], f"{kind} {schema['format']}")
    return kind + _bounds(schema)


def _bounds(schema: dict[str, Any]) -> str:
    """Numeric bounds and string lengths in words: `integer between 1950 and 2100`, `number ≥ 0`."""
    words = []
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if lo is not None and hi is not None:
        words.append(f"between {lo} and {hi}")
    else:
        words += [f"≥ {lo}"] if lo is not None else []
        words += [f"≤ {hi}"] if hi is not None else []
    words += [f"> {schema['exclusiveMinimum']}"] if "exclusiveMinimum" in schema else []
    words += [f"< {schema['exclusiveMaximum']}"] if "exclusiveMaximum" in schema else []
    if "minLength" in schema or "maxLength" in schema:
        words.append(f"{schema.get('minLength', 0)} to {schema.get('maxLength', 'any number of')} characters")
    if "pattern" in schema:
        words.append(f"matching {schema['pattern']}")
    return " " + " ".join(words) if words else ""


def _count(schema: dict[str, Any]) -> str:
    lo, hi = schema.get("minItems"), schema.get("maxItems")
    if lo is None and hi is None:
        return ""
    return f", {lo or 0} to {hi} items" if hi is not None else f", at least {lo} items"


def _doc(schema: Any) -> str:
    if not isinstance(schema, dict):
        return ""
    text = (schema.get("description") or "").strip()
    examples = schema.get("examples")
    if isinstance(examples, list) and examples:
        shown = ", ".join(json.dumps(e, ensure_ascii=False) for e in examples[:3])
        text = f"{text.rstrip('.')}; e.g. {shown}" if text else f"e.g. {shown}"
    return f": {text}" if text else ""
