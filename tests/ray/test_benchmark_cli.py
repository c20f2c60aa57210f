"""benchmarks/ray_cli.py on a tiny input: the command runs with its own cluster, and leaves no Ray process."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.ray_cli import main


def test_the_command_line_benchmark_runs_on_two_files(tmp_path: Path) -> None:
    result = main(["--docs", "2", "--actors", "1", "--max-tokens", "16", "--json", str(tmp_path / "r.json"),
                   "--md", str(tmp_path / "r.md")])
    run = result["runs"]["1"]
    assert run["written"] == 2 and run["left_running"] == []
    assert json.loads((tmp_path / "r.json").read_text())["runs"]["1"]["written"] == 2
    assert "| 1 |" in (tmp_path / "r.md").read_text()
