"""What one forward pass costs per number of tokens fed: the model's own forward against extractor's loop.

usage: python benchmarks/passes.py [--json OUT] [--md OUT.md] [--widths 1,2,3,4,8,13] [--context 450]
                                   [--repeats 8] [--threads 1]

On the embedded model, a cache of `--context` random tokens, then passes of each width (3 per sample,
from a copy of the same cache), every position's logits computed as verification needs them:

- `model`: the model's forward with transformers' SDPA (logits_to_keep = width);
- `loop, all logits`: the base model with extractor's attention, then its own output layer, all logits;
- `loop, sparse`: the same, every position's mask allowing 2,000 tokens (a key, number or enum).

The three are interleaved sample by sample, so machine load hits them alike; medians are reported.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import write_results  # noqa: E402
from extractor.decode import load_model  # noqa: E402
from extractor.decode.attention import NAME  # noqa: E402
from extractor.decode.head import PassLogits  # noqa: E402

MODES = ("model", "loop, all logits", "loop, sparse")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/passes.json"))
    parser.add_argument("--md", type=Path, default=None)
    parser.add_argument("--widths", default="1,2,3,4,8,13")
    parser.add_argument("--context", type=int, default=450)
    parser.add_argument("--repeats", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    lm = load_model(device="cpu")
    if lm.head is None or lm.model.config._attn_implementation != NAME:
        sys.exit("the loop's CPU path is not in use for this model (no split head or attention)")
    widths = [int(w) for w in args.widths.split(",")]
    ms = {mode: {} for mode in MODES}
    with torch.inference_mode():
        gen = torch.Generator().manual_seed(0)
        cache = lm.model(input_ids=torch.randint(100, 40000, (1, args.context), generator=gen), use_cache=True).cache
        sparse = torch.zeros(lm.head.layer.out_features, dtype=torch.bool)
        sparse[torch.randperm(sparse.numel(), generator=gen)[:2000]] = True
        for width in widths:
            ids = torch.randint(100, 40000, (1, width), generator=gen)
            samples: dict[str, list[float]] = {mode: [] for mode in MODES}
            for _ in range(args.repeats):
                for mode in MODES:
                    samples[mode].append(_passes(lm, copy.deepcopy(cache), ids, mode, sparse))
            for mode in MODES:
                ms[mode][str(width)] = round(statistics.median(samples[mode]), 2)
            print(f"{width} tokens: " + ", ".join(f"{m} {ms[m][str(width)]:.1f} ms" for m in MODES), file=sys.stderr)
    result = {"ms_per_pass": ms, "setup": {"context": args.context, "repeats": args.repeats,
                                           "threads": args.threads, "model": lm.name}}
    write_results(result, _markdown(result, widths), args.json, args.md or args.json.with_suffix(".md"))


def _passes(lm: Any, cache: Any, ids: torch.Tensor, mode: str, sparse: torch.Tensor, n: int = 3) -> float:
    """Milliseconds per pass, over `n` passes of `ids` extending `cache`."""
    width = ids.shape[1]
    lm.model.set_attn_implementation("sdpa" if mode == "model" else NAME)
    start = time.perf_counter()
    for _ in range(n):
        if mode == "model":
            cache = lm.model(input_ids=ids, cache=cache, use_cache=True, logits_to_keep=width).cache
            continue
        out = lm.model.base_model(input_ids=ids, cache=cache, use_cache=True)
        cache, logits = out.cache, PassLogits(out.last_hidden_state[0, -width:], lm.head)
        for j in range(width):
            logits.at(j, sparse if mode == "loop, sparse" else None)
    lm.model.set_attn_implementation(NAME)
    return (time.perf_counter() - start) / n * 1000


def _markdown(result: dict[str, Any], widths: list[int]) -> str:
    setup = result["setup"]
    lines = [f"One forward pass on {setup['model']}, CPU ({setup['threads']} threads), {setup['context']} cached "
             f"tokens, every position's logits; medians of {setup['repeats']} interleaved samples, ms.", "",
             "| tokens in the pass | " + " | ".join(str(w) for w in widths) + " |",
             "|---|" + "---:|" * len(widths)]
    for mode in MODES:
        lines.append(f"| {mode} | " + " | ".join(f"{result['ms_per_pass'][mode][str(w)]:.1f}" for w in widths) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
