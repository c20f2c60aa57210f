"""What a decoding step costs as the context grows, with the model's own key-value cache and the one grown in place.

usage: python benchmarks/kv_cache.py [--contexts 512,2048,4096,8000] [--steps 16] [--repeats 3] [--threads 2]
                                     [--json OUT] [--md OUT.md]

On the embedded model: a prompt of `--contexts` random tokens fed 1,024 at a time (as the loop feeds one), then
`--steps` greedy one-token steps, timed. `own`: transformers' `DynamicCache`, which concatenates every layer's keys
and values at each step; `grown`: `extractor.decode.cache.growing_cache`, which writes them into room kept at the
end. The two alternate repeat by repeat, so machine load hits them alike; medians of ms per step are reported, and
the largest difference between the two runs' logits (0: the same arithmetic).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402

CHUNK = 1024
"""Tokens of the prompt fed a pass (the loop's `PREFILL_CHUNK`)."""


@torch.inference_mode()
def steps(lm: Any, ids: torch.Tensor, count: int, grown: bool) -> tuple[float, torch.Tensor]:
    """ms per step after the prompt `ids`, and the steps' logits."""
    from extractor.decode.cache import growing_cache

    cache, out = growing_cache(lm.model) if grown else None, None
    for at in range(0, ids.shape[1], CHUNK):
        out = lm.model(input_ids=ids[:, at:at + CHUNK], use_cache=True, **{lm.cache_kwarg: cache})
        cache = getattr(out, lm.cache_kwarg)
    token, logits = out.logits[:, -1:].argmax(-1), []
    start = time.perf_counter()
    for _ in range(count):
        out = lm.model(input_ids=token, use_cache=True, **{lm.cache_kwarg: cache})
        cache = getattr(out, lm.cache_kwarg)
        logits.append(out.logits[0, -1])
        token = out.logits[:, -1:].argmax(-1)
    return 1000 * (time.perf_counter() - start) / count, torch.stack(logits)


def measure(lm: Any, contexts: list[int], count: int, repeats: int) -> list[dict[str, Any]]:
    rows = []
    ids = torch.randint(100, len(lm.tokenizer) - 100, (1, max(contexts)), generator=torch.Generator().manual_seed(0))
    for context in contexts:
        own, grown, diff = [], [], 0.0
        for _ in range(repeats):
            a, la = steps(lm, ids[:, :context], count, False)
            b, lb = steps(lm, ids[:, :context], count, True)
            own.append(a)
            grown.append(b)
            diff = max(diff, (la - lb).abs().max().item())
        rows.append({"context": context, "own_ms": statistics.median(own), "grown_ms": statistics.median(grown),
                     "ratio": statistics.median(grown) / statistics.median(own), "max_logit_diff": diff})
    return rows


def markdown(result: dict[str, Any]) -> str:
    lines = ["# A decoding step against the context: the model's own cache and one grown in place", "",
             f"Model: embedded SmolLM2-135M-Instruct; {result['steps']} steps, median of {result['repeats']} "
             f"repeats; {result['threads']} thread(s); commit `{result['commit']}`.", "",
             "| context (tokens) | own cache (ms a step) | grown in place (ms a step) | grown / own | largest logit "
             "difference |", "|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['context']:,} | {r['own_ms']:.1f} | {r['grown_ms']:.1f} | {r['ratio']:.2f} | "
              f"{r['max_logit_diff']:g} |" for r in result["rows"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", default="512,2048,4096,8000")
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    contexts = [int(c) for c in args.contexts.split(",")]
    if min(contexts) < 1 or args.steps < 1 or args.repeats < 1:
        parser.error("--contexts, --steps and --repeats must be at least 1")
    torch.set_num_threads(args.threads)
    from benchmarks.common import commit
    from extractor import Extractor

    lm = Extractor().lm
    result = {"commit": commit(), "steps": args.steps, "repeats": args.repeats, "threads": args.threads,
              "rows": measure(lm, contexts, args.steps, args.repeats)}
    write_results(result, markdown(result), args.json, args.md)


if __name__ == "__main__":
    main()
