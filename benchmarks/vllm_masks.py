"""A batch's mask time under the vLLM backend against one forward pass of the model at the same batch size:
is mask computation the bottleneck, and do threads (vLLM fills rows from a thread pool past 128 requests)
help?

usage: python benchmarks/vllm_masks.py [--batches 16,64] [--steps 48] [--schemas 40] [--seed 7] [--threads 2]
                                       [--json OUT] [--md OUT]

Runs where vLLM is installed (`.venv-vllm`). Each row of a batch is a request of its own: a MaskBench schema
from a seeded sample (cycled when the batch is larger), compiled by `ExtractorBackend` for the embedded model's
tokenizer, walked by random allowed tokens. Per decoding step the script times filling every row of vLLM's
shared bitmask, in one run one row after another and in a second run from a thread pool (rows split as vLLM
splits them); each run starts from an empty table cache and newly compiled grammars, so both pay the same
first visits. Then one forward pass of the embedded model (transformers, float32, one new token per row over a
256-token cache).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.common import MASKBENCH_DATA, commit, percentiles, write_results  # noqa: E402

CONTEXT = 256
"""Tokens in each row's KV cache for the forward pass."""


def grammars(backend: Any, n: int, batch: int, seed: int) -> list[Any]:
    """One grammar per row, from the first `n` sampled MaskBench schemas extractor compiles."""
    from vllm.v1.structured_output.backend_types import StructuredOutputOptions

    files = sorted(MASKBENCH_DATA.glob("*.json"))
    compiled = []
    for path in random.Random(seed).sample(files, len(files)):
        if len(compiled) == n:
            break
        try:
            compiled.append(json.dumps(json.loads(path.read_text())["schema"]))
            backend.compile_grammar(StructuredOutputOptions.JSON, compiled[-1])
        except Exception:  # noqa: BLE001 - refused schemas are skipped: the rows are what is measured
            compiled.pop()
    if not compiled:
        raise FileNotFoundError(f"{MASKBENCH_DATA}: no MaskBench schema here that extractor compiles ({len(files)} "
                                "files); tests/data.py says where the corpus is read")
    return [backend.compile_grammar(StructuredOutputOptions.JSON, compiled[i % len(compiled)]) for i in range(batch)]


def mask_times(rows: list[Any], steps: int, threads: int, seed: int) -> list[float]:
    """Per step, ms to fill every row of the bitmask: in order (`threads` 1), or from a pool of `threads`
    (16-row chunks, as vLLM splits them)."""
    import numpy as np
    import torch

    rng = np.random.default_rng(seed)
    bitmask = torch.full((len(rows), rows[0].grammar.vocab.size // 32 + 1), -1, dtype=torch.int32)
    pool = ThreadPoolExecutor(threads) if threads > 1 else None
    chunks = [range(k, min(k + 16, len(rows))) for k in range(0, len(rows), 16)]
    out = []

    def fill(chunk: range) -> None:
        for i in chunk:
            rows[i].fill_bitmask(bitmask, i)

    for _ in range(steps):
        for r in rows:  # a fresh request where the last one finished
            if r.is_terminated():
                r.reset()
        start = time.perf_counter()
        if pool is None:
            fill(range(len(rows)))
        else:
            list(pool.map(fill, chunks))
        out.append((time.perf_counter() - start) * 1e3)
        for i, r in enumerate(rows):
            r.accept_tokens(str(i), [int(rng.choice(np.flatnonzero(r.matcher.mask())))])
    if pool is not None:
        pool.shutdown()
    return out


def fresh() -> None:
    """Forget every mask table, in memory and on disk, so the next run visits them first again."""
    from extractor.masks.tables import TABLES

    TABLES.clear()
    TABLES.directory = Path(tempfile.mkdtemp(prefix="vllm-masks-"))


def forward_ms(model: Any, batch: int, repeats: int = 5) -> float:
    """Median ms of one decoding step: one new token per row over a CONTEXT-token cache."""
    import torch

    ids = torch.randint(100, 20000, (batch, CONTEXT))
    with torch.no_grad():
        past = model(ids, use_cache=True).past_key_values
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            model(torch.randint(100, 20000, (batch, 1)), past_key_values=past, use_cache=True)
            times.append((time.perf_counter() - start) * 1e3)
            past.crop(CONTEXT)
    return sorted(times)[len(times) // 2]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", default="16,64")
    parser.add_argument("--steps", type=int, default=48)
    parser.add_argument("--schemas", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    args = parser.parse_args(argv)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from extractor.decode.model import embedded_path
    from extractor.integrations.vllm import ExtractorBackend

    path = embedded_path()
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32).eval()
    torch.set_num_threads(args.threads)
    result: dict[str, Any] = {"commit": commit(), "threads": args.threads, "steps": args.steps,
                              "schemas": args.schemas, "seed": args.seed, "context": CONTEXT, "batches": {}}
    for batch in map(int, args.batches.split(",")):
        runs = []
        for threads in (1, args.threads):  # each from cold tables and new grammars: the same walk, first visits included
            fresh()
            backend = ExtractorBackend(None, tokenizer=tokenizer, vocab_size=model.config.vocab_size)
            runs.append(mask_times(grammars(backend, args.schemas, batch, args.seed), args.steps, threads, args.seed))
        serial, parallel = runs
        keys = {"p50": 50, "p99": 99, "max": 100, "avg": 0}
        result["batches"][str(batch)] = {"masks_ms": percentiles(serial, keys),
                                         "masks_threaded_ms": percentiles(parallel, keys),
                                         "forward_ms": round(forward_ms(model, batch), 2)}
    write_results(result, markdown(result), args.json, args.md)


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# Masks of a batch against a forward pass (commit {result['commit']})", "",
             f"{result['schemas']} MaskBench schemas (seed {result['seed']}), {result['steps']} steps, cold table "
             f"cache, {result['threads']} threads; forward: the embedded model, float32, {result['context']}-token "
             f"cache.", "",
             "| batch | masks p50 ms | masks avg ms | masks p99 ms | threaded p50 ms | threaded avg ms | forward ms |",
             "|---|---|---|---|---|---|---|"]
    for batch, b in result["batches"].items():
        m, t = b["masks_ms"], b["masks_threaded_ms"]
        lines.append(f"| {batch} | {m['p50']} | {m['avg']} | {m['p99']} | {t['p50']} | {t['avg']} | {b['forward_ms']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
