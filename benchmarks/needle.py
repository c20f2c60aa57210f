"""Needles in long text: labeled short documents buried in unrelated real contracts, and contracts whose facts are
stated once, far apart; field F1 from the long text against the same document alone, per length and position.

usage: python benchmarks/needle.py [--lengths 8000,40000,200000] [--docs N] [--facts N] [--seed N] [--split test|dev]
           [--targets Resume,...] [--cases ID@LENGTH,...] [--max-tokens N] [--window N] [--overlap N]
           [--focus on|off] [--kinds MARGIN|off] [--located on|off] [--beside N] [--model ID] [--threads N]
           [--resume OUTCOMES.jsonl [--report-only]]
           [--note TEXT] [--json OUT] [--md OUT] [--smoke]

- `needle`: the labeled documents of benchmarks/quality.py's sets (the generated set and the real ones; NDA
  documents left out, their haystack being contracts; no-answer documents left out), round robin over the
  kinds (set and target) so a few documents are of several kinds, each buried at a seeded random place inside
  Kleister-NDA train contracts (benchmarks/data/kleister_nda, cleaned as long_documents.py reads them) cut at
  line breaks to the length asked. Positions are drawn in thirds, one document's in the first third, the next
  one's in the middle, the next one's in the last (the bucket is read from where the document landed).
- `facts`: a generated services agreement (`Agreement`): parties and effective date in its first paragraph,
  term, notice period and governing law in its last ones, the same contracts' lines between; alone, the
  opening and closing paragraphs with nothing between.

Each case runs `Extractor.extract` on the long text and on the document alone (quality_methods.run, the
`extract` method, with `--window`/`--overlap` where given) and is scored as quality.py scores
(quality_score.summarize: field F1 and exact match over the gold's fields; a refusal or error scores 0).
`--beside N` reads, instead of each whole long text, the document with the N characters of it on each side (what a
region around the document adds to it).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.data.quality.pools import COMPANIES  # noqa: E402
from benchmarks.long_documents import (  # noqa: E402
    KINDS_HELP, LOCATED_HELP, _resumed, kinds, kinds_said, load, located, located_said)
from benchmarks.quality import documents  # noqa: E402
from benchmarks.quality_methods import Method, run  # noqa: E402
from benchmarks.quality_score import Outcome, summarize  # noqa: E402

LENGTHS = (8_000, 40_000, 200_000)
BUCKETS = ("start", "middle", "end")
HAYSTACK_SPLIT = "train"  # the real NDA set's documents come from dev-0: the haystack shares none of them


class Agreement(BaseModel):
    """A services agreement: who signed it, when it starts, how long it runs, how it ends, and which law governs it."""

    parties: list[str] = Field(description="Names of the parties to the agreement, as written in the text")
    effective_date: datetime.date | None = Field(
        default=None, description="Date the agreement takes effect, as YYYY-MM-DD; null if not stated")
    term_months: int | None = Field(default=None, description="How many months the agreement runs; null if not stated")
    notice_days: int | None = Field(
        default=None, description="Days of written notice either party must give to terminate; null if not stated")
    governing_law: str | None = Field(
        default=None, description="State or country whose law governs the agreement; null if not stated")


LAWS = ("England and Wales", "New York", "Delaware", "Ontario", "Bavaria", "New South Wales")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def agreement(rng: random.Random) -> tuple[str, str, dict[str, Any]]:
    """A generated agreement's opening paragraph, closing paragraphs and gold answer."""
    (a, *_), (b, *_) = rng.sample(COMPANIES, 2)
    day = datetime.date(rng.randrange(2015, 2026), rng.randrange(1, 13), rng.randrange(1, 29))
    months, notice, law = rng.choice((6, 12, 18, 24, 36, 48)), rng.choice((30, 45, 60, 90, 120, 180)), rng.choice(LAWS)
    opening = (f"SERVICES AGREEMENT\nThis Services Agreement (the \"Agreement\") is made as of {day.day} "
               f"{MONTHS[day.month - 1]} {day.year} (the \"Effective Date\") by and between {a} (the \"Provider\") "
               f"and {b} (the \"Client\").")
    closing = (f"Term. This Agreement remains in force for {months} months from the Effective Date.\n"
               f"Termination. Either party may terminate this Agreement by giving {notice} days' written notice "
               f"to the other party.\nGoverning law. This Agreement is governed by the laws of {law}.")
    gold = {"parties": [a, b], "effective_date": day.isoformat(), "term_months": months, "notice_days": notice,
            "governing_law": law}
    return opening, closing, gold


@lru_cache(maxsize=1)
def haystack_lines() -> tuple[str, ...]:
    """Every line of the haystack contracts, contract after contract, a blank line between contracts; a text
    layer of under 20 characters a line (one train contract's, a letter a line) is left out."""
    texts = [doc["text"] for doc in load(HAYSTACK_SPLIT, None)]
    return tuple(line for text in texts if len(text) >= 20 * (text.count("\n") + 1)
                 for line in [*text.split("\n"), ""])


def filler(rng: random.Random, chars: int) -> list[str]:
    """Consecutive haystack lines from a seeded place, as many as fit `chars` (at least one)."""
    lines = haystack_lines()
    at, out, size = rng.randrange(len(lines)), [], 0
    while not out or size + len(lines[at % len(lines)]) + 1 <= chars:
        out.append(lines[at % len(lines)])
        size += len(out[-1]) + 1
        at += 1
    return out


def bury(rng: random.Random, text: str, length: int, third: int) -> tuple[str, int]:
    """`text` inside haystack lines, the whole about `length` characters, at a line break drawn in the given
    third of the haystack; the long text and where `text` starts in it."""
    lines = filler(rng, length - len(text) - 4)
    goal = (third + rng.random()) / 3 * sum(len(line) + 1 for line in lines)
    cut, size = 0, 0
    while cut < len(lines) and size + len(lines[cut]) + 1 <= goal:
        size += len(lines[cut]) + 1
        cut += 1
    before, after = "\n".join(lines[:cut]), "\n".join(lines[cut:])
    return "\n\n".join(part for part in (before, text, after) if part), len(before) + 2 if before else 0


def bucket(at: int, size: int, length: int) -> str:
    """The third of the long text the buried document's middle fell in."""
    return BUCKETS[min(2, int(3 * (at + size / 2) / length))]


def needles(split: str, count: int, targets: list[str] | None, seed: int) -> list[dict[str, Any]]:
    """`count` labeled documents with an answer, round robin over the kinds (each set's first kind, then each
    set's second, ...), each kind's documents in a seeded order."""
    kinds: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for doc in documents(split, targets, None):
        if doc["gold"] is not None and doc["target"] != "NDA":
            kinds.setdefault((doc["set"], doc["target"]), []).append(doc)
    for name, group in kinds.items():
        random.Random(f"{seed}:{name}").shuffle(group)
    names = list(dict.fromkeys(s for s, _ in kinds))
    rank = {k: [t for s, t in kinds if s == k[0]].index(k[1]) for k in kinds}
    order = sorted(kinds, key=lambda k: (rank[k], names.index(k[0])))
    picked = []
    for i in range(count):
        group = kinds[order[i % len(order)]]
        if i // len(order) < len(group):
            picked.append(group[i // len(order)])
    return picked


def cases(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every (document, length) case, each drawn from its own seed (adding a length or a document changes no
    other case): the document alone, the long text, the gold, and where the document landed."""
    out = []
    for i, doc in enumerate(needles(args.split, args.docs, args.targets, args.seed)):
        for length in args.lengths:
            long, at = bury(random.Random(f"{args.seed}:{doc['id']}:{length}"), doc["text"], length, i % 3)
            where = bucket(at, len(doc["text"]), len(long))
            if getattr(args, "beside", None) is not None:  # the document with what stands beside it, as a region
                long = long[max(0, at - args.beside):at + len(doc["text"]) + args.beside]
            out.append({"id": f"{doc['id']}@{length}", "doc": doc["id"], "kind": "needle", "set": doc["set"],
                        "target": doc["target"], "gold": doc["gold"], "alone": doc["text"], "long": long,
                        "length": length, "bucket": where})
    for i in range(args.facts):
        opening, closing, gold = agreement(random.Random(f"{args.seed}:facts:{i}"))
        for length in args.lengths:
            rng = random.Random(f"{args.seed}:facts:{i}:{length}")
            middle = "\n".join(filler(rng, length - len(opening) - len(closing) - 4))
            out.append({"id": f"facts-{i}@{length}", "doc": f"facts-{i}", "kind": "facts", "set": "generated",
                        "target": "Agreement", "gold": gold, "alone": f"{opening}\n\n{closing}",
                        "long": f"{opening}\n\n{middle}\n\n{closing}", "length": length, "bucket": None})
    return out


def target(name: str) -> type[BaseModel]:
    """A case's target class: the schemas package's, or the generated agreements' own."""
    import schemas

    return Agreement if name == "Agreement" else getattr(schemas, name)


def measure(args: argparse.Namespace, todo: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Each document alone, then each case's long text, shortest first, through `extract`; outcomes found in
    the `--resume` file are kept, new ones appended to it as they are made."""
    from tqdm.auto import tqdm

    from extractor import Extractor

    done, ex = _resumed(args.resume), Extractor(args.model)
    options = {k: v for k, v in (("window", args.window), ("overlap", args.overlap), ("focus", args.focus))
               if v is not None}
    method = Method("extract", "extract", options)
    jobs = [("alone", c["doc"], c["alone"], c) for c in {c["doc"]: c for c in todo}.values()]
    jobs += [("long", c["id"], c["long"], c) for c in sorted(todo, key=lambda c: c["length"])]  # short ones first
    for which, key, text, case in tqdm(jobs, desc="needle", unit="text"):
        if (which, key) in done:
            continue
        out = run(method, ex, target(case["target"]), text, args.max_tokens)
        out.trace, out.text = None, ""  # the long texts' traces would make the results file large
        done[which, key] = {"id": key, "chars": len(text), "outcome": asdict(out)}
        if args.resume:
            with args.resume.open("a") as f:
                f.write(json.dumps({"method": which, **done[which, key]}, ensure_ascii=False) + "\n")
    return done


def _scores(rows: list[dict[str, Any]], done: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """Long against alone over some cases: the summaries (quality_score.summarize) and the F1 ratio."""
    def summary(which: str, key: str) -> dict[str, Any]:
        return summarize([(c["gold"], Outcome(**done[which, c[key]]["outcome"])) for c in rows])

    long, alone = summary("long", "id"), summary("alone", "doc")
    ratio = round(long["field_f1"] / alone["field_f1"], 4) if alone["field_f1"] else None
    return {"documents": len(rows), "long": long, "alone": alone, "f1_ratio": ratio}


def report(args: argparse.Namespace, todo: list[dict[str, Any]],
           done: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """Scores per kind and length, the needles' per position bucket too, and every case's outcome."""
    by: dict[str, Any] = {}
    for kind in ("needle", "facts"):
        for length in args.lengths:
            rows = [c for c in todo if c["kind"] == kind and c["length"] == length]
            if rows:
                by.setdefault(kind, {})[str(length)] = {**_scores(rows, done), "buckets": {
                    b: _scores(sub, done) for b in BUCKETS if (sub := [c for c in rows if c["bucket"] == b])}}
    outcomes = [{**{k: c[k] for k in ("id", "kind", "set", "target", "length", "bucket", "gold")},
                 "chars": len(c["long"]), "long": done["long", c["id"]]["outcome"],
                 "alone": done["alone", c["doc"]]["outcome"]} for c in todo]
    return {"commit": commit(), "model": args.model or "embedded SmolLM2-135M-Instruct", "split": args.split,
            "seed": args.seed, "lengths": args.lengths, "max_tokens": args.max_tokens, "window": args.window,
            "overlap": args.overlap, "focus": args.focus, "kind_margin": args.kinds, "located": args.located,
            "beside": args.beside,
            "threads": args.threads,
            "haystack": f"kleister_nda/{HAYSTACK_SPLIT}", "kinds": by, "cases": outcomes}


def _cell(value: Any) -> str:
    return "–" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def markdown(result: dict[str, Any]) -> str:
    """The figures as tables: per kind and length, per position, per field of the agreements, per case."""
    lines = [f"# Needles in long text ({len({c['id'].split('@')[0] for c in result['cases']})} documents, lengths "
             f"{', '.join(f'{n:,}' for n in result['lengths'])} characters)", "",
             f"Model: {result['model']}; greedy; max_tokens {result['max_tokens']}; window "
             f"{result['window'] or 'from the context'}; overlap {result['overlap'] or 'default'}; focus "
             f"{ {None: 'default', True: 'on', False: 'off'}[result.get('focus')]}; windows read as another kind "
             f"dropped {kinds_said(result.get('kind_margin'))}; members located "
             f"{located_said(result.get('located'))}; haystack "
             f"`{result['haystack']}`; seed {result['seed']}; commit `{result['commit']}`.", "",
             *([f"Long texts: each document with the {result['beside']:,} characters of its long text on each side "
                "(`--beside`), not the whole long text.", ""] if result.get("beside") is not None else []),
             *([f"Not run (stopped early): {', '.join(result['unfinished'])}.", ""] if result["unfinished"] else []),
             *([result["note"], ""] if result.get("note") else []),
             "| kind | length | documents | F1 long | F1 alone | long/alone | EM long | EM alone | s/doc long | "
             "s/doc alone |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for kind, per in result["kinds"].items():
        for length, s in per.items():
            lines.append(f"| {kind} | {int(length):,} | {s['documents']} | {_cell(s['long']['field_f1'])} | "
                         f"{_cell(s['alone']['field_f1'])} | {_cell(s['f1_ratio'])} | {_cell(s['long']['field_em'])} | "
                         f"{_cell(s['alone']['field_em'])} | {_cell(s['long']['seconds_per_doc'])} | "
                         f"{_cell(s['alone']['seconds_per_doc'])} |")
    lines += ["", "Needles per position (the third of the long text the document's middle fell in):", "",
              "| length | position | documents | F1 long | F1 alone |", "|---:|---|---:|---:|---:|"]
    for length, s in result["kinds"].get("needle", {}).items():
        lines += [f"| {int(length):,} | {b} | {v['documents']} | {_cell(v['long']['field_f1'])} | "
                  f"{_cell(v['alone']['field_f1'])} |" for b, v in s["buckets"].items()]
    lines += ["", "Agreements, per field (parties and date in the first paragraph; term, notice and law in the last):",
              "", "| length | field | F1 long | F1 alone |", "|---:|---|---:|---:|"]
    for length, s in result["kinds"].get("facts", {}).items():
        lines += [f"| {int(length):,} | {f} | {_cell(v)} | {_cell(s['alone']['field_f1_by_field'][f])} |"
                  for f, v in s["long"]["field_f1_by_field"].items()]
    lines += ["", "| case | target | characters | position | F1 long | F1 alone | s long | s alone |",
              "|---|---|---:|---|---:|---:|---:|---:|"]
    for c in result["cases"]:
        f1 = [summarize([(c["gold"], Outcome(**c[w]))])["field_f1"] for w in ("long", "alone")]
        lines.append(f"| {c['id']} | {c['target']} | {c['chars']:,} | {c['bucket'] or '–'} | {_cell(f1[0])} | "
                     f"{_cell(f1[1])} | {c['long']['seconds']} | {c['alone']['seconds']} |")
    return "\n".join(lines) + "\n"


SMOKE = ["--lengths", "1500", "--docs", "1", "--facts", "1", "--max-tokens", "16", "--window", "192", "--overlap", "16"]
"""A tiny run: one needle and one agreement at 1,500 characters, short windows, a few tokens a window."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths", default=",".join(map(str, LENGTHS)), help="characters of each long text")
    parser.add_argument("--docs", type=int, default=8, help="labeled documents buried (round robin over kinds)")
    parser.add_argument("--facts", type=int, default=4, help="generated agreements with facts far apart")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--split", default="test", choices=["test", "dev"])
    parser.add_argument("--targets", default=None, help="comma-separated targets of the needles (default: all but NDA)")
    parser.add_argument("--cases", default=None, help="comma-separated case ids (resume-033@40000): only these of "
                        "the cases drawn (each drawn as in the whole run)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-tokens", type=int, default=640, help="output budget per attempt (quality.py's)")
    parser.add_argument("--window", type=int, default=None, help="tokens of text per window (default: the context)")
    parser.add_argument("--overlap", type=int, default=None)
    parser.add_argument("--focus", choices=["on", "off"], default=None, help="read only the part of a long text that "
                        "reads as the target (the `focus` option; default: the library's)")
    parser.add_argument("--kinds", default=None, help=KINDS_HELP)
    parser.add_argument("--located", choices=["on", "off"], default=None, help=LOCATED_HELP)
    parser.add_argument("--beside", type=int, default=None, help="read the document with this many characters of "
                        "its long text on each side instead of the whole long text")
    parser.add_argument("--threads", type=int, default=None, help="torch's threads (default: torch's own)")
    parser.add_argument("--resume", type=Path, default=None, help="a JSON-lines file each outcome is appended to as "
                        "it is made; a rerun skips those it holds")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    parser.add_argument("--report-only", action="store_true", help="report the cases the --resume file holds, "
                        "running nothing (a run stopped early; the cases left are listed as unfinished)")
    parser.add_argument("--note", default="", help="a line the results say beside the figures (how the machine was "
                        "shared, where the outcomes came from)")
    parser.add_argument("--smoke", action="store_true", help=" ".join(SMOKE))
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args([*SMOKE, *argv] if "--smoke" in argv else argv)
    args.lengths = [int(n) for n in args.lengths.split(",")]
    args.targets = args.targets.split(",") if args.targets else None
    args.cases = args.cases.split(",") if args.cases else None
    if args.beside is not None and args.beside < 0:
        parser.error(f"--beside takes the characters read on each side of a document, 0 or more; got {args.beside}")
    args.focus = None if args.focus is None else args.focus == "on"
    args.kinds = kinds(args.kinds)
    args.located = located(args.located)
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
    todo = [c for c in cases(args) if args.cases is None or c["id"] in args.cases]
    done = _resumed(args.resume) if args.report_only else measure(args, todo)
    finished = [c for c in todo if ("long", c["id"]) in done and ("alone", c["doc"]) in done]
    result = {**report(args, finished, done), "unfinished": [c["id"] for c in todo if c not in finished],
              "note": args.note}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
