"""`extractor extract --ray` over a folder of short files at 1 and 2 actors, as an operator runs it: documents per
second once started (the rows after the first batch, over the time after it), and the Ray processes left running
once each command has ended.

usage: python benchmarks/ray_cli.py [--docs 30] [--actors 1,2] [--max-tokens 128] [--json OUT] [--md OUT]

The files: the first `--docs` ContactCard texts of benchmarks/data/quality, one file each. Each run is a fresh
command (its own local cluster, started and ended by it) writing a new folder of shards; its figures are the job's
own (`summary.json`). Needs the ray extra (`make ray-env`).
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

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.ray_corpus import documents  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def ray_processes() -> list[str]:
    """Ray's processes on this machine (its agents, raylet, GCS, workers), by pid and name; not those of a cluster
    this process started itself (its descendants: a test session's own cluster starts actors when it likes)."""
    own = {p.pid for p in psutil.Process().children(recursive=True)}
    found = []
    for process in psutil.process_iter(["name", "cmdline"]):
        line = " ".join(process.info["cmdline"] or [process.info["name"] or ""])
        if (line.startswith("ray::") or "raylet" in line or "gcs_server" in line) and process.pid not in own:
            found.append(f"{process.pid} {line[:60]}")
    return found


def one_run(folder: Path, actors: int, max_tokens: int, before: set[str]) -> dict[str, Any]:
    """The command over the files in `folder`/docs with `actors` actors; the job's summary and the Ray processes
    running after it that were not before it."""
    out = folder / f"actors-{actors}.parquet"
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    command = [sys.executable, "-m", "extractor.cli", "extract", "--schema", "schemas.contact:ContactCard",
               "--input", str(folder / "docs"), "--parquet", str(out), "--actors", str(actors),
               "--max-tokens", str(max_tokens), "--max-retries", "0"]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1, 3) or not (out / "summary.json").exists():  # 1, 3: some rows failed or cut
        raise SystemExit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    summary = json.loads((out / "summary.json").read_text())
    first, seconds = summary["first_batch_seconds"], summary["seconds"]
    steady = (summary["written"] - summary["first_batch_rows"]) / (seconds - first) \
        if first is not None and seconds > first else None
    return {"seconds": summary["seconds"], "docs_per_s": summary["docs_per_second"],
            "first_batch_s": summary["first_batch_seconds"], "steady_docs_per_s": None if steady is None
            else round(steady, 4), "written": summary["written"], "errors": summary["errors"],
            "left_running": left_after(before)}


def left_after(before: set[str], wait: float = 30.0) -> list[str]:
    """The Ray processes not running before, once they have had `wait` seconds to end (the command's guard ends
    its cluster's processes after the command has exited)."""
    deadline = time.monotonic() + wait
    while (left := sorted(set(ray_processes()) - before)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=30)
    parser.add_argument("--actors", default="1,2")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    before = set(ray_processes())
    with tempfile.TemporaryDirectory(prefix="ray-cli-") as tmp:
        folder = Path(tmp)
        (folder / "docs").mkdir()
        for k, doc in enumerate(documents(args.docs)):
            (folder / "docs" / f"{k:03d}.txt").write_text(doc["text"], encoding="utf-8")
        runs = {str(n): one_run(folder, int(n), args.max_tokens, before) for n in args.actors.split(",")}
    result = {"commit": commit(), "cores": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
              "docs": args.docs, "max_tokens": args.max_tokens, "runs": runs}
    if "1" in runs and "2" in runs and runs["1"]["steady_docs_per_s"] and runs["2"]["steady_docs_per_s"]:
        result["two_over_one_steady"] = round(runs["2"]["steady_docs_per_s"] / runs["1"]["steady_docs_per_s"], 3)
    write_results(result, markdown(result), args.json, args.md)
    return result


def markdown(r: dict[str, Any]) -> str:
    rows = ["| actors | documents/s | seconds | first batch (s) | documents/s once started | Ray processes left |",
            "|---:|---:|---:|---:|---:|---:|"]
    for actors, m in r["runs"].items():
        rows.append(f"| {actors} | {m['docs_per_s']} | {m['seconds']} | {m['first_batch_s']} | "
                    f"{m['steady_docs_per_s']} | {len(m['left_running'])} |")
    ratio = f"\n\nTwo actors against one, once started: {r['two_over_one_steady']}×.\n" \
        if "two_over_one_steady" in r else "\n"
    return (f"# `extractor extract --ray` on a folder of short files\n\n{r['docs']} ContactCard files of the quality "
            f"set, the embedded model, greedy, at most {r['max_tokens']} tokens; {r['cores']} cores, load average "
            f"{r['load_average']} at the end; commit `{r['commit']}`. Each row is one command with its own local "
            f"cluster; the processes left are those running after it that were not before.\n\n" + "\n".join(rows) + ratio)


if __name__ == "__main__":
    main()
