"""Whether the text outside `focus`'s regions reads as the target or as another kind of document: what decides, by
default, if a text of two windows or more (and at most `windowed.FOCUS_FROM` tokens) is read only where it holds
the target (`windowed.outside_kinds`, `windowed.OTHER_KIND`).

usage: python benchmarks/outside_kinds.py [--split dev|test] [--docs 12] [--length 40000] [--contracts 19]
                                          [--far-apart 12] [--threads 1] [--note TEXT] [--json OUT] [--md OUT]

Three kinds of text, each scored in stretches as `extract` scores it (`windowed.stretch_scores`), its regions
found (`windowed.focus_regions`; a text with none is read whole whatever lies outside), then `OUTSIDE_SAMPLE`
stretches outside them read by the model against the target and the likeliest other kind of document, as `extract`
reads them:
- needles: `--docs` labeled documents of benchmarks/needle.py buried in `--length` characters of unrelated
  Kleister-NDA contract text (its `--split`): the rest is another kind of document, and reading it gives only what a
  small model copies from clauses;
- contracts: the first `--contracts` Kleister-NDA train contracts of 30,000 characters or more, read for the `NDA`
  target: the whole text is of the target's kind, its facts anywhere;
- far apart: the first `--far-apart` documents of benchmarks/far_apart.py's split (window 1,024 tokens), whose facts
  stand one sentence each among unrelated lines.
Reported per text: its regions, how many of the outside stretches read as another kind (ratio under `OTHER_KIND`)
and whether the default reads only the regions (more than half of them do), given it is cut into two windows or
more (not checked here: the needles and contracts are, at the embedded model's window; the far-apart documents at
benchmarks/far_apart.py's 1,024 tokens). Ratios under `OTHER_KIND` may be upper bounds (`outside_kinds`): which
side of it each falls on is exact.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

FAR_APART = Path(__file__).resolve().parent / "data" / "far_apart"


class _Model:
    """The engine `outside_kinds` reads: the embedded model, in this process."""

    def __init__(self, lm: Any) -> None:
        self.lm = lm


def probe(engine: Any, name: str, group: str, text: str, target: Any) -> dict[str, Any]:
    """One text: its regions, the outside stretches' ratios and what the default decides."""
    from extractor.documents.relevant import grid
    from extractor.pipeline import windowed
    from extractor.pipeline.options import ExtractOptions

    tgt = windowed._target(target, ExtractOptions())
    spans = grid(len(text), windowed.STRETCH)
    scores, spread = windowed.stretch_scores(tgt, [text[a:b] for a, b in spans])
    regions = windowed.focus_regions(text, list(zip(spans, scores)), spread)
    ratios = [] if regions is None else windowed.outside_kinds(engine, tgt, text, regions) or []
    return {"id": name, "group": group, "chars": len(text), "regions": len(regions or []),
            "ratios": [round(r, 3) for r in ratios], "under": sum(r < windowed.OTHER_KIND for r in ratios),
            "focused": bool(regions) and windowed.other_kind(ratios)}


def texts(args: argparse.Namespace) -> list[tuple[str, str, str, Any]]:
    """(id, group, text, target) of every text probed."""
    import schemas
    from benchmarks import needle
    from benchmarks.far_apart import KINDS
    from benchmarks.long_documents import load

    cases = needle.cases(argparse.Namespace(split=args.split, docs=args.docs, targets=None, seed=0,
                                            lengths=[args.length], facts=0))
    out = [(c["id"], "needles", c["long"], needle.target(c["target"])) for c in cases]
    long = [d for d in load("train", None) if len(d["text"]) >= 30_000][:args.contracts] if args.contracts else []
    out += [(d["id"], "contracts", d["text"], schemas.NDA) for d in long]
    if args.far_apart:
        lines = (FAR_APART / f"{args.split}.jsonl").read_text().splitlines()[:args.far_apart]
        out += [(d["id"], "far apart", d["text"], KINDS[d["kind"]].target) for d in map(json.loads, lines)]
    return out


def _under(row: dict[str, Any]) -> str:
    return f"{row['under']} of {len(row['ratios'])}" if row["ratios"] else "–"


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# What lies outside focus's regions reads as ({result['split']} split)", "",
             f"Model: embedded SmolLM2-135M-Instruct; commit `{result['commit']}`; `OTHER_KIND` {result['other_kind']} "
             f"nats, {result['sample']} stretches outside the regions read. {result['note']}".rstrip(), "",
             "| group | texts | with regions | read in part by default | stretches under it, of those with regions |",
             "|---|---:|---:|---:|---|"]
    for group, rows in result["groups"].items():
        under = ", ".join(f"{r['under']}/{len(r['ratios'])}" for r in sorted(rows, key=lambda r: -r["under"])
                          if r["ratios"])
        lines.append(f"| {group} | {len(rows)} | {sum(r['regions'] > 0 for r in rows)} | "
                     f"{sum(r['focused'] for r in rows)} | {under} |")
    lines += ["", "| text | group | characters | regions | outside stretches under it | read in part |",
              "|---|---|---:|---:|---:|---|"]
    for rows in result["groups"].values():
        lines += [f"| {r['id'][:40]} | {r['group']} | {r['chars']:,} | {r['regions']} | {_under(r)} | "
                  f"{'yes' if r['focused'] else 'no'} |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--docs", type=int, default=12, help="needle documents (benchmarks/needle.py's)")
    parser.add_argument("--length", type=int, default=40_000, help="characters of each needle's long text")
    parser.add_argument("--contracts", type=int, default=19, help="long Kleister-NDA train contracts")
    parser.add_argument("--far-apart", type=int, default=12, help="far_apart documents of the split")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--note", default="", help="how the machine was shared")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)

    import torch
    from tqdm.auto import tqdm

    from extractor.decode.model import load_model
    from extractor.pipeline import windowed

    torch.set_num_threads(args.threads)
    engine = _Model(load_model(None))
    rows = [probe(engine, *t) for t in tqdm(texts(args), desc="outside kinds", unit="text")]
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["group"], []).append(row)
    result = {"commit": commit(), "split": args.split, "docs": args.docs, "length": args.length,
              "other_kind": windowed.OTHER_KIND, "sample": windowed.OUTSIDE_SAMPLE, "note": args.note,
              "groups": groups}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
