"""Differential fuzzing of the compiler against jsonschema for a fixed time.

usage: python benchmarks/fuzz.py [--minutes 3] [--seed 1] [--json OUT] [--md OUT]

Random schemas over the enforced keywords and instances drawn valid and then mutated
(tests/fuzz/strategies.py, shared with tests/fuzz/test_differential.py), each instance judged by the
engine's automaton and by jsonschema. Counts schemas tried and refused (by error class), instances
checked, wrong accepts, wrong rejects (and wrong "unsatisfiable" refusals that a valid instance refutes),
rejects no policy could be checked against ("unverified"), rejects only an undocumented key order
explains, and crashes (any exception but an ExtractorError). Each of those is shrunk by greedy deletions
that keep it, then printed as schema, instance and both verdicts.
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
from jsonschema import Draft202012Validator  # noqa: E402

from benchmarks.common import commit, write_results  # noqa: E402
from extractor.errors import ExtractorError, UnsatisfiableSchemaError  # noqa: E402
from tests.fuzz.strategies import WRONG, Oracle, instances, schemas  # noqa: E402

SHRINK_SECONDS = 30.0
NOTED = ("excused: key order (undocumented)", "unverified")
"""Verdicts that are no disagreement but are shrunk and listed too: layouts and gaps worth a look."""


CHUNK = 20
"""Examples per hypothesis run: runs (seeded from --seed and their index) repeat until time is up."""


def _kind(oracles: dict[str, Oracle | None], schema: Any, instance: Any) -> str:
    """The verdict's kind, or "error" where the reduced schema is refused or breaks either side."""
    key = json.dumps(schema)
    try:
        if key not in oracles:
            oracles[key] = None
            Draft202012Validator.check_schema(schema)  # a reduction must stay a schema
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


def shrink(schema: dict[str, Any], instance: Any, kind: str, end: float) -> tuple[dict[str, Any], Any]:
    """Greedy until `end`: take any one-step-smaller schema or instance showing the same kind of verdict."""
    oracles: dict[str, Oracle | None] = {}
    progress = True
    while progress and time.monotonic() < end:
        progress = False
        candidates = [*((schema, i) for i in _smaller(instance)),  # first: they reuse the compiled schema
                      *((s, instance) for s in _smaller(schema) if isinstance(s, dict))]
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
    shrunk: dict[str, tuple[dict[str, Any], Any]] = {}
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
        shown = {k: v for k, v in finding.items() if k not in ("key", "kind", "found_in", "count")}
        print(f"\n{finding['kind']}: {json.dumps(shown, ensure_ascii=False)}", file=sys.stderr)

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
            if not (verdict.kind in WRONG or verdict.kind.startswith(NOTED)):
                continue
            key = json.dumps([schema, instance], ensure_ascii=False)
            if key not in shrunk:  # at least 10 s to shrink, even when the run's time is up
                now = time.monotonic()
                shrunk[key] = shrink(schema, instance, verdict.kind, max(min(now + SHRINK_SECONDS, end), now + 10))
            small_schema, small_instance = shrunk[key]
            again = Oracle(small_schema).verdict(small_instance)
            record({"kind": verdict.kind, "schema": small_schema, "instance": small_instance, "engine": again.engine,
                    "jsonschema": again.reference, "excuse": again.excuse, "found_in": schema})

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
                     f"engine {f['engine']}, jsonschema {f['jsonschema']}" + (f", {f['excuse']}" if f["excuse"] else ""))]
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
