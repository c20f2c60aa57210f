"""Shared fixtures: the embedded language model, loaded once per test session."""

from __future__ import annotations

import os
import tempfile

import pytest

# token tables persist on disk between processes: a test session gets a fresh directory of its own, which its xdist
# workers inherit and share (a table file is written whole by a rename and checked against its digest when read)
os.environ.setdefault("EXTRACTOR_CACHE_DIR", tempfile.mkdtemp(prefix="extractor-test-cache-"))

MODEL_FIXTURE = "model_extractor"


@pytest.fixture(scope="session")
def model_extractor():
    """An `Extractor()` on the embedded model (SmolLM2-135M-Instruct), loaded once for the whole session."""
    from extractor import Extractor

    return Extractor()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that uses the model fixture is marked `model` (deselect with -m "not model")."""
    for item in items:
        if MODEL_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.model)
