"""Facts stated once, far apart: long documents (a services contract, a project brief, a lease) whose facts each
stand in one sentence, in the first paragraph, the middle or near the end, inside real contract text that writes
other dates, numbers and names (benchmarks/data/far_apart, made by its generate.py). Per field: whether the value
returned is right (exact after normalisation), whether the window holding the fact was read, which stage lost a
wrong one, with the windows' disagreeing scalars decided by the model (`conflicts="model"`) and by the merge.

usage: python benchmarks/far_apart.py [--split dev|test] [--data FILE.jsonl] [--limit N] [--window N]
           [--overlap N] [--focus on|off] [--kinds MARGIN|off] [--located on|off] [--conflicts model,merge] [--max-tokens N]
           [--threads N] [--model ID]
           [--resume OUTCOMES.jsonl [--report-only]] [--note TEXT] [--json OUT] [--md OUT]

Each fact is one sentence, which one window holds whole (the documents are read in windows of `--window` tokens,
so each spans several): every field counts toward the rate. Stages of a wrong value: `unread` (no window read
holds it: the reader skipped its part of the text, or its window's answer could not be read),
`not written` (no window wrote the right value), `merge` (a window wrote it, the merge kept another and the model
was not asked), `choice` (the model was offered it and chose another).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.data.far_apart.generate import KINDS  # noqa: E402
from benchmarks.long_documents import (  # noqa: E402
    KINDS_HELP, LOCATED_HELP, _resumed, kinds, kinds_said, located, located_said)

DATA = Path(__file__).resolve().parent / "data" / "far_apart"
MODES = ("model", "merge")
FOCUS = {None: "the default", True: "on", False: "off"}
STAGES = ("right", "unread", "not written", "merge", "choice")


def fold(value: Any) -> Any:
    """A value as compared: numbers as numbers, strings without case, punctuation, spacing or a leading
    "the"/"state of"/"laws of"."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return float(value)
    text = re.sub(r"[\W_]+", " ", str(value).casefold()).strip()
    return re.sub(r"^(?:the |laws of |state of )+", "", text).replace(" ", "")


def same(value: Any, gold: Any) -> bool:
    return value is not None and fold(value) == fold(gold)


def read(ex: Any, doc: dict[str, Any], mode: str, args: argparse.Namespace) -> dict[str, Any]:
    """One document read under one conflicts mode: the values returned, the windows and those left unread, the
    conflicts with their candidates, and every value each window's answer wrote."""
    from extractor import Refusal
    from extractor.errors import ExtractorError

    attempts: list[Any] = []
    options = {k: v for k, v in (("window", args.window), ("overlap", args.overlap), ("focus", args.focus))
               if v is not None}
    start = time.perf_counter()
    try:
        traced = ex.extract(KINDS[doc["kind"]].target, doc["text"], conflicts=mode, max_tokens=args.max_tokens,
                            with_trace=True, on_attempt=attempts.append, **options)
    except ExtractorError as exc:
        traced, error = None, f"{type(exc).__name__}: {exc}"[:300]
    else:
        error = "refused: " + traced.result.error if isinstance(traced.result, Refusal) else None
    trace = traced.trace if traced is not None else None
    return {"id": doc["id"], "seconds": round(time.perf_counter() - start, 3), "error": error,
            "values": None if error else traced.result.model_dump(mode="json"),
            "windows": [[s.start, s.end] for s in trace.windows] if trace else [],
            "unread": list(trace.unread) if trace else [],
            "conflicts": [_conflict(c) for c in trace.conflicts] if trace else [],
            "written": _written(attempts, list(doc["gold"]))}


def _conflict(c: Any) -> dict[str, Any]:
    return {"pointer": c.pointer, "kept": c.kept, "chosen": c.chosen,
            "candidates": [{"value": k.value, "window": k.window, "loglik": k.loglik} for k in c.candidates],
            "others": [list(o) for o in c.others]}


def _written(attempts: list[Any], fields: list[str]) -> list[dict[str, Any]]:
    """The objects the answers wrote (a window's answer leaves out the fields it found nothing for). A choice's
    answer is among them: it can equal the gold only where a window wrote the gold, so it adds no right value."""
    out = []
    for attempt in attempts:
        try:
            value = json.loads(attempt.text)
        except ValueError:
            continue
        if isinstance(value, dict) and value and set(value) <= set(fields):
            out.append({f: value.get(f) for f in fields})
    return out


def judge(doc: dict[str, Any], row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each field of a document's reading: its value, whether right, whether one window holds the fact and was
    read, and the stage a wrong value was lost at."""
    out = {}
    for field, gold in doc["gold"].items():
        start, end = doc["facts"][field]
        holding = [i for i, (a, b) in enumerate(row["windows"]) if a <= start and end <= b]  # windows read
        value = (row["values"] or {}).get(field)
        conflict = next((c for c in row["conflicts"] if c["pointer"] == f"/{field}"), None)
        offered = conflict is not None and conflict["chosen"] and any(same(c["value"], gold)
                                                                       for c in conflict["candidates"])
        written = any(same(w[field], gold) for w in row["written"])
        read_ = any(i not in row["unread"] for i in holding)
        stage = ("right" if same(value, gold) else "unread" if not read_ else
                 "not written" if not written else "choice" if offered else "merge")
        out[field] = {"gold": gold, "value": value, "right": stage == "right", "read": read_, "written": written,
                      "offered": offered, "stage": stage}
    return out


def summary(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """The rate of right values, how many facts a window read held and a window wrote, the stages wrong ones were
    lost at."""
    right = sum(f["right"] for f in fields)
    return {"fields": len(fields), "right": right, "rate": round(right / len(fields), 4) if fields else None,
            "read": sum(f["read"] for f in fields), "written": sum(f["written"] for f in fields),
            "stages": {s: sum(f["stage"] == s for f in fields) for s in STAGES}}


def measure(args: argparse.Namespace, docs: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every document under every mode, outcomes found in the `--resume` file kept, new ones appended to it."""
    from tqdm.auto import tqdm

    from extractor import Extractor

    done, ex = _resumed(args.resume), Extractor(args.model)
    jobs = [(mode, doc) for doc in docs for mode in args.conflicts]
    for mode, doc in tqdm(jobs, desc="far apart", unit="text"):
        if (mode, doc["id"]) not in done:
            done[mode, doc["id"]] = read(ex, doc, mode, args)
            if args.resume:
                with args.resume.open("a") as f:
                    f.write(json.dumps({"method": mode, **done[mode, doc["id"]]}, ensure_ascii=False) + "\n")
    return done


def report(args: argparse.Namespace, docs: list[dict[str, Any]],
           done: dict[tuple[str, str], dict[str, Any]]) -> dict[str, Any]:
    """Per mode: the whole, per field and per kind; every case's fields and reading."""
    modes: dict[str, Any] = {}
    cases = []
    for doc in docs:
        case = {"id": doc["id"], "kind": doc["kind"], "chars": len(doc["text"]), "modes": {}}
        for mode in args.conflicts:
            if (mode, doc["id"]) in done:
                row = done[mode, doc["id"]]
                case["modes"][mode] = {"fields": judge(doc, row), **{k: row[k] for k in (
                    "seconds", "error", "windows", "unread", "conflicts")}}
        cases.append(case)
    for mode in args.conflicts:
        rows = [(c, n, f) for c in cases if mode in c["modes"] for n, f in c["modes"][mode]["fields"].items()]
        modes[mode] = {"all": summary([f for _, _, f in rows]),
                       "fields": {f"{c['kind']}.{n}": summary([f for c2, n2, f in rows
                                                               if (c2["kind"], n2) == (c["kind"], n)])
                                  for c, n, _ in rows},
                       "seconds_per_doc": round(sum(c["modes"][mode]["seconds"] for c in cases if mode in c["modes"])
                                                / max(1, sum(mode in c["modes"] for c in cases)), 1)}
    return {"commit": commit(), "model": args.model or "embedded SmolLM2-135M-Instruct", "split": args.split,
            "data": str(args.data.relative_to(DATA.parents[2])) if args.data.is_relative_to(DATA.parents[2])
            else str(args.data), "window": args.window, "overlap": args.overlap, "focus": args.focus,
            "kind_margin": args.kinds, "located": args.located, "max_tokens": args.max_tokens,
            "threads": args.threads, "documents": len(cases), "modes": modes, "cases": cases}


def _cell(value: Any) -> str:
    return "–" if value is None else (f"{value:.3f}" if isinstance(value, float) else str(value))


def markdown(result: dict[str, Any]) -> str:
    """The figures as tables: per mode, per field under each mode, per case."""
    modes = list(result["modes"])
    lines = [f"# Facts stated once, far apart ({result['split']} split, {result['documents']} documents)", "",
             f"Model: {result['model']}; greedy; window {result['window']} tokens; overlap "
             f"{result['overlap'] or 'default'}; focus {FOCUS[result.get('focus')]}; windows read as another "
             f"kind dropped {kinds_said(result.get('kind_margin'))}; members located "
             f"{located_said(result.get('located'))}; "
             f"max_tokens {result['max_tokens']}; {result['threads']} thread(s); "
             f"data `{result['data']}`; commit `{result['commit']}`.", "",
             *([result["note"], ""] if result.get("note") else []),
             *([f"Not run: {', '.join(result['unfinished'])}.", ""] if result.get("unfinished") else []),
             "Right: the value returned equals the gold after normalisation (each fact is one sentence, which one "
             "window holds whole). Stages of a wrong value: unread (no window read holds it), not written (no window "
             "wrote it), merge (written, not kept, not offered), choice (offered, another chosen).", "",
             "| conflicts | fields | right | rate | fact in a window read | written by a window | "
             + " | ".join(STAGES[1:]) + " | s/doc |", "|---|---:|---:|---:|---:|---:|" + "---:|" * len(STAGES)]
    for mode, s in result["modes"].items():
        a = s["all"]
        lines.append(f"| {mode} | {a['fields']} | {a['right']} | {_cell(a['rate'])} | {a['read']} | {a['written']} | "
                     + " | ".join(str(a["stages"][k]) for k in STAGES[1:]) + f" | {s['seconds_per_doc']} |")
    lines += ["", "| field | documents | " + " | ".join(f"right ({m})" for m in modes) + " | written |",
              "|---|---:|" + "---:|" * (len(modes) + 1)]
    for name in (result["modes"][modes[0]]["fields"] if modes else {}):
        per = [result["modes"][m]["fields"][name] for m in modes]
        lines.append(f"| {name} | {per[0]['fields']} | " + " | ".join(f"{p['right']}" for p in per)
                     + f" | {per[0]['written']} |")
    lines += ["", "| case | characters | windows | " + " | ".join(f"wrong ({m})" for m in modes) + " |",
              "|---|---:|---:|" + "---|" * len(modes)]
    for c in result["cases"]:
        first = next(iter(c["modes"].values()), {"windows": []})
        wrong = [", ".join(f"{n}={f['value']!r} ({f['stage']})" for n, f in c["modes"][m]["fields"].items()
                           if not f["right"]) or "–" if m in c["modes"] else "not run" for m in modes]
        lines.append(f"| {c['id']} | {c['chars']:,} | {len(first['windows'])} | " + " | ".join(wrong) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="dev", choices=["dev", "test"])
    parser.add_argument("--data", type=Path, default=None, help="documents (JSON lines; default: the split's file)")
    parser.add_argument("--limit", type=int, default=None, help="the first N documents only")
    parser.add_argument("--window", type=int, default=1024, help="tokens of text per window")
    parser.add_argument("--overlap", type=int, default=None)
    parser.add_argument("--focus", default=None, choices=["on", "off"], help="read only the parts of the text the "
                        "relevance screen finds likeliest (ExtractOptions.focus; default: the library's default)")
    parser.add_argument("--conflicts", default=",".join(MODES), help="conflicts modes compared (model, merge)")
    parser.add_argument("--max-tokens", type=int, default=256, help="output budget per attempt (a window's answer "
                        "is a few dozen tokens)")
    parser.add_argument("--kinds", default=None, help=KINDS_HELP)
    parser.add_argument("--located", default=None, choices=["on", "off"], help=LOCATED_HELP)
    parser.add_argument("--threads", type=int, default=None, help="torch threads (a shared machine: 1)")
    parser.add_argument("--model", default=None)
    parser.add_argument("--resume", type=Path, default=None, help="JSON lines each outcome is appended to; a rerun "
                        "skips those it holds")
    parser.add_argument("--report-only", action="store_true", help="report what --resume holds, running nothing")
    parser.add_argument("--note", default="", help="a line the results say beside the figures")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    args.conflicts = args.conflicts.split(",")
    args.focus = None if args.focus is None else args.focus == "on"
    args.kinds = kinds(args.kinds)
    args.located = located(args.located)
    args.data = args.data or DATA / f"{args.split}.jsonl"
    if bad := [m for m in args.conflicts if m not in MODES]:
        parser.error(f"--conflicts: unknown mode(s) {bad}; choose from {list(MODES)}")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    docs = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()][:args.limit]
    done = _resumed(args.resume) if args.report_only else measure(args, docs)
    result = report(args, docs, done)
    result["unfinished"] = [f"{m}:{d['id']}" for d in docs for m in args.conflicts if (m, d["id"]) not in done]
    result["note"] = args.note
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
