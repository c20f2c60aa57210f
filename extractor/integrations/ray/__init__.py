"""extractor on Ray Data: a corpus extracted by actors that each hold a model, written as Parquet shards as results
come, resumable (`run_corpus`); `extract_dataset` is the actor stage alone, a Dataset in and a Dataset out.

Needs the `ray` extra (`pip install 'extractor-llm[ray]'`, or `make ray-env`); nothing else in extractor imports
this package, and importing it loads neither Ray nor pyarrow until one of its names is asked for."""

import importlib
import importlib.util
from typing import Any

from extractor.errors import ExtractorError

_WHERE = {"extract_dataset": "workers", "Workers": "workers", "ExtractBatches": "workers", "run_corpus": "job",
          "JobSummary": "job", "read_documents": "job", "read_results": "job", "CorpusJobError": "store",
          "corpus_command": "command"}
"""Where each public name lives, loaded on first use."""

__all__ = ["CorpusJobError", "ExtractBatches", "JobSummary", "RayNotInstalledError", "Workers", "extract_dataset",
           "read_documents", "read_results", "run_corpus"]


class RayNotInstalledError(ExtractorError, ImportError):
    """Ray Data is not installed where a corpus job was asked for."""

    def __init__(self) -> None:
        super().__init__("corpus jobs need Ray Data: pip install 'extractor-llm[ray]' (or `make ray-env` in a "
                         "checkout, which builds .venv-ray)")


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("pyarrow") is None:
        raise RayNotInstalledError()
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
