"""Shared fixtures: the embedded language model, loaded once per test session."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

# token tables persist on disk between processes: a test session gets a fresh directory of its own, which its xdist
# workers inherit and share (a table file is written whole by a rename and checked against its digest when read),
# removed when the session that made it ends
MADE = None if "EXTRACTOR_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="extractor-test-cache-")
if MADE is not None:
    os.environ["EXTRACTOR_CACHE_DIR"] = MADE

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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The session's table directory removed by the process that made it (an xdist worker inherits it made)."""
    if MADE is not None:
        shutil.rmtree(MADE, ignore_errors=True)
