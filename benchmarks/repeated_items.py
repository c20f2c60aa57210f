"""Repeated list items the text does not repeat, and field F1, per set and method, read from a quality result.

usage: python benchmarks/repeated_items.py RESULT.json [--json OUT] [--md OUT]

RESULT.json is written by benchmarks/quality.py (e.g. `--methods "extract,extract[fresh_items=false]"`: the rule
`fresh_items` on, then off). An item counts as repeated where a list of the output holds a string, number or object
(JSON equal) more often than the document's text writes it (a string where it stands whole, not inside a longer
word; a number not inside a longer number; an object as often as the rarest of its strings and numbers), the rule's
own reading (`extractor.decode.fresh`).

Beside each count, the same outputs as the model wrote them (each outcome's final attempt text, its empty copies
read as absent, validated by its target: what `extract` returned before list items the text does not repeat were
left out after decoding), their repeats and field F1: the rule's last step off, on the very same decoding.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402
from benchmarks.quality import sets  # noqa: E402
from benchmarks.quality_methods import method  # noqa: E402
from benchmarks.quality_score import Outcome, summarize  # noqa: E402
from extractor.pipeline.grounding import blanks  # noqa: E402
from extractor.decode.fresh import repeats  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, Any]:
    return counted(argv, __doc__, {"repeated": lambda output, doc: repeats(output, doc["text"])}, markdown,
                   as_written)


def counted(argv: list[str] | None, doc: str, columns: dict[str, Finder], table: Callable[[dict[str, Any]], str],
            then: Callable[[dict[str, Any], Path], None] | None = None) -> dict[str, Any]:
    """The command line of a count read from a quality result: `RESULT.json [--json OUT] [--md OUT]`; `then` adds
    to the summary before it is written."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    summary = tally(args.result, columns)
    if then is not None:
        then(summary, args.result)
    write_results(summary, table(summary), args.json, args.md)
    return summary


def as_written(summary: dict[str, Any], path: Path) -> None:
    """Per method and set: the repeats and field F1 of the outputs as the model wrote them (see the docstring)."""
    import schemas

    result, docs = json.loads(path.read_text()), documents()
    for name, outcomes in result["outcomes"].items():
        verbatim = method(name).options.get("verbatim", "all")
        rows: dict[str, list[tuple[dict[str, Any], Outcome]]] = {}
        for doc_id, out in outcomes.items():
            doc, written = docs[doc_id], out["output"]
            if written is not None and not out["refused"] and out.get("text"):
                target = getattr(schemas, doc["target"])
                try:
                    written = target.model_validate_json(blanks(out["text"], target, verbatim).output).model_dump(
                        mode="json")
                except ValueError:
                    pass  # not the target as written (a refusal, an output a check failed): counted as returned
            rows.setdefault(doc["set"], []).append((doc, Outcome(written, out["refused"], out.get("valid", True),
                                                                 out.get("cut", False), 0, 0.0)))
        for set_name, pairs in rows.items():
            row = summary["per_method"][name][set_name]
            row["repeated_as_written"] = sum(len(repeats(o.output, d["text"])) for d, o in pairs
                                             if o.output is not None and not o.refused)
            row["field_f1_as_written"] = summarize([(d.get("gold"), o) for d, o in pairs])["field_f1"]


Finder = Callable[[Any, dict[str, Any]], list[Any]]
"""What one output holds that its document's text does not (the output, the document with its text and target)."""


def tally(path: Path, columns: dict[str, Finder]) -> dict[str, Any]:
    """Per method and set of a quality result: its documents, how many things each column's finder finds in their
    outputs, three examples of the first column's, and the set's field F1; refused and failed outputs hold none."""
    result, docs = json.loads(path.read_text()), documents()
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for method, outcomes in result["outcomes"].items():
        for doc_id, out in outcomes.items():
            doc = docs[doc_id]
            row = table.setdefault(method, {}).setdefault(doc["set"], {"documents": 0, **dict.fromkeys(columns, 0),
                                                                       "examples": []})
            row["documents"] += 1
            for k, (column, find) in enumerate(columns.items()):
                found = find(out["output"], doc) if out["output"] is not None and not out["refused"] else []
                row[column] += len(found)
                row["examples"] += [f"{doc_id}: {json.dumps(x, ensure_ascii=False)[:80]}" for x in found if k == 0][:3]
            row["field_f1"] = result.get("per_set", {}).get(method, {}).get(doc["set"], {}).get("field_f1")
    return {"source": str(path), "source_commit": result["commit"], "split": result["split"],
            "limit_per_target": result["limit_per_target"], "note": result.get("note"), "per_method": table}


def documents() -> dict[str, dict[str, Any]]:
    """Every labeled document by id, with its set's name."""
    return {json.loads(line)["id"]: {**json.loads(line), "set": name} for name, file in sets().items()
            for line in file.read_text().splitlines() if line.strip()}


def markdown(summary: dict[str, Any]) -> str:
    limit = summary["limit_per_target"]
    lines = [f"# Repeated list items the text does not repeat ({summary['split']} split"
             + (f", the first {limit} per target)" if limit else ")"), "",
             f"Outcomes from `{summary['source']}` (commit `{summary['source_commit']}`).", "",
             *([summary["note"], ""] if summary.get("note") else []),
             "| method | set | documents | repeated items | field F1 | repeated items as written | field F1 as written |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, per_set in summary["per_method"].items():
        for set_name, row in per_set.items():
            f1, f1_written = (_cell(row.get(k)) for k in ("field_f1", "field_f1_as_written"))
            lines.append(f"| {name} | {set_name} | {row['documents']} | {row['repeated']} | {f1} | "
                         f"{row.get('repeated_as_written', '–')} | {f1_written} |")
    examples = [f"- {name}, {set_name}: {e}" for name, per_set in summary["per_method"].items()
                for set_name, row in per_set.items() for e in row["examples"]]
    return "\n".join(lines + (["", "Examples:", ""] + examples if examples else [])) + "\n"


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    main()
