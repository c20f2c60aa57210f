"""Long lists spread over many windows: generated bank statements (200 transactions in a table) and event schedules
(80 sessions, one per line), each longer than one answer's budget, read by `extract` in windows and merged.

usage: python benchmarks/long_lists.py [--docs N] [--transactions N] [--sessions N] [--window N] [--max-tokens N]
           [--json OUT] [--md OUT]

For each document, `extract` (windows, the window form, the merge) is compared with the same model given each of
the windows `extract` finally read, alone, under the target's own schema (`alone`): the items the model can find
at all. Reported per set:

- `recall`: gold items an output item matches (same date or time, same amount or room, same description or title
  after case and spacing are normalized), and `recall_vs_alone`: extract's recall over alone's; `loose`: the same
  with every field but one equal (the 135M model often writes `101` for `Room 101`);
- `duplicates`: output items matching a gold item another output item already matched, plus items written twice;
- `fabricated`: written scalar values (every string and number, top-level and in items) the document holds
  nowhere (the tracer's `not_found`), as a share of all written;
- `windows` and `seconds` per document.

The texts are generated from a fixed seed (`--seed`), so a run is reproducible; no data file is read.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from extractor import Extractor, ExtractorError, trace  # noqa: E402
from extractor.tracing import Traced  # noqa: E402


class Transaction(BaseModel):
    date: str = Field(description="Date of the transaction, as printed")
    description: str = Field(description="What the transaction was, as printed")
    amount: float = Field(description="Amount of the transaction")


class Statement(BaseModel):
    """A bank account statement: its holder, account, period, balances and every transaction."""

    account_holder: str = Field(description="Name of the account holder")
    account_number: str = Field(description="Account number, as printed")
    opening_balance: float = Field(description="Balance at the start of the period")
    closing_balance: float = Field(description="Balance at the end of the period")
    transactions: list[Transaction] = Field(description="Every transaction listed, in order")


class Session(BaseModel):
    time: str = Field(description="Start time of the session, as printed")
    room: str = Field(description="Room the session is in")
    title: str = Field(description="Title of the session")


class Schedule(BaseModel):
    """A conference programme: its name, venue and every session."""

    conference: str = Field(description="Name of the conference")
    venue: str = Field(description="Where it is held")
    sessions: list[Session] = Field(description="Every session listed, in order")


_SHOPS = ["GREEN GROCER", "CITY FUEL", "HARBOR PHARMACY", "NORTHSIDE BAKERY", "METRO TRANSIT", "BOOK NOOK",
          "PIXEL ELECTRONICS", "RIVER CAFE", "OAK HARDWARE", "SUNRISE DELI", "BLUE LINE TAXI", "CORNER FLORIST",
          "PARKVIEW GYM", "LANTERN CINEMA", "ATLAS TELECOM", "MAPLE DENTAL"]
_NAMES = ["Maria Delgado", "Tomasz Nowak", "Aiko Tanaka", "Chidi Okafor", "Sofia Lindqvist", "Rahul Mehta"]
_TOPICS = ["Streaming joins", "Columnar storage", "Query planning", "Vector search", "Consensus in practice",
           "Schema evolution", "Cost-based caching", "Incremental views", "Data contracts", "Time-series compression",
           "Privacy budgets", "Feature stores", "Graph partitioning", "Log-structured merges", "Workload replay"]
_ROOMS = ["Hall A", "Hall B", "Room 101", "Room 204", "Studio 3", "Library"]


def statement(rng: random.Random, count: int) -> tuple[str, dict[str, Any]]:
    """A statement's text (a `|` table under a header) and its gold object."""
    holder, number = rng.choice(_NAMES), f"{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}-{rng.randint(10, 99)}"
    day, balance, items = 0, round(rng.uniform(500, 5000), 2), []
    opening = balance
    for i in range(count):
        day += rng.choice((0, 0, 1, 1, 2))
        date = f"{1 + day % 28:02d}/{1 + (day // 28) % 12:02d}/2025"
        shop = f"{rng.choice(_SHOPS)} {1000 + i}"
        amount = round(rng.uniform(2, 400), 2)
        balance = round(balance - amount, 2)
        items.append({"date": date, "description": shop, "amount": amount})
    rows = "\n".join(f"| {t['date']} | {t['description']} | {t['amount']:.2f} |" for t in items)
    text = (f"FIRST HARBOR BANK\nAccount statement\n\nAccount holder: {holder}\nAccount number: {number}\n"
            f"Opening balance: {opening:.2f}\n\n| Date | Description | Amount |\n|---|---|---|\n{rows}\n\n"
            f"Closing balance: {balance:.2f}\n")
    return text, {"account_holder": holder, "account_number": number, "opening_balance": opening,
                  "closing_balance": balance, "transactions": items}


def schedule(rng: random.Random, count: int) -> tuple[str, dict[str, Any]]:
    """A programme's text (a line per session, a heading per day) and its gold object."""
    name = f"{rng.choice(['Northern', 'Coastal', 'Open'])} Data Systems Summit {rng.randint(2025, 2027)}"
    venue = rng.choice(["Lakeside Convention Centre", "Old Mill Conference Hall", "Harbour Exhibition Park"])
    lines, items, per_day = [], [], 20
    for i in range(count):
        if i % per_day == 0:
            lines.append(f"\nDAY {i // per_day + 1}\n")
        minutes = 9 * 60 + (i % per_day) * 25
        item = {"time": f"{minutes // 60:02d}:{minutes % 60:02d}", "room": rng.choice(_ROOMS),
                "title": f"{rng.choice(_TOPICS)}, part {i + 1}"}
        items.append(item)
        lines.append(f"{item['time']}  {item['room']}  {item['title']}")
    text = f"{name}\nVenue: {venue}\n\nProgramme\n" + "\n".join(lines) + "\n"
    return text, {"conference": name, "venue": venue, "sessions": items}


SETS = {"statement": (Statement, "transactions", statement), "schedule": (Schedule, "sessions", schedule)}


def _norm(value: Any) -> str:
    if isinstance(value, float) or isinstance(value, int):
        return f"{float(value):.2f}"
    return re.sub(r"\s+", " ", str(value)).strip().casefold()


def loose(gold: list[dict[str, Any]], got: list[dict[str, Any]]) -> int:
    """Gold items an output item matches on every field but one (each gold item matched once, first come)."""
    left = [tuple(_norm(v) for v in item.values()) for item in gold]
    hits = 0
    for item in got:
        key = tuple(_norm(item.get(k)) for k in gold[0]) if gold else ()
        at = next((i for i, g in enumerate(left) if sum(a == b for a, b in zip(g, key)) >= len(key) - 1), None)
        if at is not None:
            hits, left[at] = hits + 1, ()
    return hits


def matched(gold: list[dict[str, Any]], got: list[dict[str, Any]]) -> tuple[int, int]:
    """(gold items matched, output items that repeat a match): each field equal after normalization."""
    wanted: dict[tuple[str, ...], int] = {}
    for item in gold:
        key = tuple(_norm(v) for v in item.values())
        wanted[key] = wanted.get(key, 0) + 1
    hits = repeats = 0
    seen: dict[tuple[str, ...], int] = {}
    for item in got:
        key = tuple(_norm(item.get(k)) for k in gold[0]) if gold else ()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= wanted.get(key, 0):
            hits += 1
        elif seen[key] > 1:
            repeats += 1
    return hits, repeats


def leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in leaves(v)]
    return [value]


def run(ex: Extractor, name: str, text: str, gold: dict[str, Any], window: int | None, max_tokens: int,
        alone: bool) -> dict[str, Any]:
    """One document by `extract`, and (with `alone`) each of its windows alone."""
    target, key, _ = SETS[name]
    start = time.perf_counter()
    try:
        out: Any = ex.extract(target, text, window=window, max_tokens=max_tokens, with_trace=True)
    except ExtractorError as exc:
        out = exc
    seconds = time.perf_counter() - start
    result = out.result if isinstance(out, Traced) and isinstance(out.result, target) else None
    items = [i.model_dump() for i in getattr(result, key, [])] if result is not None else []
    hits, repeats = matched(gold[key], items)
    near = loose(gold[key], items)
    values = [v for v in trace(result, text) if v.value is not None] if result is not None else []
    spans = [(s.start, s.end) for s in out.trace.windows] if isinstance(out, Traced) else []
    row = {"set": name, "items": len(gold[key]), "written": len(items), "found": hits, "found_loose": near,
           "duplicates": repeats,
           "values": len(values), "fabricated": sum(v.status == "not_found" for v in values),
           "fabricated_values": [v.value for v in values if v.status == "not_found"][:20],
           "windows": len(spans), "seconds": round(seconds, 2),
           "error": None if result is not None else (type(out).__name__ if isinstance(out, Exception) else "refused")}
    if alone and spans:
        found = ex.extract_many(target, [text[a:b] for a, b in spans], max_tokens=max_tokens, refusal=False,
                                min_relevance=None, progress=False)
        union = [i.model_dump() for r in found if isinstance(r, target) for i in getattr(r, key)]
        row["found_alone"] = matched(gold[key], _unique(union))[0]
        row["found_alone_loose"] = loose(gold[key], _unique(union))
    return row


def _unique(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for item in items:
        key = tuple(_norm(v) for v in item.values())
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    total = sum(r["items"] for r in rows)
    found = sum(r["found"] for r in rows)
    alone = sum(r.get("found_alone", 0) for r in rows)
    near, near_alone = sum(r["found_loose"] for r in rows), sum(r.get("found_alone_loose", 0) for r in rows)
    values = sum(r["values"] for r in rows)
    return {"documents": len(rows), "items": total, "recall": round(found / total, 4) if total else None,
            "recall_alone": round(alone / total, 4) if total and any("found_alone" in r for r in rows) else None,
            "recall_vs_alone": round(found / alone, 4) if alone else None,
            "recall_loose": round(near / total, 4) if total else None,
            "recall_loose_vs_alone": round(near / near_alone, 4) if near_alone else None,
            "duplicates": sum(r["duplicates"] for r in rows),
            "fabricated_rate": round(sum(r["fabricated"] for r in rows) / values, 4) if values else None,
            "errors": sum(r["error"] is not None for r in rows),
            "windows_per_doc": round(sum(r["windows"] for r in rows) / len(rows), 2),
            "seconds_per_doc": round(sum(r["seconds"] for r in rows) / len(rows), 2)}


def markdown(result: dict[str, Any]) -> str:
    head = (f"# Long lists over many windows (generated, seed {result['seed']})\n\nModel: {result['model']}; greedy; "
            f"max_tokens {result['max_tokens']}; window {result['window'] or 'from the context'}; commit "
            f"`{result['commit']}`. `alone`: the same model given each window `extract` read, alone, under the "
            f"target's own schema.\n\n")
    rows = ["| set | documents | items | recall | recall alone | recall vs alone | loose recall | loose vs alone "
            "| duplicates | fabricated | errors | windows/doc | seconds/doc |", "|---|" + "---:|" * 12]
    for name, s in result["sets"].items():
        rows.append(f"| {name} | {s['documents']} | {s['items']} | {_f(s['recall'])} | {_f(s['recall_alone'])} | "
                    f"{_f(s['recall_vs_alone'])} | {_f(s['recall_loose'])} | {_f(s['recall_loose_vs_alone'])} | "
                    f"{s['duplicates']} | {_f(s['fabricated_rate'])} | {s['errors']} | "
                    f"{s['windows_per_doc']} | {s['seconds_per_doc']} |")
    return head + "\n".join(rows) + "\n"


def _f(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=2, help="documents per set")
    parser.add_argument("--transactions", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=80)
    parser.add_argument("--sets", default="statement,schedule")
    parser.add_argument("--window", type=int, default=None, help="tokens of text per window (default: the context)")
    parser.add_argument("--max-tokens", type=int, default=1024)
    parser.add_argument("--no-alone", action="store_true", help="skip the windows-alone reference")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(names) - set(SETS))
    if unknown:
        parser.error(f"unknown sets {unknown}; known: {', '.join(SETS)}")
    ex, rng = Extractor(args.model), random.Random(args.seed)
    counts = {"statement": args.transactions, "schedule": args.sessions}
    from tqdm.auto import tqdm
    rows: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        for _ in tqdm(range(args.docs), desc=name, unit="doc"):
            text, gold = SETS[name][2](rng, counts[name])
            rows.setdefault(name, []).append(run(ex, name, text, gold, args.window, args.max_tokens,
                                                 not args.no_alone))
    result = {"commit": commit(), "seed": args.seed, "model": args.model or "embedded SmolLM2-135M-Instruct",
              "max_tokens": args.max_tokens, "window": args.window, "counts": counts,
              "sets": {n: summary(r) for n, r in rows.items()}, "documents": rows}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
