"""The review page fuzz benchmark runs (its figures come from full runs; here only that it runs, writes its
results and finds nothing in a few seconds)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "review_fuzz.py"


def test_the_review_fuzz_runs_for_a_few_seconds(tmp_path):
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (make test-browser installs it)")
    if not (os.environ.get("CHROMIUM") or shutil.which("chromium")):
        pytest.skip("no Chromium: install Debian's `chromium` package or set $CHROMIUM")
    # a process of its own: Playwright's sync API refuses a thread where another test's browser left its loop
    subprocess.run([sys.executable, str(SCRIPT), "--seconds", "5", "--seed", "0", "--json", str(tmp_path / "f.json"),
                    "--md", str(tmp_path / "f.md")], check=True, capture_output=True, timeout=300)
    result = json.loads((tmp_path / "f.json").read_text())
    assert result["cases"] > 0 and result["commit"]
    assert [result[k] for k in ("crashes", "blank_pages", "lost_documents", "script_errors", "leaks")] == [0] * 5
    assert "| cases |" in (tmp_path / "f.md").read_text()
