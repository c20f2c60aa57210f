"""The official JSON Schema Test Suite (draft 2020-12) run against the compiler's byte automaton.

usage: python benchmarks/jsts.py [--suite DIR] [--timeout SECONDS] [--json OUT] [--md OUT.md]

Every group's schema is compiled (refusal=None, strict_objects=False) to the byte-level pushdown
automaton; each case's compact JSON is stepped byte by byte. Outcomes per case: pass (valid
accepted / invalid rejected), fail-accept (an invalid instance accepted: a soundness bug),
fail-reject, order-only (valid, rejected, accepted once its keys follow `properties` order),
unsupported, invalid-schema, timeout, error. Files: DIR/*.json and DIR/optional/format/*.json,
every one treated the same (the formats the compiler knows are enforced, in core files too).

Refresh the stored baseline used by tests/test_compliance.py with
    python benchmarks/jsts.py --json benchmarks/results/jsts_baseline.json --md benchmarks/results/jsts_baseline.md
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import (  # noqa: E402
    Reorderer, Timeout, compact, quiet, shown, time_limit, write_results,
)
from tests.data import JSTS_SUITE  # noqa: E402

OUTCOMES = ("pass", "fail-accept", "fail-reject", "order-only", "unsupported", "invalid-schema", "timeout", "error")
COUNTS = {o: o.replace("-schema", "_schema").replace("-", "_") for o in OUTCOMES}
"""Outcome -> its counter name in the per-file table (fail-accept -> fail_accept, ...)."""


def suite_files(suite: Path) -> list[Path]:
    return sorted(suite.glob("*.json")) + sorted((suite / "optional" / "format").glob("*.json"))


def compile_automaton(schema: Any) -> Any:
    """The byte-level pushdown automaton of a schema, as compile_schema builds it (no vocabulary);
    None for a schema that no value satisfies (it then rejects everything)."""
    from extractor.automata import build_automaton
    from extractor.errors import UnsatisfiableSchemaError
    from extractor.grammar import compile_grammar
    from extractor.schema import NormalizeOptions, target_ir

    try:
        options = NormalizeOptions(strict_objects=False, implied_types=False)  # JSON Schema to the letter
        return build_automaton(compile_grammar(target_ir(schema, None, options)))
    except UnsatisfiableSchemaError:
        return None


def accepts(automaton: Any, data: bytes) -> bool:
    from extractor.automata import accepts as language_accepts

    return automaton is not None and language_accepts(automaton, data)


def _compile_outcome(exc: Exception) -> tuple[str, str]:
    from extractor.errors import ExtractorError, UnsupportedSchemaError

    if isinstance(exc, UnsupportedSchemaError):
        return "unsupported", exc.keyword
    if isinstance(exc, ExtractorError):
        return "invalid-schema", str(exc)
    return "error", f"{type(exc).__name__}: {exc}"


def run_group(group: dict[str, Any], timeout: float) -> tuple[list[str], str | None, dict[int, str]]:
    """Outcomes of one group's cases; a note (the refused keyword or the error) where not compiled; and
    the message of every case that raised (an engine bug) or timed out, by case index."""
    schema, tests = group["schema"], group["tests"]
    try:
        with quiet(), time_limit(timeout):
            automaton = compile_automaton(schema)
    except Timeout as exc:
        return ["timeout"] * len(tests), str(exc), {}
    except Exception as exc:  # noqa: BLE001 - every compiler failure is an outcome
        outcome, note = _compile_outcome(exc)
        return [outcome] * len(tests), note, {}
    reorder = Reorderer(schema)
    outcomes, raised = [], {}
    for index, test in enumerate(tests):
        try:
            with time_limit(timeout):
                ok = accepts(automaton, compact(test["data"]))
                if ok:
                    outcome = "pass" if test["valid"] else "fail-accept"
                elif not test["valid"]:
                    outcome = "pass"
                elif any(accepts(automaton, compact(c)) for c in reorder.candidates(test["data"])):
                    outcome = "order-only"
                else:
                    outcome = "fail-reject"
        except Timeout as exc:
            outcome, raised[index] = "timeout", str(exc)
        except Exception as exc:  # noqa: BLE001
            outcome, raised[index] = "error", f"{type(exc).__name__}: {exc}"
        outcomes.append(outcome)
    return outcomes, None, raised


def run(suite: Path = JSTS_SUITE, timeout: float = 10.0) -> dict[str, Any]:
    """The whole suite: {"files": {relpath: counts}, "cases": {"relpath#g#c": outcome}, "total", "notes"}.

    `notes` holds, by "relpath#g", why a group did not compile, and by "relpath#g#c" what a case raised."""
    files: dict[str, dict[str, int]] = {}
    cases: dict[str, str] = {}
    notes: dict[str, str] = {}
    for path in suite_files(suite):
        rel = path.relative_to(suite).as_posix()
        counts = Counter()
        for g, group in enumerate(json.loads(path.read_text())):
            outcomes, note, raised = run_group(group, timeout)
            if note:
                notes[f"{rel}#{g}"] = note
            notes.update({f"{rel}#{g}#{c}": message for c, message in raised.items()})
            for c, outcome in enumerate(outcomes):
                cases[f"{rel}#{g}#{c}"] = outcome
                counts[outcome] += 1
        files[rel] = {"cases": sum(counts.values()), **{COUNTS[o]: counts[o] for o in OUTCOMES}}
    total = Counter()
    for row in files.values():
        total.update(row)
    return {"config": {"suite": shown(suite), "timeout": timeout}, "total": dict(total), "files": files,
            "cases": cases, "notes": notes}


def markdown(result: dict[str, Any]) -> str:
    cols = ["cases", *COUNTS.values()]
    lines = ["| file | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for rel, row in [*result["files"].items(), ("**total**", result["total"])]:
        lines.append(f"| {rel} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, default=JSTS_SUITE)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per group compile and per case")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args()
    result = run(args.suite, args.timeout)
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
