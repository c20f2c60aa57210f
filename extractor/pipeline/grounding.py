"""Each result traced to the text it came from, and checked: a value found nowhere in the text fails validation
where the options say it must come from the text (`ExtractOptions.grounding`)."""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from extractor.errors import Problem
from extractor.schema import ir, json_schema, marks_text, target_ir
from extractor.tracing import Trace, trace_value

if TYPE_CHECKING:
    from extractor.decode.loop import Generation

GroundingMode = Literal["marked", "all", "off"]
"""Which values must be found in the text: those under a member marked `FromText`, every value the model wrote
(strings and numbers not fixed by the schema), or none."""


class Grounding:
    """How one text's results are traced and checked."""

    def __init__(self, target: Any, text: str, mode: GroundingMode = "marked", keep: bool = False) -> None:
        self.target, self.text, self.mode, self.keep = target, text, mode, keep

    @property
    def active(self) -> bool:
        """Whether results are traced at all: kept for the caller, or checked against the text."""
        return self.keep or self.mode == "all" or (self.mode == "marked" and _marks(key(self.target)))

    def check(self, result: Any, gen: Generation | None) -> tuple[Trace | None, list[Problem]]:
        """The result's trace (None when nothing asks for it) and one error per value that must be found in the
        text and is not, worded for the model to read on the retry."""
        if not self.active:
            return None, []
        found = trace_result(result, self.text, self.target, gen)
        must = [v for v in found.not_found if self.mode == "all" or v.marked and self.mode == "marked"]
        errors = [Problem(f"{v.value!r} occurs nowhere in the text: write the value as the text gives it",
                          tuple(_located(p) for p in v.pointer.split("/")[1:]), "not_found") for v in must]
        return found, errors


def trace_result(result: Any, text: str, target: Any, gen: Generation | None = None) -> Trace:
    """`extractor.trace` of one result (not a refusal), with the decoder's record of what it copied where `gen` is
    given."""
    value = result.model_dump(mode="json", by_alias=True) if isinstance(result, BaseModel) else result
    return trace_value(value, text, schema_ir(key(target)), output=gen.data if gen is not None else b"",
                       copies=gen.copies if gen is not None else ())


def key(target: Any) -> str:
    """A target's JSON Schema as text: what its IR is kept under."""
    return json.dumps(json_schema(target), sort_keys=True)


@functools.lru_cache(maxsize=64)
def schema_ir(text: str) -> ir.Schema:
    """The target's IR (no refusal branch), read once per schema text."""
    return target_ir(json.loads(text), None)


@functools.lru_cache(maxsize=64)
def _marks(text: str) -> bool:
    """Whether some member of the target is marked `FromText` (the check then runs on every result)."""
    return marks_text(schema_ir(text))


def unescape(token: str) -> str:
    """One JSON pointer token as the member name it stands for (RFC 6901)."""
    return token.replace("~1", "/").replace("~0", "~")


def _located(token: str) -> str | int:
    """A pointer token as a Pydantic error's `loc` part: an item's index as an int."""
    token = unescape(token)
    return int(token) if token.isdigit() else token

