"""A compile budget: automaton states built and seconds spent, checked as automata grow, so a schema that
would take minutes or gigabytes fails in its first second with a typed error naming the rule."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from extractor.errors import SchemaTooComplexError


@dataclass(frozen=True)
class Budget:
    """Limits on one schema's automaton construction, from `CompileOptions`; None lifts a limit."""

    max_states: int | None
    """States built in all (NFA and DFA states of every rule, pairs of products)."""
    timeout: float | None
    """Seconds for the whole construction."""


class _Meter:
    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.deadline = None if budget.timeout is None else time.monotonic() + budget.timeout
        self.states = self.ticks = 0
        self.rule = ""

    def spend(self, states: int, force: bool = False) -> None:
        before, self.states = self.states, self.states + states
        limit = self.budget.max_states
        if limit is not None and self.states > limit:
            raise SchemaTooComplexError(self.rule, f"needs more than {limit:,} automaton states "
                                                   "(CompileOptions(max_states=...) raises the limit)")
        if self.deadline is not None and (force or before >> 10 != self.states >> 10 or states > 1) \
                and time.monotonic() > self.deadline:
            raise self.late()

    def late(self, pointer: str | None = None) -> SchemaTooComplexError:
        """The deadline's error, naming the rule being built, or where the schema was being read (`pointer`)."""
        reading = "" if pointer is None else f", reading the schema at {pointer or '/'}"
        error = SchemaTooComplexError(self.rule, f"took more than {self.budget.timeout:g} s to compile{reading} "
                                                 "(CompileOptions(timeout=...) raises the limit)")
        error.pointer = pointer or ""
        return error


_METER: ContextVar[_Meter | None] = ContextVar("extractor_compile_meter", default=None)


@contextmanager
def metered(budget: Budget) -> Iterator[None]:
    """Charge every state built inside to `budget` (nested calls share the outermost meter)."""
    if _METER.get() is not None:
        yield
        return
    token = _METER.set(_Meter(budget))
    try:
        yield
    finally:
        _METER.reset(token)


@contextmanager
def building(rule: str) -> Iterator[None]:
    """Name the rule being built, for the error that reports an overrun."""
    meter = _METER.get()
    if meter is None:
        yield
        return
    outer, meter.rule = meter.rule, rule
    try:
        yield
    finally:
        meter.rule = outer


def clock() -> None:
    """Check the deadline now, building nothing: before a step that may take long on its own."""
    meter = _METER.get()
    if meter is not None:
        meter.spend(0, force=True)


def clock_at(pointer: str) -> None:
    """Check the deadline before reading the subschema at `pointer` (JSON Schema to IR builds no automaton, so the
    error names where it was instead of a rule)."""
    meter = _METER.get()
    if meter is not None and meter.deadline is not None and time.monotonic() > meter.deadline:
        raise meter.late(pointer)


def tick() -> None:
    """Check the deadline from a loop that builds no state (minimization); every 1,024th call looks."""
    meter = _METER.get()
    if meter is not None:
        meter.ticks += 1
        if not meter.ticks & 1023:
            meter.spend(0, force=True)


def remaining() -> tuple[int, float]:
    """States and seconds left for work done in one piece (native code), -1 where there is no limit."""
    meter = _METER.get()
    if meter is None:
        return -1, -1.0
    limit, deadline = meter.budget.max_states, meter.deadline
    return (-1 if limit is None else max(limit - meter.states, 0),
            -1.0 if deadline is None else max(deadline - time.monotonic(), 0.0))


def too_large(reason: str) -> None:
    """Raise the budget's error for a construction too large to index, whatever the limits."""
    meter = _METER.get()
    raise SchemaTooComplexError(meter.rule if meter is not None else "", reason)


def late() -> None:
    """Raise the deadline's error: native code found the deadline passed."""
    meter = _METER.get()
    if meter is not None:
        raise meter.late()


def spend(states: int = 1) -> None:
    """Count states built; raises SchemaTooComplexError past the budget (no-op outside `metered`)."""
    meter = _METER.get()
    if meter is not None:
        meter.spend(states)
