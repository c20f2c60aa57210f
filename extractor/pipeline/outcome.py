"""One attempt's output made a value: parsed (validated, checked, traced), invalid with its errors, or cut; and the
retry policy as rounds."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_result, stop_after_attempt

from extractor.pipeline.checks import Check, run_checks
from extractor.errors import Attempt, IncompleteOutputError, Problem, Usage
from extractor.pipeline.grounding import Blanks, Grounding
from extractor.pipeline.repeats import unrepeated
from extractor.masks import CompiledGrammar
from extractor.tracing import Repeated, Trace, Traced

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

_ITEMS = (list, tuple, set, frozenset)
"""Containers a result's numbers are looked for in, beside mappings and models."""


@dataclass(frozen=True)
class Parsed:
    """An attempt parsed, validated and checked: the result, and its trace where one was asked for."""

    result: Any
    trace: Trace | None


@dataclass(frozen=True)
class Invalid:
    """An attempt that failed parsing, validation, a check or grounding (its errors are on its `Attempt`)."""


@dataclass(frozen=True)
class Cut:
    """An attempt cut by max_tokens."""

    error: IncompleteOutputError


Outcome = Parsed | Invalid | Cut
"""What one attempt came to: data the pipeline branches on."""


def outcome(target: Any, refusal: type[BaseModel] | None, gen: Generation, earlier: Sequence[Attempt],
            max_tokens: int, checks: Sequence[Check], is_target: Callable[[bytes], bool] | None = None,
            grounding: Grounding | None = None) -> tuple[Attempt, Outcome]:
    """One attempt, kept whole, and what it came to: the parsed object and its trace (None unless `grounding`
    traces it), Cut, or Invalid (errors on the attempt: validation, checks, values the text must hold and does
    not). With `grounding`, a "" written for a verbatim string is read as absent first (`grounding.blanks`), and list
    items the text does not repeat are left out (`repeats.unrepeated`, kept on the trace)."""
    attempt = Attempt(gen.text, gen.usage, cut=not gen.complete)
    if not gen.complete:
        return attempt, Cut(IncompleteOutputError(gen.text, max_tokens, gen.usage, data=gen.data,
                                                  attempts=[*earlier, attempt]))
    read = grounding.blanks(gen.text) if grounding is not None else Blanks(gen.text, False)
    try:
        result, kept = _parsed(target, refusal, read.output, is_target, grounding)
    except (ValueError, ValidationError) as exc:
        attempt.errors = errors_of(exc)
        return attempt, Invalid()
    refused = refusal is not None and isinstance(result, refusal)
    attempt.errors = [] if refused else run_checks(result, checks)
    if attempt.errors:
        return attempt, Invalid()
    if refused or grounding is None:
        return attempt, Parsed(result, Trace() if grounding is not None and grounding.keep else None)
    found, attempt.errors = grounding.check(result, None if read.moved or kept else gen)  # items moved: searched
    if found is not None and kept:
        found = replace(found, repeated=kept)
    return attempt, Invalid() if attempt.errors else Parsed(result, found)


def _parsed(target: Any, refusal: type[BaseModel] | None, output: str, is_target: Callable[[bytes], bool] | None,
            grounding: Grounding | None) -> tuple[Any, tuple[Repeated, ...]]:
    """The output parsed, then again with the repeats the text does not make left out (`repeats.unrepeated`, where
    `grounding` names the arrays that may repeat), and those left out; as written where leaving them out would not
    validate as the result less those items (a validator counting or reordering the items)."""
    result = parse(target, refusal, output, is_target)
    if grounding is None or grounding.repeatable is None or refusal is not None and isinstance(result, refusal):
        return result, ()
    less = unrepeated(output, _json(result, output), grounding.text, grounding.target, grounding.repeatable)
    if less.repeated:
        try:
            again = parse(target, refusal, less.output, is_target)
        except (ValueError, ValidationError):
            return result, ()
        if _json(again, less.output) == less.value:
            return again, less.repeated
    return result, ()


def _json(result: Any, output: str) -> Any:
    """A result as the JSON value its items are compared in: a model's dump, else the output's own value."""
    return result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else json.loads(output)


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


def errors_of(exc: Exception) -> list[Problem]:
    """A failed parse or validation as the errors an `Attempt` keeps."""
    if isinstance(exc, ValidationError):
        return [Problem(e["msg"], e["loc"], e["type"]) for e in exc.errors()]
    return [Problem(str(exc), type="json")]


def rounds(max_retries: int | Retrying) -> Iterator[RetryCallState]:
    """One round per attempt the retry policy allows (`max_retries` more, or the given tenacity policy's stop and
    wait): the caller sets each round's result to whether anything is left to retry, and the rounds end when
    nothing is or the policy stops."""
    retry, spent = retry_if_result(bool), (lambda state: None)
    policy = max_retries.copy(retry=retry, retry_error_callback=spent) if isinstance(max_retries, Retrying) \
        else Retrying(stop=stop_after_attempt(1 + max_retries), retry=retry, retry_error_callback=spent)
    for attempt in policy:
        yield attempt.retry_state


def returned(result: Any, found: Trace | None, attempts: list[Attempt], with_trace: bool, with_usage: bool) -> Any:
    """What an extraction call returns: the result, as a `Traced` with its trace, with the usage summed."""
    value = Traced(result, Trace() if found is None else found) if with_trace else result
    return (value, total(attempts)) if with_usage else value


def total(attempts: list[Attempt]) -> Usage:
    """Usage summed over attempts."""
    return Usage(**{f.name: sum(getattr(a.usage, f.name) for a in attempts) for f in fields(Usage)})
