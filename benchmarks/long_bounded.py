"""Time and peak memory of one `extract` of a long degenerate text: a run of one letter, or words with no space
between them, read in windows by the embedded model in a child process whose peak resident memory the operating
system reports.

usage: python benchmarks/long_bounded.py --chars N --kind letter|nospace [--window N] [--max-tokens N]
                                         [--limit-s S] --json OUT --md OUT

Reported: characters, the model's tokens, windows the answer's trace names, window reads (attempts: one per
window read, halves and follow-ups included), seconds of the `extract` call (the model's load apart), peak RSS
(MiB) of the child, and what came back (a result, a refusal, a typed error, or the time limit).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

WORDS = ("contact office invoice archive second floor river market garden letter number window paper stone "
         "morning yellow station copper little violet summer meeting").split()


def text_of(kind: str, chars: int) -> str:
    """`chars` characters of one letter (`letter`), or of words drawn from a fixed seed with nothing between
    them (`nospace`)."""
    if kind == "letter":
        return "a" * chars
    rng, parts, size = random.Random(0), [], 0
    while size < chars:
        parts.append(rng.choice(WORDS))
        size += len(parts[-1])
    return "".join(parts)[:chars]


def one(kind: str, chars: int, window: int | None, max_tokens: int) -> dict[str, Any]:
    """One extraction in this process: its figures."""
    from extractor import Extractor, ExtractorError
    from schemas import ContactCard

    started = time.perf_counter()
    ex, text = Extractor(), text_of(kind, chars)
    load = time.perf_counter() - started
    tokens = len(ex.tokenizer(text, add_special_tokens=False)["input_ids"])
    reads: list[Any] = []
    start = time.perf_counter()
    try:
        out = ex.extract(ContactCard, text, window=window, max_tokens=max_tokens, with_trace=True,
                         on_attempt=reads.append)  # a Traced: the result, and the windows it was read in
        windows = len(out.trace.windows)
        answer: Any = out.result.model_dump(mode="json") if isinstance(out.result, ContactCard) \
            else repr(out.result)[:200]
    except ExtractorError as exc:
        windows, answer = 0, f"{type(exc).__name__}: {str(exc)[:200]}"
    return {"chars": len(text), "tokens": tokens, "windows": windows, "window_reads": len(reads),
            "seconds": round(time.perf_counter() - start, 2), "load_seconds": round(load, 2), "answer": answer,
            "peak_rss_mib": _high_water(os.getpid())}


def measured(kind: str, chars: int, window: int | None, max_tokens: int, limit: float) -> dict[str, Any]:
    """One extraction in a child process, with the child's peak RSS; its outcome `timeout` past `limit` seconds."""
    command = [sys.executable, __file__, "--one", "--kind", kind, "--chars", str(chars), "--max-tokens",
               str(max_tokens), *(["--window", str(window)] if window is not None else [])]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, text=True)
        status, peak, timed_out = _wait(child, start + limit)
        out.seek(0)
        lines = out.read().strip().splitlines()
    if timed_out:
        run = {"chars": chars, "answer": f"timeout: not finished after {limit:g} s"}
    elif status == 0 and lines:
        run = json.loads(lines[-1])
    else:
        run = {"chars": chars, "answer": f"the child exited with status {status}"}
    run["wall_seconds"] = round(time.perf_counter() - start, 2)
    run["peak_rss_mib"] = round(max(peak, run.get("peak_rss_mib", 0.0)), 1)  # the child's own, read by both
    return run


def _wait(child: subprocess.Popen[str], deadline: float) -> tuple[int, float, bool]:
    """The child's exit status, its peak RSS in MiB and whether it was killed at `deadline`. The peak is the high
    water mark of the child's own memory (VmHWM, read while it runs), not `ru_maxrss`: that one survives fork and
    exec, so a child of a large process (a test suite) reports its parent's size."""
    peak = 0.0
    while child.poll() is None:
        peak = max(peak, _high_water(child.pid))
        if time.perf_counter() > deadline:
            child.kill()
            child.wait()
            return child.returncode, peak, True
        time.sleep(0.1)
    return child.returncode, peak, False


def _high_water(pid: int) -> float:
    """A running process's peak resident memory so far, in MiB (0 where it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0.0)


def markdown(result: dict[str, Any]) -> str:
    run = result["run"]
    answer = json.dumps(run["answer"], ensure_ascii=False) if isinstance(run["answer"], dict) else run["answer"]
    return (f"# One extraction of a long degenerate text ({result['kind']})\n\nModel: {result['model']}; greedy; "
            f"target ContactCard; max_tokens {result['max_tokens']}; window {result['window'] or 'from the context'};"
            f" a fresh child process; commit `{result['commit']}`; command `{result['command']}`.\n\n"
            "| characters | tokens | windows | window reads | seconds | seconds with load | peak RSS MiB | answer |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---|\n"
            f"| {run['chars']:,} | {run.get('tokens', '')} | {run.get('windows', '')} | {run.get('window_reads', '')} "
            f"| {run.get('seconds', '')} | {run['wall_seconds']} | {run['peak_rss_mib']} "
            f"| {answer.replace('|', '/')[:160]} |\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chars", type=int, required=True)
    parser.add_argument("--kind", choices=("letter", "nospace"), required=True)
    parser.add_argument("--window", type=int, default=None, help="tokens of text per window (default: the context)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--limit-s", type=float, default=7200, help="seconds the child may run")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    if args.one:  # the child: its figures on stdout
        print(json.dumps(one(args.kind, args.chars, args.window, args.max_tokens)))
        return
    run = measured(args.kind, args.chars, args.window, args.max_tokens, args.limit_s)
    command = " ".join(["python benchmarks/long_bounded.py", "--chars", str(args.chars), "--kind", args.kind,
                        *(["--window", str(args.window)] if args.window is not None else []),
                        "--max-tokens", str(args.max_tokens)])
    result = {"commit": commit(), "model": "embedded SmolLM2-135M-Instruct", "kind": args.kind,
              "window": args.window, "max_tokens": args.max_tokens, "command": command, "run": run}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
