"""Documents per second of a corpus job on Ray Data at 1 and 2 actors (one torch thread each), against
`extract_many` in one process on the same documents.

usage: python benchmarks/ray_corpus.py [--docs 32] [--actors 1,2] [--threads 1,2] [--batch-size 4]
           [--max-tokens 96] [--address ADDRESS] [--json OUT] [--md OUT]

The documents: the first `--docs` ContactCard texts of benchmarks/data/quality (short notes, signatures and
cards, about 500 characters), extracted with the embedded model, greedy, no retries. In one process (a fresh one per
thread count): the model loaded, then `extract_many` in batches of `--batch-size`. On Ray: `run_corpus` into a new
folder, `--actors` actors of one torch thread and one CPU each; its time (the job's `seconds`) runs from the first
request to the actors to the last shard written, so it holds starting the actors and loading the model in each, as
the in-process figure holds loading the model (`load_s`).
Needs the ray extra (`make ray-env`); a local cluster of as many CPUs as the most actors asked for unless
`--address` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results

DOCUMENTS = Path(__file__).resolve().parent / "data" / "quality" / "documents.jsonl"


def documents(n: int) -> list[dict[str, str]]:
    """The first n ContactCard documents of the quality set, as `id` and `text`."""
    rows = [json.loads(line) for line in DOCUMENTS.read_text(encoding="utf-8").splitlines()]
    cards = [{"id": r["id"], "text": r["text"]} for r in rows if r["target"] == "ContactCard"]
    if not 1 <= n <= len(cards):
        raise SystemExit(f"--docs must be between 1 and {len(cards)} (the ContactCard documents there)")
    return cards[:n]


def _options(max_tokens: int) -> Any:
    from extractor import ExtractOptions

    return ExtractOptions(max_tokens=max_tokens, max_retries=0)


def one(threads: int, docs: int, batch_size: int, max_tokens: int) -> dict[str, Any]:
    """This process: torch at `threads` threads, the model loaded, then `extract_many` over the documents."""
    import torch

    torch.set_num_threads(threads)
    from extractor import Extractor
    from schemas import ContactCard

    started = time.perf_counter()
    ex = Extractor()
    loaded = time.perf_counter()
    ex.extract_many(ContactCard, [d["text"] for d in documents(docs)], _options(max_tokens), batch_size=batch_size,
                    progress=False)
    done = time.perf_counter()
    return {"load_s": round(loaded - started, 3), "extract_s": round(done - loaded, 3),
            "docs_per_s": round(docs / (done - started), 4)}


def in_process(threads: int, args: argparse.Namespace) -> dict[str, Any]:
    """`one` in a fresh process, so its thread count is the only one set there."""
    done = subprocess.run([sys.executable, __file__, "--one", str(threads), "--docs", str(args.docs), "--batch-size",
                           str(args.batch_size), "--max-tokens", str(args.max_tokens)], capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def on_ray(actors: int, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """A corpus job over the documents by `actors` actors of one thread and one CPU each."""
    import pyarrow as pa
    import ray.data

    from extractor.integrations.ray import run_corpus
    from schemas import ContactCard

    docs = documents(args.docs)
    table = pa.Table.from_pylist(docs)  # in blocks of a batch: an actor takes a block at a time
    ds = ray.data.from_arrow([table.slice(k, args.batch_size) for k in range(0, len(docs), args.batch_size)])
    summary = run_corpus(ds, ContactCard, folder / f"actors-{actors}", options=_options(args.max_tokens),
                         concurrency=actors, torch_threads=1, num_cpus=1, batch_size=args.batch_size, progress=False)
    if summary.written != len(docs):
        raise SystemExit(f"the job wrote {summary.written} of {len(docs)} documents")
    steady = summary.steady_docs_per_second
    return {"seconds": summary.seconds, "docs_per_s": round(summary.docs_per_second, 4),
            "first_batch_s": summary.first_batch_seconds,
            "steady_docs_per_s": None if steady is None else round(steady, 4), "errors": summary.errors}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=32)
    parser.add_argument("--actors", default="1,2")
    parser.add_argument("--threads", default="1,2", help="torch threads of the in-process runs")
    parser.add_argument("--batch-size", type=int, default=4)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--address", help="a running Ray cluster (default: a local one)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one(args.one, args.docs, args.batch_size, args.max_tokens)))
        return {}
    import ray

    actors = [int(n) for n in args.actors.split(",")]
    if not ray.is_initialized():
        ray.init(address=args.address, **({} if args.address else {"num_cpus": max(actors)}),
                 include_dashboard=False, log_to_driver=False)
    local = {str(t): in_process(int(t), args) for t in args.threads.split(",")}
    with tempfile.TemporaryDirectory(prefix="ray-corpus-") as tmp:
        jobs = {str(n): on_ray(n, args, Path(tmp)) for n in actors}
    result = {"commit": commit(), "cores": os.cpu_count(), "docs": args.docs, "batch_size": args.batch_size,
              "max_tokens": args.max_tokens, "in_process": local, "ray": jobs}
    if "1" in jobs and "2" in jobs:
        result["two_over_one"] = round(jobs["2"]["docs_per_s"] / jobs["1"]["docs_per_s"], 3)
        if jobs["1"]["steady_docs_per_s"] and jobs["2"]["steady_docs_per_s"]:
            result["two_over_one_steady"] = round(jobs["2"]["steady_docs_per_s"] / jobs["1"]["steady_docs_per_s"], 3)
    write_results(result, markdown(result), args.json, args.md)
    return result


def markdown(r: dict[str, Any]) -> str:
    rows = ["| run | documents/s | seconds | documents/s once started | error rows |", "|---|---:|---:|---:|---:|"]
    for threads, m in r["in_process"].items():
        rows.append(f"| one process, {threads} torch thread(s) | {m['docs_per_s']} | "
                    f"{round(m['load_s'] + m['extract_s'], 3)} (load {m['load_s']}) | "
                    f"{round(r['docs'] / m['extract_s'], 4)} | – |")
    for actors, m in r["ray"].items():
        rows.append(f"| Ray Data, {actors} actor(s) of 1 thread | {m['docs_per_s']} | {m['seconds']} (first batch "
                    f"{m.get('first_batch_s')}) | {m.get('steady_docs_per_s')} | {m['errors']} |")
    ratio = "\n"
    if "two_over_one" in r:
        ratio = (f"\n\nTwo actors against one: {r['two_over_one']}× over the whole job, "
                 f"{r.get('two_over_one_steady')}× once started (the rows after the first batch came back, over the "
                 f"time after it).\n")
    return (f"# A corpus job on Ray Data against one process\n\n{r['docs']} ContactCard documents of the quality set, "
            f"the embedded model, greedy, at most {r['max_tokens']} tokens, batches of {r['batch_size']}; "
            f"{r['cores']} cores; commit `{r['commit']}`. Seconds include loading the model (and on Ray, starting the "
            f"actors). Error rows: rows written with their error (an answer cut at the token limit is an "
            f"`IncompleteOutputError`); every run decodes the same tokens.\n\n" + "\n".join(rows) + ratio)


if __name__ == "__main__":
    main()
