"""Calibrate the refusal decision: the relevance screen's score of every document of a split, the threshold that
`extract`'s `min_relevance` should default to, and with `--answers`, the check of answers by their trace.

usage: python benchmarks/calibrate_refusal.py [--split dev] [--sets generated,short] [--model ID]
                                              [--max-false 0.10] [--short-false 0] [--scores R.json ...]
                                              [--answers RESULT.json] [--json OUT] [--md OUT]
                                              [--enough X] [--targets A,B] [--limit N] [--skip N] [--ids A,B]

For each document of the labeled set (benchmarks/data/quality, "generated") and of the short texts
(benchmarks/data/short, one to three sentences with bare targets, "short"), the relevance screen's score for its
target (decode/relevance.py, as `Extractor.relevance` reads it); then, over candidate thresholds (every score
seen, and 0), the refusals the screen would make: a document is refused when its score is below the
threshold. The threshold chosen maximizes the labeled set's refusal F1 (no-answer documents refused / refusals
right) among those that refuse at most `--max-false` of its answerable documents (a false refusal loses every
field of a document) and at most `--short-false` answerable short texts. Tune on `dev`; `--split test
--threshold T` reports a threshold's figures on held-out documents without choosing.

`--answers`: a benchmarks/quality.py result of the same split whose methods decoded every document under the
target alone (`extract[min_relevance=-1000000000]`, and its `strip=true` variant: targets without descriptions),
so there is an answer to judge for every document. Each answer is traced against its text; the decision is then
refuse where score < min_relevance, or where score < doubtful and at least max_unfounded of the answer's
identifying values (refusing.identifying) are found nowhere in the text, or where score < valueless and the text
writes no value of any kind the target asks for (refusing.unwritten; `require_values`). The four are chosen
together over a grid, on every method's answers at once: the best refusal F1 among those refusing at most
`--max-false` of the answerable documents, no answerable short text and (with `--sets ...,real`) no answerable real
document for writing no value asked for; among rules of equal F1 the one refusing the most no-answer short texts.

Scoring a split reads every text after 22 announcements, hours of a shared CPU: `--enough X` reads as `extract` does
(the kinds only where the target's own rows do not reach X; figures exact for thresholds up to X), and `--targets`,
`--limit`, `--skip` score parts of it in parallel processes, merged by `--scores`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, commit, write_results  # noqa: E402
from benchmarks.quality import documents  # noqa: E402


SHORT = REPO / "benchmarks" / "data" / "short" / "documents.jsonl"


def rates(scored: list[tuple[float, bool]], threshold: float) -> dict[str, Any]:
    """Refusal precision, recall, F1 and the share of answerable documents refused, at one threshold."""
    return {"threshold": round(threshold, 3), **figures([(s < threshold, no) for s, no in scored])}


def figures(refused: list[tuple[bool, bool]]) -> dict[str, float | None]:
    """Precision, recall, F1 and the share of answerable documents refused, from (refused, no answer) pairs."""
    right, made = sum(r and no for r, no in refused), sum(r for r, _ in refused)
    wanted, answerable = sum(no for _, no in refused), sum(not no for _, no in refused)
    return {"precision": right / made if made else None, "recall": right / wanted if wanted else None,
            "f1": 2 * right / (made + wanted) if made + wanted else None,
            "false_refusal_rate": (made - right) / answerable if answerable else None}


def choose(scored: list[tuple[float, bool]], max_false: float, short: list[tuple[float, bool]] = (),
           short_false: int = 0) -> dict[str, Any]:
    """The threshold with the best refusal F1 among those refusing at most `max_false` of the answerable and at
    most `short_false` answerable short texts."""
    seen = sorted({s for s, _ in scored})
    candidates = [0.0, seen[0] - 1, seen[-1] + 1, *((a + b) / 2 for a, b in zip(seen, seen[1:]))]
    allowed = [rates(scored, t) for t in candidates if sum(s < t and not no for s, no in short) <= short_false]
    allowed = [r for r in allowed if (r["false_refusal_rate"] or 0) <= max_false]
    return max(allowed, key=lambda r: (r["f1"] or 0, -abs(r["threshold"])))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--sets", default="generated,short", help="generated (the labeled set), short, or both")
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-false", type=float, default=0.10)
    parser.add_argument("--short-false", type=int, default=0, help="answerable short texts a threshold may refuse")
    parser.add_argument("--limit", type=int, default=None, help="the first N documents of each set only")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N of those (parts of a split, "
                        "scored apart, merge with --scores)")
    parser.add_argument("--targets", default=None, help="the labeled set's documents of these targets only "
                        "(comma-separated; runs over parts merge with --scores)")
    parser.add_argument("--ids", default=None, help="these documents only (comma-separated ids): the ones a change "
                        "of the score can move, the others' scores reused with --scores")
    parser.add_argument("--answerable-short", action="store_true",
                        help="score only the answerable short texts (all that the --short-false check reads)")
    parser.add_argument("--threshold", type=float, default=None,
                        help="report this threshold instead of choosing one (for the test split)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--enough", type=float, default=None,
                        help="read as `extract` does: stop where the target's own rows reach this score (a score at "
                             "or above it is then a lower bound; figures are exact for thresholds up to it)")
    parser.add_argument("--scores", type=Path, nargs="+", default=None,
                        help="reuse the per-document scores of earlier result JSONs (same model and code; a "
                             "document in several takes the last one's)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--answers", type=Path, default=None,
                        help="a quality.py result of this split decoded under the target alone: choose the answer "
                             "check too")
    parser.add_argument("--rule", default=None, metavar="MIN,DOUBTFUL,MAX_UNFOUNDED[,VALUELESS]",
                        help="with --answers: report this rule instead of choosing one (for the test split); "
                             "without VALUELESS no text is refused for writing no value asked for")
    args = parser.parse_args(argv)

    docs = corpus(args.split, args.sets.split(","), args.limit, args.targets.split(",") if args.targets else None)
    docs = [d for d in docs if d["set"] == "short"] + [d for d in docs if d["set"] != "short"][args.skip:]
    docs = [d for d in docs if not (args.answerable_short and d["set"] == "short" and d["gold"] is None)]
    docs = [d for d in docs if not args.ids or d["id"] in args.ids.split(",")]
    earlier = [json.loads(path.read_text()) for path in args.scores or ()]
    rows = list({r["id"]: r for e in earlier for r in e["documents"]}.values()) if earlier else \
        score(docs, args.model, args.threads, args.enough)
    if args.answers:
        result = answers(rows, docs, json.loads(args.answers.read_text()), args)
        write_results(result, _answers_markdown(result), args.json, args.md)
        return
    labeled = [(r["score"], r["no_answer"]) for r in rows if r.get("set", "generated") != "short"]
    short = [(r["score"], r["no_answer"]) for r in rows if r.get("set") == "short"]
    chosen = rates(labeled or short, args.threshold) if args.threshold is not None else \
        choose(labeled or short, args.max_false, short, args.short_false)
    curve = [rates(labeled or short, t) for t in (-10.0, -5.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0)]
    result = {"commit": earlier[0]["commit"] if earlier else commit(), "split": args.split,
              "model": args.model or "embedded SmolLM2-135M-Instruct", "max_false_refusal_rate": args.max_false,
              "short_false": args.short_false, "chosen": chosen, "given": args.threshold is not None,
              "enough": args.enough, "short": rates(short, chosen["threshold"]) if short else None, "curve": curve,
              "auc": _auc(labeled) if labeled and args.enough is None else None,
              "short_auc": _auc(short) if short and args.enough is None else None,
              "documents": rows}
    write_results(result, _markdown(result), args.json, args.md)


def corpus(split: str, sets: list[str], limit: int | None = None,
           targets: list[str] | None = None) -> list[dict[str, Any]]:
    """The labeled set's documents and the short texts of a split, each with its target (a schema name, or the
    short text's own bare schema) and its set."""
    docs = documents(split, targets, None, ["generated"])[:limit] if "generated" in sets else []
    if "real" in sets:  # answerable real documents: a rule refusing them for writing no value asked is not chosen
        docs += [{**d, "set": "real"} for d in documents(split, None, limit, ["receipts", "resumes", "nda"])]
    if "short" in sets:
        lines = SHORT.read_text(encoding="utf-8").splitlines()
        docs += [{"id": d["id"], "target": d["schema"], "text": d["text"], "gold": {} if d["answerable"] else None,
                  "layout": d["family"], "set": "short"}
                 for d in map(json.loads, lines) if split in ("all", d["split"])][:limit]
    return docs


GRID_DOUBTFUL = (-2.0, 0.0, 2.0, 4.0, 6.0, 8.0, 1e9)
GRID_UNFOUNDED = (0.25, 0.34, 0.5, 0.67, 0.75, 1.0)


def unfounded_shares(outcomes: dict[str, Any], docs: list[dict[str, Any]]) -> dict[str, float | None]:
    """Per document: the share of its answer's identifying values found nowhere in its text (None: no answer, or
    no identifying value written)."""
    import schemas
    from extractor import trace
    from extractor.pipeline.grounding import key, schema_ir
    from extractor.pipeline.refusing import identifying

    out: dict[str, float | None] = {}
    for doc in docs:
        outcome = outcomes.get(doc["id"])
        if outcome is None or outcome["output"] is None or outcome["refused"]:
            out[doc["id"]] = None
            continue
        target = getattr(schemas, doc["target"])
        values = identifying(trace(outcome["output"], doc["text"], target), schema_ir(key(target)))
        out[doc["id"]] = sum(v.status == "not_found" for v in values) / len(values) if values else None
    return out


def valueless(doc: dict[str, Any]) -> bool:
    """Whether the document's text writes no value of any kind its target asks for (refusing.unwritten): what
    `require_values` refuses where the relevance is doubtful."""
    import schemas
    from extractor.pipeline.refusing import unwritten
    from extractor.schema import json_schema

    target = doc["target"]
    return bool(unwritten(target if isinstance(target, dict) else json_schema(getattr(schemas, target)), doc["text"]))


Rule = tuple[float, float, float, float | None]
"""(min_relevance, doubtful, max_unfounded, valueless: None where no text is refused for writing no value)."""
GRID_VALUELESS = (None, -2.0, -1.0, 0.0)


def refuses(rule: Rule, score: float, unfounded: float | None, without_values: bool) -> bool:
    """Whether a rule refuses a document, before decoding or after it (`extract`'s decision)."""
    low, doubtful, share, valueless_below = rule
    return score < low or (score < doubtful and unfounded is not None and unfounded >= share) or \
        (valueless_below is not None and score < valueless_below and without_values)


def rule_rates(rows: list[tuple[float, float | None, bool, bool]], rule: Rule) -> dict[str, Any]:
    """Refusal figures of a rule over (score, unfounded share, writes no value asked for, no answer) rows."""
    refused = [(refuses(rule, s, u, v), no) for s, u, v, no in rows]
    return {"rule": {"min_relevance": rule[0], "doubtful": rule[1], "max_unfounded": rule[2],
                     "valueless": rule[3]}, **figures(refused)}


def answers(rows: list[dict[str, Any]], docs: list[dict[str, Any]], run: dict[str, Any],
            args: argparse.Namespace) -> dict[str, Any]:
    """The screen and the answer check chosen together (or `--rule` reported), over every method's answers to the
    labeled set's documents; a threshold must also keep the answerable short texts (at most `--short-false`
    refused), whose answers are not decoded here."""
    scores = {r["id"]: (r["score"], r["no_answer"]) for r in rows}
    bare = {d["id"]: valueless(d) for d in docs}
    short = [(r["score"], None, bare[r["id"]], r["no_answer"]) for r in rows if r.get("set") == "short"]
    real = [(r["score"], bare[r["id"]]) for r in rows if r.get("set") == "real" and r["id"] in bare]
    docs = [d for d in docs if d["set"] not in ("short", "real")]
    per_method = {}
    for name, outcomes in run["outcomes"].items():
        shares = unfounded_shares(outcomes, docs)
        per_method[name] = [(scores[d["id"]][0], shares[d["id"]], bare[d["id"]], scores[d["id"]][1]) for d in docs]
    everything = [row for method_rows in per_method.values() for row in method_rows]
    if args.rule:
        given = args.rule.split(",")
        chosen = rule_rates(everything, (*map(float, given[:3]), float(given[3]) if len(given) > 3 else None))
    else:
        lows = sorted({round(s, 3) for s, _, _, _ in everything})
        exact = _exact_below(args.scores)
        candidates = [(low, d, u, v) for low in [*((a + b) / 2 for a, b in zip(lows, lows[1:])), -1e9]
                      for d in GRID_DOUBTFUL for u in GRID_UNFOUNDED for v in GRID_VALUELESS
                      if low <= exact and d <= exact and (v is None or v <= exact)]
        counted = {c: figures([(refuses(c, *row[:3]), row[3]) for row in short]) for c in candidates}
        candidates = [c for c in candidates if round((counted[c]["false_refusal_rate"] or 0)
                                                     * sum(not no for *_, no in short)) <= args.short_false
                      and not any(refuses(c, score, None, v) and score >= c[0] for score, v in real)]
        allowed = [(c, r) for c, r in ((c, rule_rates(everything, c)) for c in candidates)
                   if (r["false_refusal_rate"] or 0) <= args.max_false]
        _, chosen = max(allowed, key=lambda cr: (cr[1]["f1"] or 0, counted[cr[0]]["recall"] or 0,
                                                 -cr[0][1], -cr[0][0], -(cr[0][3] if cr[0][3] is not None else -1e9)))
    rule = tuple(chosen["rule"].values())
    screen_only = (rule[0], -1e9, 1.0, None)
    return {"commit": commit(), "split": args.split, "answers": str(args.answers), "answers_commit": run["commit"],
            "scores": ", ".join(map(str, args.scores)) if args.scores else "computed here",
            "scores_commit": json.loads(args.scores[0].read_text())["commit"] if args.scores else None,
            "model": args.model or "embedded SmolLM2-135M-Instruct", "max_false_refusal_rate": args.max_false,
            "chosen": chosen, "given": bool(args.rule), "limit": args.limit,
            "short": {"threshold": rule[0], **figures([(refuses(rule, *row[:3]), row[3]) for row in short])}
            if short else None,
            "real": {"documents": len(real), "writing_no_value": sum(v for _, v in real),
                     "refused_for_it": sum(refuses(rule, s, None, v) and s >= rule[0] for s, v in real)}
            if real else None,
            "per_method": {name: {"rule": rule_rates(r, rule), "screen_only": rule_rates(r, screen_only)}
                           for name, r in per_method.items()},
            "documents": {name: [{"id": d["id"], "score": s, "unfounded": u, "writes_no_value": v, "no_answer": no}
                                 for d, (s, u, v, no) in zip(docs, r)] for name, r in per_method.items()}}


def _exact_below(paths: list[Path] | None) -> float:
    """The score up to which every given score is exact: scores read as `extract` reads them (`--enough X`) are
    lower bounds at or above X, so a rule may only compare them with thresholds up to X."""
    read = [json.loads(path.read_text()).get("enough") for path in paths or ()]
    return min((x for x in read if x is not None), default=float("inf"))


def _answers_markdown(result: dict[str, Any]) -> str:
    def cell(v: Any) -> str:
        return "–" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)

    c = result["chosen"]
    rule = c["rule"]
    lines = [f"# Refusal decision: the screen and the answers' traces ({result['split']} split)", "",
             f"Model: {result['model']}; commit `{result['commit']}`; answers from `{result['answers']}` (run at "
             f"`{result['answers_commit']}`); relevance scores {result['scores']}"
             + (f" (run at `{result['scores_commit']}`)" if result.get("scores_commit") else "") + "."
             + (f" The split's first {result['limit']} labeled documents only (`--limit`)." if result.get("limit")
                else ""), "",
             f"Rule {'given' if result['given'] else 'chosen (best F1, answerable refused at most ' + cell(result['max_false_refusal_rate']) + ')'}"
             f": refuse below relevance **{rule['min_relevance']:.3f}**, or below **{rule['doubtful']:g}** where at "
             f"least **{rule['max_unfounded']}** of the identifying values are found nowhere in the text"
             + (f", or below **{rule['valueless']:g}** where the text writes no value of any kind the target asks for"
                f" (`require_values`)" if rule.get("valueless") is not None else "") + ".", "",
             "| answers | decision | precision | recall | F1 | answerable refused |", "|---|---|---:|---:|---:|---:|"]
    for name, figures in result["per_method"].items():
        for label, r in (("screen only", figures["screen_only"]), ("screen + trace", figures["rule"])):
            lines.append(f"| {name} | {label} | {cell(r['precision'])} | {cell(r['recall'])} | {cell(r['f1'])} | "
                         f"{cell(r['false_refusal_rate'])} |")
    return "\n".join(lines + _short_lines(result)) + "\n"


def _short_lines(result: dict[str, Any]) -> list[str]:
    """The short texts' figures at the threshold, and where the rule has it the refusal of texts writing no value
    asked for (their answers are not decoded, so the trace's check does not apply); the answerable real documents
    that check refuses."""
    r = result.get("short")
    if not r:
        return []
    rows = [d for d in result["documents"] if d.get("set") == "short"] if isinstance(result["documents"], list) \
        else []
    kept = f" ({sum(not d['no_answer'] for d in rows)} answerable, {sum(d['no_answer'] for d in rows)} not)" \
        if rows else ""
    def cell(v: Any) -> str:
        return "–" if v is None else f"{v:.3f}"

    values = result.get("chosen", {}).get("rule", {}).get("valueless")
    also = f" and, below {values:g}, writing no value asked for" if values is not None else ""
    real = result.get("real")
    return ["", f"Short texts{kept} at relevance {r['threshold']}{also}: answerable refused "
            f"{cell(r['false_refusal_rate'])}, refusal precision {cell(r['precision'])}, recall {cell(r['recall'])} "
            f"(AUC {result.get('short_auc') or '–'})."] + \
        (["", f"Answerable real documents (receipts, résumés, contracts): {real['documents']}, of which "
              f"{real['writing_no_value']} write no value of the kinds their target asks for; refused for it: "
              f"{real['refused_for_it']}."] if real else [])


def score(docs: list[dict[str, Any]], model: str | None, threads: int,
          enough: float | None = None) -> list[dict[str, Any]]:
    """Each document's relevance score for its target (with `enough`, as `extract` reads it: no likelihoods kept)."""
    import torch

    import schemas
    from extractor import Extractor
    from extractor.decode import relevance
    from extractor.decode.relevance import announcements, combine, likelihoods, opening
    from extractor.schema import json_schema

    if threads:
        torch.set_num_threads(threads)
    ex = Extractor(model)
    rows = []
    for i, doc in enumerate(docs):
        target = doc["target"]
        schema = target if isinstance(target, dict) else json_schema(getattr(schemas, target))
        body = opening(ex.lm, doc["text"])
        ll = likelihoods(ex.lm, announcements(schema), body) if enough is None else None
        value = combine(ll, tokens=len(body)) if ll else relevance.score(ex.lm, schema, doc["text"], enough=enough)
        rows.append({"id": doc["id"], "set": doc["set"], "target": schema.get("title"),
                     "no_answer": doc["gold"] is None, "layout": doc["layout"],
                     "score": round(value, 3),  # what ex.relevance reads
                     "likelihoods": [round(v, 3) for v in ll] if ll else None})
        print(f"[{i + 1}/{len(docs)}] {doc['id']}: {rows[-1]['score']:.2f}", file=sys.stderr, flush=True)
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
    labeled = sum(d.get("set") != "short" for d in result["documents"])
    read = "" if result.get("enough") is None else f" Read as `extract` reads: scores at or above " \
        f"{result['enough']} are lower bounds (no AUC; the curve is exact up to it)."
    lines = [f"# Relevance screen ({result['split']} split, {labeled} labeled documents)", "",
             f"Model: {result['model']}; commit `{result['commit']}`; AUC (answerable above no-answer) "
             f"{result['auc']}.{read}", "",
             f"Threshold {'given' if result.get('given', result['split'] != 'dev') else 'chosen'}: **{c['threshold']}** — refusal "
             f"precision {cell(c['precision'])}, recall {cell(c['recall'])}, F1 {cell(c['f1'])}, answerable "
             f"documents refused {cell(c['false_refusal_rate'])}.", "",
             "| threshold | precision | recall | F1 | answerable refused |", "|---:|---:|---:|---:|---:|"]
    for r in result["curve"]:
        lines.append(f"| {r['threshold']} | {cell(r['precision'])} | {cell(r['recall'])} | {cell(r['f1'])} | "
                     f"{cell(r['false_refusal_rate'])} |")
    return "\n".join(lines + _short_lines(result)) + "\n"


if __name__ == "__main__":
    main()
