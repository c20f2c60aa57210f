"""benchmarks/dates_written.py: a date, time or date-time value counts where its text does not write it, read every
way the text's forms allow; and the count reads a quality result per set."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from benchmarks.dates_written import main, unwritten
from benchmarks.quality import sets


class Meeting(BaseModel):
    day: datetime.date
    start: datetime.time | None = None
    stamps: list[datetime.datetime] = []
    later: list["Meeting"] = []


TEXT = "Tuesday 14 October 2025 at 2 pm; the invoice dated 05/01/17."


@pytest.mark.parametrize("output,expected", [
    ({"day": "2025-10-14"}, []),
    ({"day": "2017-01-05"}, []),                                   # 05/01/17 day first
    ({"day": "2017-05-01"}, []),                                   # ... and month first
    ({"day": "2102-01-21"}, [("/day", "2102-01-21")]),
    ({"day": "2025-10-14", "start": "14:00:00Z"}, []),
    ({"day": "2025-10-14", "start": "15:30:00Z"}, [("/start", "15:30:00Z")]),
    ({"day": "2025-10-14", "stamps": ["2025-10-14T14:00:00Z", "2025-10-14T00:00:00Z"]}, []),
    ({"day": "2025-10-14", "stamps": ["2025-10-15T14:00:00Z"]}, [("/stamps/0", "2025-10-15T14:00:00Z")]),
    ({"day": "2025-10-14", "later": [{"day": "0501-01-01"}]}, [("/later/0/day", "0501-01-01")]),
    ({"day": None}, []),
])
def test_a_value_counts_where_the_text_does_not_write_it(output, expected) -> None:
    assert unwritten(output, TEXT, Meeting.model_json_schema()) == expected


def test_the_count_reads_a_quality_result_per_set(tmp_path: Path) -> None:
    name, path = next(iter(sets().items()))
    doc = next(d for d in map(json.loads, path.read_text().splitlines()) if d["target"] == "Invoice")
    outcomes = {"m": {doc["id"]: {"output": {"issue_date": "2102-01-21", "line_items": []}, "refused": False}}}
    result = {"commit": "test", "split": "dev", "limit_per_target": 1, "outcomes": outcomes}
    (tmp_path / "r.json").write_text(json.dumps(result))
    summary = main([str(tmp_path / "r.json"), "--json", str(tmp_path / "o.json"), "--md", str(tmp_path / "o.md")])
    assert summary["per_method"]["m"][name] | {"examples": None} == {
        "documents": 1, "not_written": 1, "date_values": 1, "examples": None, "field_f1": None}
    assert "| m | generated | 1 | 1 | 1 |" in (tmp_path / "o.md").read_text()
