"""Calibrate the relevance screen: the score of every document of a split, and the threshold that
`extract`'s `min_relevance` should default to.

usage: python benchmarks/calibrate_refusal.py [--split dev] [--model ID] [--max-false 0.10]
                                              [--json OUT] [--md OUT]

For each document, `Extractor.relevance(target, text)`; then, over candidate thresholds (every score
seen, and 0), the refusals the screen would make: a document is refused when its score is below the
threshold. The threshold chosen maximizes refusal F1 (no-answer documents refused / refusals right)
among those that refuse at most `--max-false` of the answerable documents (a false refusal loses every
field of a document). Tune on `dev`; `--split test` reports the chosen threshold's figures on held-out
documents without choosing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.quality import documents  # noqa: E402


def rates(scored: list[tuple[float, bool]], threshold: float) -> dict[str, Any]:
    """Refusal precision, recall, F1 and the share of answerable documents refused, at one threshold."""
    refused = [(s < threshold, no) for s, no in scored]
    right = sum(r and no for r, no in refused)
    made = sum(r for r, _ in refused)
    wanted = sum(no for _, no in scored)
    answerable = len(scored) - wanted
    precision = right / made if made else None
    recall = right / wanted if wanted else None
    f1 = 2 * right / (made + wanted) if made + wanted else None
    return {"threshold": round(threshold, 3), "precision": precision, "recall": recall, "f1": f1,
            "false_refusal_rate": (made - right) / answerable if answerable else None}


def choose(scored: list[tuple[float, bool]], max_false: float) -> dict[str, Any]:
    """The threshold with the best refusal F1 among those refusing at most `max_false` of the answerable."""
    seen = sorted({s for s, _ in scored})
    candidates = [0.0, seen[0] - 1, seen[-1] + 1, *((a + b) / 2 for a, b in zip(seen, seen[1:]))]
    allowed = [rates(scored, t) for t in candidates]
    allowed = [r for r in allowed if (r["false_refusal_rate"] or 0) <= max_false]
    return max(allowed, key=lambda r: (r["f1"] or 0, -abs(r["threshold"])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-false", type=float, default=0.10)
    parser.add_argument("--threshold", type=float, default=None,
                        help="report this threshold instead of choosing one (for the test split)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--scores", type=Path, default=None,
                        help="reuse the per-document scores of an earlier result JSON (same model and code)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args()

    docs = documents(args.split, None, None)
    earlier = json.loads(args.scores.read_text()) if args.scores else None
    rows = earlier["documents"] if earlier else score(docs, args.model, args.threads)
    scored = [(r["score"], r["no_answer"]) for r in rows]
    chosen = rates(scored, args.threshold) if args.threshold is not None else choose(scored, args.max_false)
    curve = [rates(scored, t) for t in (-10.0, -5.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0)]
    result = {"commit": earlier["commit"] if earlier else commit(), "split": args.split, "model": args.model or "embedded SmolLM2-135M-Instruct",
              "max_false_refusal_rate": args.max_false, "chosen": chosen, "curve": curve,
              "auc": _auc(scored), "documents": rows}
    write_results(result, _markdown(result), args.json, args.md)


def score(docs: list[dict[str, Any]], model: str | None, threads: int) -> list[dict[str, Any]]:
    """Each document's relevance score for its target."""
    import torch

    import schemas
    from extractor import Extractor

    if threads:
        torch.set_num_threads(threads)
    ex = Extractor(model)
    rows = []
    for i, doc in enumerate(docs):
        value = ex.relevance(getattr(schemas, doc["target"]), doc["text"])
        rows.append({"id": doc["id"], "target": doc["target"], "no_answer": doc["gold"] is None,
                     "layout": doc["layout"], "score": round(value, 3)})
        print(f"[{i + 1}/{len(docs)}] {doc['id']}: {value:.2f}", file=sys.stderr, flush=True)
    return rows


def _auc(scored: list[tuple[float, bool]]) -> float:
    """Probability that an answerable document scores above a no-answer one."""
    pos = [s for s, no in scored if not no]
    neg = [s for s, no in scored if no]
    if not pos or not neg:
        return float("nan")
    return round(sum((p > n) + 0.5 * (p == n) for p in pos for n in neg) / (len(pos) * len(neg)), 4)


def _markdown(result: dict[str, Any]) -> str:
    def cell(v: Any) -> str:
        return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)

    c = result["chosen"]
    lines = [f"# Relevance screen ({result['split']} split, {len(result['documents'])} documents)", "",
             f"Model: {result['model']}; commit `{result['commit']}`; AUC (answerable above no-answer) "
             f"{result['auc']}.", "",
             f"Threshold {'given' if result['split'] != 'dev' else 'chosen'}: **{c['threshold']}** — refusal "
             f"precision {cell(c['precision'])}, recall {cell(c['recall'])}, F1 {cell(c['f1'])}, answerable "
             f"documents refused {cell(c['false_refusal_rate'])}.", "",
             "| threshold | precision | recall | F1 | answerable refused |", "|---:|---:|---:|---:|---:|"]
    for r in result["curve"]:
        lines.append(f"| {r['threshold']} | {cell(r['precision'])} | {cell(r['recall'])} | {cell(r['f1'])} | "
                     f"{cell(r['false_refusal_rate'])} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
