"""Typed errors: one root class, each carrying where and why, and nothing lost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class ExtractorError(Exception):
    """Root of every error this library raises on purpose."""


class InvalidSchemaError(ExtractorError):
    """The schema itself is malformed (bad type, dangling $ref, unsatisfiable)."""

    def __init__(self, message: str, pointer: str = "") -> None:
        self.pointer = pointer
        super().__init__(f"{message} (at {pointer or '/'})")


class UnsatisfiableSchemaError(InvalidSchemaError):
    """No JSON value satisfies the schema, so nothing could ever be generated for it."""


class InputError(ExtractorError, ValueError):
    """The text cannot be extracted from as given (empty, or longer than the model's context)."""


class ModelLoadError(ExtractorError):
    """The model or tokenizer could not be found or loaded."""


class SchemaWarning(UserWarning):
    """A schema part that does not constrain generation (unknown keyword or format)."""


class UnsupportedSchemaError(ExtractorError):
    """A keyword the compiler cannot enforce exactly; refused rather than ignored."""

    def __init__(self, keyword: str, pointer: str, reason: str = "") -> None:
        self.keyword = keyword
        self.pointer = pointer
        self.reason = reason
        detail = f": {reason}" if reason else ""
        super().__init__(f"unsupported keyword {keyword!r} at {pointer or '/'}{detail}")


class SchemaTooComplexError(UnsupportedSchemaError):
    """Compiling the schema would pass its budget of automaton states or seconds (`CompileOptions`)."""

    def __init__(self, rule: str, reason: str) -> None:
        self.rule = rule  # the grammar rule being built: a definition, a pattern, an object
        self.keyword, self.pointer, self.reason = "schema", "", reason
        ExtractorError.__init__(self, f"schema too complex to compile: {reason}"
                                      + (f"; in rule {rule!r}" if rule else ""))


@dataclass
class Usage:
    """Token accounting for one generation attempt."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    forward_passes: int = 0
    seconds: float = 0.0
    prefill_seconds: float = 0.0
    cached_tokens: int = 0
    """Prompt tokens not fed: their keys and values were kept from an earlier reading of the same beginning (the
    conflict choice's prompt, read for its candidates' likelihoods)."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an attempt's output, one type whoever found it: the parser, the validator, a check, the
    trace (a value the text does not hold). `loc` is the place in the output (pydantic's path; None: the output as a
    whole), `type` what kind of error (pydantic's error type, `not_found`, `check`, `json`)."""

    msg: str
    loc: tuple[str | int, ...] | None = None
    type: str = "check"

    def __str__(self) -> str:
        """How the retry prompt shows it to the model: a placed error as the mapping pydantic reports."""
        return self.msg if self.loc is None else str({"loc": self.loc, "msg": self.msg, "type": self.type})


@dataclass
class Attempt:
    """One generation attempt, kept whole so a failure loses nothing."""

    text: str
    usage: Usage
    errors: list[Problem] = field(default_factory=list)
    cut: bool = False
    """max_tokens ended this attempt's output before it was complete."""


class IncompleteOutputError(ExtractorError):
    """max_tokens ended the output before the object was complete."""

    def __init__(self, partial: str, max_tokens: int, usage: Usage | None = None, *, data: bytes = b"",
                 attempts: list[Attempt] | None = None) -> None:
        self.partial = partial  # the text, less a character max_tokens cut in half
        self.data = data  # every byte produced, that half character included
        self.max_tokens = max_tokens
        self.usage = usage
        self.attempts = attempts or []  # earlier failed attempts too, when this was a retry
        super().__init__(
            f"output incomplete after max_tokens={max_tokens}; partial text: {partial[:200]!r}"
            + ("..." if len(partial) > 200 else "")
        )


class ExtractionError(ExtractorError):
    """Every attempt produced an object that failed validation."""

    def __init__(self, attempts: list[Attempt]) -> None:
        self.attempts = attempts
        last = attempts[-1]
        self.raw = last.text
        self.errors = last.errors
        super().__init__(
            f"validation failed after {len(attempts)} attempt(s); last errors: {[str(e) for e in last.errors]}; "
            f"last output: {last.text[:200]!r}"
        )


class MissingFieldsError(ExtractionError):
    """A long document read in windows: after the merge and a follow-up over the likeliest windows, required
    members are still missing. `missing` names them as JSON pointers (RFC 6901: `/email`, `/address/city`; `""`, the
    whole object, where the schema requires no member and no window wrote any); `partial` is the merged object
    without them."""

    def __init__(self, missing: list[str], partial: Any, attempts: list[Attempt]) -> None:
        self.missing = missing
        self.partial = partial
        named = ", ".join(pointer or "object" for pointer in missing)
        super().__init__(attempts or [Attempt("", Usage(), [Problem(f"no window holds {named}", type="missing")])])
        self.args = (f"no window of the text holds the required {named} (after a follow-up over the likeliest "
                     f"windows); the rest is on .partial",)
