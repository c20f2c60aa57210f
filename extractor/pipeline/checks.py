"""Semantic checks beyond the grammar: callables run on the parsed object; their messages are fed back."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from extractor.errors import Problem

F = TypeVar("F", bound=Callable[..., Any])

Check = Callable[[Any], "str | Iterable[str] | None"]
"""A check takes the parsed object and returns None (fine), a message or messages, or raises
ValueError/AssertionError (the exception text is the message)."""


def check(fn: F) -> F:
    """Mark a model method as a check: `extract` runs it on every parsed object of that model."""
    fn.__extractor_check__ = True  # type: ignore[attr-defined]
    return fn


def model_checks(target: Any) -> list[Check]:
    """The methods of a Pydantic model class marked with @check."""
    if not isinstance(target, type):
        return []
    return [getattr(target, name) for name in dir(target)
            if getattr(getattr(target, name, None), "__extractor_check__", False)]


def run_checks(value: Any, checks: Iterable[Check]) -> list[Problem]:
    """Every message the checks produce for `value` (empty: all passed)."""
    messages: list[Problem] = []
    for fn in checks:
        name = getattr(fn, "__name__", repr(fn))
        try:
            out = fn(value)
        except (ValueError, AssertionError) as exc:
            messages.append(Problem(f"{name}: {exc}" if str(exc) else name))
            continue
        if out is None:
            continue
        found = [out] if isinstance(out, str) else list(out)
        messages.extend(Problem(f"{name}: {m}") for m in found if m)
    return messages
