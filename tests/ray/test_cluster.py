"""A driver killed with SIGKILL leaves none of the processes its local Ray cluster started (Ray's dashboard and
runtime-env agents outlive it otherwise, ignoring SIGTERM)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[2]
DRIVER = """
import time
from extractor.integrations.ray.cluster import connect
connect("local")
print("up", flush=True)
time.sleep(600)
"""


def _alive(processes: list[psutil.Process]) -> list[str]:
    """The processes still running (a zombie has ended)."""
    left = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                left.append(f"{process.pid} {process.name()}")
        except psutil.Error:
            continue
    return left


def test_a_killed_driver_leaves_no_ray_process() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE, text=True, env=env,
                              start_new_session=True)
    try:
        assert driver.stdout is not None and driver.stdout.readline().strip() == "up"
        started = psutil.Process(driver.pid).children(recursive=True)
        names = {p.name() for p in started}
        assert any("raylet" in n for n in names), f"no local cluster was started: {sorted(names)}"
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        deadline = time.monotonic() + 30
        while _alive(started) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _alive(started), f"left running after the driver was killed: {_alive(started)}"
    finally:
        if driver.poll() is None:
            driver.kill()


def test_a_guard_that_has_ended_is_a_warning_not_a_failed_job(monkeypatch) -> None:
    import pytest

    from extractor.integrations.ray import cluster

    ended = subprocess.Popen([sys.executable, "-c", "pass"], stdin=subprocess.PIPE, text=True)
    ended.wait()
    monkeypatch.setattr(cluster, "_GUARD", ended.stdin)
    with pytest.warns(RuntimeWarning, match="ray stop"):
        cluster.guard([(1, 0.0)] * 20_000)  # more than a pipe's buffer: the write meets the closed end
