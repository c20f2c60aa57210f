"""Whole contracts, longer than the model's context: Kleister-NDA (benchmarks/data/kleister_nda), scored with the
task's own metric, for four ways of reading a long text on the same model and budget.

usage: python benchmarks/long_documents.py [--split train|dev-0] [--limit N] [--ids A,B] [--min-windows N] [--methods M,...]
           [--window N] [--overlap N] [--focus on|off] [--kinds MARGIN|off] [--located on|off] [--max-tokens N] [--resume OUTCOMES.jsonl]
           [--json OUT] [--md OUT]

- `extract`: `Extractor.extract` as a user calls it: windows on the text's structure, each under the target's
  window form (every field may be null; strings copied from that window, numbers among its numbers), merged by
  the schema;
- `first_window`: the first window only, what a user gets by cutting the text to fit (on a contract that fits one
  window, the very call `extract` made: its outcome is reused, marked `same_call_as`);
- `free_chunks`: the same windows, each written freely (no grammar), the first JSON object of each reply parsed
  and the windows merged first-answer-wins, lists joined (what chunking libraries without a grammar do);
- `no_window_form`: the same windows under the target's own schema (every required field must be written,
  nothing may be null that the target forbids), merged by the same schema-driven merge as `extract`.

Score: Kleister's MultiLabel-F1 on upper-cased `key=value` pairs (config.txt: `effective_date=YYYY-MM-DD`,
`jurisdiction`, `party` (several), `term=N_years`; spaces as `_`), true positives, false positives and false
negatives summed over documents, per key and overall, with precision and recall; `not_found_rate`: the share of
written string values the contract holds nowhere (after the tracer's normalizations).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import lzma
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from extractor import ExtractOptions, Extractor, ExtractorError, Refusal, trace  # noqa: E402
from extractor.documents.merge import merge  # noqa: E402
from extractor.documents.windows import windows  # noqa: E402
from extractor.schema import json_schema  # noqa: E402
from extractor.pipeline.windowed import token_ends, window_size  # noqa: E402
from schemas import NDA  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "kleister_nda"
METHODS = ("extract", "first_window", "free_chunks", "no_window_form")
KEYS = ("effective_date", "jurisdiction", "party", "term")


def _real_nda_build() -> Any:
    """The real NDA set's build script, whose `clean` reads Kleister's TSV text."""
    spec = importlib.util.spec_from_file_location("nda_build", DATA.parent / "real" / "nda" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


clean = _real_nda_build().clean


def load(split: str, limit: int | None, chars: int | None = None) -> list[dict[str, Any]]:
    """The split's contracts in file order: id (file name), text (the pdf2djvu text layer, cleaned as the real NDA
    set cleans it; its first `chars` characters where given, for a smoke run) and gold pairs."""
    rows = [r for r in lzma.decompress((DATA / split / "in.tsv.xz").read_bytes()).decode().split("\n") if r]
    gold = (DATA / split / "expected.tsv").read_text().split("\n")
    docs = [{"id": r.split("\t")[0], "text": clean(r.split("\t")[2])[:chars], "gold": sorted(set(g.upper().split()))}
            for r, g in zip(rows, gold)]
    return docs[:limit] if limit else docs


_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_TERM = re.compile(r"(\d+(?:\.\d+)?|[a-z]+)\W+(?:\(\d+\)\W+)?(year|month|week|day)s?", re.IGNORECASE)


def pairs(result: Any) -> list[str]:
    """A result as Kleister's upper-cased key=value pairs."""
    if not isinstance(result, NDA):
        return []
    out = [f"PARTY={_value(p)}" for p in result.parties if p.strip()]
    if result.effective_date is not None:
        out.append(f"EFFECTIVE_DATE={result.effective_date.isoformat()}")
    if result.jurisdiction:
        out.append(f"JURISDICTION={_value(result.jurisdiction)}")
    term = _TERM.search(result.term or "")
    if term:
        count = term.group(1).lower()
        count = str(_NUMBERS.get(count, count))
        if count.replace(".", "").isdigit():
            out.append(f"TERM={count}_{term.group(2).upper()}{'' if count == '1' else 'S'}")
    return sorted(set(out))


def _value(text: str) -> str:
    return re.sub(r"\s+", "_", text.replace(",", "").strip()).upper()


def score(outcomes: list[dict[str, Any]]) -> dict[str, Any]:
    """MultiLabel-F1 (counts summed over documents), overall and per key."""
    def f1(keys: tuple[str, ...]) -> dict[str, float]:
        tp = fp = fn = 0
        for o in outcomes:
            got = Counter(p for p in o["pairs"] if p.split("=")[0].lower() in keys)
            want = Counter(p for p in o["gold"] if p.split("=")[0].lower() in keys)
            hit = sum((got & want).values())
            tp, fp, fn = tp + hit, fp + sum(got.values()) - hit, fn + sum(want.values()) - hit
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        return {"f1": round(2 * p * r / (p + r), 4) if p + r else 0.0, "precision": round(p, 4), "recall": round(r, 4)}

    written = sum(o["values"] for o in outcomes)
    return {**f1(KEYS), "per_key": {k: f1((k,))["f1"] for k in KEYS}, "documents": len(outcomes),
            "valid_rate": round(sum(o["valid"] for o in outcomes) / len(outcomes), 4),
            "not_found_rate": round(sum(o["not_found"] for o in outcomes) / written, 4) if written else None,
            "windows_per_doc": round(sum(o["windows"] for o in outcomes) / len(outcomes), 2),
            "seconds_per_doc": round(sum(o["seconds"] for o in outcomes) / len(outcomes), 2)}


class Runner:
    """The four methods on one model and budget."""

    def __init__(self, ex: Extractor, max_tokens: int, window: int | None, overlap: int,
                 focus: bool | None = None) -> None:
        self.ex, self.max_tokens, self.window, self.overlap = ex, max_tokens, window, overlap
        self.focus = {} if focus is None else {"focus": focus}

    def windows(self, text: str) -> list[str]:
        """The windows `extract` reads the text in (the whole text where it fits)."""
        options = ExtractOptions(max_tokens=self.max_tokens, window=self.window, overlap=self.overlap)
        size = window_size(self.ex, NDA, text, options, self.ex.prompt_ids(json_schema(NDA), text, [], options))
        if size is None:
            return [text]
        return [w.text(text) for w in windows(text, token_ends(self.ex.tokenizer, text), size,
                                              min(self.overlap, size // 4))]

    def run(self, method: str, doc: dict[str, Any]) -> dict[str, Any]:
        text, start = doc["text"], time.perf_counter()
        parts = self.windows(text)
        try:
            result = getattr(self, method)(text, parts)
        except ExtractorError as exc:
            result = exc
        found = trace(result, text) if isinstance(result, NDA) else None
        strings = [v for v in (found or ()) if isinstance(v.value, str)]
        return {"id": doc["id"], "gold": doc["gold"], "pairs": pairs(result), "windows": len(parts),
                "valid": isinstance(result, (NDA, Refusal)), "error": type(result).__name__ if isinstance(
                    result, ExtractorError) else None, "values": len(strings),
                "not_found": sum(v.status == "not_found" for v in strings),
                "result": result.model_dump(mode="json") if isinstance(result, NDA) else None,
                "seconds": round(time.perf_counter() - start, 2)}

    def extract(self, text: str, parts: list[str]) -> Any:
        return self.ex.extract(NDA, text, max_tokens=self.max_tokens, window=self.window, overlap=self.overlap,
                               **self.focus)

    def first_window(self, text: str, parts: list[str]) -> Any:
        return self.ex.extract(NDA, parts[0], max_tokens=self.max_tokens)

    def free_chunks(self, text: str, parts: list[str]) -> Any:
        answers = []
        for part in parts:
            try:
                value = self.ex.extract(NDA, part, max_tokens=self.max_tokens, constrained=False, max_retries=0,
                                        refusal=False, min_relevance=None)
                answers.append(value.model_dump(mode="json"))
            except ExtractorError as exc:
                attempts = getattr(exc, "attempts", None) or []
                answers.append(_first_object(attempts[-1].text if attempts else getattr(exc, "partial", "")))
        merged: dict[str, Any] = {"parties": []}
        for answer in answers:  # the first window to give a field wins; lists are joined
            for key, value in (answer or {}).items():
                if key == "parties" and isinstance(value, list):
                    merged["parties"] += [p for p in value if isinstance(p, str) and p not in merged["parties"]]
                elif key in NDA.model_fields and merged.get(key) is None:
                    merged[key] = value
        return _lenient(merged)

    def no_window_form(self, text: str, parts: list[str]) -> Any:
        schema = json_schema(NDA)
        results = self.ex.extract_many(schema, parts, max_tokens=self.max_tokens, refusal=False,
                                       min_relevance=None, with_trace=True, progress=False)
        answers = {i: r for i, r in enumerate(results) if not isinstance(r, ExtractorError)}
        merged = merge(schema, [(i, r.result) for i, r in answers.items()],
                       lambda i, p: any(v.pointer == p and v.grounded for v in answers[i].trace))
        return _lenient(merged.value or {})


def _first_object(text: str) -> dict[str, Any] | None:
    """The first JSON object a free reply holds, if any."""
    for at in (m.start() for m in re.finditer(r"\{", text)):
        try:
            value, _ = json.JSONDecoder().raw_decode(text[at:])
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _lenient(value: dict[str, Any]) -> NDA | None:
    """The merged answer as an NDA, each field that does not validate dropped (as a lenient parser would)."""
    fields = {}
    for key in NDA.model_fields:
        if key in value:
            try:
                NDA.model_validate({"parties": [], **fields, key: value[key]})
                fields[key] = value[key]
            except ValueError:
                pass
    return NDA.model_validate({"parties": [], **fields})


def _resumed(path: Path | None) -> dict[tuple[str, str], dict[str, Any]]:
    """The outcomes an interrupted run left in `path`, by (method, contract id); a torn last line is dropped."""
    done: dict[tuple[str, str], dict[str, Any]] = {}
    for line in (path.read_text().splitlines() if path and path.exists() else []):
        try:
            row = json.loads(line)
        except ValueError:
            continue
        done[row.pop("method"), row["id"]] = row
    return done


def kinds(value: str | None) -> float | None:
    """`--kinds`: set `windowed.KIND_MARGIN` for this run (a margin in nats, or "off"; unset, the library's) and
    return the margin the run reads under."""
    from extractor.pipeline import windowed

    if value is not None:
        windowed.KIND_MARGIN = None if value == "off" else float(value)
    return windowed.KIND_MARGIN


def located(value: str | None) -> bool:
    """`--located`: set `windowed.LOCATE` for this run ("on" or "off"; unset, the library's) and return whether the
    run reads each scalar member where its words stand."""
    from extractor.pipeline import windowed

    if value is not None:
        windowed.LOCATE = value == "on"
    return windowed.LOCATE


def located_said(value: bool | None) -> str:
    """Whether a run's members were located, as its results say it (None: a run from before the option: off)."""
    return {None: "off (before the option)", True: "on", False: "off"}[value]


LOCATED_HELP = ("on: each scalar member is also read alone in the short stretches that name it, its value there preferred "
                "(windowed.LOCATE); off: windows only; default: the library's")


def kinds_said(margin: float | None) -> str:
    return "off" if margin is None else f"beyond {margin} nats"


KINDS_HELP = ("windows every stretch of which reads as another kind of document by more than this many nats give "
              "nothing (windowed.KIND_MARGIN), or off; default: the library's")


def markdown(result: dict[str, Any]) -> str:
    chosen = f", those read in {result['min_windows']} windows or more" if result.get("min_windows", 1) > 1 else ""
    head = (f"# Long documents: Kleister-NDA `{result['split']}` ({result['documents']} contracts{chosen}, "
            f"{result['characters_median']:,} characters at the median)\n\nModel: {result['model']}; greedy; "
            f"max_tokens {result['max_tokens']}; window {result['window'] or 'from the context'}, overlap "
            f"{result['overlap']}; focus {({None: 'default', True: 'on', False: 'off'})[result.get('focus')]}; "
            f"windows read as another kind dropped {kinds_said(result.get('kind_margin'))}; members located "
            f"{located_said(result.get('located'))}; commit "
            f"`{result['commit']}`.\n\n")
    rows = ["| method | F1 | precision | recall | effective_date | jurisdiction | party | term | valid | not_found_rate "
            "| windows/doc | seconds/doc |", "|---|" + "---:|" * 11]
    for name, s in result["methods"].items():
        k = s["per_key"]
        rows.append(f"| {name} | {s['f1']:.3f} | {s['precision']:.3f} | {s['recall']:.3f} | {k['effective_date']:.3f} "
                    f"| {k['jurisdiction']:.3f} | {k['party']:.3f} | {k['term']:.3f} | {s['valid_rate']:.3f} | "
                    f"{'–' if s['not_found_rate'] is None else format(s['not_found_rate'], '.3f')} | "
                    f"{s['windows_per_doc']} | {s['seconds_per_doc']} |")
    return head + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="dev-0", choices=["train", "dev-0"])
    parser.add_argument("--limit", type=int, default=None, help="the first N contracts in file order")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--model", default=None)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--window", type=int, default=None, help="tokens of text per window (default: the context)")
    parser.add_argument("--overlap", type=int, default=64)
    parser.add_argument("--focus", choices=["on", "off"], default=None, help="`extract` reads only the part of a "
                        "long text that reads as the target (the `focus` option; default: the library's)")
    parser.add_argument("--chars", type=int, default=None, help="each contract cut to its first N characters (smoke)")
    parser.add_argument("--ids", default=None, help="only these contracts (file names, comma-separated)")
    parser.add_argument("--min-windows", type=int, default=1,
                        help="only the contracts `extract` reads in at least N windows (2: those longer than one)")
    parser.add_argument("--resume", type=Path, default=None,
                        help="a JSON-lines file each outcome is appended to as it is made; a rerun skips those it holds")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    parser.add_argument("--kinds", default=None, help=KINDS_HELP)
    parser.add_argument("--located", choices=["on", "off"], default=None, help=LOCATED_HELP)
    args = parser.parse_args(argv)
    margin = kinds(args.kinds)
    members = located(args.located)
    methods = [m for m in args.methods.split(",") if m]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        parser.error(f"unknown methods {unknown}; known: {', '.join(METHODS)}")
    focus = None if args.focus is None else args.focus == "on"
    runner = Runner(Extractor(args.model), args.max_tokens, args.window, args.overlap, focus)
    ids = set(args.ids.split(",")) if args.ids else None
    docs = [d for d in load(args.split, args.limit, args.chars)
            if (ids is None or d["id"] in ids) and len(runner.windows(d["text"])) >= args.min_windows]
    done = _resumed(args.resume)
    outcomes: dict[str, list[dict[str, Any]]] = {m: [] for m in methods}
    from tqdm.auto import tqdm
    for doc in tqdm(docs, desc="contracts", unit="doc"):
        for m in methods:
            if (m, doc["id"]) not in done:
                same = done.get(("extract", doc["id"])) if m == "first_window" else None
                # a contract that fits one window: its first window is the whole text, the very call `extract` made
                done[m, doc["id"]] = {**same, "same_call_as": "extract"} if same and same["windows"] == 1 \
                    else runner.run(m, doc)
                if args.resume:
                    with args.resume.open("a") as f:
                        f.write(json.dumps({"method": m, **done[m, doc["id"]]}) + "\n")
            outcomes[m].append(done[m, doc["id"]])
    lengths = sorted(len(d["text"]) for d in docs)
    result = {"commit": commit(), "split": args.split, "documents": len(docs), "characters_median": lengths[len(lengths) // 2],
              "model": args.model or "embedded SmolLM2-135M-Instruct", "max_tokens": args.max_tokens,
              "window": args.window, "overlap": args.overlap, "focus": focus, "kind_margin": margin, "located": members,
              "chars": args.chars, "min_windows": args.min_windows, "ids": args.ids,
              "methods": {m: score(outcomes[m]) for m in methods}, "outcomes": outcomes}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
