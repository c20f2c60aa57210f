"""Repeated list items the text does not repeat, and field F1, per set and method, read from a quality result.

usage: python benchmarks/repeated_items.py RESULT.json [--json OUT] [--md OUT]

RESULT.json is written by benchmarks/quality.py (e.g. `--methods "extract,extract[fresh_items=false]"`: the rule
`fresh_items` on, then off). An item counts as repeated where a list of the output holds a string, number or object
(JSON equal) more often than the document's text writes it (a string where it stands whole, not inside a longer
word; a number not inside a longer number; an object as often as the rarest of its strings and numbers), the rule's
own reading (`extractor.decode.fresh`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402
from benchmarks.quality import sets  # noqa: E402
from extractor.decode.fresh import repeats  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    result = json.loads(args.result.read_text())
    docs = {json.loads(line)["id"]: {**json.loads(line), "set": name} for name, path in sets().items()
            for line in path.read_text().splitlines() if line.strip()}
    table: dict[str, dict[str, dict[str, Any]]] = {}
    for method, outcomes in result["outcomes"].items():
        for doc_id, out in outcomes.items():
            doc = docs[doc_id]
            row = table.setdefault(method, {}).setdefault(doc["set"], {"documents": 0, "repeated": 0, "examples": []})
            found = repeats(out["output"], doc["text"]) if out["output"] is not None and not out["refused"] else []
            row["documents"] += 1
            row["repeated"] += len(found)
            row["examples"] += [f"{doc_id}: {json.dumps(x, ensure_ascii=False)[:80]}" for x in found][:3]
            row["field_f1"] = result.get("per_set", {}).get(method, {}).get(doc["set"], {}).get("field_f1")
    summary = {"source": str(args.result), "source_commit": result["commit"], "split": result["split"],
               "limit_per_target": result["limit_per_target"], "per_method": table}
    write_results(summary, markdown(summary), args.json, args.md)
    return summary


def markdown(summary: dict[str, Any]) -> str:
    limit = summary["limit_per_target"]
    lines = [f"# Repeated list items the text does not repeat ({summary['split']} split"
             + (f", the first {limit} per target)" if limit else ")"), "",
             f"Outcomes from `{summary['source']}` (commit `{summary['source_commit']}`).", "",
             "| method | set | documents | repeated items | field F1 |", "|---|---|---:|---:|---:|"]
    for method, per_set in summary["per_method"].items():
        for name, row in per_set.items():
            f1 = "–" if row["field_f1"] is None else f"{row['field_f1']:.3f}"
            lines.append(f"| {method} | {name} | {row['documents']} | {row['repeated']} | {f1} |")
    examples = [f"- {method}, {name}: {e}" for method, per_set in summary["per_method"].items()
                for name, row in per_set.items() for e in row["examples"]]
    return "\n".join(lines + (["", "Examples:", ""] + examples if examples else [])) + "\n"


if __name__ == "__main__":
    main()
