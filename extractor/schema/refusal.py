"""The refusal branch: a legal way for the model to say the text holds no answer."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


class Refusal(BaseModel):
    """The model declined: the text holds no answer; `error` says why."""

    model_config = ConfigDict(extra="forbid")

    error: str


def with_refusal(schema: dict[str, Any], refusal: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [target, refusal]` as one JSON Schema, definitions hoisted so $refs still resolve."""
    target = {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}
    wrapped: dict[str, Any] = {"anyOf": [target, refusal]}
    for key in ("$defs", "definitions"):
        if key in schema:
            wrapped[key] = schema[key]
    return wrapped
