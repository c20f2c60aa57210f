"""The output folder of a corpus job: only what the manifest lists counts, whatever a killed run left behind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from extractor.integrations.ray.store import CorpusJobError, ShardStore, entries, tables
from extractor.integrations.ray.workers import RESULT_FIELDS

JOB = {"schema": "0123456789abcdef", "text_column": "text", "id_column": "id"}


def _table(ids: list[str]) -> pa.Table:
    return pa.table({"id": ids, "result": ["{}"] * len(ids)})


def _stray_shard(folder: Path) -> None:  # renamed into place, then killed before it was listed
    (folder / "part-00001.parquet").write_bytes(b"PAR1 a whole shard nobody listed")


def _unfinished_write(folder: Path) -> None:
    (folder / "part-00001.parquet.tmp").write_bytes(b"PAR1 cut")


def _torn_manifest_line(folder: Path) -> None:  # killed while appending the line of a shard written whole
    _stray_shard(folder)
    with (folder / "manifest.jsonl").open("a") as f:
        f.write('{"shard": "part-00001.parquet", "rows": 2, "ids": ["c"')


@pytest.mark.parametrize("damage", [_stray_shard, _unfinished_write, _torn_manifest_line])
def test_what_a_killed_run_left_unlisted_is_removed_and_its_rows_redone(tmp_path: Path,
                                                                        damage: Callable[[Path], None]) -> None:
    ShardStore(tmp_path, JOB).write(_table(["a", "b"]), ["a", "b"])
    damage(tmp_path)
    store = ShardStore(tmp_path, JOB)
    assert (store.shards, store.ids) == (["part-00000.parquet"], {"a", "b"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["job.json", "manifest.jsonl", "part-00000.parquet"]
    store.write(_table(["c"]), ["c"])  # the next shard takes the freed name, on a line of its own
    assert [e["ids"] for e in entries(tmp_path)] == [["a", "b"], ["c"]]


def test_a_listed_shard_gone_is_an_error_not_a_silent_redo(tmp_path: Path) -> None:
    ShardStore(tmp_path, JOB).write(_table(["a"]), ["a"])
    (tmp_path / "part-00000.parquet").unlink()
    with pytest.raises(CorpusJobError, match="part-00000.parquet, which is gone"):
        ShardStore(tmp_path, JOB)


def test_a_folder_holding_another_jobs_results_is_refused(tmp_path: Path) -> None:
    ShardStore(tmp_path, JOB)
    with pytest.raises(CorpusJobError, match="another job"):
        ShardStore(tmp_path, {**JOB, "schema": "fedcba9876543210"})
    assert json.loads((tmp_path / "job.json").read_text()) == JOB


def test_a_damaged_job_record_is_a_corpus_job_error(tmp_path) -> None:
    (tmp_path / "job.json").write_text("{not json")
    with pytest.raises(CorpusJobError, match="not a job record"):
        ShardStore(tmp_path, {"schema": "x"})


def test_ids_the_manifest_cannot_list_are_a_corpus_job_error_before_a_shard_is_written(tmp_path) -> None:
    store = ShardStore(tmp_path, {"schema": "x"})
    with pytest.raises(CorpusJobError, match=r"ids must be strings or numbers.*\['bytes'\]"):
        store.write(pa.table({"id": [b"a"]}), [b"a"])
    assert not list(tmp_path.glob("part-*")) and entries(tmp_path) == []


def test_a_shard_written_before_a_column_existed_reads_it_as_null(tmp_path: Path) -> None:
    """A folder an earlier version wrote (no `unread` column, say) resumes: its shards read as those written since."""
    store = ShardStore(tmp_path, JOB)
    store.write(_table(["a"]), ["a"])  # the id and a result: what an earlier version wrote, and more
    unread = '[{"window": 1, "start": 30, "end": 80}]'
    store.write(pa.table({"id": ["b"], "result": ["{}"], "unread": [unread]}), ["b"])
    old, new = tables(tmp_path)
    assert old.schema == new.schema == pa.schema([("id", pa.string()), *RESULT_FIELDS])
    rows = pa.concat_tables([old, new]).to_pylist()
    assert [(r["id"], r["result"], r["unread"], r["conflicts"]) for r in rows] == [("a", "{}", None, None),
                                                                                  ("b", "{}", unread, None)]
