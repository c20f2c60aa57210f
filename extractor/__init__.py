"""Structured extraction with local language models: a Pydantic model in, a validated object out."""

from typing import Any

from extractor.api import Extractor, compile_schema, extract, extract_many, extract_stream
from extractor.checks import check
from extractor.decode import Guards
from extractor.errors import (
    ExtractionError, ExtractorError, IncompleteOutputError, InputError, InvalidSchemaError, UnsatisfiableSchemaError,
    UnsupportedSchemaError,
)
from extractor.grounding import Ungrounded, ungrounded
from extractor.schema import Refusal
from extractor.schema.verbatim import Verbatim

__all__ = [
    "ExtractionError", "Extractor", "ExtractorError", "ExtractorLogitsProcessor", "Guards", "IncompleteOutputError",
    "InputError", "InvalidSchemaError", "Refusal", "Ungrounded", "UnsatisfiableSchemaError", "UnsupportedSchemaError",
    "Verbatim", "check", "compile_schema", "extract", "extract_many", "extract_stream", "ungrounded",
]


def __getattr__(name: str) -> Any:
    if name == "ExtractorLogitsProcessor":  # imports transformers: only when asked for
        from extractor.decode.processor import ExtractorLogitsProcessor

        return ExtractorLogitsProcessor
    raise AttributeError(f"module 'extractor' has no attribute {name!r}")
