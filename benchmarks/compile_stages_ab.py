"""Normalize and grammar stages of two versions of the library, timed in one process, interleaved.

usage: python benchmarks/compile_stages_ab.py [--base REV] [--reps 5] [--limit N] [--json OUT] [--md OUT]

The library at `--base` (a git revision, HEAD by default) is unpacked beside the working tree's under another
package name, so both run in one process on one machine load: for each schema of the real-world tuning part
(benchmarks/realworld_peers.py's split; the held-out part is never timed here), `--reps` rounds each time the
base's `target_ir` then the working tree's, then both `compile_grammar`s, alternating which goes first, by thread
CPU time, the cyclic collector off throughout (as compiles run it; a collection between schemas, untimed, so that
none lands inside a stage). A schema's time per stage is its median round; the tables give p50 and mean over the schemas both
versions compile, and each ratio (working tree / base). Caches are warm: one untimed round goes first.
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, commit, write_results  # noqa: E402
from benchmarks.realworld_peers import DATA, split  # noqa: E402

STAGES = ("normalize", "grammar")
BASE_NAME = "extractor_base"


def unpack(rev: str, into: Path) -> types.ModuleType:
    """The library as it was at `rev`, importable as `extractor_base` (its own imports renamed; the built
    extensions copied from the working tree, whose sources these changes leave alone)."""
    archive = subprocess.run(["git", "archive", rev, "extractor"], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    package = into / BASE_NAME
    (into / "extractor").rename(package)
    for path in package.rglob("*.py"):
        text = re.sub(r"\b(from|import) extractor\b", rf"\1 {BASE_NAME}", path.read_text())
        path.write_text(text)
    for built in (REPO / "extractor").rglob("*.so"):
        target = package / built.relative_to(REPO / "extractor")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(built.read_bytes())
    sys.path.insert(0, str(into))
    return __import__(BASE_NAME)


def stages(package: str) -> tuple[Any, Any, Any]:
    """`target_ir`, the options the compile profile reads with, and `compile_grammar` of one version."""
    schema = __import__(f"{package}.schema", fromlist=["target_ir"])
    grammar = __import__(f"{package}.grammar", fromlist=["compile_grammar"])
    return schema.target_ir, schema.NormalizeOptions(strict_objects=False), grammar.compile_grammar


def once(version: tuple[Any, Any, Any], schema: Any) -> tuple[float, float] | None:
    """One version's (normalize, grammar) thread CPU seconds on a schema; None where it refuses the schema."""
    target_ir, options, compile_grammar = version
    try:
        start = time.thread_time()
        ir = target_ir(schema, None, options)
        middle = time.thread_time()
        compile_grammar(ir)
        return middle - start, time.thread_time() - middle
    except Exception:  # noqa: BLE001 - a refusal (each version raises its own classes): not timed
        return None


def measure(files: list[Path], versions: dict[str, tuple[Any, Any, Any]], reps: int) -> list[dict[str, Any]]:
    """Per schema both versions compile: each version's median round per stage (ms)."""
    rows = []
    for path in files:
        gc.collect()
        schema = json.loads(path.read_text())["schema"]
        if any(once(v, schema) is None for v in versions.values()):  # also the untimed warm-up round
            continue
        rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in versions}
        order = list(versions)
        for rep in range(reps):
            for name in order if rep % 2 == 0 else order[::-1]:
                rounds[name].append(once(versions[name], schema))  # type: ignore[arg-type]
        rows.append({"file": path.name, **{name: {stage: round(statistics.median(r[i] for r in rounds[name]) * 1000, 4)
                                                  for i, stage in enumerate(STAGES)} for name in versions}})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """p50 and mean per stage and version, and the ratios (new / base)."""
    out: dict[str, Any] = {}
    for stage in (*STAGES, "both"):
        def ms(name: str) -> list[float]:
            return [sum(r[name].values()) if stage == "both" else r[name][stage] for r in rows]
        base, new = ms("base"), ms("new")
        out[stage] = {"base_p50": statistics.median(base), "new_p50": statistics.median(new),
                      "base_avg": statistics.mean(base), "new_avg": statistics.mean(new)}
        out[stage]["p50_ratio"] = out[stage]["new_p50"] / out[stage]["base_p50"]
        out[stage]["avg_ratio"] = out[stage]["new_avg"] / out[stage]["base_avg"]
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = ["# Normalize and grammar stages, working tree against a base (real-world schemas, tuning part)", "",
             f"Base `{result['base']}`, working tree at `{result['commit']}`; {result['schemas']} schemas both "
             f"compile; {result['reps']} interleaved rounds each, median round per schema; thread CPU time, one "
             f"process (load average {result['load']}). Tuned on this part; the held-out part is not timed here.", "",
             "| stage | base p50 ms | new p50 ms | p50 ratio | base mean ms | new mean ms | mean ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for stage, s in result["summary"].items():
        lines.append(f"| {stage} | {s['base_p50']:.3f} | {s['new_p50']:.3f} | {s['p50_ratio']:.2f}x | "
                     f"{s['base_avg']:.3f} | {s['new_avg']:.3f} | {s['avg_ratio']:.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="git revision of the base version")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--limit", type=int, default=0, help="only the first N schemas of the tuning part")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args(argv)
    files = split(DATA, args.limit)["tuning"]
    base = subprocess.run(["git", "rev-parse", args.base], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unpack(base, Path(tmp))
        gc.disable()
        try:
            rows = measure(files, {"base": stages(BASE_NAME), "new": stages("extractor")}, args.reps)
        finally:
            gc.enable()
    load = ", ".join(f"{x:.2f}" for x in __import__("os").getloadavg())
    result = {"commit": commit(), "base": base, "schemas": len(rows), "reps": args.reps, "load": load,
              "summary": summary(rows), "rows": rows}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
