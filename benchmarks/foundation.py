"""Foundation figures on the embedded model: compile time, ms per token with and without the mask.

usage: python benchmarks/foundation.py [--json OUT] [--max-tokens N] [--schemas Resume,Event]
Writes JSON and prints a Markdown table. Unconstrained runs generate exactly as many tokens
as the constrained run produced (EOS suppressed), on the same prompt, so per-token times compare.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.e2e import documents  # noqa: E402
from extractor import Extractor  # noqa: E402
from extractor.decode import encode, generate, messages  # noqa: E402
from extractor.masks.compiler import _trie  # noqa: E402
from extractor.masks import TableCache  # noqa: E402
from extractor.masks.matcher import CompiledGrammar  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "examples" / "data"


class _Timed(CompiledGrammar):
    """Counts the seconds spent computing masks (the engine's whole per-step cost)."""

    seconds = 0.0

    def mask(self, config):  # type: ignore[override]
        start = time.perf_counter()
        try:
            return super().mask(config)
        finally:
            _Timed.seconds += time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="benchmarks/results/foundation.json")
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--schemas", default=None, help="only these schemas, comma-separated (default: all four)")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    ex = Extractor()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    trie = _trie(ex.vocab)
    trie_s = time.perf_counter() - t0
    rows = []
    for model, name in documents("matched", args.schemas):
        t0 = time.perf_counter()
        compiled = ex.compile(model)
        compile_s = time.perf_counter() - t0
        grammar = _Timed(compiled.automaton, ex.vocab, trie, tables=TableCache())
        prompt = encode(ex.lm.tokenizer, messages(model.model_json_schema(), (DATA / f"{name}.txt").read_text(),
                                                   ex.template))
        _Timed.seconds = 0.0
        cold = generate(ex.lm, ex.vocab, prompt, grammar.matcher(), max_tokens=args.max_tokens)
        cold_mask_s = _Timed.seconds
        _Timed.seconds = 0.0
        warm = generate(ex.lm, ex.vocab, prompt, grammar.matcher(), max_tokens=args.max_tokens)
        warm_mask_s = _Timed.seconds
        n = warm.usage.completion_tokens
        free = _unconstrained(ex, prompt, n)
        rows.append({
            "schema": model.__name__, "prompt_tokens": len(prompt), "output_tokens": n,
            "complete": warm.complete, "compile_ms": compile_s * 1e3,
            "constrained_ms_per_token": _per_token(warm), "unconstrained_ms_per_token": _per_token(free),
            "mask_ms_per_token_cold": cold_mask_s * 1e3 / max(cold.usage.completion_tokens, 1),
            "mask_ms_per_token_warm": warm_mask_s * 1e3 / max(n, 1),
            "output": warm.text,
        })
    result = {"model_load_s": load_s, "trie_build_s": trie_s, "vocab_size": ex.vocab.size, "rows": rows}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False))
    print(_markdown(result))


def _unconstrained(ex: Extractor, prompt: list[int], n: int):
    """Greedy generation of exactly n tokens with no mask (EOS suppressed by an empty eos set)."""
    from dataclasses import replace

    no_eos = replace(ex.vocab, eos_ids=frozenset(), fingerprint="")  # the content hash is made anew
    return generate(ex.lm, no_eos, prompt, None, max_tokens=n)


def _per_token(gen) -> float:
    """Decode time per output token, the prompt's prefill pass excluded."""
    return (gen.usage.seconds - gen.usage.prefill_seconds) * 1e3 / max(gen.usage.completion_tokens, 1)


def _markdown(result: dict) -> str:
    lines = [f"model load {result['model_load_s']:.1f} s, token trie {result['trie_build_s'] * 1e3:.0f} ms "
             f"(vocab {result['vocab_size']})", "",
             "| schema | prompt tok | output tok | compile ms | constrained ms/tok | unconstrained ms/tok "
             "| mask ms/tok cold | mask ms/tok warm |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in result["rows"]:
        lines.append(f"| {r['schema']} | {r['prompt_tokens']} | {r['output_tokens']} | {r['compile_ms']:.0f} | "
                     f"{r['constrained_ms_per_token']:.1f} | {r['unconstrained_ms_per_token']:.1f} | "
                     f"{r['mask_ms_per_token_cold']:.2f} | {r['mask_ms_per_token_warm']:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
