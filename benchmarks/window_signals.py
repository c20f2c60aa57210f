"""How the relevance screen tells a buried document's stretches from the text around it, and which margin below
the best stretch keeps the one and not the other (`windowed.RELEVANCE_MARGIN`).

usage: python benchmarks/window_signals.py [--split dev] [--docs 4] [--length 8000] [--inside 3] [--outside 4]
                                           [--threads 1] [--json OUT] [--md OUT]

For each needle case of benchmarks/needle.py (`--docs` labeled documents buried in unrelated contract text of
`--length` characters), the text is cut on a grid of stretches of `windowed.STRETCH` characters, as a window's
text is where its values stand; the first `--inside` stretches overlapping the document and `--outside` seeded
stretches of contract text are each read by the relevance screen (`Extractor.relevance`, the target's score). For
each margin on a grid, a stretch counts where its score is at least the case's best stretch's less the margin: the
figures are how many stretches of the document and of the contract count. The margin chosen is the largest on the
grid under which no contract stretch counts in any case.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

MARGINS = [m / 2 for m in range(0, 25)]
"""Margins tried (nats below the best stretch): 0 to 12 by halves."""


def stretches(case: dict[str, Any], size: int, inside: int, outside: int) -> list[tuple[str, str]]:
    """The case's stretches read: ("document", text) for the first `inside` overlapping the buried document,
    ("contract", text) for `outside` seeded others."""
    long, at = case["long"], case["long"].find(case["alone"])
    end = at + len(case["alone"])
    grid = range(0, len(long), size)
    mine = [k for k in grid if k < end and k + size > at][:inside]
    rest = [k for k in grid if k + size <= at or k >= end]
    others = sorted(random.Random(f"window_signals:{case['id']}").sample(rest, min(outside, len(rest))))
    return [("document", long[k:k + size]) for k in mine] + [("contract", long[k:k + size]) for k in others]


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each case's stretches with their screen scores and seconds."""
    from benchmarks import needle
    from extractor import Extractor
    from extractor.pipeline.windowed import STRETCH

    ex = Extractor(None)
    spec = argparse.Namespace(lengths=[args.length], docs=args.docs, facts=0, seed=0, split=args.split, targets=None)
    rows = []
    for case in needle.cases(spec):
        for kind, text in stretches(case, STRETCH, args.inside, args.outside):
            start = time.perf_counter()
            score = ex.relevance(needle.target(case["target"]), text)
            rows.append({"case": case["id"], "target": case["target"], "kind": kind, "score": round(score, 3),
                         "seconds": round(time.perf_counter() - start, 2)})
            print(rows[-1], flush=True)
    return rows


def margins(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per margin: the stretches of documents and of contract text scoring at least their case's best less it."""
    best = {}
    for row in rows:
        best[row["case"]] = max(best.get(row["case"], float("-inf")), row["score"])
    out = []
    for margin in MARGINS:
        kept = [r for r in rows if r["score"] >= best[r["case"]] - margin]
        out.append({"margin": margin, "document": sum(r["kind"] == "document" for r in kept),
                    "contract": sum(r["kind"] == "contract" for r in kept)})
    return out


def cases(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case: the best document stretch, the best contract stretch and the gap between them."""
    out = []
    for case in dict.fromkeys(r["case"] for r in rows):
        mine = [r for r in rows if r["case"] == case]
        doc = max((r["score"] for r in mine if r["kind"] == "document"), default=None)
        other = max((r["score"] for r in mine if r["kind"] == "contract"), default=None)
        gap = None if doc is None or other is None else round(doc - other, 3)
        out.append({"case": case, "target": mine[0]["target"], "best_document": doc, "best_contract": other,
                    "gap": gap})
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# The relevance screen on stretches of {result['stretch']} characters: a buried document against the "
             f"contract around it ({result['split']} split, {result['length']:,} characters)", "",
             f"Commit {result['commit']}. {result['note']}", "",
             "| case | target | best document stretch | best contract stretch | gap |", "|---|---|---:|---:|---:|"]
    lines += [f"| {c['case']} | {c['target']} | {c['best_document']} | {c['best_contract']} | {c['gap']} |"
              for c in result["cases"]]
    lines += ["", "| margin | document stretches counted | contract stretches counted |", "|---:|---:|---:|"]
    lines += [f"| {m['margin']} | {m['document']} of {result['documents']} | {m['contract']} of "
              f"{result['contracts']} |" for m in result["margins"]]
    lines += ["", f"Chosen: {result['chosen']} (the largest margin under which no contract stretch counts)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--docs", type=int, default=4, help="needle documents (benchmarks/needle.py's)")
    parser.add_argument("--length", type=int, default=8000, help="characters of each long text")
    parser.add_argument("--inside", type=int, default=3, help="stretches of each document read")
    parser.add_argument("--outside", type=int, default=4, help="stretches of contract text read per case")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--note", default="", help="how the machine was shared")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    import torch

    from extractor.pipeline.windowed import STRETCH

    torch.set_num_threads(args.threads)
    rows = measure(args)
    grid = margins(rows)
    clean = [m["margin"] for m in grid if m["contract"] == 0]
    result = {"commit": commit(), "split": args.split, "length": args.length, "stretch": STRETCH, "note": args.note,
              "documents": sum(r["kind"] == "document" for r in rows),
              "contracts": sum(r["kind"] == "contract" for r in rows), "cases": cases(rows), "margins": grid,
              "chosen": max(clean) if clean else None, "rows": rows}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
