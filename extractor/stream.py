"""Partial results while generating: the members of the top-level object that are already complete."""

from __future__ import annotations

import json
from typing import Any


def completed_members(prefix: str) -> dict[str, Any]:
    """Top-level members whose value is fully written in `prefix` (a prefix of one JSON object).

    The grammar guarantees `prefix` is a prefix of a valid document, so a member is complete once a
    `,` or `}` follows its value at depth one."""
    out: dict[str, Any] = {}
    depth, in_string, escaped = 0, False, False
    key: str | None = None
    key_start = value_start = -1
    for i, ch in enumerate(prefix):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
                if depth == 1 and key is None and value_start < 0:
                    key = json.loads(prefix[key_start:i + 1])
            continue
        if ch == '"':
            in_string = True
            if depth == 1 and key is None and value_start < 0:
                key_start = i
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            if depth == 1 and key is not None:
                out[key] = json.loads(prefix[value_start:i])
                key, value_start = None, -1
            depth -= 1
        elif depth == 1 and ch == ":" and key is not None:
            value_start = i + 1
        elif depth == 1 and ch == "," and key is not None:
            out[key] = json.loads(prefix[value_start:i])
            key, value_start = None, -1
    return out
