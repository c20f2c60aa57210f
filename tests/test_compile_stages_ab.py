"""The stage A/B benchmark runs end to end on a few schemas: the base unpacked under its own name, both versions
timed, the table written."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.compile_stages_ab import main


def test_the_ab_benchmark_times_both_versions_on_a_few_schemas(tmp_path: Path) -> None:
    main(["--limit", "3", "--reps", "1", "--json", str(tmp_path / "ab.json"), "--md", str(tmp_path / "ab.md")])
    result = json.loads((tmp_path / "ab.json").read_text())
    assert result["schemas"] == len(result["rows"]) > 0
    assert {"base", "new"} <= result["rows"][0].keys() and result["summary"]["both"]["base_p50"] > 0
    assert "| normalize |" in (tmp_path / "ab.md").read_text()
