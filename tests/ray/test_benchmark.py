"""benchmarks/ray_corpus.py on a tiny input: it runs, and writes what its table reads."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.ray_corpus import main


def test_the_ray_corpus_benchmark_runs_on_two_documents(cluster: str, tmp_path: Path) -> None:
    result = main(["--docs", "2", "--actors", "1", "--threads", "1", "--batch-size", "2", "--max-tokens", "16",
                   "--json", str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md")])
    written = json.loads((tmp_path / "r.json").read_text())
    assert written == result and written["docs"] == 2
    assert written["ray"]["1"]["docs_per_s"] > 0 and written["in_process"]["1"]["docs_per_s"] > 0
    table = (tmp_path / "r.md").read_text()
    assert f"| Ray Data, 1 actor(s) of 1 thread | {written['ray']['1']['docs_per_s']} |" in table
