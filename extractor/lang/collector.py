"""Python's cyclic garbage collector held off while a schema compiles.

A compile allocates tens of thousands of small objects (IR and regex nodes, call tables) and frees them by
reference counting; with NumPy and a tokenizer loaded, a full collection it happens to trigger scans the whole
heap (tens of milliseconds), landing on a few unlucky schemas as tail latency. A compile makes no reference cycle of
its own (tests/test_collector.py checks it), so what it drops, and the grammar once dropped, are freed at once by
reference counting; cyclic garbage other threads make meanwhile waits for the next collection after the last
compile running ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_LOCK = threading.Lock()
_holders = 0  # compiles running now, in any thread
_was_enabled = False  # the collector's state before the first of them began


def collector_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """Run `fn` with the collector off, restoring it once no paused call runs (nested and concurrent calls
    share one pause; a collector the caller had turned off stays off)."""

    @wraps(fn)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        global _holders, _was_enabled
        with _LOCK:
            if _holders == 0:
                _was_enabled = gc.isenabled()
                gc.disable()
            _holders += 1
        try:
            return fn(*args, **kwargs)
        finally:
            with _LOCK:
                _holders -= 1
                if _holders == 0 and _was_enabled:
                    gc.enable()

    return paused
