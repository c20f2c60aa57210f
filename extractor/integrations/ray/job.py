"""A corpus job: a Ray Dataset extracted by actors, the results streamed back to the driver and written as Parquet
shards as they come, resumable: a rerun of the same job skips the ids its folder holds and does the rest."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pydantic import BaseModel

from extractor.errors import InputError
from extractor.integrations.ray.cluster import connect
from extractor.integrations.ray.store import CorpusJobError, ShardStore, tables
from extractor.integrations.ray.workers import READ_ERROR, SKIPPED, Workers, actors
from extractor.pipeline.options import ExtractOptions
from extractor.pipeline.target import Target
from extractor.schema import Refusal

if TYPE_CHECKING:
    import ray.data


@dataclass(frozen=True)
class JobSummary:
    """One run of a job, counted: every input row is written, skipped as done before, or a repeated id."""

    rows_in: int
    written: int
    skipped: int
    duplicates: int
    errors: int
    refused: int
    unread: int
    """Rows extracted from part of their text only: windows cut by `max_tokens` even when halved (their `unread`)."""
    shards: int
    seconds: float
    first_batch_seconds: float | None
    """When the first extracted batch came back: the start (actors up, a model loaded in each) and one batch."""
    first_batch_rows: int
    folder: str

    @property
    def docs_per_second(self) -> float:
        """Rows extracted per second of this run."""
        return self.written / self.seconds if self.seconds else 0.0

    @property
    def steady_docs_per_second(self) -> float | None:
        """Rows per second once the first batch was back: the actors' pace, their start aside."""
        if self.first_batch_seconds is None or self.seconds <= self.first_batch_seconds:
            return None
        return (self.written - self.first_batch_rows) / (self.seconds - self.first_batch_seconds)


def run_corpus(ds: ray.data.Dataset, target: Any, folder: str | Path, *, text_column: str = "text",
               id_column: str = "id", options: ExtractOptions | None = None, workers: Workers | None = None,
               shard_rows: int = 1024, flush_seconds: float = 60.0, progress: bool | None = None,
               address: str | None = None, **settings: Any) -> JobSummary:
    """Extract `target` from every row of `ds` into `folder` (Parquet shards, `manifest.jsonl`, `summary.json`).

    Results come back to the driver as actors finish batches and are written once `shard_rows` rows or
    `flush_seconds` have gathered, so a killed run loses at most that much. A rerun into the same folder skips the
    ids listed there; ids must be unique (a repeat is counted in `duplicates`, not written twice). Raises
    `CorpusJobError` when Ray gives up on a batch (its actor died past `retries`) or rows went missing, after
    writing what was done. Where Ray is not started in this process, it connects to `address` (None: `RAY_ADDRESS`,
    else a local cluster)."""
    from tqdm import tqdm

    options = options or ExtractOptions()
    workers = Workers.of(workers, settings)
    if shard_rows < 1 or not flush_seconds > 0:
        raise InputError(f"shard_rows must be ≥ 1 and flush_seconds > 0, got {shard_rows!r}, {flush_seconds!r}")
    connect(address)
    store = ShardStore(Path(folder), _job(target, text_column, id_column))
    total = ds.count()  # one pass over the input (metadata only, for datasets built in memory)
    results = actors(ds, target, text_column, id_column, options, workers, frozenset(store.ids))
    came = _Gathered(store, id_column, shards_before=len(store.shards))
    bar = tqdm(total=total, unit="doc", desc="extracting", disable=not (progress or progress is None and
                                                                           sys.stderr.isatty()), file=sys.stderr)
    try:
        for batch in _batches(results):
            came.take(batch)
            bar.update(batch.num_rows)
            if came.waiting() >= shard_rows or time.perf_counter() - came.last_flush >= flush_seconds:
                came.flush()
    finally:
        came.flush()
        bar.close()
        summary = came.summary(total, str(folder))
        complete = summary.written + summary.skipped + summary.duplicates == total
        store.summary({**dataclasses.asdict(summary), "complete": complete,
                       "docs_per_second": round(summary.docs_per_second, 4)})
    if not complete:
        raise CorpusJobError(f"{total} rows in, but {summary.written} written, {summary.skipped} skipped and "
                             f"{summary.duplicates} repeated: rerun the job to extract the rest")
    return summary


@dataclass
class _Gathered:
    """What the driver holds of a run: the counts so far, when the first rows came, and the rows waiting for
    their shard (written once enough have gathered, or a while has passed)."""

    store: ShardStore
    id_column: str
    shards_before: int
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ["written", "skipped", "duplicates", "errors", "refused", "unread"], 0))
    pending: list[pa.Table] = field(default_factory=list)
    written_now: set[Any] = field(default_factory=set)
    first: tuple[float | None, int] = (None, 0)
    started: float = field(default_factory=time.perf_counter)
    last_flush: float = field(default_factory=time.perf_counter)

    def take(self, batch: pa.Table) -> None:
        """Count a batch the actors sent back and keep its new rows for the next shard."""
        fresh, skipped, repeated = _split(batch, self.id_column, self.written_now)
        self.counts["skipped"] += skipped
        self.counts["duplicates"] += repeated
        if not fresh.num_rows:
            return
        if self.first[0] is None:
            self.first = (round(time.perf_counter() - self.started, 3), fresh.num_rows)
        self.pending.append(fresh)
        self.counts["written"] += fresh.num_rows
        self.counts["errors"] += fresh.num_rows - fresh.column("error_type").null_count
        self.counts["refused"] += sum(filter(None, fresh.column("refused").to_pylist()))
        self.counts["unread"] += fresh.num_rows - fresh.column("unread").null_count

    def waiting(self) -> int:
        """Rows gathered and not yet in a shard."""
        return sum(t.num_rows for t in self.pending)

    def flush(self) -> None:
        """Write the waiting rows as one shard (none: only the clock restarts)."""
        if self.pending:
            table = pa.concat_tables(self.pending)
            self.store.write(table, table.column(self.id_column).to_pylist())
            self.pending.clear()
        self.last_flush = time.perf_counter()

    def summary(self, total: int, folder: str) -> JobSummary:
        """The run, counted."""
        return JobSummary(rows_in=total, **self.counts, shards=len(self.store.shards) - self.shards_before,
                          seconds=round(time.perf_counter() - self.started, 3), first_batch_seconds=self.first[0],
                          first_batch_rows=self.first[1], folder=folder)


def _batches(results: ray.data.Dataset) -> Iterator[pa.Table]:
    """The actors' output tables as they are made; Ray giving up on one is a `CorpusJobError`."""
    from ray.exceptions import RayError

    try:
        yield from results.iter_batches(batch_size=None, batch_format="pyarrow")
    except RayError as exc:
        raise CorpusJobError(f"the cluster gave up on a batch ({type(exc).__name__}); what was done is written, "
                             "and a rerun does the rest") from exc


def _split(batch: pa.Table, id_column: str, written: set[Any]) -> tuple[pa.Table, int, int]:
    """The rows to write (each id once per folder), and how many were skipped as done or are repeats."""
    skipped = batch.column(SKIPPED).to_pylist()
    keep = []
    for k, (row_id, skip) in enumerate(zip(batch.column(id_column).to_pylist(), skipped)):
        if not skip and row_id not in written:
            written.add(row_id)
            keep.append(k)
    fresh = batch.take(pa.array(keep, pa.int64())).drop_columns([SKIPPED])
    return fresh, sum(skipped), len(skipped) - sum(skipped) - len(keep)


def _job(target: Any, text_column: str, id_column: str) -> dict[str, Any]:
    """What a folder's rows are results of: the target's schema (by digest) and the columns read."""
    schema = Target(target).key.encode()
    return {"schema": hashlib.sha256(schema).hexdigest()[:16], "text_column": text_column, "id_column": id_column}


def read_documents(paths: Sequence[Path], block_rows: int = 8) -> ray.data.Dataset:
    """Text files as a Dataset of `id` (the path) and `text`, read here on the driver, so a cluster's nodes need
    not see the files; one that is not UTF-8 becomes a row whose `InputError` says so. Blocks of `block_rows` rows
    (an actor takes a block at a time: match the actors' `batch_size`)."""
    import ray.data

    rows = []
    for path in paths:
        try:
            rows.append({"id": str(path), "text": path.read_text(encoding="utf-8"), READ_ERROR: None})
        except (UnicodeDecodeError, OSError) as exc:
            rows.append({"id": str(path), "text": None, READ_ERROR: f"{path} could not be read as UTF-8 text: {exc}"})
    schema = pa.schema([("id", pa.string()), ("text", pa.string()), (READ_ERROR, pa.string())])
    table = pa.Table.from_pylist(rows, schema)
    return ray.data.from_arrow([table.slice(k, block_rows) for k in range(0, max(len(rows), 1), block_rows)])


def read_results(folder: str | Path, target: Any, refusal: type[BaseModel] = Refusal) -> Iterator[tuple[Any, Any]]:
    """(id, value) for every row a job's folder holds: the target instance (a JSON value for a dict schema), a
    `refusal` instance, or the row's error as `{"type": ..., "message": ...}`. Needs no Ray: the manifest's shards
    are read with pyarrow, and a job still writing is left alone."""
    build = target.model_validate_json if isinstance(target, type) else json.loads
    for table in tables(Path(folder)):
        id_column = table.column_names[0]
        for row in table.to_pylist():
            if row["error_type"] is not None:
                value: Any = {"type": row["error_type"], "message": row["error_message"]}
            else:
                value = (refusal.model_validate_json if row["refused"] else build)(row["result"])
            yield row[id_column], value
