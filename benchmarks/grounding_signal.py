"""Whether grounding tells a no-answer document from an answerable one: the share of an output's free-text strings
found in its text, ranked for the documents a quality run did not refuse.

usage: python benchmarks/grounding_signal.py [--result benchmarks/results/quality_dev.json] [--json OUT] [--md OUT]

Reads the `extract` outcomes of a `benchmarks/quality.py` result file (no model is run). Free-text strings are the
output's string values whose schema has no `format`, `pattern`, constant or Verbatim (`extractor.grounding`'s
walk); "whole strings" counts those found in the text (case and runs of whitespace aside), "words" the share of
their words that occur in the text. AUC: the chance that an answerable document's output scores above a
no-answer one's (1 separates them, 0.5 is chance).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent / "data" / "quality"))

from benchmarks.common import REPO, write_results  # noqa: E402

DOCUMENTS = REPO / "benchmarks" / "data" / "quality" / "documents.jsonl"
WORD = re.compile(r"\w+")


def shares(output: dict[str, Any], target: Any, text: str) -> tuple[float, float] | None:
    """(whole strings found, words found) over the output's free-text strings; None when it has none."""
    from extractor.grounding import _fold, _options, _strings
    from extractor.schema import ir, target_ir

    schema = target_ir(target, None)

    def free(node: ir.Node | None) -> bool:
        options = _options(node, schema.defs)
        return any(isinstance(n, ir.String) and not (n.verbatim or n.format or n.patterns) for n in options) \
            and not any(isinstance(n, ir.Const) for n in options)

    values = [v for _, v, node in _strings(output, schema.root, schema.defs, "") if v.strip() and free(node)]
    words = [w.casefold() for v in values for w in WORD.findall(v)]
    if not values or not words:
        return None
    haystack, known = _fold(text), {w.casefold() for w in WORD.findall(text)}
    return sum(_fold(v) in haystack for v in values) / len(values), sum(w in known for w in words) / len(words)


def auc(positive: list[float], negative: list[float]) -> float | None:
    if not positive or not negative:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in positive for n in negative)
    return round(wins / (len(positive) * len(negative)), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--result", type=Path, default=REPO / "benchmarks" / "results" / "quality_dev.json")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args()
    import schemas

    run = json.loads(args.result.read_text())
    docs = {d["id"]: d for d in map(json.loads, DOCUMENTS.read_text().splitlines()) if d["id"] in run["outcomes"]["extract"]}
    scored = {True: [], False: []}  # answerable -> [(whole, words)]
    for key, outcome in run["outcomes"]["extract"].items():
        doc = docs[key]
        if outcome["refused"] or outcome["output"] is None:
            continue
        found = shares(outcome["output"], getattr(schemas, doc["target"]), doc["text"])
        if found is not None:
            scored[doc["gold"] is not None].append(found)
    result = {"source": str(args.result.relative_to(REPO) if args.result.is_relative_to(REPO) else args.result),
              "source_commit": run["commit"], "answerable": len(scored[True]), "no_answer": len(scored[False]),
              "auc_whole_strings": auc([s[0] for s in scored[True]], [s[0] for s in scored[False]]),
              "auc_words": auc([s[1] for s in scored[True]], [s[1] for s in scored[False]])}
    table = "\n".join([
        "# Grounding as a refusal signal", "",
        f"Outputs of `extract` from `{result['source']}` (run at `{run['commit']}`), not refused: "
        f"{result['answerable']} answerable, {result['no_answer']} with no answer.", "",
        "| signal | AUC |", "|---|---:|",
        f"| whole strings found in the text | {result['auc_whole_strings']} |",
        f"| words found in the text | {result['auc_words']} |", ""])
    write_results(result, table, args.json, args.md)


if __name__ == "__main__":
    main()
