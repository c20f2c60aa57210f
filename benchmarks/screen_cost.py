"""What the relevance screen costs beside a short extraction, measured in the same run on the same texts.

usage: python benchmarks/screen_cost.py [--texts N] [--repeats R] [--threads T] [--json OUT] [--md OUT]

For each of the first `--texts` answerable short texts of benchmarks/data/short's test split (one to three
sentences, bare targets) and the one-sentence `Person` text `PERSON`, in turn, `--repeats` times: the screen as
`extract` runs it (`Extractor.screens` under the default options: read as far as the decision needs, and what a
refused text reads most like; its kept readings of texts forgotten first, so every text is read anew, while the
announcements' keys and values, read once per model, are kept like the compiled grammar) and the whole
extraction without it (`extract(..., min_relevance=None)`), timed back to back so that both see the same load.
The figures are screen time / extraction time: its median over texts and repeats, and the largest of the
texts' own medians over their repeats (the worst text); at most 0.5 on every text is the aim.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import REPO, commit, write_results  # noqa: E402

SHORT = REPO / "benchmarks" / "data" / "short" / "documents.jsonl"
PERSON = ("Maria Lopez, 34, joined the lab in March as a research engineer after six years at a robotics startup.",
          {"title": "Person", "type": "object", "required": ["name", "age", "occupation"],
           "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "occupation": {"type": "string"}}})


def texts(n: int) -> list[tuple[str, dict[str, Any]]]:
    """The Person sentence, then the first `n` answerable short texts of the test split with their targets."""
    docs = [json.loads(line) for line in SHORT.read_text(encoding="utf-8").splitlines()]
    return [PERSON, *((d["text"], d["schema"]) for d in docs if d["split"] == "test" and d["answerable"])][:n + 1]


def timed(call: Any) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def measure(ex: Any, pairs: list[tuple[str, dict[str, Any]]], repeats: int) -> list[dict[str, Any]]:
    """Per text and repeat: the screen's and the extraction's seconds, and their ratio."""
    from extractor import ExtractOptions
    from extractor.masks.lru import ByteLRU
    from extractor.pipeline.target import Target

    rows, options = [], ExtractOptions()
    for text, schema in pairs:
        ex.extract(schema, text, min_relevance=None)  # the grammar compiled and the model warm before timing
        ex.screens(Target(schema), [text], options)  # the announcements read once, as for any later text
        for _ in range(repeats):
            ex.lm.screened = ByteLRU(1 << 20)  # nothing kept: the text is read anew
            screen = timed(lambda: ex.screens(Target(schema), [text], options))
            extraction = timed(lambda: ex.extract(schema, text, min_relevance=None))
            rows.append({"text": text[:60], "target": schema["title"], "screen_s": round(screen, 4),
                         "extract_s": round(extraction, 4), "ratio": round(screen / extraction, 4)})
    return rows


def worst(rows: list[dict[str, Any]]) -> float:
    """The largest per-text median ratio (a text's repeats taken together, so one slow repeat is not the figure)."""
    texts: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        texts.setdefault((r["target"], r["text"]), []).append(r["ratio"])
    return max(statistics.median(v) for v in texts.values())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=8, help="short texts besides the Person sentence")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args(argv)

    import torch

    from extractor import Extractor

    torch.set_num_threads(args.threads)
    rows = measure(Extractor(), texts(args.texts), args.repeats)
    first = [r for r in rows if r["text"] == PERSON[0][:60]]
    result = {"commit": commit(), "model": "embedded SmolLM2-135M-Instruct", "threads": args.threads,
              "repeats": args.repeats, "texts": len(rows) // args.repeats,
              "median_ratio": statistics.median(r["ratio"] for r in rows),
              "person_ratio": statistics.median(r["ratio"] for r in first), "worst_ratio": worst(rows),
              "median_screen_s": statistics.median(r["screen_s"] for r in rows),
              "median_extract_s": statistics.median(r["extract_s"] for r in rows), "runs": rows}
    write_results(result, _markdown(result), args.json, args.md)


def _markdown(result: dict[str, Any]) -> str:
    lines = [f"# The relevance screen's cost beside a short extraction ({result['texts']} texts × "
             f"{result['repeats']} repeats)", "",
             f"Model: {result['model']}, {result['threads']} threads; commit `{result['commit']}`. Screen and "
             "extraction (without the screen) timed back to back on each text; their ratio's median is "
             f"**{result['median_ratio']:.2f}** over all texts and **{result['person_ratio']:.2f}** on the "
             f"Person sentence (median seconds: screen {result['median_screen_s']:.3f}, extraction "
             f"{result['median_extract_s']:.3f}). The machine was shared with other jobs: timings are noisy, "
             "screen and extraction see the same load.", "",
             "| target | text | screen s | extraction s | ratio |", "|---|---|---:|---:|---:|"]
    lines += [f"| {r['target']} | {r['text']} | {r['screen_s']:.3f} | {r['extract_s']:.3f} | {r['ratio']:.2f} |"
              for r in result["runs"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
