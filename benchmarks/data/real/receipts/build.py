"""Build documents.jsonl: ~50 real scanned receipts from ICDAR-2019 SROIE (task 3) with their gold key fields.

usage: python build.py [--source GIT_DIR] [--commit REV] [--out FILE] [--count N] [--max-chars N]

Reads a bare git copy of zzzDavid/ICDAR-2019-SROIE (data/box/NNN.csv: eight coordinates then the transcript of one
text line; data/key/NNN.json: {"company", "date", "address", "total"}) with `git show`, and writes one document per
receipt. The text is the transcripts in file order joined by "\\n" (coordinates dropped); the gold is the key file's
values, unchanged, less any value the project's tracer cannot place in the text (status "not_found"). A receipt
whose text is over --max-chars, or that keeps fewer than 3 gold keys, is skipped.

Choice and split are deterministic: the receipt names, sorted, are shuffled by random.Random("receipts") and the
first --count eligible ones in that order are kept; the first half of them is `dev`, the rest `test`. Ids are
numbered after a second shuffle by the same generator, so an id says nothing about its split. The output is the
same bytes on every run for the same source commit (it needs the project's own package for the tracer, so run it
with the project's Python: `.venv/bin/python`). A summary (counts, dropped gold values) goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[3]  # benchmarks/data/real/receipts -> project root
DEFAULT_SOURCE = "/work/.mirror/zzzDavid+ICDAR-2019-SROIE/repo"
DEFAULT_REPO = "zzzDavid/ICDAR-2019-SROIE"
KEYS = ("company", "date", "address", "total")  # ScannedReceipt's fields, in its order
MIN_KEYS = 3
SEED = "receipts"


def git(source: str, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={source}", *args], check=True, capture_output=True).stdout


def show(source: str, commit: str, path: str) -> str:
    return git(source, "show", f"{commit}:{path}").decode("utf-8")


def box_text(csv: str) -> str:
    """The transcripts of a box file, in file order, one a line (the eight coordinates before each dropped)."""
    lines = []
    for line in csv.split("\n"):
        line = line.rstrip("\r")
        if not line:
            continue
        parts = line.split(",", 8)
        if len(parts) != 9:
            raise ValueError(f"not `8 coordinates,text`: {line!r}")
        lines.append(parts[8])
    return "\n".join(lines)


def repo_name(source: str) -> str:
    """owner/name from a mirror path such as /work/.mirror/owner+name/repo, else the default."""
    for part in Path(source).resolve().parts[::-1]:
        if "+" in part:
            owner, _, name = part.partition("+")
            return f"{owner}/{name}"
    return DEFAULT_REPO


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=DEFAULT_SOURCE, help="bare git dir of the SROIE repository")
    parser.add_argument("--commit", default="HEAD", help="revision to read (resolved to a commit id)")
    parser.add_argument("--repo", default=None, help="owner/name written in `source` (default: from --source)")
    parser.add_argument("--out", type=Path, default=HERE / "documents.jsonl")
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--max-chars", type=int, default=3000)
    args = parser.parse_args(argv)

    sys.path.insert(0, str(PROJECT))
    import schemas
    from extractor import trace

    commit = git(args.source, "rev-parse", f"{args.commit}^{{commit}}").decode().strip()
    repo = args.repo or repo_name(args.source)
    names = git(args.source, "ls-tree", "-r", "--name-only", commit, "data/key", "data/box").decode().split("\n")
    keys = {Path(n).stem for n in names if n.startswith("data/key/") and n.endswith(".json")}
    boxes = {Path(n).stem for n in names if n.startswith("data/box/") and n.endswith(".csv")}
    stems = sorted(keys & boxes)

    rng = random.Random(SEED)
    order = list(stems)
    rng.shuffle(order)

    chosen, too_long, too_few, dropped = [], [], [], []
    for stem in order:
        if len(chosen) == args.count:
            break
        key_path, box_path = f"data/key/{stem}.json", f"data/box/{stem}.csv"
        text = box_text(show(args.source, commit, box_path))
        if len(text) > args.max_chars:
            too_long.append(stem)
            continue
        key = json.loads(show(args.source, commit, key_path))
        gold = {k: key[k] for k in KEYS if k in key}
        missed = {v.pointer.lstrip("/") for v in trace(gold, text, schemas.ScannedReceipt) if v.status == "not_found"}
        kept = {k: v for k, v in gold.items() if k not in missed}
        if len(kept) < MIN_KEYS:
            too_few.append(stem)
            continue
        dropped += [(stem, k, gold[k]) for k in KEYS if k in missed]
        chosen.append({"stem": stem, "text": text, "gold": kept, "path": key_path})

    half = len(chosen) // 2
    for i, doc in enumerate(chosen):
        doc["split"] = "dev" if i < half else "test"
    numbered = list(chosen)
    rng.shuffle(numbered)

    with open(args.out, "w", encoding="utf-8", newline="\n") as out:
        for n, doc in enumerate(numbered, start=1):
            record = {"id": f"receipt-real-{n:03d}", "set": "receipts", "target": "ScannedReceipt",
                      "split": doc["split"], "layout": "real", "lang": "en", "text": doc["text"],
                      "gold": doc["gold"], "source": f"{repo}@{commit}:{doc['path']}"}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")

    ids = {doc["stem"]: f"receipt-real-{n:03d}" for n, doc in enumerate(numbered, start=1)}
    splits = {s: sum(d["split"] == s for d in chosen) for s in ("dev", "test")}
    print(f"{repo}@{commit}: {len(stems)} receipts; wrote {len(chosen)} to {args.out} ({splits}); "
          f"skipped {len(too_long)} over {args.max_chars} chars, {len(too_few)} with under {MIN_KEYS} gold keys "
          f"left {too_few}", file=sys.stderr)
    print(f"dropped {len(dropped)} gold values not found in the text:", file=sys.stderr)
    for stem, k, v in dropped:
        print(f"  {ids[stem]} ({stem}) {k}: {v!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
