"""Partial results while generating: the target as far as the output is complete, after each value that
completes (at any depth). The generator drives the decoding itself, one forward pass per step: closing it
stops the decoding there, and nothing runs on another thread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from pydantic import BaseModel
from pydantic_core import from_json

from extractor.pipeline.engine import Control, SteppingEngine
from extractor.masks import Matcher
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.rounds import extracting
from extractor.pipeline.target import Target


_QUOTE, _BACKSLASH, _COLON, _COMMA = 0x22, 0x5C, 0x3A, 0x2C
_OPEN, _CLOSE, _ENDS = frozenset(b"{["), frozenset(b"}]"), frozenset(b",}]")
_WS = frozenset(b" \t\r\n")


class Completed:
    """Counts the values of a JSON document that are complete as its bytes arrive, each byte scanned once:
    a string value at its closing quote, a number or literal where a `,`, `}` or `]` follows it, an object
    or array at its closing bracket (a key is not a value)."""

    def __init__(self) -> None:
        self.count = 0
        self.in_string = self.escaped = self.in_scalar = False
        self.key = False  # the open string is an object key
        self.objects: list[bool] = []  # per open container: an object (True) or an array
        self.expect_key = False  # inside an object, before a key

    def feed(self, chunk: bytes) -> int:
        """The number of values complete after `chunk`."""
        for byte in chunk:
            self._byte(byte)
        return self.count

    def _byte(self, byte: int) -> None:
        if self.in_string:
            if self.escaped:
                self.escaped = False
            elif byte == _BACKSLASH:
                self.escaped = True
            elif byte == _QUOTE:
                self.in_string = False
                self.count += not self.key
            return
        if self.in_scalar and (byte in _ENDS or byte in _WS):
            self.in_scalar, self.count = False, self.count + 1
        if byte == _QUOTE:
            self.in_string, self.key = True, self.expect_key
            self.expect_key = False
        elif byte in _OPEN:
            self.objects.append(byte == 0x7B)
            self.expect_key = byte == 0x7B
        elif byte in _CLOSE:
            self.objects.pop()
            self.count += 1
            self.expect_key = False
        elif byte == _COMMA:
            self.expect_key = bool(self.objects) and self.objects[-1]
        elif byte not in _WS and byte != _COLON:
            self.in_scalar = True


class Partial:
    """The partial target of one streamed extraction, rebuilt each time one more value completes."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.model = isinstance(target, type) and issubclass(target, BaseModel)
        self.matcher: Matcher | None = None
        self.scanner, self.read, self.count, self.last = Completed(), 0, 0, None

    def update(self, matcher: Matcher) -> Any | None:
        """The partial target when the matcher's output completed a value since the last call, else None."""
        if matcher is not self.matcher:  # another attempt starts over
            self.matcher, self.scanner, self.read, self.count, self.last = matcher, Completed(), 0, 0, None
        count = self.scanner.feed(bytes(matcher.output[self.read:]))  # only the new bytes: no copy per step
        self.read = len(matcher.output)
        if count == self.count:
            return None
        self.count = count
        value = from_json(bytes(matcher.output), allow_partial=True)
        if value == self.last:  # an object or array closed: nothing new to show
            return None
        self.last = value
        if not isinstance(value, dict):
            return value
        return self.target.model_construct(**value) if self.model else value


def stream(engine: SteppingEngine, target: Any, text: str, options: ExtractOptions,
           halt: threading.Event | None = None, with_trace: bool = False) -> Iterator[Any]:
    """The partial results of an extraction (jump-forward off, so values arrive token by token), then its
    result. Closing the generator stops the decoding at its next step; setting `halt` (from another thread) stops
    it at its next token, raising `engine.Cancelled` there, a long text's windows (read in one step) too."""
    matchers: list[Matcher] = []
    opts = replace(options, jump_forward=False)
    steps = extracting(engine, Target(target, opts), text, opts, with_trace=with_trace,
                       control=Control(halt=halt, watch=matchers.append))
    partial = Partial(target)
    try:
        while halt is None or not halt.is_set():
            try:
                next(steps)
            except StopIteration as done:
                yield done.value
                return
            if matchers:
                update = partial.update(matchers[-1])
                if update is not None:
                    yield update
    finally:
        steps.close()
