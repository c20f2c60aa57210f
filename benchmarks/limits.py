"""A per-call wall-clock limit for the benchmarks: `time_limit(seconds)` raises `Timeout` in its body.

Its own module so that common.py (the harness) and peers.py (the peer engines, whose forked compile probe
raises `Timeout` too) both import it without importing each other.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


RETRY = 0.05
"""Seconds between repeats of an expired limit's signal, until the body it limits has ended."""


class Timeout(BaseException):
    """A per-call time limit ran out. A BaseException, so an engine's `except Exception` cannot swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise `Timeout` in the body after `seconds` of wall time (main thread only; no limit elsewhere)."""
    if not seconds or seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _expired(signum: int, frame: Any) -> None:
        raise Timeout(f"time limit of {seconds:g} s exceeded")

    previous = signal.signal(signal.SIGALRM, _expired)
    # The signal repeats until the body ends: a raise inside a callback Python ignores the errors of (the garbage
    # collector's) is lost, and the next one lands RETRY seconds later.
    signal.setitimer(signal.ITIMER_REAL, seconds, RETRY)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
