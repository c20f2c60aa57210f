"""Partial results while generating: the members of the top-level object that are already complete."""

from __future__ import annotations

import json
import queue
import threading
from dataclasses import replace
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel

from extractor.masks import CompiledGrammar, Matcher
from extractor.options import ExtractOptions

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


class Streaming:
    """One streamed extraction: `extract` decoding on its own thread (jump-forward off), each newly complete
    top-level member published as a partial target while it runs, then the result or its error. `stop()` ends
    the decoding at its next token; a `next()` waiting then returns ("stopped", None)."""

    def __init__(self, extract: Callable[..., Any], target: Any, text: str, options: ExtractOptions) -> None:
        self.target, self.updates = target, queue.Queue[tuple[str, Any]]()
        self.halt, self.seen = threading.Event(), 0
        threading.Thread(target=self._run, args=(extract, text, replace(options, jump_forward=False)), daemon=True,
                         name="extract_stream").start()

    def next(self) -> tuple[str, Any]:
        """("partial", target so far), ("done", result) or ("stopped", None); extraction's error is raised."""
        kind, value = self.updates.get()
        if kind == "error":
            raise value
        return kind, value

    def stop(self) -> None:
        self.halt.set()

    def _run(self, extract: Callable[..., Any], text: str, options: ExtractOptions) -> None:
        try:
            self.updates.put(("done", extract(self.target, text, options, _matcher=self._watch)))
        except _Cancelled:
            self.updates.put(("stopped", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread
            self.updates.put(("error", exc))

    def _watch(self, grammar: CompiledGrammar) -> Matcher:
        members = Members()
        return stoppable(grammar, self.halt, lambda chunk: self._publish(members.feed(chunk)))

    def _publish(self, members: dict[str, Any]) -> None:
        """Queue a partial result when one more top-level field is complete."""
        if len(members) <= self.seen:
            return
        self.seen = len(members)
        model = isinstance(self.target, type) and issubclass(self.target, BaseModel)
        self.updates.put(("partial", self.target.model_construct(**members) if model else dict(members)))


def stream(extract: Callable[..., Any], target: Any, text: str, options: ExtractOptions) -> Iterator[Any]:
    """The partial results of a `Streaming` extraction, then its result; closing the generator stops decoding."""
    streaming = Streaming(extract, target, text, options)
    try:
        while True:
            kind, value = streaming.next()
            yield value
            if kind == "done":
                return
    finally:
        streaming.stop()


def stoppable(grammar: CompiledGrammar, halt: threading.Event,
              on_bytes: Callable[[bytes], None] = lambda chunk: None) -> Matcher:
    """A matcher for `grammar` that reports each step's new output bytes and raises `_Cancelled` (a
    BaseException: nothing in the decoding catches it) at its first step after `halt` is set."""
    matcher = _WatchedMatcher(grammar)
    matcher.stop, matcher.on_bytes = halt, on_bytes
    return matcher


class _Cancelled(BaseException):
    """Raised inside a stream's decoding once its consumer has stopped (not an error: nobody is listening)."""


class _WatchedMatcher(Matcher):
    """A matcher that reports each step's new output bytes and stops when told."""

    stop: threading.Event
    on_bytes: Callable[[bytes], None]

    def advance(self, token: int) -> None:
        before = len(self.output)
        super().advance(token)
        self._report(before)

    def advance_bytes(self, data: bytes) -> None:
        before = len(self.output)
        super().advance_bytes(data)
        self._report(before)

    def _report(self, before: int) -> None:
        if self.stop.is_set():
            raise _Cancelled
        self.on_bytes(bytes(self.output[before:]))
