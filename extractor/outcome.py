"""One attempt's output made a result: parsed, validated, checked, or an error that says how to retry."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from extractor.checks import Check, run_checks
from extractor.errors import Attempt, IncompleteOutputError, Usage
from extractor.grounding import Grounding
from extractor.masks import CompiledGrammar
from extractor.tracing import Trace, Traced

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

_ITEMS = (list, tuple, set, frozenset)
"""Containers a result's numbers are looked for in, beside mappings and models."""


class Invalid(Exception):
    """An attempt failed parsing or validation: retried, then reported as ExtractionError."""


class Cut(Exception):
    """An attempt was cut by max_tokens: retried with tightened guards, then its error is raised."""

    def __init__(self, error: IncompleteOutputError) -> None:
        super().__init__(str(error))
        self.error = error


def outcome(target: Any, refusal: type[BaseModel] | None, gen: Generation, attempts: list[Attempt],
            max_tokens: int, checks: Sequence[Check], is_target: Callable[[bytes], bool] | None = None,
            grounding: Grounding | None = None) -> tuple[Any, Trace | None]:
    """The result of one attempt and its trace (None unless `grounding` traces it): the parsed object,
    IncompleteOutputError, or Invalid (errors recorded: validation, checks, values the text must hold and does
    not)."""
    attempts.append(Attempt(gen.text, gen.usage, cut=not gen.complete))
    if not gen.complete:
        raise IncompleteOutputError(gen.text, max_tokens, gen.usage, data=gen.data, attempts=list(attempts))
    try:
        result = parse(target, refusal, gen.text, is_target)
    except (ValueError, ValidationError) as exc:
        attempts[-1].errors = errors_of(exc)
        raise Invalid() from exc
    refused = refusal is not None and isinstance(result, refusal)
    failed = [] if refused else run_checks(result, checks)
    if failed:
        attempts[-1].errors = failed
        raise Invalid()
    if refused or grounding is None:
        return result, Trace() if grounding is not None and grounding.keep else None
    found, missing = grounding.check(result, gen)
    if missing:
        attempts[-1].errors = missing
        raise Invalid()
    return result, found


def parse(target: Any, refusal: type[BaseModel] | None, text: str,
          is_target: Callable[[bytes], bool] | None = None) -> Any:
    """The output as the target, or as the refusal model where it is one (see `_validated`); a ValueError where
    it holds NaN or an infinity (`1e999` validated as a float, or a validator's), which JSON cannot write."""
    result = _validated(target, refusal, text, is_target)
    found = non_finite(result, "")
    if found is not None:
        raise ValueError(f"the number at {found[0] or 'the top level'} is {found[1]}, which JSON cannot write: "
                         f"write a finite number")
    return result


def non_finite(value: Any, pointer: str) -> tuple[str, float] | None:
    """The JSON pointer and value of the first NaN or infinity in a result (models, dataclasses, mappings,
    sequences, depth first); None where there is none."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (pointer, value)
    if isinstance(value, BaseModel):
        value = dict(value)
    elif is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in fields(value)}
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, _ITEMS) else ()
    for key, item in items:
        found = non_finite(item, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
        if found is not None:
            return found
    return None


def _validated(target: Any, refusal: type[BaseModel] | None, text: str,
               is_target: Callable[[bytes], bool] | None = None) -> Any:
    """The output as the target, or as the refusal model where it is one. A dict target is not validated
    here (the grammar did); a refusal-shaped output is a refusal unless `is_target` says the target's own
    grammar accepts it too."""
    data = json.loads(text)
    shaped = refusal is not None and isinstance(data, dict) and set(data) == set(refusal.model_fields)
    try:
        if isinstance(target, dict):
            if shaped and (is_target is None or not is_target(text.encode())):
                return refusal.model_validate(data)
            return data
        if isinstance(target, type) and issubclass(target, BaseModel):
            return target.model_validate_json(text)
        return TypeAdapter(target).validate_json(text)
    except ValidationError:
        if shaped:
            return refusal.model_validate_json(text)
        raise


def accepts(grammar: CompiledGrammar, data: bytes) -> bool:
    """Whether a grammar accepts a whole output."""
    matcher = grammar.matcher()
    try:
        matcher.advance_bytes(data)
    except ValueError:
        return False
    return matcher.accepting()


def errors_of(exc: Exception) -> list[Any]:
    """A failed parse or validation as the errors an `Attempt` keeps."""
    if isinstance(exc, ValidationError):
        return [{"loc": e["loc"], "msg": e["msg"], "type": e["type"]} for e in exc.errors()]
    return [str(exc)]


def retrying(max_retries: int | Retrying) -> Retrying:
    """Retry failed validations and cut outputs: `max_retries` more attempts, or the given tenacity policy's
    stop/wait."""
    retry = retry_if_exception_type((Invalid, Cut))
    if isinstance(max_retries, Retrying):
        return max_retries.copy(retry=retry, reraise=True)
    return Retrying(stop=stop_after_attempt(1 + max_retries), reraise=True, retry=retry)


def returned(result: Any, found: Trace | None, attempts: list[Attempt], with_trace: bool, with_usage: bool) -> Any:
    """What an extraction call returns: the result, as a `Traced` with its trace, with the usage summed."""
    value = Traced(result, found or Trace()) if with_trace else result
    return (value, total(attempts)) if with_usage else value


def total(attempts: list[Attempt]) -> Usage:
    """Usage summed over attempts."""
    return Usage(**{f.name: sum(getattr(a.usage, f.name) for a in attempts) for f in fields(Usage)})
