"""Torch's idle threads sleep instead of spinning unless the user chose otherwise (benchmarks/threads.py measures
why); the setting must be made before torch loads its OpenMP runtime."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PROBE = "import os, sys; import extractor; print(os.environ.get('OMP_WAIT_POLICY'))"

CASES = [  # (environment's value, whether torch is imported first, value the process ends with)
    (None, False, "PASSIVE"),
    ("ACTIVE", False, "ACTIVE"),
    (None, True, None),  # too late to matter for this process: left alone, and so for its children
]


@pytest.mark.parametrize(("preset", "torch_first", "expected"), CASES, ids=["unset", "user's", "torch first"])
def test_idle_threads_sleep_unless_chosen_otherwise(preset: str | None, torch_first: bool, expected: str | None) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    code = ("import torch; " if torch_first else "") + PROBE
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == str(expected)
