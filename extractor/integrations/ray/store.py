"""A job's output folder: Parquet shards, each made whole before its name appears, and a manifest that lists the
finished ones with their ids. Only what the manifest lists counts, so a run killed at any instant leaves
nothing half-counted: a torn shard or manifest line is removed on the next open, and its rows are done again."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from extractor.errors import ExtractorError
from extractor.integrations.ray.workers import RESULT_FIELDS

MANIFEST = "manifest.jsonl"
JOB = "job.json"
SUMMARY = "summary.json"


class CorpusJobError(ExtractorError):
    """A corpus job's folder or run is not what it must be (another job's output, a listed shard gone, rows lost,
    or the cluster gave up on a batch); what was written stays, and a rerun resumes from it."""


class ShardStore:
    """The output folder of one job: `part-NNNNN.parquet` shards and `manifest.jsonl`, one line per shard."""

    def __init__(self, folder: Path, job: dict[str, Any]) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self._claim(job)
        self.shards: list[str] = []
        self.ids: set[Any] = set()
        for entry in entries(folder, repair=True):
            if not (folder / entry["shard"]).exists():
                raise CorpusJobError(f"{folder / MANIFEST} lists {entry['shard']}, which is gone: its rows would be "
                                     "neither done nor redone; restore it, or start the job in a new folder")
            self.shards.append(entry["shard"])
            self.ids.update(entry["ids"])
        listed = set(self.shards)
        for path in folder.iterdir():  # shards a killed run wrote but never listed, and unfinished writes
            if path.name.endswith(".tmp") or (path.name.startswith("part-") and path.name not in listed):
                path.unlink()

    def _claim(self, job: dict[str, Any]) -> None:
        """Record what this folder holds the results of, or check a rerun is the same job."""
        path = self.folder / JOB
        if not path.exists():
            _write_atomic(path, json.dumps(job, indent=1).encode())
            return
        try:
            held = json.loads(path.read_text())
        except ValueError:
            raise CorpusJobError(f"{path} is not a job record (not JSON): this folder is not a corpus job's output, "
                                 "or it was damaged; use another folder") from None
        if held != job:
            raise CorpusJobError(f"{self.folder} holds the results of another job ({held}, not {job}): results of "
                                 "two schemas in one dataset could not be read back; use another folder")

    def write(self, table: pa.Table, ids: list[Any]) -> str:
        """Write a shard whole (a temporary file, synced, renamed), then list it with its ids: the two steps
        either both count or, after a crash between them, the shard is dropped on the next open."""
        name = f"part-{len(self.shards):05d}.parquet"
        try:
            line = json.dumps({"shard": name, "rows": len(ids), "ids": ids}, ensure_ascii=False) + "\n"
        except (TypeError, ValueError):
            kinds = sorted({type(i).__name__ for i in ids})
            raise CorpusJobError(f"ids must be strings or numbers, for the manifest to list them; got {kinds}") from None
        tmp = self.folder / f"{name}.tmp"
        pq.write_table(table, tmp)
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        tmp.replace(self.folder / name)
        with (self.folder / MANIFEST).open("a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self.shards.append(name)
        self.ids.update(ids)
        return name

    def summary(self, summary: dict[str, Any]) -> None:
        """The last run's summary, beside the shards."""
        _write_atomic(self.folder / SUMMARY, (json.dumps(summary, indent=1) + "\n").encode())


def entries(folder: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """The manifest's whole lines (a shard each: name, rows, ids); with `repair`, a last line a killed run left
    unfinished is cut off the file (read-only otherwise: a job may be writing)."""
    path = folder / MANIFEST
    if not path.exists():
        return []
    data = path.read_bytes()
    whole = data[:data.rfind(b"\n") + 1]
    if repair and len(whole) != len(data):
        with path.open("r+b") as f:
            f.truncate(len(whole))
    return [json.loads(line) for line in whole.splitlines() if line.strip()]


def tables(folder: Path) -> Iterator[pa.Table]:
    """The listed shards in written order, a column an older shard lacks read as null: an old folder reads as new."""
    if not (folder / MANIFEST).exists():
        raise CorpusJobError(f"{folder} holds no corpus job's output (no {MANIFEST})")
    for entry in entries(folder):
        table = pq.read_table(folder / entry["shard"])
        columns = {f.name: table.column(f.name) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
                   for f in RESULT_FIELDS}
        yield pa.table({table.column_names[0]: table.column(0), **columns})


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
