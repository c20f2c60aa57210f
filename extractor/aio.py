"""The async surface for event loops (web services): `aextract`, `aextract_many`, `aextract_stream`.

Each runs the same code as its sync counterpart on a worker thread, so the loop stays free while a model
decodes. Cancelling the awaiting task (or closing the stream) stops the decoding at its next token; work
before the first token (compiling, the relevance screen) finishes first.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Sequence
from typing import Any

from extractor.api import Extractor, shared_extractor
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.engine import Control
from extractor.pipeline.stream import stream


async def aextract(target: Any, text: str, options: ExtractOptions | None = None, *,
                   extractor: Extractor | None = None, model: str | None = None, device: str | None = None,
                   **kw: Any) -> Any:
    """`Extractor.extract` awaited: `extractor`, or the process-wide one for `model`, decodes on a worker thread."""
    ex = extractor or await asyncio.to_thread(shared_extractor, model, device)
    halt = threading.Event()
    try:
        return await asyncio.to_thread(ex.extract, target, text, options, control=Control(halt=halt), **kw)
    finally:
        halt.set()  # cancelled (or done): decoding still under way ends at its next token


async def aextract_many(target: Any, texts: Sequence[str], options: ExtractOptions | None = None, *,
                        extractor: Extractor | None = None, model: str | None = None, device: str | None = None,
                        **kw: Any) -> list[Any]:
    """`Extractor.extract_many` awaited (one result or ExtractorError per text), cancelled as `aextract` is."""
    ex = extractor or await asyncio.to_thread(shared_extractor, model, device)
    halt = threading.Event()
    try:
        return await asyncio.to_thread(ex.extract_many, target, texts, options, control=Control(halt=halt), **kw)
    finally:
        halt.set()


async def aextract_stream(target: Any, text: str, options: ExtractOptions | None = None, *,
                          extractor: Extractor | None = None, model: str | None = None, device: str | None = None,
                          with_trace: bool = False, **overrides: Any) -> AsyncIterator[Any]:
    """`Extractor.extract_stream` as an async iterator: partial results, then the final one."""
    ex = extractor or await asyncio.to_thread(shared_extractor, model, device)
    halt = threading.Event()
    partials = stream(ex, target, text, ExtractOptions.of(options, overrides), halt, with_trace)
    try:
        while True:
            value = await asyncio.to_thread(next, partials, _END)
            if value is _END:
                return
            yield value
    finally:
        halt.set()  # a step under way on the worker thread is the last: the generator then ends by itself
        if not partials.gi_running:
            with contextlib.suppress(ValueError):  # it started on the worker after all: it ends by itself
                partials.close()


_END = object()
