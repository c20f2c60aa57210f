"""Extraction quality on labeled documents: field accuracy, validity, refusals, loops and cost per method.

usage: python benchmarks/quality.py [--split test|dev|all] [--methods prompt_retry,constrained,extract,...]
                                    [--sets generated,receipts,...] [--targets Resume,...] [--limit N] [--ids A,B]
                                    [--model ID] [--max-tokens N]
                                    [--jobs N] [--threads N] [--json OUT] [--md OUT] [--chart OUT.png]
                                    [--reuse METHOD=RESULT.json ...]

Documents, in sets: `generated` is benchmarks/data/quality/documents.jsonl (made by generate.py there; gold
objects, and texts with no answer for their target); the real sets are benchmarks/data/real/<set>/documents.jsonl
(public labeled documents: scanned receipts, résumés, contracts; each README names its source and terms), whose
gold holds only the fields their labels give (only those are scored). Defaults were tuned on the `dev` splits;
the default run reports the `test` splits, every metric per set as well as over all. Methods (benchmarks/quality_methods.py) run on the same model, prompt, greedy decoding and
token budget; `extract[key=value,...]` runs `extract` with options changed (for ablations).

Each (method, document) outcome is cached in benchmarks/results/quality_cache/ under a key of everything it
depends on (the method and its options, the document and its prompt, the model, the budget, and the code it
runs: the whole library for `extract`, the decoding loop's files for `prompt_retry`, the peer's adapter and version
for the peers), so a rerun computes only what changed: after a change to the library, `extract` and
`constrained` only. Scores are computed from the cached outcomes (benchmarks/quality_score.py). With two
CPU cores, a first run of the whole test split takes about three hours (the peers and prompt-and-retry
run to the token budget on most documents); a rerun after a change to the library, about a quarter of an hour.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, commit, write_results  # noqa: E402
from benchmarks.quality_methods import Method, method, run  # noqa: E402
from benchmarks.quality_score import Outcome, summarize, trace_figures  # noqa: E402

DATA = REPO / "benchmarks" / "data" / "quality" / "documents.jsonl"
REAL = REPO / "benchmarks" / "data" / "real"
CACHE = REPO / "benchmarks" / "results" / "quality_cache"
DEFAULT_METHODS = "prompt_retry,constrained,extract,llguidance,xgrammar"
TARGETS = {"extract_f1_over_prompt_retry": 0.15, "refusal": 0.8, "seconds_ratio": 0.7}


def sets() -> dict[str, Path]:
    """Each labeled set's documents file by name: the generated one, then the real ones."""
    return {"generated": DATA, **{p.parent.name: p for p in sorted(REAL.glob("*/documents.jsonl"))}}


def documents(split: str, targets: list[str] | None, limit: int | None,
              names: list[str] | None = None) -> list[dict[str, Any]]:
    """The documents of a split (all: both) of some sets (None: all), optionally of some targets, the first
    `limit` per target; each with its set's name under "set"."""
    known = sets()
    unknown = sorted(set(names or ()) - set(known))
    if unknown:
        raise SystemExit(f"unknown set {unknown[0]!r}; the sets are {', '.join(known)}")
    docs = [{**json.loads(line), "set": name} for name, path in known.items() if names is None or name in names
            for line in path.read_text().splitlines() if line.strip()]
    docs = [d for d in docs if split == "all" or d["split"] == split]
    if targets:
        docs = [d for d in docs if d["target"] in targets]
    seen: Counter[str] = Counter()
    ranked = []
    for doc in docs:
        seen[doc["target"]] += 1
        ranked.append((seen[doc["target"]], doc))
    # round robin over the targets: a run stopped early has finished the first k documents of each
    return [doc for rank, doc in sorted(ranked, key=lambda r: r[0]) if not limit or rank <= limit]


def _sources(*paths: str) -> str:
    """A digest of the code in `paths` (files, or folders walked; committed or not): outcomes are recomputed
    when it changes."""
    digest = hashlib.sha256()
    for name in paths:
        root = REPO / name
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if path.suffix in (".py", ".c") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(REPO)).encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def _fingerprints() -> dict[str, str]:
    """What each kind of method depends on besides its options, the document and its prompt: `extract` on
    the whole library; free generation (`prompt_retry`) on the decoding loop; the peers on their own code
    and versions. (The prompt is part of every key, so a change of wording reruns every method.)"""
    versions = []
    for package in ("llguidance", "xgrammar"):
        try:
            from importlib.metadata import version

            versions.append(f"{package}={version(package)}")
        except Exception:  # noqa: BLE001 - not installed: those methods fail when run
            versions.append(f"{package}=none")
    loop = [f"extractor/decode/{name}.py" for name in ("loop", "rows", "head", "attention", "model", "sampling")]
    return {"extract": _sources("extractor", "schemas", "benchmarks/quality_methods.py"),
            "prompt_retry": _sources(*loop, "schemas", "benchmarks/quality_methods.py"),
            "peer": _sources("benchmarks/generation_peers.py") + ",".join(versions)}


def _prompt(doc: dict[str, Any]) -> str:
    """The chat every method is given for a document (before the model's chat template), as JSON."""
    import schemas
    from extractor.decode import PromptTemplate, messages
    from extractor.schema import json_schema

    return json.dumps(messages(json_schema(getattr(schemas, doc["target"])), doc["text"], PromptTemplate()))


def _key(m: Method, doc: dict[str, Any], model: str, budget: int, fingerprint: str) -> str:
    blob = json.dumps([m.name, m.config(), doc["id"], doc["target"], _prompt(doc), model, budget, fingerprint],
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


_WORKER: dict[str, Any] = {}


def _init(model: str | None, threads: int) -> None:
    import torch

    from extractor import Extractor

    if threads:
        torch.set_num_threads(threads)
    _WORKER["ex"] = Extractor(model)


def _work(task: tuple[str, dict[str, Any], int]) -> tuple[str, dict[str, Any]]:
    import schemas

    name, doc, budget = task
    out = run(method(name), _WORKER["ex"], getattr(schemas, doc["target"]), doc["text"], budget)
    return name, asdict(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=["test", "dev", "all"], default="test")
    parser.add_argument("--methods", default=DEFAULT_METHODS)
    parser.add_argument("--sets", default=None, help="comma-separated set names (default: all; see `sets`)")
    parser.add_argument("--targets", default=None, help="comma-separated target names (default: all)")
    parser.add_argument("--limit", type=int, default=None, help="documents per target at most")
    parser.add_argument("--ids", default=None, help="comma-separated document ids only (the documents a change can "
                        "move, where the others' outputs are the same by construction)")
    parser.add_argument("--model", default=None, help="Hugging Face id or local path (default: the embedded model)")
    parser.add_argument("--max-tokens", type=int, default=640,
                        help="output budget per attempt (each test gold object fits in 500 tokens, indented)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes, each with its own model")
    parser.add_argument("--threads", type=int, default=1, help="torch threads per worker (0: torch's default)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--chart", type=Path, default=None, help="a PNG of the main metrics per method")
    parser.add_argument("--note", default=None, help="a line written under the title (how the machine was used)")
    parser.add_argument("--reuse", action="append", default=[], metavar="METHOD=RESULT.json",
                        help="take a method's outcomes from an earlier result file of the same documents instead of "
                             "running it (the file and its commit are recorded beside the figures)")
    args = parser.parse_args()

    methods = [method(s) for s in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", args.methods)]  # commas in [...] kept
    docs = documents(args.split, args.targets.split(",") if args.targets else None, args.limit,
                     args.sets.split(",") if args.sets else None)
    docs = [d for d in docs if not args.ids or d["id"] in args.ids.split(",")]
    model = args.model or "embedded"
    prints = _fingerprints()
    CACHE.mkdir(parents=True, exist_ok=True)
    outcomes: dict[tuple[str, str], Outcome] = {}
    reused = _reused(args.reuse, docs, outcomes)
    todo = []
    for doc in docs:
        for m in methods:
            if m.name in reused:
                continue
            path = CACHE / f"{_key(m, doc, model, args.max_tokens, prints[m.kind])}.json"
            if path.exists():
                outcomes[m.name, doc["id"]] = Outcome(**json.loads(path.read_text())["outcome"])
            else:
                todo.append((m.name, doc, path))
    print(f"{len(docs)} documents x {len(methods)} methods: {len(outcomes)} cached, {len(todo)} to run",
          file=sys.stderr, flush=True)
    stamp = commit()
    from tqdm import tqdm

    with ProcessPoolExecutor(max_workers=args.jobs, initializer=_init, initargs=(args.model, args.threads)) as pool:
        jobs = {pool.submit(_work, (name, doc, args.max_tokens)): (name, doc, path) for name, doc, path in todo}
        for job in tqdm(as_completed(jobs), total=len(todo), desc="quality"):  # each cached as soon as it ends
            name, doc, path = jobs[job]
            _, record = job.result()
            outcomes[name, doc["id"]] = Outcome(**record)
            path.write_text(json.dumps({"method": name, "document": doc["id"], "commit": stamp,
                                        "outcome": record}, ensure_ascii=False))

    result = report(methods, docs, outcomes, args, stamp)
    result["reused"] = reused
    result["note"] = args.note
    write_results(result, markdown(result), args.json, args.md)
    if args.chart:
        chart(result, args.chart)


def _reused(specs: list[str], docs: list[dict[str, Any]],
            outcomes: dict[tuple[str, str], Outcome]) -> dict[str, dict[str, str]]:
    """Outcomes of `METHOD=RESULT.json` specs, put into `outcomes`; where each was computed (a file that reused
    them names their origin)."""
    out = {}
    for spec in specs:
        name, _, file = spec.rpartition("=")  # a method name may hold "=" (extract[key=value])
        earlier = json.loads(Path(file).read_text())
        found = earlier.get("outcomes", {}).get(name, {})
        missing = [d["id"] for d in docs if d["id"] not in found]
        if missing:
            raise SystemExit(f"--reuse {spec}: no {name} outcome for {len(missing)} documents ({missing[0]}, ...)")
        for doc in docs:
            outcomes[name, doc["id"]] = Outcome(**found[doc["id"]])
        out[name] = earlier.get("reused", {}).get(name) or {"file": file, "commit": earlier["commit"]}  # the origin
    return out


def report(methods: list[Method], docs: list[dict[str, Any]], outcomes: dict[tuple[str, str], Outcome],
           args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    """Metrics per method (all documents, and per target), the targets checked, every outcome listed."""
    per_method, per_target, per_set = {}, {}, {}
    names = list(dict.fromkeys(d["set"] for d in docs))
    for m in methods:
        def scored(subset: list[dict[str, Any]]) -> dict[str, Any]:
            return {**summarize([(d["gold"], outcomes[m.name, d["id"]]) for d in subset]),
                    **trace_figures([(d, outcomes[m.name, d["id"]]) for d in subset])}

        per_method[m.name] = scored(docs)
        per_set[m.name] = {name: scored([d for d in docs if d["set"] == name]) for name in names}
        per_target[m.name] = {t: summarize([(d["gold"], outcomes[m.name, d["id"]]) for d in docs if d["target"] == t])
                              for t in sorted({d["target"] for d in docs})}
    return {
        "commit": stamp, "split": args.split, "limit_per_target": args.limit, "model": args.model or "embedded SmolLM2-135M-Instruct",
        "max_tokens": args.max_tokens, "greedy": True, "documents": len(docs),
        "no_answer_documents": sum(d["gold"] is None for d in docs),
        "sets": {name: sum(d["set"] == name for d in docs) for name in names},
        "methods": per_method, "per_set": per_set, "per_target": per_target, "targets": checks(per_method),
        "outcomes": {m.name: {d["id"]: asdict(outcomes[m.name, d["id"]]) for d in docs} for m in methods},
    }


def checks(per: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets for `extract`, each with the measured values and whether it is met."""
    if "extract" not in per:
        return {}
    ours = per["extract"]
    out: dict[str, Any] = {
        "valid_unrefused_100": {"value": ours["valid_unrefused_rate"], "met": ours["valid_unrefused_rate"] == 1.0},
        "loop_rate_0": {"value": ours["loop_rate"], "met": ours["loop_rate"] == 0},
        "refusal_precision_0.8": {"value": ours["refusal_precision"],
                                  "met": (ours["refusal_precision"] or 0) >= TARGETS["refusal"]},
        "refusal_recall_0.8": {"value": ours["refusal_recall"],
                               "met": (ours["refusal_recall"] or 0) >= TARGETS["refusal"]},
    }
    if "prompt_retry" in per:
        base = per["prompt_retry"]
        out["f1_over_prompt_retry_+0.15"] = {
            "value": round(ours["field_f1"] - base["field_f1"], 4),
            "met": ours["field_f1"] >= base["field_f1"] + TARGETS["extract_f1_over_prompt_retry"]}
        out["seconds_0.7x_prompt_retry"] = {
            "value": round(ours["seconds_per_doc"] / base["seconds_per_doc"], 4),
            "met": ours["seconds_per_doc"] <= TARGETS["seconds_ratio"] * base["seconds_per_doc"]}
    peers = [per[p]["field_f1"] for p in ("llguidance", "xgrammar") if p in per]
    if peers:
        out["f1_at_least_best_peer"] = {"value": round(ours["field_f1"] - max(peers), 4),
                                        "met": ours["field_f1"] >= max(peers)}
    return out


IDENTIFYING = ("name", "email", "phone", "company", "parties")
"""The fields that say whose document it is, reported apart in the per-set table."""


def identifying(metrics: dict[str, Any]) -> float | None:
    """The mean field F1 of the identifying fields a set's gold holds (None: none)."""
    scores = [v for k, v in metrics.get("field_f1_by_field", {}).items() if k in IDENTIFYING and v is not None]
    return round(sum(scores) / len(scores), 4) if scores else None


COLUMNS = ["valid_rate", "field_em", "field_f1", "refusal_precision", "refusal_recall", "loop_rate",
           "not_found_rate", "tokens_per_doc", "seconds_per_doc"]
"""The main table's columns; the trace figures (quality_score.trace_figures) get a table of their own."""


def markdown(result: dict[str, Any]) -> str:
    def cell(v: Any) -> str:
        return "–" if v is None else (f"{v:.3f}" if isinstance(v, float) else str(v))

    subset = f", the first {result['limit_per_target']} per target" if result.get("limit_per_target") else ""
    lines = [f"# Extraction quality ({result['split']} split{subset}: {result['documents']} documents, "
             f"{result['no_answer_documents']} with no answer)", "",
             f"Model: {result['model']}; greedy; max_tokens {result['max_tokens']}; commit `{result['commit']}`.", "",
             *([result["note"], ""] if result.get("note") else []),
             *(f"`{name}`: outcomes reused from `{r['file']}` (commit `{r['commit']}`)." for name, r in
               result.get("reused", {}).items()), "",
             "| method | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    for name, metrics in result["methods"].items():
        lines.append(f"| {name} | " + " | ".join(cell(metrics[c]) for c in COLUMNS) + " |")
    lines += ["", "Traces (values written: strings and numbers the schema does not spell; not found: held nowhere in the "
              "text; copied: by the decoder from the text; stuttering: ending in a 2-4 byte stretch repeated four times "
              "that the text does not hold; verbatim: string values the text holds as written, and "
              "the share of them traced to exact spans; spans whose text is not the value under the stated "
              "normalization):", "",
              "| method | values written | not found | copied | stuttering | verbatim values | traced exactly | "
              "spans not agreeing |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for name, m in result["methods"].items():
        lines.append(f"| {name} | {m['values_written']} | {cell(m['not_found_rate'])} | {cell(m['copied_rate'])} | "
                     f"{m['stuttering_values']} | {m['verbatim_values']} | {cell(m['verbatim_traced_exact'])} | "
                     f"{m['spans_not_agreeing']} |")
    sets = result.get("sets", {})
    if len(sets) > 1 or "generated" not in sets:
        lines += ["", "Per set (the real sets score only the fields their labels give; `identifying`: the mean field F1 "
                  f"of {', '.join(IDENTIFYING)} where the gold has them):", "",
                  "| set | documents | method | field_f1 | identifying | not_found_rate | stuttering | refusal_recall | "
                  "seconds_per_doc |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
        for name, count in sets.items():
            for method_name, per in result["per_set"].items():
                m = per[name]
                lines.append(f"| {name} | {count} | {method_name} | {cell(m['field_f1'])} | {cell(identifying(m))} | "
                             f"{cell(m['not_found_rate'])} | {m['stuttering_values']} | {cell(m['refusal_recall'])} | "
                             f"{cell(m['seconds_per_doc'])} |")
    targets = sorted({t for per in result["per_target"].values() for t in per})
    lines += ["", "Field F1 per target:", "", "| method | " + " | ".join(targets) + " |",
              "|---|" + "---:|" * len(targets)]
    for name, per in result["per_target"].items():
        lines.append(f"| {name} | " + " | ".join(cell(per[t]["field_f1"]) for t in targets) + " |")
    if result["targets"]:
        lines += ["", "Targets for `extract`:", ""]
        lines += [f"- {k}: {cell(v['value'])} — {'met' if v['met'] else 'missed'}" for k, v in result["targets"].items()]
    return "\n".join(lines) + "\n"


def chart(result: dict[str, Any], path: Path) -> None:
    """Grouped bars of the quality metrics, and seconds per document, one colour per method."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    quality = ["valid_rate", "field_em", "field_f1", "refusal_precision", "refusal_recall", "loop_rate"]
    names = list(result["methods"])
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [4, 1]})
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        m = result["methods"][name]
        left.bar([i + k * width for i in range(len(quality))], [m[q] or 0 for q in quality], width, label=name)
        right.bar(k, m["seconds_per_doc"] or 0, 0.8)
    left.set_xticks([i + 0.4 - width / 2 for i in range(len(quality))], quality, rotation=15)
    left.set_ylim(0, 1.05)
    left.legend(fontsize=8)
    left.set_title(f"Quality ({result['split']} split, {result['documents']} documents)")
    right.set_xticks(range(len(names)), names, rotation=45, ha="right")
    right.set_title("seconds per document")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
