"""How the stretch scores a long text is read by (`windowed.stretch_scores`) tell a buried document from the text
around it, and which margin below the best stretch (`windowed.FOCUS_MARGIN`) reads the one and not the other while
a long text all of the target's kind is still read through.

usage: python benchmarks/window_signals.py [--split dev] [--docs 4] [--length 40000] [--contracts 3]
                                           [--contract-split train] [--threads 1] [--again OUT.json]
                                           [--kinds MARGIN,... [--far-apart N]] [--json OUT] [--md OUT]

Two kinds of text, every stretch of `windowed.STRETCH` characters scored as `extract` scores it with `focus` on:
- needles: `--docs` labeled documents of benchmarks/needle.py buried in unrelated contract text of `--length`
  characters (its `--split`); a stretch is the document's where it overlaps it;
- contracts: the first `--contracts` Kleister-NDA contracts of `--contract-split` that `extract` reads in two
  windows or more (benchmarks/long_documents.py), read for the `NDA` target: all of the text is the target's kind.
For each margin on a grid, a stretch counts where it scores within it of its text's best: the figures are how many
stretches of contract text count around a needle, how many of the needle's stretches count, and for the contracts
the share of stretches counted and how many of their windows hold a counted stretch. The margin chosen is the
largest on the grid under which no contract stretch around a needle counts.

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

MARGINS = [float(m) for m in range(0, 17)]
"""Margins tried (nats below the best stretch): 0 to 16."""


def scored(ex: Any, target: Any, text: str) -> list[dict[str, Any]]:
    """Every stretch of `text` with its score, as `extract` scores them."""
    from extractor import ExtractOptions
    from extractor.documents.relevant import grid
    from extractor.pipeline.target import Target
    from extractor.pipeline.windowed import STRETCH, stretch_scores

    spans = grid(len(text), STRETCH)
    scores = stretch_scores(ex, Target(target, ExtractOptions()), [text[a:b] for a, b in spans])
    return [{"start": a, "end": b, "score": round(s, 3)} for (a, b), s in zip(spans, scores)]


def needles(ex: Any, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each needle case's stretches, those overlapping the buried document marked."""
    from benchmarks import needle

    spec = argparse.Namespace(lengths=[args.length], docs=args.docs, facts=0, seed=0, split=args.split, targets=None)
    out = []
    for case in needle.cases(spec):
        start = time.perf_counter()
        at = case["long"].find(case["alone"])
        rows = scored(ex, needle.target(case["target"]), case["long"])
        for row in rows:
            row["document"] = row["start"] < at + len(case["alone"]) and row["end"] > at
        out.append({"case": case["id"], "target": case["target"], "stretches": rows,
                    "seconds": round(time.perf_counter() - start, 1)})
        print(out[-1]["case"], out[-1]["seconds"], flush=True)
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
        rows = scored(ex, NDA, doc["text"])
        for row in rows:
            row["window"] = max(i for i, s in enumerate(starts) if s <= (row["start"] + row["end"]) // 2)
        out.append({"case": doc["id"], "target": "NDA", "windows": len(parts), "stretches": rows,
                    "seconds": round(time.perf_counter() - start, 1)})
        print(out[-1]["case"], out[-1]["seconds"], flush=True)
    return out


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


def read(stretches: list[dict[str, Any]], length: int, margin: float) -> list[bool]:
    """Which stretches `extract` reads at a margin: those inside the regions around the stretches counted."""
    from extractor.documents.relevant import counted
    from extractor.pipeline.windowed import PAD

    chosen = counted([s["score"] for s in stretches], margin)
    spans = [(max(0, stretches[i]["start"] - PAD), min(length, stretches[i]["end"] + PAD)) for i in chosen]
    return [any(a < s["end"] and b > s["start"] for a, b in spans) for s in stretches]


def margins(cases: list[dict[str, Any]], texts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per margin: stretches counted and read (the regions around those counted) of the needles' documents and of
    the contract text around them, and of the NDA contracts (with the windows holding a counted stretch)."""
    out = []
    for margin in MARGINS:
        row = {"margin": margin, "needle_contract": 0, "needle_document": 0, "needle_contract_read": 0,
               "needle_document_read": 0, "contract_stretches": 0, "contract_read": 0, "contract_windows": 0}
        for case in cases:
            rows = case["stretches"]
            best = max(s["score"] for s in rows)
            kept = [s for s in rows if s["score"] >= best - margin]
            row["needle_contract"] += sum(not s["document"] for s in kept)
            row["needle_document"] += sum(s["document"] for s in kept)
            seen = read(rows, rows[-1]["end"], margin)
            row["needle_contract_read"] += sum(r and not s["document"] for r, s in zip(seen, rows))
            row["needle_document_read"] += sum(r and s["document"] for r, s in zip(seen, rows))
        for text in texts:
            rows = text["stretches"]
            best = max(s["score"] for s in rows)
            kept = [s for s in rows if s["score"] >= best - margin]
            row["contract_stretches"] += len(kept)
            row["contract_read"] += sum(read(rows, rows[-1]["end"], margin))
            row["contract_windows"] += len({s["window"] for s in kept})
        out.append(row)
    return out


def summary(cases: list[dict[str, Any]], texts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per text: its best stretch, the best of the rest (the needle's document against the contract around it),
    and for a contract the best stretch of each window."""
    out = []
    for case in cases:
        doc = max((s["score"] for s in case["stretches"] if s["document"]), default=None)
        other = max((s["score"] for s in case["stretches"] if not s["document"]), default=None)
        gap = None if doc is None or other is None else round(doc - other, 3)
        out.append({"case": case["case"], "target": case["target"], "best_document": doc, "best_other": other,
                    "gap": gap, "seconds": case["seconds"]})
    for text in texts:
        per = [max(s["score"] for s in text["stretches"] if s["window"] == w) for w in range(text["windows"])]
        out.append({"case": text["case"], "target": "NDA", "best_per_window": per,
                    "gap": round(max(per) - min(per), 3), "seconds": text["seconds"]})
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# Stretch scores of long texts: buried documents against the text around them, and contracts read "
             f"through ({result['split']} needles at {result['length']:,} characters, {result['contract_split']} "
             f"contracts)", "", f"Commit {result['commit']} (scores read at {result['scored_at']}). Stretches of {result['stretch']} characters, "
             f"{result['stretch_tokens']} tokens of each read. {result['note']}", "",
             "| text | target | best document stretch | best other stretch | gap (nats) | best stretch per window | "
             "seconds |", "|---|---|---:|---:|---:|---|---:|"]
    for c in result["cases"]:
        per = ", ".join(map(str, c.get("best_per_window", []))) or "–"
        lines.append(f"| {c['case']} | {c['target']} | {c.get('best_document', '–')} | {c.get('best_other', '–')} | "
                     f"{c['gap']} | {per} | {c['seconds']} |")
    n_doc = sum(s["document"] for c in result["needles"] for s in c["stretches"])
    n_other = sum(not s["document"] for c in result["needles"] for s in c["stretches"])
    n_contract = sum(len(t["stretches"]) for t in result["contracts"])
    n_windows = sum(t["windows"] for t in result["contracts"])
    lines += ["", "Per margin, stretches counted (within it of the best) and read (inside the regions around those "
              "counted):", "", "| margin | needle stretches counted | read | contract stretches around needles "
              "counted | read | NDA contract stretches counted | read | NDA windows holding one counted |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [f"| {m['margin']} | {m['needle_document']} of {n_doc} | {m['needle_document_read']} | "
              f"{m['needle_contract']} of {n_other} | {m['needle_contract_read']} | {m['contract_stretches']} of "
              f"{n_contract} | {m['contract_read']} | {m['contract_windows']} of {n_windows} |"
              for m in result["margins"]]
    lines += ["", f"Chosen: {result['chosen']} (the largest margin under which no stretch around a needle is read)."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--docs", type=int, default=4, help="needle documents (benchmarks/needle.py's)")
    parser.add_argument("--length", type=int, default=40_000, help="characters of each needle's long text")
    parser.add_argument("--contracts", type=int, default=3, help="Kleister-NDA contracts read in two windows or more")
    parser.add_argument("--contract-split", default="train", choices=["train", "dev-0"])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kinds", default=None, help="margins (nats, comma-separated): read each text's windows as "
                        "the target against other kinds instead of scoring stretches (`windowed.KIND_MARGIN`)")
    parser.add_argument("--far-apart", type=int, default=6, help="far_apart dev documents read with --kinds")
    parser.add_argument("--note", default="", help="how the machine was shared")
    parser.add_argument("--again", type=Path, nargs="+", help="result files of this script: their stretch scores "
                        "reported again together (runs of needles and of contracts apart, or after a change to the "
                        "margins or the regions), nothing scored")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    import torch

    from extractor import Extractor
    from extractor.pipeline.windowed import STRETCH, STRETCH_TOKENS

    torch.set_num_threads(args.threads)
    if args.kinds:
        args.kinds = [float(m) for m in args.kinds.split(",")]
        result = {"commit": commit(), "split": args.split, "length": args.length, "contract_split":
                  args.contract_split, "note": args.note, "texts": kinds(Extractor(None), args)}
        write_results(result, kinds_markdown(result), args.json, args.md)
        return
    if args.again:
        runs = [json.loads(path.read_text()) for path in args.again]
        cases, texts = [c for r in runs for c in r["needles"]], [t for r in runs for t in r["contracts"]]
        for key in ("split", "length", "contract_split", "note"):
            setattr(args, key, runs[0][key])
        scored_at = ", ".join(dict.fromkeys(r.get("scored_at", r["commit"]) for r in runs))
    else:
        ex = Extractor(None)
        cases, texts, scored_at = needles(ex, args), contracts(ex, args), commit()
    grid = margins(cases, texts)
    clean = [m["margin"] for m in grid if m["needle_contract"] == 0]
    result = {"commit": commit(), "scored_at": scored_at, "split": args.split, "length": args.length,
              "contract_split": args.contract_split, "stretch": STRETCH, "stretch_tokens": STRETCH_TOKENS,
              "note": args.note, "cases": summary(cases, texts), "margins": grid,
              "chosen": max(clean) if clean else None, "needles": cases, "contracts": texts}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
