"""Time and memory of one `extract` as a text grows: a generated contract of 100,000 and 1,000,000 characters (by
default), each read in windows by the embedded model (every window: `focus=False`) in a fresh process, its peak
resident memory taken from the operating system.

usage: python benchmarks/long_scaling.py [--sizes 100000,1000000] [--window N] [--max-tokens N] [--json OUT] [--md OUT]

Reported per size: characters, tokens, windows, seconds, seconds per 100,000 characters, peak RSS (MiB), and what
came back; and the time ratio of the largest to the smallest size over their length ratio (1.0 is linear).
The text is clauses of a contract drawn from a fixed seed, its parties named at its start and its governing law at
its end, so a correct answer needs the first and the last window.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

_CLAUSES = [
    "The Receiving Party shall hold the Confidential Information in strict confidence and shall not disclose it "
    "to any third party without the prior written consent of the Disclosing Party.",
    "Confidential Information does not include information that is or becomes publicly available through no fault "
    "of the Receiving Party, or that was lawfully known to it before disclosure.",
    "Each party shall return or destroy all copies of the other party's Confidential Information within thirty "
    "days of a written request.",
    "Nothing in this Agreement grants either party any licence under any patent, copyright or other right.",
    "The parties acknowledge that damages alone may not be an adequate remedy for a breach of this Agreement.",
    "Any notice under this Agreement shall be given in writing and delivered by hand or by registered mail.",
    "This Agreement may be amended only by a written instrument signed by both parties.",
    "Neither party may assign this Agreement without the prior written consent of the other party.",
]


def contract(chars: int, seed: int = 0) -> str:
    """A contract of about `chars` characters: parties first, numbered sections of clauses, governing law last."""
    rng = random.Random(seed)
    head = ("MUTUAL NON-DISCLOSURE AGREEMENT\n\nThis Agreement is made between Northwind Analytics Ltd. and "
            "Bluefin Robotics Inc. (the parties).\n\n")
    tail = "\n\nThis Agreement shall be governed by the laws of the State of Delaware.\n"
    parts, size, section = [head], len(head) + len(tail), 1
    while size < chars:
        body = " ".join(rng.choice(_CLAUSES) for _ in range(rng.randint(3, 6)))
        block = f"{section}. {body}\n\n"
        parts.append(block)
        size, section = size + len(block), section + 1
    return "".join(parts).rstrip() + tail


def one(chars: int, window: int | None, max_tokens: int) -> dict[str, Any]:
    """One extraction in this process: its figures (peak RSS read after it)."""
    from extractor import Extractor, ExtractorError
    from extractor.tracing import Traced
    from schemas import NDA

    ex, text = Extractor(), contract(chars)
    tokens = len(ex.tokenizer(text, add_special_tokens=False)["input_ids"])
    start = time.perf_counter()
    try:
        # every window read (`focus=False`): what reading a text of this length costs, which is what this measures;
        # by default a text this long is read only where it holds the target
        out: Any = ex.extract(NDA, text, window=window, max_tokens=max_tokens, focus=False, with_trace=True)
        windows = len(out.trace.windows) if isinstance(out, Traced) else 0
        answer = out.result.model_dump(mode="json") if isinstance(out, Traced) and isinstance(out.result, NDA) \
            else repr(getattr(out, "result", out))[:200]
    except ExtractorError as exc:
        windows, answer = 0, f"{type(exc).__name__}: {str(exc)[:200]}"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"chars": len(text), "tokens": tokens, "windows": windows, "seconds": round(seconds, 2),
            "seconds_per_100k": round(seconds / len(text) * 100_000, 2), "peak_rss_mib": round(peak, 1),
            "answer": answer}


def markdown(result: dict[str, Any]) -> str:
    head = (f"# One extraction as the text grows (generated contract)\n\nModel: {result['model']}; greedy; "
            f"max_tokens {result['max_tokens']}; window {result['window'] or 'from the context'}; each size in a "
            f"fresh process; commit `{result['commit']}`. Time over length, largest to smallest: "
            f"**{result['linearity']}×** linear.\n\n")
    rows = ["| characters | tokens | windows | seconds | seconds per 100k chars | peak RSS MiB | answer |",
            "|---:|---:|---:|---:|---:|---:|---|"]
    for r in result["runs"]:
        answer = json.dumps(r["answer"], ensure_ascii=False) if isinstance(r["answer"], dict) else r["answer"]
        rows.append(f"| {r['chars']:,} | {r['tokens']:,} | {r['windows']} | {r['seconds']} | {r['seconds_per_100k']} "
                    f"| {r['peak_rss_mib']} | {answer.replace('|', '/')[:160]} |")
    return head + "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="characters, comma-separated")
    parser.add_argument("--window", type=int, default=None, help="tokens of text per window (default: the context)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    if args.one is not None:  # the child: one size, its figures on stdout
        print(json.dumps(one(args.one, args.window, args.max_tokens)))
        return
    runs = []
    for size in sorted(int(s) for s in args.sizes.split(",") if s):
        command = [sys.executable, __file__, "--one", str(size), "--max-tokens", str(args.max_tokens)]
        if args.window is not None:
            command += ["--window", str(args.window)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"{size:,} characters: {runs[-1]['seconds']} s, {runs[-1]['peak_rss_mib']} MiB", file=sys.stderr)
    small, large = runs[0], runs[-1]
    linearity = round((large["seconds"] / small["seconds"]) / (large["chars"] / small["chars"]), 3) \
        if len(runs) > 1 and small["seconds"] else None
    result = {"commit": commit(), "model": "embedded SmolLM2-135M-Instruct", "window": args.window,
              "max_tokens": args.max_tokens, "linearity": linearity, "runs": runs}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
