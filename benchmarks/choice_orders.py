"""Whether the conflict choice of a long text is the model's reading or the order the candidates are offered in:
every conflict the library offers is offered again with its candidates (and the stretches of text around them) in
the reverse order, and each decision rule is scored against the gold.

usage: python benchmarks/choice_orders.py [--sets far_apart,needle] [--split dev|test] [--limit N] [--docs N]
           [--length CHARS] [--targets T,...] [--window N] [--max-tokens N] [--needle-window N]
           [--needle-max-tokens N] [--threads N] [--model ID] [--note TEXT] [--json OUT] [--md OUT]

Documents: benchmarks/far_apart.py's (each read in windows of `--window` tokens) and benchmarks/needle.py's
labeled documents buried in `--length` characters of contract text (read in windows from the context). Each text is
read once by `extract(conflicts="model")`; the library's choice stands in the output, and beside it, per conflict
over a scalar the gold gives, these rules are scored (right: the value equals the gold, `far_apart.same`):

- `offered`: the model's answer with the candidates in document order (the library's choice);
- `reversed`: its answer with them, and the text around them, in the reverse order (null last in both);
- `merge`: the merge's pick, which the choice replaces (the likeliest window whose text holds the value);
- `agreed, else merge`: the answer where both orders give the same one, else the merge's pick;
- `likelihood`: the candidate, null left out, whose log-likelihood as the answer summed over both orders is the
  highest.

`agree` is the share of conflicts whose two orders gave the same answer; `gold offered` how many offered the right
value at all.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.far_apart import DATA, same  # noqa: E402
from extractor.pipeline.grounding import unescape  # noqa: E402

SETS = ("far_apart", "needle")
RULES = ("offered", "reversed", "merge", "agreed, else merge", "likelihood")


def reversed_offer(offered: Any) -> Any:
    """The same choice with the candidates that stand in the text, their enum members and their stretches of text
    in the reverse order (null stays last)."""
    from extractor.pipeline.choice import GAP

    n = sum(1 for c in offered.candidates if c.window >= 0)
    member = dict(offered.schema["properties"][offered.name])
    member["enum"] = [*reversed(member["enum"][:n]), *member["enum"][n:]]
    return replace(offered, schema={**offered.schema, "properties": {offered.name: member}},
                   candidates=(*reversed(offered.candidates[:n]), *offered.candidates[n:]),
                   sources=(*reversed(offered.sources[:n]), *offered.sources[n:]),
                   text=GAP.join(reversed(offered.text.split(GAP))))


class Recorder:
    """Wraps the reader's `offer` and `decide`: each conflict's merge pick, and the choice read in both orders."""

    def __init__(self) -> None:
        from extractor.pipeline import windowed

        self.windowed, self.decisions, self.merged = windowed, [], {}
        self.offer, self.decide = windowed.offer, windowed.decide

    def __enter__(self) -> Recorder:
        self.windowed.offer, self.windowed.decide = self._offer, self._decide
        return self

    def __exit__(self, *exc: Any) -> None:
        self.windowed.offer, self.windowed.decide = self.offer, self.decide

    def _offer(self, root: Any, conflict: Any, *rest: Any) -> Any:
        offered = self.offer(root, conflict, *rest)
        if offered is not None:
            self.merged[id(offered)] = (conflict.pointer, conflict.kept)
        return offered

    def _decide(self, engine: Any, read: Any, offered: Any, opts: Any, kept: Any) -> Any:
        first = self.decide(engine, read, offered, opts, kept)
        other = reversed_offer(offered)
        second = self.decide(engine, read, other, opts, kept)
        pointer, merge = self.merged.pop(id(offered))
        values = [c.value for c in offered.candidates]
        row: dict[str, Any] = {"pointer": pointer, "merge": merge, "values": values, "offered": None,
                               "reversed": None, "loglik": None}
        if first is not None:
            row["offered"] = values[first[0]]
        if second is not None:
            row["reversed"] = other.candidates[second[0]].value
        if first is not None and second is not None and all(c.loglik is not None for c in first[1] + second[1]):
            back = {json.dumps(c.value): c.loglik for c in second[1]}
            row["loglik"] = [[c.loglik, back[json.dumps(c.value)]] for c in first[1]]
        self.decisions.append(row)
        return first


def agreed(row: dict[str, Any]) -> bool:
    """Both orders gave the same answer (a read that failed agrees with nothing)."""
    return row["offered"] is not None and json.dumps(row["offered"]) == json.dumps(row["reversed"])


def rules(row: dict[str, Any]) -> dict[str, Any]:
    """What each rule returns for one recorded conflict."""
    out = {"offered": row["offered"], "reversed": row["reversed"], "merge": row["merge"],
           "agreed, else merge": row["offered"] if agreed(row) else row["merge"], "likelihood": None}
    scored = [(sum(ll), v) for v, ll in zip(row["values"], row["loglik"] or []) if v is not None]
    if scored:
        out["likelihood"] = max(scored, key=lambda s: s[0])[1]
    return out


def gold_at(gold: Any, pointer: str) -> Any:
    """The gold's value at a conflict's pointer (None where the gold has none there; RFC 6901 escapes read)."""
    for step in map(unescape, pointer.split("/")[1:]):
        if isinstance(gold, list):
            gold = gold[int(step)] if step.isdigit() and int(step) < len(gold) else None
        elif isinstance(gold, dict):
            gold = gold.get(step)
        else:
            return None
    return gold


def texts(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The texts read: (set, id, target class, text, gold, read options)."""
    from benchmarks.data.far_apart.generate import KINDS
    from benchmarks.needle import cases, target

    out = []
    if "far_apart" in args.sets:
        docs = [json.loads(line) for line in (DATA / f"{args.split}.jsonl").read_text().splitlines() if line.strip()]
        out += [{"set": "far_apart", "id": d["id"], "target": KINDS[d["kind"]].target, "text": d["text"],
                 "gold": d["gold"], "options": {"window": args.window, "focus": False, "max_tokens": args.max_tokens}}
                for d in docs[:args.limit]]
    if "needle" in args.sets:
        spec = argparse.Namespace(split=args.split, docs=args.docs, targets=args.targets, seed=0, lengths=[args.length],
                                  facts=0)
        out += [{"set": "needle", "id": c["id"], "target": target(c["target"]), "text": c["long"], "gold": c["gold"],
                 "options": {"window": args.needle_window, "max_tokens": args.needle_max_tokens}} for c in cases(spec)]
    return out


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each text read with the choice recorded in both orders: its conflicts, each with its gold, and a row per text
    with its time and the error its extraction ended in, if any."""
    from tqdm.auto import tqdm

    from extractor import Extractor
    from extractor.errors import ExtractorError

    ex, rows = Extractor(args.model), []
    for doc in tqdm(texts(args), desc="choice orders", unit="text"):
        start, error = time.perf_counter(), None
        with Recorder() as recorder:
            try:  # the choices are made before the merged object is validated: a text that fails still has them
                ex.extract(doc["target"], doc["text"], conflicts="model",
                           **{k: v for k, v in doc["options"].items() if v is not None})
            except ExtractorError as exc:
                error = f"{type(exc).__name__}: {exc}"[:300]
        for row in recorder.decisions:
            gold = gold_at(doc["gold"], row["pointer"])
            if gold is not None and not isinstance(gold, (dict, list)):
                rows.append({"set": doc["set"], "id": doc["id"], "gold": gold, **row})
        rows.append({"set": doc["set"], "id": doc["id"], "seconds": round(time.perf_counter() - start, 3),
                     "error": error})
    return rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per set: conflicts scored, how many each rule got right, how often both orders agreed."""
    out: dict[str, Any] = {}
    for name in sorted({r["set"] for r in rows}):
        mine = [r for r in rows if r["set"] == name and "pointer" in r]
        right = {rule: sum(same(rules(r)[rule], r["gold"]) for r in mine) for rule in RULES}
        out[name] = {"texts": len({r["id"] for r in rows if r["set"] == name}), "conflicts": len(mine),
                     "right": right, "agree": sum(map(agreed, mine)),
                     "gold_offered": sum(any(same(v, r["gold"]) for v in r["values"]) for r in mine)}
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# The conflict choice read in both orders ({result['split']} split)", "",
             f"Model: {result['model']}; greedy; far-apart windows of {result['window']} tokens; needles buried in "
             f"{result['length']:,} characters; commit `{result['commit']}`.", ""]
    if result["note"]:
        lines += [result["note"], ""]
    lines += ["| set | texts | conflicts | both orders agree | gold offered | " + " | ".join(RULES) + " |",
              "|---|---:|---:|---:|---:|" + "---:|" * len(RULES)]
    for name, s in result["sets"].items():
        lines.append(f"| {name} | {s['texts']} | {s['conflicts']} | {s['agree']} | {s['gold_offered']} | "
                     + " | ".join(str(s["right"][rule]) for rule in RULES) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default=",".join(SETS), help="far_apart, needle, or both")
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--limit", type=int, default=6, help="far-apart documents, the first N")
    parser.add_argument("--docs", type=int, default=4, help="needle documents buried")
    parser.add_argument("--length", type=int, default=40_000, help="characters of each needle's long text")
    parser.add_argument("--targets", default=None, help="comma-separated targets of the needles (default: all "
                        "but NDA, as needle.py)")
    parser.add_argument("--window", type=int, default=1024, help="tokens per window of the far-apart documents")
    parser.add_argument("--max-tokens", type=int, default=256, help="output budget per attempt, far apart "
                        "(far_apart.py's)")
    parser.add_argument("--needle-window", type=int, default=None, help="tokens per window of the needles' texts "
                        "(default: the context)")
    parser.add_argument("--needle-max-tokens", type=int, default=640, help="output budget per attempt, needles "
                        "(needle.py's)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (a shared machine: 1)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--note", default="", help="a line the results say beside the figures")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    args.sets = args.sets.split(",")
    args.targets = args.targets.split(",") if args.targets else None
    if bad := [s for s in args.sets if s not in SETS]:
        parser.error(f"--sets: unknown set(s) {bad}; choose from {list(SETS)}")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    rows = measure(args)
    result = {"commit": commit(), "model": args.model or "embedded SmolLM2-135M-Instruct", "split": args.split,
              "window": args.window, "length": args.length, "max_tokens": args.max_tokens,
              "needle_window": args.needle_window, "needle_max_tokens": args.needle_max_tokens, "note": args.note,
              "sets": summary(rows), "conflicts": rows}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
