"""How deep a recursive target may nest: whether a JSON Schema refers back to itself, and how deeply a
text is structured (a model filling a recursive target from flat text otherwise nests on and on)."""

from __future__ import annotations

import re
from typing import Any

_NUMBERED = re.compile(r"^\s*(\d+(?:\.\d+)*)[.)]?\s", re.MULTILINE)


def recursive(schema: dict[str, Any]) -> bool:
    """Whether some definition reaches itself through `$ref`s (or the root refers to itself with `#`)."""
    defs = {k: v for key in ("definitions", "$defs") if isinstance(schema.get(key), dict)
            for k, v in schema[key].items()}
    graph = {name: {ref.rsplit("/", 1)[-1] for ref in _refs(body)} for name, body in defs.items()}
    if "#" in _refs(schema):
        return True
    done: set[str] = set()
    for start in graph:
        if start in done:
            continue
        path, stack = {start}, [(start, iter(graph[start]))]
        while stack:
            name, edges = stack[-1]
            nxt = next(edges, None)
            if nxt is None:
                stack.pop()
                path.discard(name)
                done.add(name)
            elif nxt in path:
                return True
            elif nxt in graph and nxt not in done:
                path.add(nxt)
                stack.append((nxt, iter(graph[nxt])))
    return False


def _refs(node: Any) -> set[str]:
    """Every `$ref` value under `node` (iteratively: schemas can be deep)."""
    out, work = set(), [node]
    while work:
        item = work.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str):
                out.add(ref)
            work.extend(item.values())
        elif isinstance(item, list):
            work.extend(item)
    return out


def nesting(text: str) -> int:
    """Levels a recursive value may nest for this text: the levels its lines show (distinct indentations,
    or numbered headings such as 2.1.3), plus one."""
    indents = {len(line) - len(line.lstrip()) for line in text.splitlines() if line.strip()}
    numbered = max((m.group(1).count(".") + 1 for m in _NUMBERED.finditer(text)), default=1)
    return max(len(indents), numbered, 1) + 1
