"""One decoding step at several batch sizes: the embedded model's forward pass beside the grammar's work for as
many rows, on one device — which of the two sets a serving step's speed there.

usage: python benchmarks/gpu_step.py [--device cuda] [--batches 1,16,64,256] [--context 512] [--steps 32]
                                     [--stream-tokens 256] [--json OUT] [--md OUT]

Model: `--batches` rows of `--context` prompt tokens prefilled, then `--steps` one-token steps on the KV cache,
timed with the device synchronized; the median step is reported. Grammar: the ContactCard schema's token stream
(the embedded model's greedy constrained answer on examples/data/contact.txt), replayed by as many matchers as
rows, each step filling every row's packed mask and advancing every row (warm: a first pass visits the states);
median per step over the stream. The matchers alone: the loop guards and a serving engine's wrapper are not in it. The grammar runs on the host CPU whatever the device.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from extractor import Extractor  # noqa: E402
from extractor.decode import encode, generate, messages  # noqa: E402
from extractor.pipeline.inputs import guards_for  # noqa: E402
import schemas  # noqa: E402

TEXT = Path(__file__).resolve().parents[1] / "examples" / "data" / "contact.txt"


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


@torch.inference_mode()
def model_step(ex: Extractor, rows: int, context: int, steps: int) -> dict[str, Any]:
    """Median and p90 milliseconds of one single-token forward pass for `rows` rows over a `context`-token cache."""
    model, device, kwarg = ex.lm.model, ex.lm.device, ex.lm.cache_kwarg  # how forward() takes its KV cache
    vocab = model.config.vocab_size
    gen = torch.Generator().manual_seed(rows)
    ids = torch.randint(0, vocab, (rows, context), generator=gen).to(device)
    out = model(input_ids=ids, use_cache=True)
    cache = getattr(out, kwarg)
    step = torch.randint(0, vocab, (rows, 1), generator=gen).to(device)
    times = []
    for _ in range(steps):
        _sync(device)
        start = time.perf_counter()
        out = model(input_ids=step, use_cache=True, **{kwarg: cache})
        step = out.logits[:, -1:].argmax(-1)
        _sync(device)
        times.append(time.perf_counter() - start)
        cache = getattr(out, kwarg)
    times.sort()
    return {"median_ms": round(statistics.median(times) * 1e3, 3),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1e3, 3)}


def grammar_step(ex: Extractor, stream: list[int], rows: int) -> dict[str, Any]:
    """Median milliseconds per step for `rows` matchers to fill their packed masks and advance along `stream`."""
    grammar = ex.compile(schemas.ContactCard)
    words = (ex.vocab.size + 31) // 32
    out = np.zeros((rows, words), dtype=np.int32)
    for _ in range(2):  # the first pass visits the states, the second is timed
        matchers = [grammar.matcher() for _ in range(rows)]
        times = []
        for token in stream:
            start = time.perf_counter()
            for r, m in enumerate(matchers):
                m.fill_bitmask(out, r)
                m.advance(token)
            times.append(time.perf_counter() - start)
    return {"median_ms": round(statistics.median(times) * 1e3, 3),
            "per_row_us": round(statistics.median(times) * 1e6 / rows, 1)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--batches", default="1,16,64,256")
    parser.add_argument("--context", type=int, default=512)
    parser.add_argument("--steps", type=int, default=32)
    parser.add_argument("--stream-tokens", type=int, default=256, help="budget of the replayed answer")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/gpu_step.json"))
    parser.add_argument("--md", type=Path, default=None)
    args = parser.parse_args(argv)

    ex = Extractor(device=args.device)
    text = TEXT.read_text()
    prompt = encode(ex.lm.tokenizer, messages(schemas.ContactCard.model_json_schema(), text, ex.template))
    answer = generate(ex.lm, ex.vocab, prompt, ex.compile(schemas.ContactCard).matcher(), max_tokens=args.stream_tokens,
                      guards=guards_for(True, text), jump_forward=False)
    stream = list(answer.token_ids)
    runs = []
    for rows in (int(b) for b in args.batches.split(",")):
        m, g = model_step(ex, rows, args.context, args.steps), grammar_step(ex, stream, rows)
        runs.append({"rows": rows, "model": m, "grammar": g,
                     "grammar_over_model": round(g["median_ms"] / m["median_ms"], 3)})
        print(f"batch {rows}: model {m['median_ms']} ms, grammar {g['median_ms']} ms per step", file=sys.stderr,
              flush=True)
    device = ex.lm.device
    result = {
        "commit": commit(), "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.machine(),
        "dtype": str(next(ex.lm.model.parameters()).dtype), "torch": torch.__version__,
        "python": platform.python_version(), "context": args.context, "steps": args.steps,
        "stream_tokens": len(stream), "runs": runs,
    }
    write_results(result, _markdown(result), args.json, args.md or args.json.with_suffix(".md"))


def _markdown(r: dict[str, Any]) -> str:
    lines = [f"# One decoding step: model against grammar\n\nEmbedded SmolLM2-135M on {r['device']} "
             f"({r['device_name']}, {r['dtype']}, torch {r['torch']}); {r['context']}-token cache, median of "
             f"{r['steps']} steps. Grammar: ContactCard's {r['stream_tokens']}-token stream replayed by one matcher "
             f"per row (packed mask filled, token advanced), warm, on the host CPU. Commit `{r['commit']}`.\n",
             "| rows | model ms/step (p90) | grammar ms/step | grammar µs per row | grammar / model |",
             "|---:|---:|---:|---:|---:|"]
    for run in r["runs"]:
        m, g = run["model"], run["grammar"]
        lines.append(f"| {run['rows']} | {m['median_ms']} ({m['p90_ms']}) | {g['median_ms']} | {g['per_row_us']} | "
                     f"{run['grammar_over_model']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
