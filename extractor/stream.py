"""Partial results while generating: the members of the top-level object that are already complete."""

from __future__ import annotations

import json
from typing import Any

_QUOTE, _BACKSLASH, _COLON, _COMMA = 0x22, 0x5C, 0x3A, 0x2C
_OPEN, _CLOSE = frozenset(b"{["), frozenset(b"}]")


class Members:
    """The top-level members of one JSON object as its bytes arrive, each byte scanned once.

    The grammar guarantees the bytes are a prefix of a valid document, so a member is complete once a
    `,` or `}` follows its value at depth one. Bytes of multi-byte UTF-8 characters are never ASCII, so
    the scan needs no decoding until a member is complete."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.done: dict[str, Any] = {}
        self.depth, self.in_string, self.escaped = 0, False, False
        self.key: str | None = None
        self.key_start = self.value_start = -1

    def feed(self, chunk: bytes) -> dict[str, Any]:
        """The members complete after `chunk` (the same dict, grown)."""
        start = len(self.data)
        self.data += chunk
        for i in range(start, len(self.data)):
            self._byte(i, self.data[i])
        return self.done

    def _byte(self, i: int, byte: int) -> None:
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif byte == _BACKSLASH:
                self.escaped = True
            elif byte == _QUOTE:
                self.in_string = False
                if self.depth == 1 and self.key is None and self.value_start < 0:
                    self.key = json.loads(self.data[self.key_start:i + 1])
            return
        if byte == _QUOTE:
            self.in_string = True
            if self.depth == 1 and self.key is None and self.value_start < 0:
                self.key_start = i
        elif byte in _OPEN:
            self.depth += 1
        elif byte in _CLOSE:
            if self.depth == 1 and self.key is not None:
                self._complete(i)
            self.depth -= 1
        elif self.depth == 1 and byte == _COLON and self.key is not None:
            self.value_start = i + 1
        elif self.depth == 1 and byte == _COMMA and self.key is not None:
            self._complete(i)

    def _complete(self, end: int) -> None:
        assert self.key is not None
        self.done[self.key] = json.loads(self.data[self.value_start:end])
        self.key, self.value_start = None, -1

