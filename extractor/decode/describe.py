"""A compact, readable description of a JSON Schema for the system prompt (small models read it better)."""

from __future__ import annotations

from typing import Any


def describe(schema: dict[str, Any]) -> str:
    """One line per field: name, type, whether required, description; definitions after."""
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    lines = _fields(schema, defs)
    for name, sub in defs.items():
        if "properties" in sub:
            doc = f" ({sub['description'].rstrip('.')})" if sub.get("description") else ""
            lines += ["", f"{name}{doc} has:", *_fields(sub, defs)]
    return "\n".join(lines)


def _fields(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    if "properties" not in schema:
        return [f"a JSON value of type {_type(schema, defs)}{_doc(schema)}"]
    required = set(schema.get("required", []))
    return [f"- {name} ({_type(sub, defs)}{'' if name in required else ', optional'}){_doc(sub)}"
            for name, sub in schema["properties"].items()]


def _type(schema: Any, defs: dict[str, Any]) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        target = defs.get(name, {})
        return _type(target, defs) if "enum" in target else name
    if "enum" in schema:
        return "one of " + ", ".join(map(repr, schema["enum"]))
    if "const" in schema:
        return repr(schema["const"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(_type(s, defs) for s in schema[key])
    kind = schema.get("type", "any")
    if kind == "array":
        return f"list of {_type(schema.get('items', {}), defs)}"
    if kind == "object" and "additionalProperties" in schema:
        return f"map of string to {_type(schema['additionalProperties'], defs)}"
    if isinstance(kind, list):
        return " or ".join(kind)
    return f"{kind} {schema['format']}" if "format" in schema else kind


def _doc(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, dict) else None
    return f": {text}" if text else ""
