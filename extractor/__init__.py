"""Structured extraction with local language models: a Pydantic model in, a validated object out."""

from typing import Any

from extractor.api import Extractor, compile_schema, extract, extract_many
from extractor.decode import Guards
from extractor.errors import (
    ExtractionError, ExtractorError, IncompleteOutputError, InvalidSchemaError, UnsatisfiableSchemaError,
    UnsupportedSchemaError,
)
from extractor.schema import Refusal

__all__ = [
    "ExtractionError", "Extractor", "ExtractorError", "ExtractorLogitsProcessor", "Guards", "IncompleteOutputError",
    "InvalidSchemaError", "Refusal", "UnsatisfiableSchemaError", "UnsupportedSchemaError", "compile_schema",
    "extract", "extract_many",
]


def __getattr__(name: str) -> Any:
    if name == "ExtractorLogitsProcessor":  # imports transformers: only when asked for
        from extractor.decode.processor import ExtractorLogitsProcessor

        return ExtractorLogitsProcessor
    raise AttributeError(f"module 'extractor' has no attribute {name!r}")
