"""Structured extraction with local language models: a Pydantic model in, a validated object out."""

from extractor.api import Extractor, compile_schema, extract
from extractor.errors import (
    ExtractionError, ExtractorError, IncompleteOutputError, InvalidSchemaError, UnsatisfiableSchemaError,
    UnsupportedSchemaError,
)
from extractor.schema import Refusal

__all__ = [
    "ExtractionError", "Extractor", "ExtractorError", "IncompleteOutputError", "InvalidSchemaError",
    "Refusal", "UnsatisfiableSchemaError", "UnsupportedSchemaError", "compile_schema", "extract",
]
