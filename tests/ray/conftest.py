"""A local Ray cluster of two CPUs for the whole session (started once: a start costs seconds)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

pytest.importorskip("ray", reason="Ray is not installed here: `make test-ray` installs it in .venv-ray")

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

import jobdata
import ray


@pytest.fixture(scope="session")
def cluster() -> Iterator[str]:
    """The cluster's address (for a driver in another process)."""
    ray.cloudpickle.register_pickle_by_value(jobdata)
    context = ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield context.address_info["address"]
    ray.shutdown()
