"""Real-world schemas beside the peers: compile and mask time where every engine compiles, on a tuning part and a
held-out part reported side by side from one run.

usage: python benchmarks/realworld_peers.py [--data benchmarks/data/realworld] [--engines extractor llguidance]
                                            [--limit N] [--part tuning|held-out] [--no-freeze] [--json OUT]
                                            [--md OUT.md]

The split is fixed by the schema file's name, never by a timing: a file whose SHA-256 name digest starts with a
byte below 64 (a quarter) is held out. Work on the engine profiles and tunes on the tuning part only; the held-out
part is measured here and nowhere else. Each schema is run by every engine in turn (benchmarks/maskbench.py's
`run_schema`: compile, first mask, then every test instance teacher-forced token by token), so a shared machine's
load weighs on all alike. Per part, over the schemas every engine compiled: compile p50 / p99 (compile and first
mask, ms), mask average / p99 / largest (µs, the collector's pauses counted), and the largest less those pauses.
Before the first schema the start-up heap (modules, vocabulary, engines) is frozen out of the cyclic collector's
passes (`gc.freeze()`), as vLLM's engine core does once it has started (`freeze_gc_heap`): a full collection then
walks what was made since, as in a server; `--no-freeze` measures with the start-up heap walked too.
`--limit N` runs the first N files of each part (a smoke run); `--part tuning` runs that part alone (for tuning).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import sys
from array import array
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import ENGINES, LLAMA3, percentiles, shown, write_results  # noqa: E402
from benchmarks.maskbench import CollectorClock, Tokenize, run_schema  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "realworld"
PARTS = ("tuning", "held-out")


def part_of(name: str) -> str:
    """The part a schema file belongs to, from its name alone."""
    return "held-out" if hashlib.sha256(name.encode()).digest()[0] < 64 else "tuning"


def split(data: Path, limit: int = 0) -> dict[str, list[Path]]:
    """{part: its files, sorted}, each cut to `limit` files when given."""
    parts: dict[str, list[Path]] = {p: [] for p in PARTS}
    for path in sorted(data.glob("*.json")):
        parts[part_of(path.name)].append(path)
    return {p: files[:limit] if limit else files for p, files in parts.items()}


def measure(files: list[Path], engines: dict[str, Any], tokenize: Tokenize, timeout: float) -> list[dict[str, Any]]:
    """Per schema, per engine: maskbench's record plus its mask timings and collector pauses (µs)."""
    clock = CollectorClock()
    rows = []
    for path in files:
        row: dict[str, Any] = {"file": path.name}
        for name, engine in engines.items():
            timings, paused = array("d"), array("d")
            with clock:
                entry = run_schema(engine, path, tokenize, timeout, timings, False, paused, clock)
            entry.pop("failures", None)
            row[name] = {**entry, "mask_us": list(timings), "paused_us": list(paused)}
        rows.append(row)
    return rows


def summary(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any]:
    """Per engine, over the schemas every engine compiled: the compile and mask figures."""
    both = [r for r in rows if all(r[n]["compile_ms"] is not None for n in names)]
    out: dict[str, Any] = {"schemas": len(rows), "all_compiled": len(both)}
    for name in names:
        masks = [t for r in both for t in r[name]["mask_us"]]
        less = [t - p for r in both for t, p in zip(r[name]["mask_us"], r[name]["paused_us"])]
        worst = max(both, key=lambda r: max(r[name]["mask_us"], default=0.0), default=None)
        out[name] = {
            "compiled": sum(r[name]["compile_ms"] is not None for r in rows),
            "wrong_accept": sum(r[name]["wrong_accept"] for r in rows),
            "compile_ms": percentiles([r[name]["compile_ms"] for r in both], {"p50": 50, "p99": 99}),
            "compile_cpu_ms": percentiles([r[name]["compile_cpu_ms"] for r in both], {"p50": 50, "p99": 99}),
            "mask_us": percentiles(masks, {"avg": 0, "p99": 99, "max": 0}),
            "mask_us_less_collector": percentiles(less, {"max": 0}),
            "largest_mask_in": worst["file"] if worst else None,
        }
    return out


def run(data: Path = DATA, tokenizer: Path = LLAMA3, engines: tuple[str, ...] = ("extractor", "llguidance"),
        timeout: float = 10.0, limit: int = 0, parts: tuple[str, ...] = PARTS, freeze: bool = True) -> dict[str, Any]:
    """Both parts on every engine; the dict written as JSON (per-schema rows without their timing lists)."""
    from extractor.tokens import Vocabulary

    vocab = Vocabulary.from_tokenizer_file(tokenizer)
    built = {name: ENGINES[name](tokenizer, vocab) for name in engines}
    tokenize = Tokenize(Path(tokenizer), vocab.tokens)
    result: dict[str, Any] = {"config": {"data": shown(data), "tokenizer": shown(tokenizer), "engines": list(engines),
                                         "timeout": timeout, "limit": limit, "parts": list(parts),
                                         "machine": "shared, 2 cores", "startup_heap_frozen": freeze},
                              "parts": {}, "schemas": []}
    if freeze:  # as vllm.utils.gc_utils.freeze_gc_heap: every generation collected, then all that lives frozen
        for generation in range(3):
            gc.collect(generation)
        gc.freeze()
    try:
        measured = {part: measure(files, built, tokenize, timeout)
                    for part, files in split(Path(data), limit).items() if part in parts}
    finally:
        if freeze:  # given back to the collector, as the engine core does at shutdown (a caller's process goes on)
            gc.unfreeze()
    for part, rows in measured.items():
        result["parts"][part] = summary(rows, list(engines))
        for row in rows:
            for name in engines:
                steps = row[name].pop("mask_us")
                row[name].pop("paused_us")
                row[name].update(mask_calls=len(steps), mask_us_max=round(max(steps), 1) if steps else None,
                                 mask_ms_total=round(sum(steps) / 1e3, 3))
            result["schemas"].append({"part": part, **row})
    return result


def _f(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}" if x < 100 else f"{x:.0f}"


def markdown(result: dict[str, Any]) -> str:
    """The table: one row per part and engine, figures over the schemas every engine compiled."""
    lines = [f"Real-world schemas (`{result['config']['data']}`), tokenizer `{result['config']['tokenizer']}`; "
             "figures over the schemas every engine compiled; one run, engines in turn per schema, on a shared "
             "2-core machine. The held-out part (a quarter, chosen by a hash of the file name) was never profiled "
             "or tuned on. Compile CPU: the process's CPU time over the same span, without the time other "
             "processes held the cores. "
             + ("The start-up heap (modules, vocabulary, engines) was frozen out of the collector's passes before the "
                "first schema, as vLLM's engine core does once started." if result["config"].get("startup_heap_frozen")
                else "The start-up heap was not frozen: every full collection walked it."), "",
             "| part | schemas | all compiled | engine | compiled | wrong accept | compile ms p50 / p99 | "
             "compile CPU ms p50 / p99 | mask µs avg / p99 / max | max less collector µs | largest mask in |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    for part, s in result["parts"].items():
        for name in result["config"]["engines"]:
            e = s[name]
            c, m, cpu = e["compile_ms"], e["mask_us"], e.get("compile_cpu_ms", {})
            lines.append(f"| {part} | {s['schemas']} | {s['all_compiled']} | {name} | {e['compiled']} | "
                         f"{e['wrong_accept']} | {_f(c['p50'])} / {_f(c['p99'])} | {_f(cpu.get('p50'))} / "
                         f"{_f(cpu.get('p99'))} | {_f(m['avg'])} / {_f(m['p99'])} / "
                         f"{_f(m['max'])} | {_f(e['mask_us_less_collector']['max'])} | {e['largest_mask_in']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--tokenizer", type=Path, default=LLAMA3)
    parser.add_argument("--engines", nargs="+", default=["extractor", "llguidance"])
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--limit", type=int, default=0, help="first N files of each part; 0 = all")
    parser.add_argument("--part", choices=PARTS, help="only this part (tuning work runs the tuning part alone)")
    parser.add_argument("--no-freeze", action="store_true", help="leave the start-up heap to the collector's passes")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    engines = tuple(e for arg in args.engines for e in arg.split(","))
    result = run(args.data, args.tokenizer, engines, args.timeout, args.limit, (args.part,) if args.part else PARTS,
                 not args.no_freeze)
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
