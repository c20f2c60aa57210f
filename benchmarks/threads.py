"""One short extraction on a machine with other work running: torch's thread settings against competing
processes, to choose the settings that degrade gracefully.

usage: python benchmarks/threads.py [--settings 1,2,default,passive] [--competitors 0,1,2] [--repeats 3]
           [--max-tokens 30] [--json OUT] [--md OUT]

Each setting runs in a fresh process: `1` and `2` are `torch.set_num_threads(n)`; `default` is torch's own
choice (every core); `passive` is torch's choice with `OMP_WAIT_POLICY=PASSIVE` (idle threads sleep instead of
spinning). The extraction: the embedded model, `ContactCard` from examples/data/contact.txt, greedy, `--max-tokens`
tokens; once to warm up, then `--repeats` times, the median reported. Competitors are busy Python processes
(one core each), started before the settings run and stopped after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

TEXT = Path(__file__).resolve().parents[1] / "examples" / "data" / "contact.txt"
BUSY = "while True: pass"


def one(setting: str, repeats: int, max_tokens: int) -> dict[str, Any]:
    """This process's extractions under `setting` (its environment was set by the parent)."""
    import torch

    if setting.isdigit():
        torch.set_num_threads(int(setting))
    from extractor import Extractor
    from schemas import ContactCard

    from extractor import ExtractorError

    ex, text = Extractor(), TEXT.read_text()
    times = []
    for n in range(repeats + 1):  # the first warms up
        start = time.perf_counter()
        try:
            ex.extract(ContactCard, text, max_tokens=max_tokens, max_retries=0)
        except ExtractorError:
            pass  # a cut answer took its time all the same
        if n:
            times.append(time.perf_counter() - start)
    return {"threads": torch.get_num_threads(), "median_s": round(statistics.median(times), 3),
            "max_s": round(max(times), 3)}


def run(setting: str, repeats: int, max_tokens: int) -> dict[str, Any]:
    env = {**os.environ, **({"OMP_WAIT_POLICY": "PASSIVE"} if setting == "passive" else {})}
    done = subprocess.run([sys.executable, __file__, "--one", setting, "--repeats", str(repeats), "--max-tokens",
                           str(max_tokens)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--settings", default="1,2,default,passive")
    parser.add_argument("--competitors", default="0,1,2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=30)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    if args.one is not None:
        print(json.dumps(one(args.one, args.repeats, args.max_tokens)))
        return
    settings = args.settings.split(",")
    table: dict[str, dict[str, Any]] = {}
    for n in map(int, args.competitors.split(",")):
        busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(n)]
        try:
            for setting in settings:
                table.setdefault(setting, {})[str(n)] = run(setting, args.repeats, args.max_tokens)
                print(f"{setting}, {n} competing: {table[setting][str(n)]['median_s']} s", file=sys.stderr, flush=True)
        finally:
            for proc in busy:
                proc.kill()
                proc.wait()
    result = {"commit": commit(), "cores": os.cpu_count(), "repeats": args.repeats, "max_tokens": args.max_tokens,
              "seconds": table}
    write_results(result, markdown(result), args.json, args.md)


def markdown(r: dict[str, Any]) -> str:
    counts = list(next(iter(r["seconds"].values())))
    rows = ["| torch threads | " + " | ".join(f"{c} competing, s" for c in counts) + " |",
            "|---|" + "---:|" * len(counts)]
    for setting, by in r["seconds"].items():
        rows.append(f"| {setting} ({by[counts[0]]['threads']}) | " + " | ".join(str(by[c]["median_s"]) for c in counts)
                    + " |")
    return (f"# One short extraction beside other work\n\nThe embedded model, ContactCard from contact.txt, greedy, "
            f"{r['max_tokens']} tokens, median of {r['repeats']}; {r['cores']} cores; competitors are busy Python "
            f"processes; commit `{r['commit']}`.\n\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
