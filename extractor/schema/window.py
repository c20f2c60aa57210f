"""The window form of a target: what one window of a long document is asked for. Every field may be absent
(null, an empty list), so a window that does not hold a value says so instead of inventing one."""

from __future__ import annotations

from typing import Any

_LOOSENED = ("minItems", "minContains", "contains", "minProperties")
"""Keywords that ask a window for something it may not hold: dropped from the window form (the merged object is
checked against the real target)."""
_WALKED = ("properties", "$defs", "definitions", "patternProperties")
_WALKED_ONE = ("items", "additionalProperties")
_WALKED_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")


def window_form(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of a JSON Schema in which every object member, at any depth, may be null and no list or object
    must hold anything: what each window of a long document is decoded with (its members are still written,
    null where the window does not hold them). It says `"x-window": true`, so the number fields a window writes no
    number for are null there (`numbers_from_text`)."""
    return {**_loosened(schema), "x-window": True}


def admits_null(schema: Any) -> bool:
    """Whether a (resolved) schema's own top admits null: `type` null or one including it, or a branch that does."""
    if not isinstance(schema, dict):
        return schema is True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind) or schema.get("const", 0) is None:
        return True
    if None in (schema.get("enum") or ()):
        return True
    return any(admits_null(b) for key in ("anyOf", "oneOf") for b in schema.get(key) or ())


def _loosened(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    out = {k: v for k, v in node.items() if k not in _LOOSENED}
    for key in _WALKED:
        if isinstance(node.get(key), dict):
            members = {name: _loosened(sub) for name, sub in node[key].items()}
            out[key] = {name: _nullable(sub) for name, sub in members.items()} if key == "properties" else members
    for key in _WALKED_ONE:
        if isinstance(node.get(key), dict):
            out[key] = _loosened(node[key])
    for key in _WALKED_LIST:
        if isinstance(node.get(key), list):
            out[key] = [_loosened(sub) for sub in node[key]]
    return out


def _nullable(member: Any) -> Any:
    """A member that may also be null (itself where it already may: `Optional[...]`), its description kept where
    the prompt and the copy rules read it."""
    if not isinstance(member, dict) or admits_null(member):
        return member
    said = {k: member[k] for k in ("description", "title", "x-from-text") if k in member}
    if member.get("x-verbatim") is False:
        said["x-verbatim"] = False
    return {**said, "anyOf": [member, {"type": "null"}]}
