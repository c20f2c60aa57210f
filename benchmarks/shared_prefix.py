"""What feeding a batch's shared prompt prefix once saves: `extract_many` over texts of one target, with the prefix
every prompt begins with (the instruction and the schema) fed once and its cache copied to each row, against
each row fed its whole prompt (`decode.loop.SHARED_PREFIX` raised past any prompt).

usage: python benchmarks/shared_prefix.py [--target ContactCard] [--docs 8] [--batch 8] [--max-tokens 64]
           [--repeats 2] [--json OUT] [--md OUT]

Texts: the generated quality set's documents of the target (benchmarks/data/quality/documents.jsonl), the first
`--docs`. Both ways run `--repeats` times, alternating, on one loaded model; reported: the best wall time of each,
the time to the first real pass (prefill), prompt tokens per document and the prefix they share, and whether
every output is the same both ways (greedy).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "quality" / "documents.jsonl"


def texts(target: str, n: int) -> list[str]:
    """The first `n` generated documents written for `target`."""
    docs = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    return [d["text"] for d in docs if d["target"] == target][:n]


def run(ex: Any, target: Any, batch: list[str], size: int, max_tokens: int, shared: bool) -> tuple[float, float, list]:
    """One `extract_many`: wall seconds, the longest prefill, and the outputs."""
    import extractor.decode.loop as loop

    kept = loop.SHARED_PREFIX
    loop.SHARED_PREFIX = kept if shared else 1 << 30
    try:
        start = time.perf_counter()
        out = ex.extract_many(target, batch, batch_size=size, max_tokens=max_tokens, max_retries=0, progress=False,
                              with_usage=True)
        seconds = time.perf_counter() - start
    finally:
        loop.SHARED_PREFIX = kept
    prefill = max((u.prefill_seconds for _, u in out), default=0.0)
    return seconds, prefill, [repr(r) for r, _ in out]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="ContactCard")
    parser.add_argument("--docs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)

    import schemas
    from extractor import Extractor
    from extractor.decode.loop import _shared
    from extractor.schema import json_schema

    ex, target, batch = Extractor(), getattr(schemas, args.target), texts(args.target, args.docs)
    prompts = [ex.prompt_ids(json_schema(target), t, []) for t in batch]
    best: dict[bool, tuple[float, float]] = {}
    outputs: dict[bool, list] = {}
    for _ in range(args.repeats):
        for shared in (True, False):
            seconds, prefill, outputs[shared] = run(ex, target, batch, args.batch, args.max_tokens, shared)
            best[shared] = min(best.get(shared, (seconds, prefill)), (seconds, prefill))
            print(f"shared={shared}: {seconds:.2f} s", file=sys.stderr, flush=True)
    prefix = _shared(prompts)
    result = {"commit": commit(), "model": "embedded SmolLM2-135M-Instruct", "target": args.target,
              "docs": len(batch), "batch": args.batch, "max_tokens": args.max_tokens, "repeats": args.repeats,
              "prompt_tokens_mean": round(sum(map(len, prompts)) / len(prompts), 1), "shared_prefix_tokens": prefix,
              "seconds_shared": round(best[True][0], 2), "seconds_per_row": round(best[False][0], 2),
              "prefill_shared": round(best[True][1], 2), "prefill_per_row": round(best[False][1], 2),
              "speedup": round(best[False][0] / best[True][0], 3) if best[True][0] else None,
              "identical": outputs[True] == outputs[False]}
    write_results(result, markdown(result), args.json, args.md)


def markdown(r: dict[str, Any]) -> str:
    return (f"# A batch's shared prompt prefix, fed once\n\nModel: {r['model']}; `extract_many` of {r['docs']} "
            f"generated {r['target']} documents at batch {r['batch']}, greedy, max_tokens {r['max_tokens']}; best "
            f"of {r['repeats']}; commit `{r['commit']}`.\n\n"
            f"| prompt tokens per document | shared prefix | prefix fed | wall s | prefill s (first pass) | outputs |\n"
            f"|---:|---:|---|---:|---:|---|\n"
            f"| {r['prompt_tokens_mean']} | {r['shared_prefix_tokens']} | once | {r['seconds_shared']} | "
            f"{r['prefill_shared']} | {'identical' if r['identical'] else 'DIFFER'} |\n"
            f"| {r['prompt_tokens_mean']} | {r['shared_prefix_tokens']} | per row | {r['seconds_per_row']} | "
            f"{r['prefill_per_row']} | |\n\nSpeed-up: **{r['speedup']}×**.\n")


if __name__ == "__main__":
    main()
