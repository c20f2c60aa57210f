"""How the stretch scores a long text is read by with `focus` (`windowed.stretch_scores`: BM25 of the target's words and
value shapes) tell a buried document from the text around it, and which share of the best stretch's score
(`windowed.FOCUS_SHARE`) reads the one and not the other while facts stated far apart are still read.

usage: python benchmarks/window_signals.py [--split dev] [--docs 24] [--lengths 40000,200000] [--contracts 3]
                                           [--contract-split train] [--far-apart 12] [--threads 1]
                                           [--kinds MARGIN,...] [--json OUT] [--md OUT]

Three kinds of text, every stretch of `windowed.STRETCH` characters scored as `extract` scores it with `focus` on:
- needles: `--docs` labeled documents of benchmarks/needle.py buried in unrelated contract text of each of
  `--lengths` characters (its `--split`); a stretch is the document's where it overlaps it;
- contracts: the first `--contracts` Kleister-NDA contracts of `--contract-split` that `extract` reads in two
  windows or more (benchmarks/long_documents.py), read for the `NDA` target: all of the text is the target's kind;
- far apart: the first `--far-apart` documents of benchmarks/far_apart.py's split, whose facts each stand in one
  sentence far from the others;
- long lists: benchmarks/long_lists.py's statement (200 rows of a table) and programme (80 lines), the whole text
  of the target's kind, its items spread over it.
For each share on a grid, a stretch counts where it scores at least that share of its text's best, and what is
read is the regions around those counted (`relevant.regions`): the figures are how many buried documents are read,
how many stretches of contract text around them are read, the share of each contract read, and how many far-apart
facts and list items stand inside what is read. No model runs in this mode (the model's tokenizer cuts the contracts' windows).

With `--kinds`, each text's windows (as `extract` cuts them) are read instead as `windowed.KIND_MARGIN` reads them
at each margin given: which windows a margin drops, and each window's best stretch read (see `kinds`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

SHARES = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
"""Shares of the best stretch's score tried."""


def scored(target: Any, text: str) -> dict[str, Any]:
    """Every stretch of `text` with its score, as `extract` scores them with `focus`, the spread of the target's
    value shapes, the peak, and the regions `extract` reads at each share (`windowed.focus_regions`; the whole
    text where it reads it whole)."""
    from extractor import ExtractOptions
    from extractor.documents import lexical
    from extractor.documents.relevant import grid
    from extractor.pipeline.target import Target
    from extractor.pipeline.windowed import STRETCH, focus_regions, stretch_scores

    spans = grid(len(text), STRETCH)
    scores, spread = stretch_scores(Target(target, ExtractOptions()), [text[a:b] for a, b in spans])
    stretches = list(zip(spans, scores))
    return {"stretches": [{"start": a, "end": b, "score": round(s, 3)} for (a, b), s in stretches],
            "spread": round(spread, 3), "peak": round(lexical.peak(scores), 2),
            "regions": {str(share): focus_regions(text, stretches, spread, share) or [[0, len(text)]]
                        for share in SHARES}}


def needles(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each needle case's stretches, those overlapping the buried document marked."""
    from benchmarks import needle

    spec = argparse.Namespace(lengths=args.lengths, docs=args.docs, facts=0, seed=0, split=args.split, targets=None)
    out = []
    for case in needle.cases(spec):
        start = time.perf_counter()
        at = case["long"].find(case["alone"])
        read = scored(needle.target(case["target"]), case["long"])
        for row in read["stretches"]:
            row["document"] = row["start"] < at + len(case["alone"]) and row["end"] > at
        out.append({"case": case["id"], "target": case["target"], "length": case["length"], **read,
                    "seconds": round(time.perf_counter() - start, 3)})
    return out


def contracts(ex: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The first long contracts' stretches, each with the window (as `extract` cuts them) its middle falls in."""
    from benchmarks.long_documents import Runner, load
    from schemas import NDA

    runner, out = Runner(ex, 256, None, 64), []
    for doc in load(args.contract_split, None):
        if len(out) >= args.contracts:
            break
        parts = runner.windows(doc["text"])
        if len(parts) < 2:
            continue
        starts = [doc["text"].find(p[:200]) for p in parts]
        start = time.perf_counter()
        read = scored(NDA, doc["text"])
        for row in read["stretches"]:
            row["window"] = max(i for i, s in enumerate(starts) if s <= (row["start"] + row["end"]) // 2)
        out.append({"case": doc["id"], "target": "NDA", "windows": len(parts), **read,
                    "seconds": round(time.perf_counter() - start, 3)})
    return out


def far_apart(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The first far-apart documents' stretches, with where each fact stands."""
    from benchmarks.data.far_apart.generate import KINDS

    docs = [json.loads(line) for line in (Path(__file__).parent / "data" / "far_apart" / f"{args.split}.jsonl").open()]
    return [{"case": d["id"], "target": KINDS[d["kind"]].target.__name__, "facts": d["facts"],
             **scored(KINDS[d["kind"]].target, d["text"])} for d in docs[:args.far_apart]]


def cut(ex: Any, target: Any, text: str, max_tokens: int, window: int | None) -> list[Any]:
    """The windows `extract` reads `text` in (one where it fits)."""
    from extractor import ExtractOptions
    from extractor.documents.windows import Window, windows
    from extractor.pipeline.windowed import token_ends, window_size
    from extractor.schema import json_schema

    options = ExtractOptions(max_tokens=max_tokens, window=window)
    size = window_size(ex, target, text, options, ex.prompt_ids(json_schema(target), text, [], options))
    if size is None:
        return [Window(0, 0, len(text))]
    return windows(text, token_ends(ex.tokenizer, text), size, min(options.overlap, size // 4))


def kinds(ex: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each text's windows read as the target against other kinds (`windowed.window_readings`) at each margin of
    `--kinds`: the dev needles (the windows holding the buried document marked), the long Kleister-NDA contracts
    of `--contract-split`, and the first `--far-apart` documents of benchmarks/far_apart.py's dev split (windows of
    1,024 tokens, as far_apart.py reads them), all of them of the target's kind."""
    from benchmarks import needle
    from benchmarks.data.far_apart.generate import KINDS
    from benchmarks.long_documents import load
    from extractor import ExtractOptions
    from extractor.pipeline.target import Target
    from extractor.pipeline.windowed import window_readings
    from schemas import NDA

    spec = argparse.Namespace(lengths=[args.length], docs=args.docs, facts=0, seed=0, split=args.split, targets=None)
    texts = []
    for case in needle.cases(spec):
        at = case["long"].find(case["alone"])
        texts.append(("needle", case["id"], needle.target(case["target"]), case["long"], (at, at + len(case["alone"])),
                      640, None))
    long = (d for d in load(args.contract_split, None) if len(cut(ex, NDA, d["text"], 256, None)) > 1)
    texts += [("contract", d["id"], NDA, d["text"], None, 256, None) for d in islice(long, args.contracts)]
    far = [json.loads(line) for line in (Path(__file__).parent / "data" / "far_apart" / "dev.jsonl").open()]
    texts += [("far apart", d["id"], KINDS[d["kind"]].target, d["text"], None, 256, 1024) for d in far[:args.far_apart]]
    out = []
    for kind, name, target, text, document, max_tokens, window in texts:
        parts = cut(ex, target, text, max_tokens, window)
        row = {"kind": kind, "case": name, "target": target.__name__, "windows": len(parts),
               "document": [w.index for w in parts if document and w.start < document[1] and w.end > document[0]],
               "margins": []}
        for margin in args.kinds:
            start = time.perf_counter()
            found = window_readings(ex, Target(target, ExtractOptions()), text, parts, margin)
            row["margins"].append({"margin": margin, "dropped": [r.window for r in found if r.dropped],
                                   "scores": [[round(r.score, 3), r.kind] for r in found],
                                   "seconds": round(time.perf_counter() - start, 1)})
            print(name, margin, row["margins"][-1], flush=True)
        out.append(row)
    return out


def kinds_markdown(result: dict[str, Any]) -> str:
    read = [k for k in ("needle", "contract", "far apart") if any(t["kind"] == k for t in result["texts"])]
    said = {"needle": f"{result['split']} needles at {result['length']:,} characters",
            "contract": f"long {result['contract_split']} Kleister-NDA contracts", "far apart": "far_apart dev"}
    lines = [f"# Windows read as another kind of document: which a margin drops ({', '.join(said[k] for k in read)})",
             "", f"Commit {result['commit']}. Each window's stretches of 512 characters read in text order (64 tokens "
             f"of each) until one reads as the target within the margin (`windowed.window_readings`); a window every "
             f"stretch of which reads as another kind by more is dropped. {result['note']}", "",
             "| text | kind | target | windows | document's windows | margin | dropped | best stretch per window "
             "(nats, other kind) | seconds |", "|---|---|---|---:|---|---:|---|---|---:|"]
    for t in result["texts"]:
        for m in t["margins"]:
            best = "; ".join(f"{s} {k}" for s, k in m["scores"])
            lines.append(f"| {t['case']} | {t['kind']} | {t['target']} | {t['windows']} | "
                         f"{', '.join(map(str, t['document'])) or '–'} | {m['margin']} | "
                         f"{', '.join(map(str, m['dropped'])) or 'none'} | {best} | {m['seconds']} |")
    return "\n".join(lines) + "\n"


def read(text: dict[str, Any], share: float) -> list[tuple[int, int]]:
    """The regions `extract` reads of a text at a share (as `scored` recorded them)."""
    return [(a, b) for a, b in text["regions"][str(share)]]


def long_lists(args: argparse.Namespace) -> list[dict[str, Any]]:
    """benchmarks/long_lists.py's documents (a statement's table, a programme's lines: the whole text the target's
    kind), with where each gold item's first field stands."""
    import random

    from benchmarks.long_lists import SETS

    out = []
    for name, (target, field, make) in SETS.items():
        text, gold = make(random.Random(0), {"statement": 200, "schedule": 80}[name])
        at, items = 0, []
        for item in gold[field]:
            first = str(next(iter(item.values())))
            at = text.find(first, at)
            items.append([at, at + len(first)])
        out.append({"case": name, "target": target.__name__, "items": items, **scored(target, text)})
    return out


def shares(cases: list[dict[str, Any]], texts: list[dict[str, Any]], far: list[dict[str, Any]],
           lists: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per share: buried documents read, stretches of contract around them read (and regions of it), the share
    of each NDA contract read, far-apart facts inside what is read, and long lists' items inside what is read."""

    out = []
    for share in SHARES:
        row: dict[str, Any] = {"share": share, "needles": {}, "contract_read": 0, "contract_stretches": 0,
                               "far_facts_read": 0, "far_facts": 0}
        for case in cases:
            rows, regions = case["stretches"], read(case, share)
            inside = [any(a < s["end"] and b > s["start"] for a, b in regions) for s in rows]
            per = row["needles"].setdefault(str(case["length"]), {"cases": 0, "document_read": 0, "other_read": 0,
                                                                  "other_regions": 0, "chars_read": 0})
            per["cases"] += 1
            per["document_read"] += any(i and s["document"] for i, s in zip(inside, rows))
            per["other_read"] += sum(i and not s["document"] for i, s in zip(inside, rows))
            doc = [s for s in rows if s["document"]]
            per["other_regions"] += sum(1 for a, b in regions if not (a < doc[-1]["end"] and b > doc[0]["start"]))
            per["chars_read"] += sum(min(b, rows[-1]["end"]) - a for a, b in regions)
        for text in texts:
            regions = read(text, share)
            row["contract_read"] += sum(any(a < s["end"] and b > s["start"] for a, b in regions)
                                        for s in text["stretches"])
            row["contract_stretches"] += len(text["stretches"])
        for doc in far:
            regions = read(doc, share)
            row["far_facts"] += len(doc["facts"])
            row["far_facts_read"] += sum(any(a <= x and y <= b for a, b in regions) for x, y in doc["facts"].values())
        for doc in lists:
            regions = read(doc, share)
            row.setdefault("list_items", {})[doc["case"]] = [sum(any(a <= x and y <= b for a, b in regions)
                                                                 for x, y in doc["items"]), len(doc["items"])]
        out.append(row)
    return out


def _range(values: list[float]) -> str:
    return f"{min(values)} to {max(values)}" if values else "–"


def markdown(result: dict[str, Any]) -> str:
    lengths = sorted({c["length"] for c in result["needles"]})
    lines = [f"# Stretch scores of long texts with `focus`: buried documents against the text around them, contracts "
             f"read through, facts far apart ({result['split']} split)", "",
             f"Commit `{result['commit']}`. Stretches of {result['stretch']} characters scored by BM25 of the target's "
             f"words and value shapes (no model). {len(result['needles'])} needle cases ({result['docs']} documents at "
             f"{', '.join(f'{n:,}' for n in lengths)} characters), {len(result['contracts'])} {result['contract_split']} "
             f"NDA contracts, {len(result['far_apart'])} far-apart documents. {result['note']}", "",
             "| share | " + " | ".join(f"documents read at {n:,} | contract stretches read | other regions | "
                                      f"characters read per case" for n in lengths)
             + " | NDA contract stretches read | far-apart facts read | "
             + " | ".join(f"{name} items read" for name in result["shares"][0]["list_items"]) + " |",
             "|---:|" + "---:|" * (4 * len(lengths) + 2 + len(result["shares"][0]["list_items"]))]
    for m in result["shares"]:
        cells = []
        for n in lengths:
            per = m["needles"][str(n)]
            cells += [f"{per['document_read']} of {per['cases']}", str(per["other_read"]), str(per["other_regions"]),
                      f"{per['chars_read'] / per['cases']:,.0f}"]
        lists = " | ".join(f"{got} of {n}" for got, n in m["list_items"].values())
        lines.append(f"| {m['share']} | " + " | ".join(cells) + f" | {m['contract_read']} of {m['contract_stretches']}"
                     f" | {m['far_facts_read']} of {m['far_facts']} | {lists} |")
    best = {n: sum(max(s["score"] for s in c["stretches"] if s["document"]) >
                   max((s["score"] for s in c["stretches"] if not s["document"]), default=0.0)
                   for c in result["needles"] if c["length"] == n) for n in lengths}
    lines += ["", "The buried document's best stretch above every stretch of contract around it: "
              + ", ".join(f"{best[n]} of {sum(c['length'] == n for c in result['needles'])} at {n:,} characters"
                          for n in lengths) + f". Scoring took at most {result['seconds_max']} s a text.",
              "", "Spread of the target's value shapes (the largest share of stretches writing one; read whole from "
              f"{result['uniform']}): needles at most {max(c['spread'] for c in result['needles'])}, far-apart "
              f"documents at most {max([d['spread'] for d in result['far_apart']] or [0])}, NDA contracts at most "
              f"{max([t['spread'] for t in result['contracts']] or [0])}, long lists "
              + ", ".join(f"{d['case']} {d['spread']}" for d in result["long_lists"]) + ".",
              "", f"Peak (the best stretch's score over the text's mean; read whole under {result['peak']}): "
              + ", ".join(f"needles at {n:,} {_range([c['peak'] for c in result['needles'] if c['length'] == n])}"
                          for n in lengths)
              + f", far-apart documents {_range([d['peak'] for d in result['far_apart']])}, NDA contracts "
              f"{_range([t['peak'] for t in result['contracts']])}; read whole for it: "
              f"{sum(c['peak'] < result['peak'] for c in result['needles'])} of {len(result['needles'])} "
              f"needles, {sum(t['peak'] < result['peak'] for t in result['contracts'])} of "
              f"{len(result['contracts'])} contracts.",
              "", f"`FOCUS_SHARE` in this commit: {result['focus_share']}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--docs", type=int, default=24, help="needle documents (benchmarks/needle.py's)")
    parser.add_argument("--lengths", default="40000,200000", help="characters of each needle's long text")
    parser.add_argument("--length", type=int, default=40_000, help="characters of each needle's long text (--kinds)")
    parser.add_argument("--contracts", type=int, default=3, help="Kleister-NDA contracts read in two windows or more")
    parser.add_argument("--contract-split", default="train", choices=["train", "dev-0"])
    parser.add_argument("--far-apart", type=int, default=12, help="far_apart documents of the split")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kinds", default=None, help="margins (nats, comma-separated): read each text's windows as "
                        "the target against other kinds instead of scoring stretches (`windowed.KIND_MARGIN`)")
    parser.add_argument("--note", default="", help="how the machine was shared")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    args.lengths = [int(n) for n in args.lengths.split(",")]
    import torch

    from extractor import Extractor
    from extractor.pipeline.windowed import FOCUS_SHARE, PEAK, STRETCH, UNIFORM

    torch.set_num_threads(args.threads)
    if args.kinds:
        args.kinds = [float(m) for m in args.kinds.split(",")]
        result = {"commit": commit(), "split": args.split, "length": args.length, "contract_split":
                  args.contract_split, "note": args.note, "texts": kinds(Extractor(None), args)}
        write_results(result, kinds_markdown(result), args.json, args.md)
        return
    cases, far, lists = needles(args), far_apart(args), long_lists(args)
    texts = contracts(Extractor(None), args) if args.contracts else []
    result = {"commit": commit(), "split": args.split, "docs": args.docs, "contract_split": args.contract_split,
              "stretch": STRETCH, "focus_share": FOCUS_SHARE, "uniform": UNIFORM, "peak": PEAK, "note": args.note,
              "seconds_max": max([c["seconds"] for c in cases + texts] or [0.0]),
              "shares": shares(cases, texts, far, lists), "needles": cases, "contracts": texts, "far_apart": far,
              "long_lists": lists}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
