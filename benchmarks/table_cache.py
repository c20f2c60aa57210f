"""Whether a token table is worth a file: its build time against loading it back from the disk cache.

usage: python benchmarks/table_cache.py [--sample 500] [--seed 7] [--json OUT] [--md OUT]

Every table the first masks of the MaskBench sample need (Llama-3) is built once with every table written to a
temporary directory (`save_after=0`), then loaded back by a fresh cache reading that directory. Each table's
build and load are timed in one process and one thread, with nothing else running (wall time is then the
building thread's CPU time, which `masks/tables.py` reads). It writes only the tables that took `SAVE_AFTER` or
more to build; this says how many that is and what the rest would have cost to load.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import LLAMA3, MASKBENCH_DATA, percentiles, write_results  # noqa: E402
from benchmarks.maskbench import select_files  # noqa: E402

KEYS = {"p50": 50, "p90": 90, "p99": 99, "max": 100, "avg": 0}


def first_masks(schemas: list[Any], vocab: Any, tables: Any) -> None:
    """The first mask of every schema that compiles, with `tables` as the grammar's table cache."""
    from extractor import ExtractorError, compile_schema

    for schema in schemas:
        try:
            grammar = compile_schema(schema, vocab, refusal=None)
        except ExtractorError:
            continue
        grammar.tables = tables
        grammar.matcher().mask()


def timed(cache: Any, name: str, sink: list[float]) -> None:
    """Time every call of the cache's method `name` into `sink` (ms)."""
    inner = getattr(cache, name)

    def wrapper(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return inner(*args)
        finally:
            sink.append((time.perf_counter() - start) * 1e3)
    setattr(cache, name, wrapper)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from extractor.masks import TableCache
    from extractor.masks.tables import SAVE_AFTER
    from extractor.tokens import Vocabulary

    vocab = Vocabulary.from_tokenizer_file(LLAMA3)
    schemas = [json.loads(p.read_text())["schema"] for p in select_files(MASKBENCH_DATA, args.sample, args.seed)]
    first_masks(schemas[:1], vocab, TableCache())  # the token trie, outside any timing
    builds: list[float] = []
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as directory:
        writer = TableCache(directory=Path(directory), save_after=0)
        timed(writer, "build", builds)
        first_masks(schemas, vocab, writer)
        reader = TableCache(directory=Path(directory))
        timed(reader, "load", loads)
        first_masks(schemas, vocab, reader)
    slow = [b for b in builds if b >= SAVE_AFTER * 1e3]
    result = {"sample": args.sample, "seed": args.seed, "tables": len(builds), "save_after_ms": SAVE_AFTER * 1e3,
              "build_ms": percentiles(builds, KEYS), "load_ms": percentiles(loads, KEYS),
              "kept_on_disk": len(slow), "build_s_total": round(sum(builds) / 1e3, 3),
              "load_s_total": round(sum(loads) / 1e3, 3)}
    row = " | ".join
    table = "\n".join([
        f"# Token tables: build against load (MaskBench sample {args.sample}, seed {args.seed}, Llama-3)", "",
        f"{len(builds)} tables; those taking {SAVE_AFTER * 1e3:g} ms or more to build are kept on disk: "
        f"{len(slow)}.", "",
        "| | p50 ms | p90 ms | p99 ms | max ms | total s |", "|---|---:|---:|---:|---:|---:|",
        f"| build | {row(str(result['build_ms'][k]) for k in ('p50', 'p90', 'p99', 'max'))} | {result['build_s_total']} |",
        f"| load from disk | {row(str(result['load_ms'][k]) for k in ('p50', 'p90', 'p99', 'max'))} | "
        f"{result['load_s_total']} |", ""])
    write_results(result, table, args.json, args.md)


if __name__ == "__main__":
    main()
