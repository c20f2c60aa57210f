"""Where compile time goes: each MaskBench schema compiled stage by stage, beside llguidance's time to first mask.

usage: python benchmarks/compile_profile.py [--sample 500] [--seed 7] [--timeout 10] [--runs 5] [--json OUT] [--md OUT]
                                           [--realworld]

`--realworld` profiles the tuning part of the real-world schemas (benchmarks/realworld_peers.py's split, every file in
order) instead of a MaskBench sample: the held-out part is never profiled.

Stages, timed per schema in one process and one thread (caches warm across schemas, as in maskbench.py):
`normalize` (JSON Schema to IR), `grammar` (IR to rules), then the automaton stage split by what its time is
spent in — `rule automata` (each rule's Thompson construction, subset construction and Hopcroft
minimization: one C call where the extension is built), `products` (intersections and differences of DFAs),
`automaton other` (the rest: productivity, calls, counters, the export of the tables the mask walk reads) —
and `first mask` (the grammar paired with the vocabulary, and its matcher's first mask, tables built).
Each part is counted once: a function's time excludes the timed functions it calls. Time to first mask
is their sum; llguidance's is its compile (grammar and matcher) plus its first mask, timed right after
ours on each schema, so that a shared machine's changing load weighs on both alike. Beside them, untimed: the
part of `rule automata` and `products` spent on rules the first mask never enters (its walk replayed in Python
afterwards: what building rule automata on demand could defer at most), and of that the rules whose bodies are
plain or calling (neither `Minus`, `Both` nor `Counted`), whose ability to finish could be decided from the body
without their automaton. The ratio of the two engines' times still moves from run to run as the machine's load
does (Python and Rust slow down unlike), so the whole profile runs `--runs` times, each in a fresh process (cold caches): the result is the run whose p50 ratio
is the median, with every run's ratio beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import LLAMA3, MASKBENCH_DATA, Timeout, commit, percentiles, time_limit, write_results  # noqa: E402
from benchmarks.maskbench import select_files  # noqa: E402

KEYS = {"p50": 50, "avg": 0, "p99": 99, "max": 100}
STAGES = ["normalize", "grammar", "rule automata", "products", "automaton other", "first mask"]


class Clock:
    """Exclusive time per stage: a timed function's time less that of the timed functions inside it."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self.inner: list[float] = []
        self.rules: dict[str, tuple[float, bool]] = {}  # rule built -> (its construction's time, body decidable)

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kw: Any) -> Any:
            self.inner.append(0.0)
            start = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                total = time.perf_counter() - start
                children = self.inner.pop()
                self.spent[name] = self.spent.get(name, 0.0) + total - children
                if self.inner:
                    self.inner[-1] += total
        return timed

    def run(self, name: str, fn: Callable[[], Any]) -> Any:
        return self.wrap(name, fn)()


def instrument(clock: Clock) -> None:
    """Route the DFA builder's parts through `clock`, in every module that holds a reference to them."""
    from extractor.automata import counted, pda
    from extractor.lang import dfa

    from extractor.lang.regex import Both, Counted, Minus

    dfa._product = clock.wrap("products", dfa._product)
    dfa.build_dfa = clock.wrap("rule automata", dfa.build_dfa)
    for module in (pda, counted):
        module.build_dfa = dfa.build_dfa  # type: ignore[attr-defined]
    construct = pda._construct

    def attributed(name: str, node: Any, productive: Any) -> Any:
        before = clock.spent.get("rule automata", 0.0) + clock.spent.get("products", 0.0)
        try:
            return construct(name, node, productive)
        finally:
            spent = clock.spent.get("rule automata", 0.0) + clock.spent.get("products", 0.0) - before
            clock.rules[name] = (clock.rules.get(name, (0.0, True))[0] + spent,
                                 not isinstance(node, (Minus, Both, Counted)))
    pda._construct = attributed


def profile(path: Path, vocab: Any, tables: Any, clock: Clock, timeout: float) -> dict[str, Any]:
    """One schema's stage times (ms), or why it did not compile."""
    from extractor import ExtractorError
    from extractor.lang.collector import collector_paused
    from extractor.masks import CompiledGrammar
    from extractor.masks.trie import TokenTrie

    schema = json.loads(path.read_text())["schema"]
    clock.spent, clock.rules = {}, {}
    try:
        with time_limit(timeout):
            automaton = collector_paused(stages)(schema, clock)  # as compile_schema runs them: one pause
            trie = _trie(vocab, TokenTrie)
            clock.run("first mask", lambda: CompiledGrammar(automaton, vocab, trie, tables=tables).matcher().mask())
    except (ExtractorError, Timeout) as exc:
        return {"file": path.name, "status": type(exc).__name__}
    ms = {stage: round(clock.spent.get(stage, 0.0) * 1000, 3) for stage in STAGES}
    row = {"file": path.name, "status": "ok", "ms": ms, "first_mask_ms": round(sum(ms.values()), 3)}
    try:  # the replay is Python: a start configuration too large for it leaves the row without these two
        with time_limit(timeout):
            entered = _entered(automaton, trie)
    except Timeout:
        return row
    never = [(t, plain) for name, (t, plain) in clock.rules.items() if name not in entered]
    return {**row, "never_entered_ms": round(sum(t for t, _ in never) * 1000, 3),
            "never_entered_plain_ms": round(sum(t for t, plain in never if plain) * 1000, 3)}


def _entered(automaton: Any, trie: Any) -> set[str]:
    """The rules on some stack of the first mask's walk (the start configuration over every token), replayed in
    Python over the configuration DFA, which numbers each configuration it meets."""
    import numpy as np

    from extractor.automata.configs import ConfigDFA
    from extractor.masks.walk import _walk_python

    configs = ConfigDFA(automaton)
    _walk_python(configs, trie, np.array([[0, configs.id(automaton.start())]], dtype=np.int32), exits=False)
    return {automaton.names[rule] for config in configs.configs for stack in config for rule, _ in stack}


def stages(schema: Any, clock: Clock) -> Any:
    """`compile_schema`'s three stages, each timed."""
    from extractor.automata import build_automaton
    from extractor.grammar import compile_grammar
    from extractor.schema import NormalizeOptions, target_ir

    ir = clock.run("normalize", lambda: target_ir(schema, None, NormalizeOptions(strict_objects=False)))
    rules = clock.run("grammar", lambda: compile_grammar(ir))
    return clock.run("automaton other", lambda: build_automaton(rules))


_TRIES: dict[str, Any] = {}


def _trie(vocab: Any, make: Any) -> Any:
    if vocab.fingerprint not in _TRIES:
        _TRIES[vocab.fingerprint] = make(vocab)
    return _TRIES[vocab.fingerprint]


def llguidance_first_mask(engine: Any, path: Path) -> float | None:
    """llguidance's compile plus first mask (ms); None where it refuses the schema."""
    schema = json.loads(path.read_text())["schema"]
    start = time.perf_counter()
    try:
        engine.matcher(engine.compile(schema)).mask()
    except Exception:  # noqa: BLE001 - a refusal: not timed
        return None
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=5, help="fresh processes; the median run is reported")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--realworld", action="store_true", help="the real-world schemas' tuning part")
    args = parser.parse_args()
    if args.runs > 1:
        result = median_run(args)
        write_results(result, markdown(result), args.json, args.md)
        return

    from tqdm import tqdm

    from extractor.masks import TableCache
    from extractor.tokens import Vocabulary

    vocab = Vocabulary.from_tokenizer_file(LLAMA3)
    paths = _paths(args)
    clock = Clock()
    instrument(clock)
    tables = TableCache()  # in memory only: every table is paid for in the run
    from benchmarks.peers import LlguidanceEngine

    engine = LlguidanceEngine(LLAMA3, vocab)
    profile(paths[0], vocab, tables, clock, args.timeout)  # the token trie, outside any timing
    rows, theirs = [], {}
    for path in tqdm(paths, desc="profile"):  # each schema by both engines in turn: load drifts alike for both
        rows.append(profile(path, vocab, tables, clock, args.timeout))
        ms = llguidance_first_mask(engine, path)
        if ms is not None:
            theirs[path.name] = ms
            rows[-1]["llguidance_ms"] = round(ms, 3)
    done = [r for r in rows if r["status"] == "ok"]
    both = [r for r in done if r["file"] in theirs]
    total = sum(r["first_mask_ms"] for r in done) or 1.0
    stages = {s: {**percentiles([r["ms"][s] for r in done], KEYS), "share": round(sum(r["ms"][s] for r in done) / total, 4)}
              for s in STAGES}
    result = {"commit": commit(), "sample": args.sample, "seed": args.seed, "realworld": args.realworld,
              "schemas": len(rows), "compiled": len(done),
              "stages_ms": stages, "first_mask_ms": percentiles([r["first_mask_ms"] for r in done], KEYS),
              "never_entered_ms": {key: percentiles([r[key] for r in done if key in r], KEYS)
                                   for key in ("never_entered_ms", "never_entered_plain_ms")},
              "never_entered_replayed": sum("never_entered_ms" in r for r in done),
              "both_compiled": len(both),
              "first_mask_ms_both": {"extractor": percentiles([r["first_mask_ms"] for r in both], KEYS),
                                     "llguidance": percentiles([theirs[r["file"]] for r in both], KEYS)},
              "rows": rows}
    write_results(result, markdown(result), args.json, args.md)


def _paths(args: argparse.Namespace) -> list[Path]:
    """The schema files profiled: a MaskBench sample, or the real-world tuning part."""
    if args.realworld:
        from benchmarks.realworld_peers import DATA, split

        return split(DATA)["tuning"]
    return select_files(MASKBENCH_DATA, args.sample, args.seed)


def median_run(args: argparse.Namespace) -> dict[str, Any]:
    """The profile run `args.runs` times in fresh processes; the run with the median p50 ratio, all ratios beside."""
    from tqdm import tqdm

    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in tqdm(range(args.runs), desc="runs"):
            out = Path(tmp) / f"run{i}.json"
            run = subprocess.run([sys.executable, __file__, "--runs", "1", "--sample", str(args.sample), "--seed",
                                  str(args.seed), "--timeout", str(args.timeout), "--json", str(out),
                                  *(["--realworld"] if args.realworld else [])],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if run.returncode:
                raise SystemExit(f"run {i + 1} of {args.runs} failed (exit {run.returncode}):\n{run.stderr[-3000:]}")
            results.append(json.loads(out.read_text()))
    ratios = [_ratio(r) for r in results]
    middle = results[ratios.index(statistics.median_low(ratios))]
    return {**middle, "runs": [{"ratio": round(_ratio(r), 3),
                                **{e: r["first_mask_ms_both"][e]["p50"] for e in ("extractor", "llguidance")}}
                               for r in results]}


def _ratio(result: dict[str, Any]) -> float:
    both = result["first_mask_ms_both"]
    return both["extractor"]["p50"] / both["llguidance"]["p50"]


def markdown(result: dict[str, Any]) -> str:
    source = ("real-world schemas, tuning part" if result.get("realworld")
              else f"MaskBench sample {result['sample']}, seed {result['seed']}")
    lines = [f"# Compile time by stage ({source}, Llama-3)", "",
             f"Commit `{result['commit']}`; {result['compiled']} of {result['schemas']} schemas compiled; one "
             "process, one thread, caches warm across schemas.", "",
             "| stage | p50 ms | avg ms | p99 ms | max ms | share of all time |", "|---|---:|---:|---:|---:|---:|"]
    for stage, s in result["stages_ms"].items():
        lines.append(f"| {stage} | {s['p50']:.3f} | {s['avg']:.3f} | {s['p99']:.2f} | {s['max']:.1f} | "
                     f"{100 * s['share']:.1f}% |")
    f = result["first_mask_ms"]
    lines.append(f"| **time to first mask** | {f['p50']:.2f} | {f['avg']:.2f} | {f['p99']:.1f} | {f['max']:.0f} | 100% |")
    replayed = "never_entered_ms" in result  # results from before the replay was added have no such figures
    if replayed:
        lines += ["", "Of the time building rule automata (the rule automata and products stages), the part spent on "
                  "rules the first mask's walk never enters (what building them on demand could defer at most), and "
                  "of that the rules with plain or calling bodies (neither `Minus`, `Both` nor `Counted`: whether "
                  "they can finish is decidable without their automaton)"
                  + (f", over the {result['never_entered_replayed']} schemas whose walk the replay finished in time"
                     if "never_entered_replayed" in result else "") + ":", "",
                  "| rules | p50 ms | avg ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|",
                  *(f"| {label} | {n['p50']:.3f} | {n['avg']:.3f} | {n['p99']:.2f} | {n['max']:.1f} |"
                    for label, n in (("never entered", result["never_entered_ms"]["never_entered_ms"]),
                                     ("of those, plain or calling",
                                      result["never_entered_ms"]["never_entered_plain_ms"])))]
    ours, theirs = result["first_mask_ms_both"]["extractor"], result["first_mask_ms_both"]["llguidance"]
    lines += ["", f"Time to first mask on the {result['both_compiled']} schemas both engines compile:", "",
              "| engine | p50 ms | avg ms | p99 ms | max ms |", "|---|---:|---:|---:|---:|",
              *(f"| {name} | {s['p50']:.2f} | {s['avg']:.2f} | {s['p99']:.1f} | {s['max']:.0f} |"
                for name, s in (("extractor", ours), ("llguidance", theirs)))]
    lines += ["", "By tenths of our time to first mask (schemas both compile, fastest first): mean ms of each engine "
              "and their ratio, and our stages' means:", "",
              "| tenth | extractor | llguidance | ratio | " + " | ".join(STAGES) + (" | never entered (plain) |"
                                                                                      if replayed else " |"),
              "|---:|---:|---:|---:|" + "---:|" * (len(STAGES) + replayed),
              *(f"| {i + 1} | {t['extractor']:.2f} | {t['llguidance']:.2f} | {t['extractor'] / t['llguidance']:.2f}x | "
                + " | ".join(f"{t['stages'][stage]:.3f}" for stage in STAGES)
                + (f" | {t['never']:.3f} ({t['never_plain']:.3f}) |" if replayed else " |")
                for i, t in enumerate(_tenths(result["rows"])))]
    if "runs" in result:
        lines += ["", f"This is the run of median ratio (p50 {_ratio(result):.2f}x) of {len(result['runs'])}, each in a "
                  "fresh process; every run's p50 ratio (extractor / llguidance ms): " + ", ".join(
                      f"{r['ratio']:.2f}x ({r['extractor']:.2f} / {r['llguidance']:.2f})" for r in result["runs"]) + "."]
    return "\n".join(lines) + "\n"


def _tenths(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Schemas both engines compile, in ten groups by our time to first mask: each group's means."""
    both = sorted((r for r in rows if r["status"] == "ok" and "llguidance_ms" in r), key=lambda r: r["first_mask_ms"])
    groups = [both[i * len(both) // 10:(i + 1) * len(both) // 10] for i in range(10)] if len(both) >= 10 else []
    return [{"extractor": statistics.fmean(r["first_mask_ms"] for r in g),
             "llguidance": statistics.fmean(r["llguidance_ms"] for r in g),
             "stages": {s: statistics.fmean(r["ms"][s] for r in g) for s in STAGES},
             "never": _mean_of(g, "never_entered_ms"), "never_plain": _mean_of(g, "never_entered_plain_ms")}
            for g in groups]


def _mean_of(rows: list[dict[str, Any]], key: str) -> float:
    """The mean of `key` over the rows that have it (NaN where none has: results from before it was measured)."""
    values = [r[key] for r in rows if key in r]
    return statistics.fmean(values) if values else math.nan


if __name__ == "__main__":
    main()
