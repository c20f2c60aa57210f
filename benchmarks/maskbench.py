"""MaskBench (JSONSchemaBench's mask benchmark): compile time, mask time per token, and correctness.

usage: python benchmarks/maskbench.py [--data DIR] [--tokenizer tokenizer.json] [--sample N] [--seed S]
                                      [--engines extractor ...] [--timeout SECONDS] [--json OUT] [--md OUT.md]

--data defaults to the whole corpus where ../shared is beside the checkout, else to the repository's 60-schema
sample (benchmarks/data/maskbench); --tokenizer to Llama-3's, from `make data` (tests/data.py resolves both).

Engines: extractor, and the peers llguidance, xgrammar, outlines (benchmarks/peers.py; install the `bench`
extra), each run on the same schemas, tokenizer and instances, e.g. `--engines extractor,llguidance`.

For every schema file (or a seeded sample: `random.Random(seed).sample(sorted(files), N)`, N = 0 for all):
compile under a time limit (compile time = compile + the first mask), then teacher-force every test
instance token by token: its compact JSON, tokenized with the tokenizer, must be allowed by each
mask (and EOS at the end) when valid, and refused at some token or at the end when invalid.
A valid instance rejected only because its keys are not in `properties` order (it is accepted once
re-ordered) counts as `order_only_reject`, and one accepted once its numbers are written as plain decimals (bounded
numbers are, docs/schema-support.md) as `notation_only_reject`, not as wrong rejects. A schema passes when it compiles
and has no wrong accept and no wrong reject. The engines take each schema in turn (all of one schema, then the
next), so that a shared machine's changing load weighs on all alike. Writes JSON and prints a Markdown table.

Refresh the stored baseline used by tests/test_compliance.py with
    python benchmarks/maskbench.py --sample 60 --seed 7 --json benchmarks/results/maskbench_baseline.json
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import re
import sys
import time
from array import array
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (  # noqa: E402
    ENGINES, LLAMA3, MASKBENCH_DATA, Reorderer, Timeout, accepted_order, compact_text, percentiles, quiet, shown,
    time_limit, write_results,
)
from extractor.automata import Automaton  # noqa: E402

STATUSES = ("pass", "fail", "unsupported", "invalid", "timeout", "check-timeout", "error")


class TokenizerMismatch(Exception):
    """The tokenizer does not spell compact JSON byte for byte (e.g. a SentencePiece prefix space)."""


def subset_of(name: str) -> str:
    """`Github_easy---o1.json` -> Github_easy; `BFCL_java_12.json` -> BFCL_java; `JME_3.json` -> JME."""
    if "---" in name:
        return name.split("---")[0]
    return re.sub(r"_\d+\.json$", "", name)


def select_files(data: Path, sample: int, seed: int) -> list[Path]:
    files = sorted(data.glob("*.json"))
    if sample and sample < len(files):
        files = random.Random(seed).sample(files, sample)
    return files


class Tokenize:
    """Text -> token ids with the real tokenizer, checked to spell the text's bytes exactly."""

    def __init__(self, path: Path, token_bytes: tuple[bytes, ...]) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.token_bytes = token_bytes
        for probe in ('{"a":"b c"}', '"x"', "[1,2]"):
            if self(probe) is None:
                ids = self.tokenizer.encode(probe, add_special_tokens=False).ids
                raise TokenizerMismatch(
                    f"{path}: tokens of {probe!r} spell {b''.join(token_bytes[i] for i in ids)!r}, not the text "
                    f"(a SentencePiece prefix space?); skipping this tokenizer")

    def __call__(self, text: str) -> list[int] | None:
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if b"".join(self.token_bytes[i] for i in ids) != text.encode():
            return None
        return ids


class CollectorClock:
    """Microseconds Python's cyclic collector has paused this process while installed: a collection runs inside
    whichever call happens to allocate, so a mask's time may hold one that is none of its own work."""

    def __init__(self) -> None:
        self.us, self._at = 0.0, 0

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._tick)

    def _tick(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._at = time.perf_counter_ns()
        else:
            self.us += (time.perf_counter_ns() - self._at) / 1e3


def _timed_mask(matcher: Any, timings: list[float] | None, paused: list[float] | None,
                clock: CollectorClock | None) -> Any:
    """`matcher.mask()`, its µs appended to `timings` and the collector's µs within it to `paused`."""
    before, t0 = clock.us if clock else 0.0, time.perf_counter_ns()
    mask = matcher.mask()
    if timings is not None:
        timings.append((time.perf_counter_ns() - t0) / 1e3)
        if paused is not None:
            paused.append(clock.us - before if clock else 0.0)
    return mask


def force(matcher: Any, tokens: list[int], eos_ids: list[int], timings: list[float] | None,
          token_bytes: tuple[bytes, ...], paused: list[float] | None = None,
          clock: CollectorClock | None = None) -> dict[str, Any]:
    """Teacher-force `tokens`, checking each against the mask; {"accepted": bool, ...where it stopped}."""
    consumed = 0
    mismatches = []
    for i, tok in enumerate(tokens):
        mask = _timed_mask(matcher, timings, paused, clock)
        allowed = bool(mask[tok]) if tok < len(mask) else False
        try:
            matcher.advance(tok)
            advanced, why = True, ""
        except ValueError as exc:
            advanced, why = False, str(exc)
        if allowed != advanced:
            mismatches.append(f"token {i} ({token_bytes[tok]!r}): mask says {allowed}, advance "
                              f"{'succeeded' if advanced else 'raised: ' + why}")
        if not (allowed and advanced):
            return {"accepted": False, "at_token": i, "at_byte": consumed,
                    "token": token_bytes[tok].decode("utf-8", "replace"), "reason": why or "mask forbids the token",
                    "mismatches": mismatches}
        consumed += len(token_bytes[tok])
    mask = _timed_mask(matcher, timings, paused, clock)
    eos = any(bool(mask[e]) for e in eos_ids if e < len(mask))
    accepting = bool(matcher.accepting())
    if eos != accepting:
        mismatches.append(f"at the end: mask allows EOS {eos}, accepting() {accepting}")
    out: dict[str, Any] = {"accepted": eos, "mismatches": mismatches}
    if not eos:
        out.update(at_token=len(tokens), at_byte=consumed, token="<eos>", reason="EOS not allowed at the end")
    return out


def _rewritten(value: Any, reorder: Reorderer, automaton: Automaton | None = None) -> Iterator[tuple[str, str]]:
    """A valid value written as generation writes it, with the kind of reject it turns into if then accepted:
    keys in `properties` order ("order_only_reject"), then numbers as plain decimals, no exponent
    ("notation_only_reject"), alone and with each re-ordering; last, for our engines, any key order the
    automaton accepts, searched (where the schema's branches order keys their own ways)."""
    orders = reorder.candidates(value)
    yield from ((compact_text(c), "order_only_reject") for c in orders)
    for candidate in [value, *orders]:
        plain = plain_text(candidate)
        if plain != compact_text(candidate):
            yield plain, "notation_only_reject"
    found = None if automaton is None else accepted_order(automaton, value)
    if found is not None:
        yield found, "order_only_reject"


def plain_text(value: Any) -> str:
    """Compact JSON with every float written as a plain decimal (`1.5e+3` -> `1500.0`)."""
    if isinstance(value, float) and math.isfinite(value):
        text = format(Decimal(repr(value)), "f")
        return text if "." in text else text + ".0"
    if isinstance(value, dict):
        return "{" + ",".join(f"{compact_text(k)}:{plain_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(plain_text(v) for v in value) + "]"
    return compact_text(value)


def run_schema(engine: Any, path: Path, tokenize: Tokenize, timeout: float, timings: list[float],
               memory: bool = False, paused: list[float] | None = None,
               clock: CollectorClock | None = None) -> dict[str, Any]:
    """One schema file on one engine: the per-schema record."""
    doc = json.loads(path.read_text())
    schema, tests = doc.get("schema"), doc.get("tests", [])
    entry: dict[str, Any] = {
        "engine": engine.name, "file": path.name, "subset": subset_of(path.name), "status": "pass",
        "error": None, "keyword": None, "compile_ms": None, "instances": len(tests),
        "valid": sum(bool(t.get("valid")) for t in tests), "tokens": 0, "wrong_accept": 0, "wrong_reject": 0,
        "order_only_reject": 0, "notation_only_reject": 0, "mask_mismatch": 0, "skipped": 0, "failures": [],
    }
    try:
        precheck = getattr(engine, "precheck", None)
        if precheck is not None:  # a peer's native compile, which SIGALRM cannot stop: hard limit in a child
            precheck(schema, timeout)
        with quiet(), time_limit(timeout):
            t0, c0 = time.perf_counter(), time.process_time()
            handle = engine.compile(schema)
            t1 = time.perf_counter()
            engine.matcher(handle).mask()
            t2, c2 = time.perf_counter(), time.process_time()
            entry.update(compile_ms=round((t2 - t0) * 1e3, 3), compile_only_ms=round((t1 - t0) * 1e3, 3),
                         first_mask_ms=round((t2 - t1) * 1e3, 3), compile_cpu_ms=round((c2 - c0) * 1e3, 3))
    except Timeout as exc:
        entry.update(status="timeout", error=str(exc))
        return entry
    except Exception as exc:  # noqa: BLE001 - every engine failure is counted, never raised
        kind, detail = engine.classify(exc)
        entry.update(status=kind, error=str(exc) if kind != "error" else detail,
                     keyword=detail if kind == "unsupported" else None)
        return entry

    if memory and hasattr(engine, "peak_kib"):  # a second, traced compile: tracing slows it several times
        try:
            with quiet(), time_limit(5 * timeout):
                entry["peak_kib"] = round(engine.peak_kib(schema), 1)
        except Timeout:
            entry["peak_kib"] = None
    reorder = Reorderer(schema)
    for index, test in enumerate(tests):
        valid = bool(test.get("valid"))
        text = compact_text(test.get("data"))
        tokens = tokenize(text)
        if tokens is None:
            entry["skipped"] += 1
            entry["failures"].append({"test": index, "kind": "tokenization", "text": text[:200]})
            continue
        entry["tokens"] += len(tokens)
        try:
            with time_limit(timeout):
                result = force(engine.matcher(handle), tokens, engine.eos_ids, timings, tokenize.token_bytes,
                               paused, clock)
                kind = None
                if result["accepted"] and not valid:
                    kind = "wrong_accept"
                elif not result["accepted"] and valid:
                    kind = "wrong_reject"
                    for cand, as_kind in _rewritten(test.get("data"), reorder, getattr(handle, "automaton", None)):
                        ctoks = tokenize(cand)
                        if ctoks is not None and force(engine.matcher(handle), ctoks, engine.eos_ids, None,
                                                       tokenize.token_bytes)["accepted"]:
                            kind = as_kind
                            break
        except Timeout as exc:
            entry.update(status="check-timeout", error=f"instance {index}: {exc}")
            return entry
        except Exception as exc:  # noqa: BLE001
            entry.update(status="error", error=f"instance {index}: {type(exc).__name__}: {exc}")
            return entry
        if result["mismatches"]:
            entry["mask_mismatch"] += 1
        if kind or result["mismatches"]:
            failure = {"test": index, "valid": valid, "kind": kind or "mask_mismatch",
                       "description": test.get("description", "")[:200], "text": text[:2000]}
            if not result["accepted"]:
                at = result["at_byte"]
                failure.update(at_token=result["at_token"], at_byte=at, token=result["token"],
                               before=text.encode()[max(0, at - 80):at].decode("utf-8", "replace"),
                               reason=result["reason"][:300])
            if result["mismatches"]:
                failure["mismatches"] = result["mismatches"][:5]
            if kind == "wrong_accept" and test.get("python_error"):
                failure["python_error"] = str(test["python_error"])[:300]
            entry["failures"].append(failure)
        if kind:
            entry[kind] += 1
    if entry["wrong_accept"] or entry["wrong_reject"]:
        entry["status"] = "fail"
    return entry


def summarize(entries: list[dict[str, Any]], timings: list[float], paused: list[float] | None = None
              ) -> dict[str, Any]:
    """The per-engine summary over its schema records and every mask timing (µs)."""
    count = Counter(e["status"] for e in entries)
    compiled = [e for e in entries if e["compile_ms"] is not None]
    by_subset: dict[str, dict[str, int]] = {}
    for e in entries:
        row = by_subset.setdefault(e["subset"], dict.fromkeys(
            ("schemas", "compiled", "passing", "wrong_accept", "wrong_reject", "order_only_reject",
             "notation_only_reject"), 0))
        row["schemas"] += 1
        row["compiled"] += e["compile_ms"] is not None
        row["passing"] += e["status"] == "pass"
        for k in ("wrong_accept", "wrong_reject", "order_only_reject", "notation_only_reject"):
            row[k] += e.get(k, 0)
    keywords = Counter(e["keyword"] for e in entries if e["status"] == "unsupported")
    return {
        "schemas": len(entries), "compiled": len(compiled), "unsupported": count["unsupported"],
        "invalid": count["invalid"], "compile_timeouts": count["timeout"], "check_timeouts": count["check-timeout"],
        "errors": count["error"], "passing": count["pass"],
        "wrong_accept": sum(e["wrong_accept"] for e in entries),
        "wrong_reject": sum(e["wrong_reject"] for e in entries),
        "order_only_reject": sum(e["order_only_reject"] for e in entries),
        "notation_only_reject": sum(e.get("notation_only_reject", 0) for e in entries),
        "mask_mismatch": sum(e["mask_mismatch"] for e in entries),
        "instances": sum(e["instances"] for e in compiled), "tokens": sum(e["tokens"] for e in entries),
        "compile_ms": percentiles([e["compile_ms"] for e in compiled], {"p50": 50, "avg": 0, "p99": 99}),
        "stages_ms": {stage: percentiles([e[f"{stage}_ms"] for e in compiled], {"p50": 50, "avg": 0, "p99": 99})
                      for stage in ("compile_only", "first_mask")},
        "peak_kib": percentiles([e["peak_kib"] for e in compiled if e.get("peak_kib") is not None],
                                {"p50": 50, "avg": 0, "p99": 99, "max": 0}),
        "mask_us": percentiles(timings, {"avg": 0, "p50": 50, "p99": 99, "max": 0}),
        "mask_us_less_collector": percentiles([t - p for t, p in zip(timings, paused or [0.0] * len(timings))],
                                              {"avg": 0, "p50": 50, "p99": 99, "max": 0}),
        "masks_with_collector": sum(p > 0 for p in paused or ()),
        "by_subset": dict(sorted(by_subset.items())),
        "unsupported_keywords": dict(keywords.most_common()),
    }


def run(data: Path = MASKBENCH_DATA, tokenizer: Path = LLAMA3, sample: int = 0, seed: int = 0,
        engines: tuple[str, ...] = ("extractor",), timeout: float = 10.0, progress: bool = True,
        memory: bool = False) -> dict[str, Any]:
    """The whole benchmark; the dict written as JSON."""
    from extractor.tokens import Vocabulary

    files = select_files(Path(data), sample, seed)
    vocab = Vocabulary.from_tokenizer_file(tokenizer)
    tokenize = Tokenize(Path(tokenizer), vocab.tokens)
    result: dict[str, Any] = {
        "config": {"data": shown(data), "tokenizer": shown(tokenizer), "sample": sample, "seed": seed,
                   "engines": list(engines), "timeout": timeout, "files": len(files)},
        "engines": {}, "schemas": [],
    }
    built = {name: ENGINES[name](tokenizer, vocab) for name in engines}  # a missing peer fails before any run
    # every mask's µs in a flat array, not a list of floats: the cyclic collector walks a list's items at each full
    # collection, and one running inside a mask call would count the harness's own heap against the engine
    timings: dict[str, array[float]] = {name: array("d") for name in built}
    paused: dict[str, array[float]] = {name: array("d") for name in built}
    entries: dict[str, list[dict[str, Any]]] = {name: [] for name in built}
    clock = CollectorClock()
    for path in _progress(files, ",".join(built), progress):  # engines in turn per schema: load drifts alike for all
        for name, engine in built.items():
            start = len(timings[name])
            with clock:
                entry = run_schema(engine, path, tokenize, timeout, timings[name], memory, paused[name], clock)
            steps = timings[name][start:]
            entry.update(mask_calls=len(steps), mask_us_max=round(max(steps), 1) if steps else None,
                         mask_ms_total=round(sum(steps) / 1e3, 3))
            entries[name].append(entry)
    for name in built:
        result["engines"][name] = summarize(entries[name], timings[name], paused[name])
        result["schemas"] += entries[name]
    return result


def _progress(items: list[Path], name: str, enabled: bool) -> Any:
    if not enabled:
        return items
    try:
        from tqdm import tqdm

        return tqdm(items, desc=name, file=sys.stderr, unit="schema")
    except ImportError:
        return _counter(items, name)


def _counter(items: list[Path], name: str) -> Any:
    for i, item in enumerate(items, 1):
        print(f"\r{name}: {i}/{len(items)}", end="", file=sys.stderr, flush=True)
        yield item
    print(file=sys.stderr)


def markdown(result: dict[str, Any]) -> str:
    cfg = result["config"]
    lines = [f"MaskBench: {cfg['files']} schemas (sample {cfg['sample']}, seed {cfg['seed']}), "
             f"tokenizer `{Path(cfg['tokenizer']).parent.name}`, compile limit {cfg['timeout']:g} s", "",
             "| engine | schemas | compiled | unsupported | invalid | timeouts | errors | passing | wrong accept "
             "| wrong reject | order-only reject | notation-only reject | compile ms p50 / avg / p99 "
             "| mask µs avg / p50 / p99 / max |",
             "|---|" + "---:|" * 13]
    for name, s in result["engines"].items():
        c, m = s["compile_ms"], s["mask_us"]
        lines.append(
            f"| {name} | {s['schemas']} | {s['compiled']} | {s['unsupported']} | {s['invalid']} "
            f"| {s['compile_timeouts']}+{s['check_timeouts']} | {s['errors']} | {s['passing']} | {s['wrong_accept']} "
            f"| {s['wrong_reject']} | {s['order_only_reject']} | {s.get('notation_only_reject', 0)} | {_f(c['p50'])} / {_f(c['avg'])} / {_f(c['p99'])} "
            f"| {_f(m['avg'])} / {_f(m['p50'])} / {_f(m['p99'])} / {_f(m['max'])} |")
    lines += ["", "timeouts: compile + instance checks. passing: compiled, no wrong accept, no wrong reject "
              "(order-only and notation-only rejects allowed: a valid value accepted once its keys follow "
              "`properties` order, or its numbers are written as plain decimals, as docs/schema-support.md "
              "says generation writes them)."]
    for name, s in result["engines"].items():
        if s.get("masks_with_collector"):
            q = s["mask_us_less_collector"]
            lines += ["", f"{name}: {s['masks_with_collector']} mask calls held a pause of Python's cyclic collector "
                      f"(a collection runs in whichever call allocates); less those pauses, mask µs p99 {_f(q['p99'])}, "
                      f"max {_f(q['max'])}."]
    lines += ["", "Time to first mask by stage (ms, p50 / avg / p99): the compile (schema to matcher), then the "
              "matcher's first mask; `compile ms` above is their sum (`benchmarks/compile_profile.py` splits "
              "extractor's compile further).", "", "| engine | compile | first mask | time to first mask |",
              "|---|---:|---:|---:|"]
    for name, s in result["engines"].items():
        st = s.get("stages_ms") or {}
        if st:
            cells = [st["compile_only"], st["first_mask"], s["compile_ms"]]
            lines.append(f"| {name} | " + " | ".join(f"{_f(c['p50'])} / {_f(c['avg'])} / {_f(c['p99'])}"
                                                     for c in cells) + " |")
    for name, s in result["engines"].items():
        k = s.get("peak_kib") or {}
        if k.get("p50") is not None:
            lines += ["", f"{name}: peak traced memory of a compile plus its first mask (fresh table cache), KiB: "
                      f"p50 {_f(k['p50'])}, avg {_f(k['avg'])}, p99 {_f(k['p99'])}, max {_f(k['max'])}"]
    for name, s in result["engines"].items():
        lines += ["", f"### {name} by subset", "",
                  "| subset | schemas | compiled | passing | wrong accept | wrong reject | order-only reject "
                  "| notation-only reject |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for subset, row in s["by_subset"].items():
            lines.append(f"| {subset} | {row['schemas']} | {row['compiled']} | {row['passing']} "
                         f"| {row['wrong_accept']} | {row['wrong_reject']} | {row['order_only_reject']} "
                         f"| {row.get('notation_only_reject', 0)} |")
        top = list(s["unsupported_keywords"].items())[:15]
        if top:
            lines += ["", f"{name} unsupported keywords (schemas refused, first refusal each): "
                      + ", ".join(f"`{k}` {v}" for k, v in top)]
    return "\n".join(lines) + "\n"


def _f(x: float | None) -> str:
    if x is None:
        return "–"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=MASKBENCH_DATA)
    parser.add_argument("--tokenizer", type=Path, default=LLAMA3)
    parser.add_argument("--sample", type=int, default=0, help="number of schema files; 0 = all")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", nargs="+", default=["extractor"], help=f"among {sorted(ENGINES)}")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per schema compile and per instance")
    parser.add_argument("--json", type=Path, help="write the full results here")
    parser.add_argument("--md", type=Path, help="write the Markdown table here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--memory", action="store_true",
                        help="also trace the peak memory of each compile (engines in Python: extractor)")
    args = parser.parse_args()
    engines = tuple(e for arg in args.engines for e in arg.split(",") if e)
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s) {unknown}; known: {sorted(ENGINES)}")
    try:
        result = run(args.data, args.tokenizer, args.sample, args.seed, engines, args.timeout, not args.quiet,
                     args.memory)
    except TokenizerMismatch as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except ImportError as exc:  # a peer engine whose package is not installed
        parser.error(str(exc))
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
