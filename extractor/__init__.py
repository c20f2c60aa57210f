"""Structured extraction with local language models: a Pydantic model in, a validated object out."""

import os
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

# Idle torch threads sleep instead of spinning: beside other busy processes a short extraction stays near its own
# speed, for a little on a quiet machine (benchmarks/threads.py, docs/performance.md). torch's OpenMP runtime reads
# the variable once, when torch is imported: after that it is left alone. Set OMP_WAIT_POLICY to choose otherwise.
if "torch" not in sys.modules:
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from extractor.aio import aextract, aextract_many, aextract_stream
from extractor.api import Extractor, extract, extract_many, extract_stream
from extractor.decode.guards import Guards
from extractor.decode.prompt import PromptTemplate
from extractor.errors import (
    Attempt, ExtractionError, ExtractorError, IncompleteOutputError, InputError, InvalidSchemaError, MissingFieldsError,
    ModelLoadError, Problem, SchemaTooComplexError, UnsatisfiableSchemaError, UnsupportedSchemaError, Usage,
)
from extractor.masks.compiler import compile_schema
from extractor.pipeline.checks import check
from extractor.pipeline.options import ExtractOptions
from extractor.schema import Refusal
from extractor.schema.verbatim import FromText, Verbatim
from extractor.tracing import Span, Trace, Traced, ValueTrace, trace

__all__ = [
    "Attempt", "ExtractOptions", "ExtractionError", "Extractor", "ExtractorError", "ExtractorLogitsProcessor",
    "FromText", "Guards", "IncompleteOutputError", "InputError", "InvalidSchemaError", "MissingFieldsError",
    "ModelLoadError", "Problem", "PromptTemplate", "Refusal", "SchemaTooComplexError", "Span", "Trace", "Traced",
    "UnsatisfiableSchemaError", "UnsupportedSchemaError", "Usage", "ValueTrace", "Verbatim", "aextract",
    "aextract_many", "aextract_stream", "check", "compile_schema", "extract", "extract_many", "extract_stream", "trace",
]

try:
    __version__ = version("extractor-llm")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "ExtractorLogitsProcessor":  # imports transformers: only when asked for
        from extractor.decode.processor import ExtractorLogitsProcessor

        return ExtractorLogitsProcessor
    raise AttributeError(f"module 'extractor' has no attribute {name!r}")
