"""A Llama-3-8B-shaped model through `extract_many` on one device: per decoding step, the forward pass's time beside
the host's mask work, and how much of that work hides behind the pass (CUDA launches are asynchronous).

usage: python benchmarks/gpu_llama.py [--device cuda] [--tokenizer DIR] [--batches 1,16,64] [--max-tokens 64]
                                      [--repeats 3] [--tiny] [--commit SHA] [--json OUT] [--md OUT]

Model: `LlamaForCausalLM` from transformers' `LlamaConfig` in Llama-3-8B's shape (32 layers, 4,096 wide, 8 key-value
heads, 128,256 tokens), random weights in bfloat16 (`--tiny`: 2 layers, 64 wide, float32, for a CPU smoke run);
the real Llama-3 tokenizer (`tokenizer.json` and `tokenizer_config.json` in `--tokenizer`). Random weights write
nonsense, so the grammar decides the output's shape: the ContactCard schema on the sample documents, cycled, with no
refusal branch, a small token budget, no retries and no relevance screen — the decoding steps are what is measured
(benchmarks/step_clock.py says how a step is split).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import commit, write_results  # noqa: E402
from benchmarks.step_clock import StepClock, summary  # noqa: E402
from extractor import Extractor  # noqa: E402
import schemas  # noqa: E402
import tests.data  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "examples" / "data" / f"{name}.txt" for name in ("contact", "event", "invoice", "resume")]
LLAMA3_8B = dict(vocab_size=128_256, hidden_size=4096, intermediate_size=14_336, num_hidden_layers=32,
                 num_attention_heads=32, num_key_value_heads=8, max_position_embeddings=8192, rope_theta=500_000.0,
                 rms_norm_eps=1e-5, tie_word_embeddings=False)
TINY = dict(LLAMA3_8B, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2)


def tokenizer_dir(given: Path | None) -> Path:
    """The Llama-3 tokenizer's folder: the one given, else where `make data` fetches it (tests/data.py)."""
    folder = given or tests.data.tokenizer_dir("llama3")
    if not (folder / "tokenizer.json").is_file():
        raise FileNotFoundError(f"{folder / 'tokenizer.json'} is absent: `make data` fetches the tokenizers")
    return folder


def llama3_tokenizer(folder: Path) -> Any:
    """The fast tokenizer read from its file (AutoTokenizer would rebuild its pre-tokenizer), with the chat template
    and specials of its config; end of turn as EOS, as Llama-3-Instruct generates."""
    from transformers import PreTrainedTokenizerFast

    config = json.loads((folder / "tokenizer_config.json").read_text())
    tok = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"), bos_token=config["bos_token"],
                                  eos_token="<|eot_id|>", pad_token="<|end_of_text|>")
    tok.chat_template = config["chat_template"]
    return tok


def random_llama(tiny: bool, device: torch.device) -> torch.nn.Module:
    """A LlamaForCausalLM in Llama-3-8B's shape (or the tiny one) built on `device`, random weights, bf16 on CUDA."""
    from transformers import LlamaConfig, LlamaForCausalLM

    dtype = torch.bfloat16 if device.type == "cuda" else torch.float32
    config = LlamaConfig(**(TINY if tiny else LLAMA3_8B), bos_token_id=128_000, eos_token_id=128_009,
                         pad_token_id=128_001)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with device:
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(default)
    return model.eval()


def run_batch(ex: Extractor, texts: list[str], max_tokens: int, device: torch.device,
              repeats: int) -> dict[str, Any]:
    """`extract_many` over `texts` as one batch, `repeats` times, every step timed: the steps' figures pooled, and
    the calls' median wall time."""
    clock, walls, outcomes = StepClock(device), [], []
    with clock:
        for _ in range(repeats):
            start = time.perf_counter()
            results = ex.extract_many(schemas.ContactCard, texts, batch_size=len(texts), max_tokens=max_tokens,
                                      refusal=False, max_retries=0, min_relevance=None, progress=False)
            walls.append(time.perf_counter() - start)
            outcomes += [type(r).__name__ for r in results]
    return {"documents": len(texts), "repeats": repeats, "wall_s": round(statistics.median(walls), 3),
            **summary(clock.steps), "outcomes": {name: outcomes.count(name) for name in sorted(set(outcomes))}}


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(argv)
    device = torch.device(args.device)
    torch.manual_seed(0)
    start = time.perf_counter()
    model = random_llama(args.tiny, device)
    result = {
        "commit": args.commit or commit(), "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.machine(),
        "model": "tiny Llama (2 layers)" if args.tiny else "Llama-3-8B shape, random weights",
        "parameters": sum(p.numel() for p in model.parameters()), "dtype": str(next(model.parameters()).dtype),
        "torch": torch.__version__, "transformers": __import__("transformers").__version__,
        "python": platform.python_version(), "build_s": round(time.perf_counter() - start, 2),
        "max_tokens": args.max_tokens, "repeats": args.repeats, "native": _native(), "runs": [],
    }
    ex = Extractor(model, llama3_tokenizer(tokenizer_dir(args.tokenizer)))
    texts = [path.read_text() for path in DOCUMENTS]
    run_batch(ex, texts[:2], args.max_tokens, device, 1)  # warm-up: kernels, allocator, per-document grammars
    try:
        for n in (int(b) for b in args.batches.split(",")):
            run = run_batch(ex, [texts[i % len(texts)] for i in range(n)], args.max_tokens, device, args.repeats)
            result["runs"].append(run)
            print(f"batch {n}: {json.dumps(run)}", file=sys.stderr, flush=True)
    finally:  # the batches done so far, should a larger one fail
        write_results(result, _markdown(result), args.json, args.md or args.json.with_suffix(".md"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--tokenizer", type=Path, default=None)
    parser.add_argument("--batches", default="1,16,64")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="calls per batch size, their steps pooled")
    parser.add_argument("--tiny", action="store_true", help="a 2-layer model of the same vocabulary (smoke run)")
    parser.add_argument("--commit", default=None, help="the commit this tree is (a copy without .git)")
    parser.add_argument("--json", type=Path, default=Path("benchmarks/results/gpu_llama.json"))
    parser.add_argument("--md", type=Path, default=None)
    return parser


def _native() -> dict[str, bool]:
    """Which native modules loaded: the mask kernel, minimization's refinement, the guards' JSON tracker (each
    missing one falls back to Python or NumPy, slower)."""
    loaded = {}
    for name in ("extractor.masks._kernel", "extractor.lang._partition", "extractor.decode._tracker"):
        try:
            __import__(name)
            loaded[name.rsplit(".", 1)[1].lstrip("_")] = True
        except ImportError:
            loaded[name.rsplit(".", 1)[1].lstrip("_")] = False
    return loaded


def _markdown(r: dict[str, Any]) -> str:
    native = ", ".join(name for name, ok in r["native"].items() if ok) or "none"
    lines = [f"# Llama-3-8B shape through extract_many: mask against forward pass\n\n{r['model']} "
             f"({r['parameters'] / 1e9:.2f} B parameters, {r['dtype']}) on {r['device']} ({r['device_name']}), "
             f"torch {r['torch']}, transformers {r['transformers']}; real Llama-3 tokenizer; ContactCard on the "
             f"sample documents, at most {r['max_tokens']} tokens, greedy, no refusal branch or retries; "
             f"{r['repeats']} calls per batch size, their steps pooled; native modules: {native}. "
             f"Commit `{r['commit']}`.\n",
             "Per decoding step (medians): *forward* is the pass on the device (events around it), *launch* the "
             "host's time queuing it, *mask* the host's time computing the next masks while the pass runs, "
             "*exposed* the part of that mask time the device was idle for, *hidden* the share of all mask time "
             "the pass covered (and of steps whose every mask was ready before the pass ended), *after* the host's "
             "work once the logits are in (masks applied, tokens chosen, matchers advanced, drafts' own masks).\n",
             "| docs | steps | rows/step | forward ms | launch ms | mask ms | exposed ms | hidden (steps) | "
             "after ms | step ms | wall s |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for run in r["runs"]:
        if not run["steps"]:  # every output came whole from the prompt's pass (forced or drafted)
            lines.append(f"| {run['documents']} | 0 |" + " – |" * 8 + f" {run['wall_s']} |")
            continue
        lines.append(f"| {run['documents']} | {run['steps']} | {run['rows_mean']} | {run['forward_ms']} | "
                     f"{run['launch_ms']} | {run['mask_ms']} | {run['exposed_ms']} | {run['hidden_share']:.0%} "
                     f"({run['steps_hidden_share']:.0%}) | {run['after_ms']} | {run['step_ms']} | {run['wall_s']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
