"""`extractor extract --ray`: a folder of files as a corpus job on a Ray cluster, then, where asked, its rows as the
JSON lines `extractor extract` writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from extractor.outputs.files import atomic_text, finite
from extractor.integrations.ray.cluster import connect
from extractor.integrations.ray.job import read_documents, run_corpus
from extractor.integrations.ray.store import tables
from extractor.integrations.ray.workers import ModelSpec
from extractor.pipeline.options import ExtractOptions
from extractor.outputs.records import GAPS


def corpus_command(files: list[Path], target: Any, options: ExtractOptions, *, address: str | None,
                   folder: Path, jsonl: Path | None, model: ModelSpec, actors: int, trace: bool) -> int:
    """Run the job into `folder` (resuming one left there), write the JSON lines, report; the exit status of
    `extractor extract`: 1 where any file failed, else 3 where some text was not read in full, else 0."""
    import ray
    import ray.data

    connect(address)  # before the dataset: building one starts a local cluster otherwise
    ray.data.DataContext.get_current().enable_progress_bars = False  # before the dataset: the job's bar is the one
    # blocks of at most 8 rows, at least two per actor: one each while the slower ones still start
    blocks = read_documents(files, block_rows=max(1, min(8, -(-len(files) // (2 * actors)))))
    summary = run_corpus(blocks, target, folder, options=options, model=model, concurrency=actors,
                         progress=len(files) > 1)
    if jsonl is None:
        failed, unread = (sum(t.num_rows - t.column(name).null_count for t in tables(folder))
                          for name in ("error_type", "unread"))
    else:  # a record JSON cannot write becomes an error record, and counts as failed
        records = sorted((finite(_record(row, trace)) for table in tables(folder) for row in table.to_pylist()),
                         key=lambda r: r["file"])
        with atomic_text(jsonl) as out:  # a run that stops leaves the previous file whole
            out.writelines(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in records)
        failed, unread = sum("error" in r for r in records), sum("unread" in r for r in records)
    print(f"{folder}: {summary.written} extracted ({summary.errors} failed, {summary.refused} refused, "
          f"{summary.unread} not read in full), "
          f"{summary.skipped} done before; {summary.docs_per_second:.2f} documents/s", file=sys.stderr)
    return 1 if failed else 3 if unread else 0


def _record(row: dict[str, Any], trace: bool) -> dict[str, Any]:
    """A shard's row as the line `extractor extract` writes for a file."""
    record: dict[str, Any] = {"file": row["id"]}
    if row["error_type"] is not None:
        record["error"] = {"type": row["error_type"], "message": row["error_message"]}
    else:
        record.update(refused=row["refused"], result=json.loads(row["result"]))
        if trace:
            record["trace"] = json.loads(row["trace"])
        record.update((name, json.loads(row[name])) for name in GAPS if row[name] is not None)
    record["seconds"] = round(row["seconds"], 3)
    return record
