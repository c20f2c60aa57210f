"""How completely and how exactly the tracer finds values the text does hold: every gold value of the labeled set
traced against its own text (no model).

usage: python benchmarks/trace_gold.py [--split all|dev|test] [--limit N] [--json OUT] [--md OUT]

A gold value is what a careful reader extracted, so the text holds each one, as written or written another way
(a date as `14 octobre 2025`, an amount as `1.500,00`). Counted per status and per `how`; a gold value traced
`not_found` is a value the tracer misses (or one the text only implies, such as a quantity of 1 never written).
Every span is checked with `extractor.tracing.agrees`: its text must be the value under the stated normalization.
Each string found exactly is also written through the grammar `extract` copies plain strings with (`x-verbatim`
given the text): `copyable` is the share a copy can write, i.e. that start and end where a group of the text does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402
from benchmarks.quality import documents  # noqa: E402


def measure(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Statuses, ways found, disagreeing spans and the values missed, over the gold objects of `docs`."""
    import schemas
    from extractor import trace
    from extractor.automata import accepts, build_automaton
    from extractor.grammar import CompileOptions, compile_grammar
    from extractor.schema import target_ir
    from extractor.tracing import agrees

    statuses, ways, missed, bad, spans, exact, uncopyable = Counter(), Counter(), [], 0, 0, 0, []
    started = time.perf_counter()
    for doc in docs:
        if doc["gold"] is None:
            continue
        copy = build_automaton(compile_grammar(target_ir({"type": "string", "x-verbatim": True}, None),
                                               CompileOptions(source=doc["text"])))
        for value in trace(doc["gold"], doc["text"], getattr(schemas, doc["target"])):
            statuses[value.status] += 1
            ways[value.how] += value.status == "found"
            if value.status == "not_found":
                missed.append({"document": doc["id"], "pointer": value.pointer, "value": value.value})
            spans += len(value.spans)
            bad += sum(not agrees(value.value, s.of(doc["text"]), value.how) for s in value.spans)
            if value.status == "found" and value.how == "exact" and isinstance(value.value, str):
                exact += 1
                written = json.dumps(" ".join(value.value.split()), ensure_ascii=False).encode()
                if not accepts(copy, written):
                    uncopyable.append({"document": doc["id"], "pointer": value.pointer, "value": value.value})
    looked_for = statuses["found"] + statuses["not_found"] + statuses["copied"]
    return {"documents": sum(d["gold"] is not None for d in docs), "values": sum(statuses.values()),
            "looked_for": looked_for, "statuses": dict(statuses), "found_by": {k: v for k, v in ways.items() if v},
            "found_rate": round(1 - statuses["not_found"] / looked_for, 4) if looked_for else None,
            "spans": spans, "spans_not_agreeing": bad, "seconds": round(time.perf_counter() - started, 2),
            "exact_strings": exact, "copyable": round(1 - len(uncopyable) / exact, 4) if exact else None,
            "missed": missed, "uncopyable": uncopyable}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["all", "dev", "test"], default="all")
    parser.add_argument("--limit", type=int, default=None, help="documents per target at most")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    result = {"split": args.split, **measure(documents(args.split, None, args.limit))}
    found = ", ".join(f"{k} {v}" for k, v in sorted(result["found_by"].items(), key=lambda kv: -kv[1]))
    table = "\n".join([
        f"# Tracing the gold values of the labeled set ({args.split} split)", "",
        f"{result['documents']} answerable documents, {result['values']} leaf values, {result['looked_for']} of them "
        f"written values the text should hold (the rest: booleans, enum members, nulls).", "",
        "| figure | value |", "|---|---:|",
        f"| found in their text | {result['found_rate']} |",
        f"| not found | {result['statuses'].get('not_found', 0)} |",
        f"| spans | {result['spans']} |",
        f"| spans whose text is not the value under the stated normalization | {result['spans_not_agreeing']} |",
        f"| strings found as written | {result['exact_strings']} |",
        f"| of them, a copy can write (it starts and ends where a group of the text does) | {result['copyable']} |",
        f"| seconds (all documents) | {result['seconds']} |", "",
        f"Found by: {found}.", "",
        "Not found: " + (", ".join(f"{m['document']} {m['pointer']}={m['value']!r}" for m in result["missed"][:20])
                         or "none") + ".", "",
        "Not copyable: " + (", ".join(f"{m['document']} {m['pointer']}={m['value']!r}" for m in result["uncopyable"][:20])
                            or "none") + ".", ""])
    write_results(result, table, args.json, args.md)
    return result


if __name__ == "__main__":
    main()
