"""Normalize and grammar stages of two versions of the library, timed in one process, interleaved.

usage: python benchmarks/compile_stages_ab.py [--base REV] [--reps 5] [--limit N] [--json OUT] [--md OUT]

The stages' packages (`extractor/schema`, `extractor/grammar`) as they were at `--base` (a git revision, HEAD by
default) are unpacked, with the rest of the working tree's library (and its built extensions) around them, under
another package name, so both versions run in one process on one machine load and differ in these stages alone: for each schema of the real-world tuning part
(benchmarks/realworld_peers.py's split; the held-out part is never timed here), each version reads the schema
(`target_ir`) and builds its rules (`compile_grammar`), the two versions taking turns at going first, by thread CPU
time, the cyclic collector off throughout (as compiles run it; a collection between schemas, untimed, so that none
lands inside a stage). The first round is what the compile profile times (a schema's first compile, caches warm
from the schemas before it: a pattern is compiled once per process); `--reps` more give each stage's median
again, the same work with less noise but without what a first compile pays once. The tables give p50 and mean
over the schemas both versions compile, and each ratio (working tree / base).
"""

from __future__ import annotations

import argparse
import gc
import json
import re
import shutil
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
STAGE_PACKAGES = ("schema", "grammar")
"""The packages of those stages: the only code the two versions do not share."""
TIMES = (*STAGES, *(f"{stage} again" for stage in STAGES))
BASE_NAME = "extractor_base"


def unpack(rev: str, into: Path) -> types.ModuleType:
    """The working tree's library with the stages' packages as they were at `rev`, importable as `extractor_base`
    (its own imports renamed)."""
    package = into / BASE_NAME
    shutil.copytree(REPO / "extractor", package, ignore=shutil.ignore_patterns("__pycache__"))
    stages = [f"extractor/{name}" for name in STAGE_PACKAGES]
    archive = subprocess.run(["git", "archive", rev, *stages], cwd=REPO, capture_output=True, check=True).stdout
    for name in STAGE_PACKAGES:
        shutil.rmtree(package / name)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for name in STAGE_PACKAGES:
        (into / "extractor" / name).rename(package / name)
    (into / "extractor").rmdir()
    for path in package.rglob("*.py"):
        path.write_text(re.sub(r"\b(from|import) extractor\b", rf"\1 {BASE_NAME}", path.read_text()))
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
    """Per schema both versions compile: each version's first round and median later round per stage (ms)."""
    rows = []
    for k, path in enumerate(files):
        gc.collect()
        schema = json.loads(path.read_text())["schema"]
        order = list(versions) if k % 2 == 0 else list(versions)[::-1]
        rounds: dict[str, list[tuple[float, float] | None]] = {name: [] for name in versions}
        for rep in range(reps + 1):
            for name in order if rep % 2 == 0 else order[::-1]:
                rounds[name].append(once(versions[name], schema))
        if any(None in r for r in rounds.values()):
            continue
        rows.append({"file": path.name, **{name: {
            **{stage: round(r[0][i] * 1000, 4) for i, stage in enumerate(STAGES)},  # type: ignore[index]
            **{f"{stage} again": round(statistics.median(x[i] for x in r[1:]) * 1000, 4)  # type: ignore[index]
               for i, stage in enumerate(STAGES)}} for name, r in rounds.items()}})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """p50 and mean per stage and version, and the ratios (new / base)."""
    out: dict[str, Any] = {}
    for stage in (*STAGES, "both", *TIMES[len(STAGES):], "both again"):
        def ms(name: str) -> list[float]:
            parts = [f"{s}{stage[4:]}" for s in STAGES] if stage.startswith("both") else [stage]
            return [sum(r[name][p] for p in parts) for r in rows]
        base, new = ms("base"), ms("new")
        out[stage] = {"base_p50": statistics.median(base), "new_p50": statistics.median(new),
                      "base_avg": statistics.mean(base), "new_avg": statistics.mean(new)}
        out[stage]["p50_ratio"] = out[stage]["new_p50"] / out[stage]["base_p50"]
        out[stage]["avg_ratio"] = out[stage]["new_avg"] / out[stage]["base_avg"]
    return out


def tenths(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean first-compile ms per stage and version in each tenth of the schemas, by the base's two stages
    (fastest first)."""
    ordered = sorted(rows, key=lambda r: sum(r["base"][stage] for stage in STAGES))
    out = []
    for k in range(10):
        part = ordered[len(ordered) * k // 10: len(ordered) * (k + 1) // 10]
        out.append({f"{name} {stage}": statistics.mean(r[name][stage] for r in part)
                    for name in ("base", "new") for stage in STAGES} if part else {})
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = ["# Normalize and grammar stages, working tree against a base (real-world schemas, tuning part)", "",
             f"Base `{result['base']}`, working tree at `{result['commit']}`; {result['schemas']} schemas both "
             f"compile; a first round and {result['reps']} more (`again`: their median), the versions interleaved; "
             f"thread CPU time, one process (load average {result['load']}). Tuned on this part; the held-out part is not timed here.", "",
             "| stage | base p50 ms | new p50 ms | p50 ratio | base mean ms | new mean ms | mean ratio |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for stage, s in result["summary"].items():
        lines.append(f"| {stage} | {s['base_p50']:.3f} | {s['new_p50']:.3f} | {s['p50_ratio']:.2f}x | "
                     f"{s['base_avg']:.3f} | {s['new_avg']:.3f} | {s['avg_ratio']:.2f}x |")
    lines += ["", "First compiles by tenths of the schemas (the base's two stages, fastest first): mean ms and ratio.", "",
              "| tenth | base normalize | new normalize | ratio | base grammar | new grammar | ratio |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for k, t in enumerate(result["tenths"], 1):
        if t:
            lines.append(f"| {k} | " + " | ".join(f"{t[f'base {s}']:.3f} | {t[f'new {s}']:.3f} | "
                                                   f"{t[f'new {s}'] / t[f'base {s}']:.2f}x" for s in STAGES) + " |")
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
              "summary": summary(rows), "tenths": tenths(rows), "rows": rows}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
