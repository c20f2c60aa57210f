"""A compact, readable description of a schema for the system prompt (small models read it better), written
from the normalized schema: the words name the constraints the grammar enforces."""

from __future__ import annotations

import json
from decimal import Decimal

from extractor.schema import ir

FORMATS = {"date": "a date as YYYY-MM-DD", "date-time": "a date and time as YYYY-MM-DDTHH:MM:SS",
           "time": "a time as HH:MM:SS", "email": "an email address", "uri": "a URI"}
"""How a string format is said in words (the grammar enforces it; the words say what to convert to)."""


def describe(schema: ir.Schema) -> str:
    """The target's description, then one line per field (name, type, constraints, whether required,
    description, examples); named objects after, by name."""
    root = schema.root
    lines = [root.doc.description] if isinstance(root, ir.Object) and root.doc.description else []
    lines += _fields(root, schema.defs)
    for name in sorted(schema.defs):
        node = schema.defs[name]
        if isinstance(node, ir.Object) and node.properties:
            doc = f" ({node.doc.description.rstrip('.')})" if node.doc.description else ""
            lines += ["", f"{name}{doc} has:", *_fields(node, schema.defs)]
    return "\n".join(lines)


def _fields(node: ir.Node, defs: dict[str, ir.Node]) -> list[str]:
    if not isinstance(node, ir.Object) or not node.properties:
        return [f"a JSON value of type {_type(node, defs)}"]
    return [f"- {p.name} ({_type(p.value, defs)}{'' if p.required else ', optional'}){_doc(p.doc)}"
            for p in node.properties]


DESCRIBED_DEPTH = 16
"""Types nested deeper than this are described as "a nested value": the prompt stays short and the walk
bounded on any schema."""


def _type(node: ir.Node | None, defs: dict[str, ir.Node], depth: int = 0) -> str:
    if depth > DESCRIBED_DEPTH:
        return "a nested value"
    if isinstance(node, ir.Ref):
        target = defs.get(node.name)
        return _type(target, defs, depth + 1) if isinstance(target, ir.Const) else node.name
    if isinstance(node, ir.Const):
        shown = [json.dumps(json.loads(v), ensure_ascii=False) for v in node.values]
        return shown[0] if len(shown) == 1 else "one of " + ", ".join(shown)
    if isinstance(node, ir.Union_):
        return " or ".join(_type(option, defs, depth + 1) for option in node.options)
    if isinstance(node, ir.Array):
        return f"list of {_type(node.items or ir.AnyValue(), defs, depth + 1)}{_count(node)}"
    if isinstance(node, ir.Object):
        if not node.properties and node.additional is not None and not node.policy_closed:
            return f"map of string to {_type(node.additional, defs, depth + 1)}"
        return "object"
    if isinstance(node, ir.String):
        return FORMATS[node.format] if node.format in FORMATS else "string" + _lengths(node)
    if isinstance(node, ir.Number):
        return ("integer" if node.integer else "number") + _bounds(node)
    return {ir.Null: "null", ir.Boolean: "boolean", ir.Nothing: "nothing"}.get(type(node), "any")


def _bounds(node: ir.Number) -> str:
    """Numeric bounds in words: `integer between 1950 and 2100`, `number ≥ 0`, `number > 0`."""
    lo, hi = node.minimum, node.maximum
    if lo is not None and hi is not None and not (node.exclusive_minimum or node.exclusive_maximum):
        return f" between {_number(lo)} and {_number(hi)}"
    words = [f"{'>' if node.exclusive_minimum else '≥'} {_number(lo)}"] if lo is not None else []
    words += [f"{'<' if node.exclusive_maximum else '≤'} {_number(hi)}"] if hi is not None else []
    words += [f"a multiple of {_number(node.multiple_of)}"] if node.multiple_of is not None else []
    return " " + " ".join(words) if words else ""


def _number(value: Decimal | None) -> str:
    """A bound as the schema wrote it, in plain notation (`1e3` reads 1000, not 1E+3)."""
    text = str(value)
    return format(value, "f") if "E" in text else text


def _lengths(node: ir.String) -> str:
    """String lengths and patterns in words: `3 to 8 characters matching [A-Z]+`."""
    words = []
    if node.min_length or node.max_length is not None:
        most = node.max_length if node.max_length is not None else "any number of"
        words.append(f"{node.min_length} to {most} characters")
    words += [f"matching {pattern}" for pattern in node.patterns]
    return " " + " ".join(words) if words else ""


def _count(node: ir.Array) -> str:
    lo, hi = node.min_items, node.max_items
    if not lo and hi is None:
        return ""
    return f", {lo} to {hi} items" if hi is not None else f", at least {lo} items"


def _doc(doc: ir.Doc) -> str:
    text = doc.description
    if doc.examples:
        shown = ", ".join(json.dumps(e, ensure_ascii=False) for e in doc.examples[:3])
        text = f"{text.rstrip('.')}; e.g. {shown}" if text else f"e.g. {shown}"
    return f": {text}" if text else ""
