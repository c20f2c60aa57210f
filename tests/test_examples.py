"""The runnable examples of docs/guide.md run as written, on the embedded model."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EXAMPLES = [  # (script, what its output must show)
    ("refusal.py", ["recipe, grounded: declined:", "not in the text: ['/email']", "Verbatim fields"]),
    ("stream.py", ["['name'] -> ContactCard", '"name": "Dr. Kenji Watanabe"']),
    ("prompt.py", ["You read event announcements", '"date": "2025-06-12"']),
    ("checks.py", ["attempt:", "total_is_the_sum"]),
]


@pytest.mark.model
@pytest.mark.parametrize("script,expected", EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_example_runs(script: str, expected: list[str]) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "examples" / script)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    for piece in expected:
        assert piece in run.stdout, (piece, run.stdout[-2000:])
