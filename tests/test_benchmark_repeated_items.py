"""benchmarks/repeated_items.py on a tiny result: a list holding an item twice that its text writes once counts once."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.quality import sets
from benchmarks.repeated_items import main


def test_the_repeated_items_count_reads_a_quality_result(tmp_path: Path) -> None:
    name, path = next(iter(sets().items()))
    doc = json.loads(path.read_text().splitlines()[0])
    word = next(w for w in doc["text"].split() if w.isalpha() and doc["text"].count(w) == 1)
    result = {"commit": "test", "split": "dev", "limit_per_target": 1,
              "outcomes": {"extract": {doc["id"]: {"output": {"xs": [word, word, "never written"]}, "refused": False}}}}
    (tmp_path / "r.json").write_text(json.dumps(result))
    summary = main([str(tmp_path / "r.json"), "--json", str(tmp_path / "o.json"), "--md", str(tmp_path / "o.md")])
    assert summary["per_method"]["extract"][name]["repeated"] == 1
    assert summary["per_method"]["extract"][name]["repeated_as_written"] == 1  # no text: the output as returned
    assert "| extract | " in (tmp_path / "o.md").read_text()
