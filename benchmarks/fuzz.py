"""Differential fuzzing of the compiler against jsonschema for a fixed time.

usage: python benchmarks/fuzz.py [--minutes 3] [--seed 1] [--json OUT] [--md OUT]

Random schemas over the enforced keywords and instances drawn valid and then mutated
(tests/fuzz/strategies.py, shared with tests/fuzz/test_differential.py), each instance judged by the
engine's automaton and by jsonschema. Counts schemas tried and refused (by error class), instances
checked, wrong accepts, wrong rejects (and wrong "unsatisfiable" refusals that a valid instance refutes),
rejects no policy could be checked against ("unverified") and crashes (any exception but an
ExtractorError). Each disagreement is shrunk by hand-rolled greedy deletions that keep it, then printed
as schema, instance and both verdicts.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from benchmarks.common import commit, write_results  # noqa: E402
from extractor.errors import ExtractorError, UnsatisfiableSchemaError  # noqa: E402
from tests.fuzz.strategies import WRONG, Oracle, instances, known_bug, schemas  # noqa: E402
SHRINK_SECONDS = 20.0


CHUNK = 20
"""Examples per hypothesis run: runs (seeded from --seed and their index) repeat until time is up."""


def _kind(oracles: dict[str, Oracle | None], schema: Any, instance: Any) -> str:
    """The verdict's kind, or "error" where the reduced schema is refused or breaks either side."""
    key = json.dumps(schema)
    try:
        if key not in oracles:
            oracles[key] = None
            oracles[key] = Oracle(schema)
        oracle = oracles[key]
        return oracle.verdict(instance).kind if oracle else "error"
    except Exception:
        return "error"


def _smaller(value: Any) -> Iterator[Any]:
    """Every value one step smaller: a key or an item dropped, at any depth (shallowest first)."""
    if isinstance(value, dict):
        yield from ({x: v for x, v in value.items() if x != k} for k in value)
        yield from ({**value, k: small} for k, v in value.items() for small in _smaller(v))
    elif isinstance(value, list):
        yield from (value[:i] + value[i + 1:] for i in range(len(value)))
        yield from (value[:i] + [small] + value[i + 1:] for i, v in enumerate(value) for small in _smaller(v))


def shrink(schema: dict[str, Any], instance: Any, kind: str) -> tuple[dict[str, Any], Any]:
    """Greedy: take any one-step-smaller schema or instance that shows the same kind of disagreement."""
    end = time.monotonic() + SHRINK_SECONDS
    oracles: dict[str, Oracle | None] = {}
    progress = True
    while progress and time.monotonic() < end:
        progress = False
        candidates = [*((s, instance) for s in _smaller(schema) if isinstance(s, dict)),
                      *((schema, i) for i in _smaller(instance))]
        for s, i in candidates:
            if time.monotonic() > end:
                break
            if _kind(oracles, s, i) == kind:
                schema, instance, progress = s, i, True
                break
    return schema, instance


def _crash(exc: BaseException, schema: Any, instance: Any = None) -> dict[str, Any]:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return {"kind": "crash", "schema": schema, "instance": instance,
            "error": f"{type(exc).__name__}: {str(exc)[:200]}", "at": f"{Path(frame.filename).name}:{frame.lineno}"}


def fuzz(minutes: float, seed_value: int) -> dict[str, Any]:
    """Run for `minutes`; the counts and every finding (shrunk, and deduplicated by its shrunk text)."""
    counts: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    findings: list[dict[str, Any]] = []
    seen: set[str] = set()
    start = time.monotonic()
    end, last = start + 60 * minutes, start

    def record(finding: dict[str, Any]) -> None:
        key = json.dumps([finding["kind"], finding["schema"], finding["instance"]], ensure_ascii=False)
        finding["count"] = 1
        for old in findings:
            if old["key"] == key:
                old["count"] += 1
                return
        findings.append({"key": key, **finding})
        print(f"\n{finding['kind']}: {json.dumps({k: v for k, v in finding.items() if k != 'key'}, ensure_ascii=False)}",
              file=sys.stderr)

    @settings(max_examples=CHUNK, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(schema=schemas(), data=st.data())
    def one(schema: dict[str, Any], data: st.DataObject) -> None:
        nonlocal last
        values = data.draw(instances(schema))  # first, so that what is drawn never depends on the engine
        now = time.monotonic()
        if now > end:
            return
        if now - last > 30:
            last = now
            print(f"{(now - start) / 60:4.1f} min: {dict(counts)} refused {dict(refused)}", file=sys.stderr)
        counts["schemas"] += 1
        try:
            oracle = Oracle(schema)
        except ExtractorError as exc:
            refused[type(exc).__name__] += 1
            return
        except Exception as exc:
            counts["crashes"] += 1
            record(_crash(exc, schema))
            return
        if oracle.automaton is None:
            refused[UnsatisfiableSchemaError.__name__] += 1
        for instance in values:
            try:
                verdict = oracle.verdict(instance)
            except Exception as exc:
                counts["crashes"] += 1
                record(_crash(exc, schema, instance))
                continue
            counts["instances"] += 1
            counts[verdict.kind] += 1
            if verdict.kind in WRONG or verdict.kind.startswith("unverified"):
                key = json.dumps([schema, instance], ensure_ascii=False)
                small = (schema, instance) if key in seen else shrink(schema, instance, verdict.kind)
                seen.add(key)
                again = Oracle(small[0]).verdict(small[1])
                record({"kind": verdict.kind, "schema": small[0], "instance": small[1], "engine": again.engine,
                        "jsonschema": again.reference, "excuse": again.excuse,
                        "known_bug": known_bug(*small) if verdict.kind in WRONG else None, "found_in": schema})

    chunk = 0
    while time.monotonic() < end:
        seed(seed_value * 1_000_003 + chunk)(one)()
        chunk += 1
    for f in findings:
        del f["key"]
    return {"seed": seed_value, "minutes": minutes, "counts": dict(counts), "refused": dict(refused),
            "findings": findings}


def _table(result: dict[str, Any]) -> str:
    c = result["counts"]
    lines = [f"# Differential fuzzing: {c.get('schemas', 0)} schemas, {c.get('instances', 0)} instances in "
             f"{result['minutes']:g} min (seed {result['seed']})", "", f"Commit `{result['commit']}`.", "",
             "| count | value |", "|---|---:|"]
    lines += [f"| {k} | {v} |" for k, v in sorted(c.items())]
    lines += [f"| refused: {k} | {v} |" for k, v in sorted(result["refused"].items())]
    lines += ["", f"## Findings ({len(result['findings'])}, shrunk)", ""]
    for f in result["findings"]:
        lines += [f"- **{f['kind']}** (seen {f['count']}x): schema `{json.dumps(f['schema'], ensure_ascii=False)}` "
                  f"instance `{json.dumps(f['instance'], ensure_ascii=False)}` "
                  + (f"error `{f['error']}` at {f['at']}" if f["kind"] == "crash" else
                     f"engine {f['engine']}, jsonschema {f['jsonschema']}" + (f", {f['excuse']}" if f["excuse"] else "")
                     + (f", known bug {f['known_bug']}" if f["known_bug"] else ""))]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args()
    result = {"commit": commit(), **fuzz(args.minutes, args.seed)}
    write_results(result, _table(result), args.json, args.md)


if __name__ == "__main__":
    main()
