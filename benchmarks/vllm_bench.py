"""The same requests through vLLM with each structured-output backend: extractor's, XGrammar (vLLM's default)
and llguidance ("guidance"): throughput, time to first token, compile time, time in the backend per step,
validity under jsonschema, refusals and wrong accepts.

usage: python benchmarks/vllm_bench.py [--maskbench N] [--documents N] [--seed S] [--max-tokens N]
                                       [--backends extractor,xgrammar,guidance] [--model PATH] [--json OUT] [--md OUT]

Runs in an environment with vLLM (`make test-vllm` builds .venv-vllm): `.venv-vllm/bin/python
benchmarks/vllm_bench.py`. Requests: `--maskbench` MaskBench schemas (a seeded sample; the model is asked for
one JSON value of the schema) and `--documents` labeled documents of benchmarks/data/quality (test split) with
their `schemas/` target and the library's prompt. Each backend runs in a fresh process with a fresh engine
(greedy decoding, the same prompts and token budget). A first pass sends the requests one at a time, each
with a budget of one token: it records which requests the backend refuses and how long each schema takes to
compile (cold). The timed pass then sends every accepted request at once, as a server's queue would (compiled
grammars are cached by every backend by then, so it measures decoding). An output is valid when it is whole
(not cut by the budget) and valid under jsonschema (formats checked); a wrong accept is a whole output the
backend let through that jsonschema rejects.
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

from benchmarks.common import MASKBENCH_DATA, REPO, commit, percentiles, write_results  # noqa: E402

BACKENDS = ("extractor", "xgrammar", "guidance")
DOCUMENTS = REPO / "benchmarks" / "data" / "quality" / "documents.jsonl"
ASK = "Write one JSON value that is valid under this JSON Schema, and nothing else.\n\nSchema:\n{schema}"


def requests(maskbench: int, documents: int, seed: int) -> list[dict[str, Any]]:
    """(id, schema, chat messages) for every request, the same for every backend."""
    from extractor.decode.prompt import PromptTemplate, messages
    from extractor.schema import json_schema

    out = []
    files = sorted(MASKBENCH_DATA.glob("*.json"))
    for path in random.Random(seed).sample(files, min(maskbench, len(files))):
        schema = json.loads(path.read_text())["schema"]
        text = json.dumps(schema)
        if len(text) > 4000:  # the prompt must fit the engine's context with room to answer
            continue
        out.append({"id": path.stem, "schema": schema,
                    "messages": [{"role": "user", "content": ASK.format(schema=text)}]})
    import schemas

    docs = [json.loads(line) for line in DOCUMENTS.read_text().splitlines()]
    picked = [d for d in docs if d["split"] == "test" and d["gold"] is not None]
    for doc in random.Random(seed).sample(picked, min(documents, len(picked))):
        schema = json_schema(getattr(schemas, doc["target"]))
        out.append({"id": doc["id"], "schema": schema, "messages": messages(schema, doc["text"], PromptTemplate(),
                                                                           refusal=False)})
    return out


def worker(backend: str, model: str, max_tokens: int, path: Path) -> dict[str, Any]:
    """One backend in this process: a fresh engine, the refusal and compile pass, then the timed pass."""
    os.environ["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"  # the engine in this process, so its backend can be timed
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    os.environ.setdefault("VLLM_CPU_OMP_THREADS_BIND", "nobind")
    if backend == "extractor":
        os.environ["EXTRACTOR_VLLM"] = "1"
        from extractor.integrations.vllm import register

        register()
    from vllm import LLM, SamplingParams
    from vllm.sampling_params import StructuredOutputsParams

    compile_ms, step_s = _timed_backend(backend)
    llm = LLM(model=model, max_model_len=4096, enforce_eager=True, seed=0, disable_log_stats=False,
              structured_outputs_config={"backend": "auto" if backend == "extractor" else backend})
    tokenizer = llm.get_tokenizer()
    reqs = json.loads(path.read_text())
    prompts = [tokenizer.apply_chat_template(r["messages"], tokenize=False, add_generation_prompt=True) for r in reqs]

    def params(r: dict[str, Any], budget: int) -> SamplingParams:
        return SamplingParams(max_tokens=budget, temperature=0.0,
                              structured_outputs=StructuredOutputsParams(json=r["schema"]))

    refused: dict[str, str] = {}
    for r, prompt in zip(reqs, prompts):
        try:
            [out] = llm.generate([prompt], params(r, 1), use_tqdm=False)
            if out.outputs[0].finish_reason not in ("length", "stop"):
                refused[r["id"]] = f"finished with {out.outputs[0].finish_reason}"
        except Exception as exc:  # noqa: BLE001 - any refusal, by type and message
            refused[r["id"]] = f"{type(exc).__name__}: {exc}"[:300]
    cold = list(compile_ms)
    steps_before = len(step_s)
    accepted = [(r, p) for r, p in zip(reqs, prompts) if r["id"] not in refused]
    start = time.perf_counter()
    outputs = llm.generate([p for _, p in accepted], [params(r, max_tokens) for r, _ in accepted], use_tqdm=False)
    wall = time.perf_counter() - start
    rows = []
    for (r, _), out in zip(accepted, outputs):
        done = out.outputs[0]
        metrics = getattr(out, "metrics", None)
        ttft = getattr(metrics, "first_token_latency", None) if metrics is not None else None
        rows.append({"id": r["id"], "text": done.text, "tokens": len(done.token_ids),
                     "whole": done.finish_reason == "stop", "ttft_ms": None if not ttft else round(ttft * 1e3, 1)})
    timed_steps = step_s[steps_before:]
    return {"refused": refused, "rows": rows, "wall_s": wall, "compile_ms": cold,
            "backend_us_per_step": round(1e6 * sum(timed_steps) / max(1, sum(x["tokens"] for x in rows)), 1)}


def _timed_backend(backend: str) -> tuple[list[float], list[float]]:
    """Wrap the backend's compile and its per-step work with timers: the manager's mask step (vLLM's loop calling
    `fill_bitmask` per request, or for extractor the plugin's batch step) and each request's token acceptance."""
    import functools

    from vllm.v1.structured_output import StructuredOutputManager as Manager

    if backend == "extractor":
        from extractor.integrations.vllm.backend import ExtractorBackend as Backend, ExtractorGrammar as Grammar
    elif backend == "xgrammar":
        from vllm.v1.structured_output.backend_xgrammar import XgrammarBackend as Backend, XgrammarGrammar as Grammar
    else:
        from vllm.v1.structured_output.backend_guidance import GuidanceBackend as Backend, GuidanceGrammar as Grammar
    compile_ms: list[float] = []
    step_s: list[float] = []

    def timed(fn: Any, sink: list[float], scale: float) -> Any:
        @functools.wraps(fn)  # (keeps the plugin's mark on a step it patched: it is not patched twice)
        def wrapper(*args: Any, **kw: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                sink.append((time.perf_counter() - start) * scale)
        return wrapper

    Backend.compile_grammar = timed(Backend.compile_grammar, compile_ms, 1e3)
    Manager.grammar_bitmask = timed(Manager.grammar_bitmask, step_s, 1.0)
    Grammar.accept_tokens = timed(Grammar.accept_tokens, step_s, 1.0)
    return compile_ms, step_s


def score(reqs: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """One backend's figures from its worker's output."""
    from jsonschema import FormatChecker
    from jsonschema.validators import validator_for

    schemas = {r["id"]: r["schema"] for r in reqs}
    valid, wrong, cut = [], [], []
    for row in run["rows"]:
        if not row["whole"]:
            cut.append(row["id"])
            continue
        schema = schemas[row["id"]]
        try:
            ok = validator_for(schema)(schema, format_checker=FormatChecker()).is_valid(json.loads(row["text"]))
        except (ValueError, RecursionError):
            ok = False
        (valid if ok else wrong).append(row["id"])
    tokens = sum(row["tokens"] for row in run["rows"])
    ttft = [row["ttft_ms"] for row in run["rows"] if row["ttft_ms"] is not None]
    return {"requests": len(reqs), "refused": len(run["refused"]), "accepted": len(run["rows"]),
            "valid_rate": round(len(valid) / len(reqs), 3), "valid": len(valid), "cut": len(cut),
            "wrong_accept": len(wrong), "requests_per_s": round(len(run["rows"]) / run["wall_s"], 3),
            "output_tokens_per_s": round(tokens / run["wall_s"], 1),
            "ttft_ms_p50": percentiles(ttft, {"p50": 50})["p50"],
            "compile_ms": percentiles(run["compile_ms"], {"p50": 50, "p99": 99}),
            "backend_us_per_step": run["backend_us_per_step"],
            "refused_ids": run["refused"], "wrong_ids": wrong, "cut_ids": cut, "valid_ids": valid}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--maskbench", type=int, default=40)
    parser.add_argument("--documents", type=int, default=12)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--model", default=None, help="a model folder (default: the embedded SmolLM2, converted)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--md", type=Path)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--requests-file", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        args.out.write_text(json.dumps(worker(args.worker, args.model, args.max_tokens, args.requests_file)))
        return
    import vllm

    from extractor.decode.model import embedded_path

    model = args.model or embedded_path()
    reqs = requests(args.maskbench, args.documents, args.seed)
    import torch

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"
    result: dict[str, Any] = {"commit": commit(), "vllm": vllm.__version__, "device": device, "model": model,
                              "max_tokens": args.max_tokens, "maskbench": args.maskbench, "documents": args.documents,
                              "seed": args.seed, "prepare_ms": os.environ.get("EXTRACTOR_VLLM_PREPARE_MS"),
                              "backends": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "requests.json"
        path.write_text(json.dumps(reqs))
        for backend in args.backends.split(","):
            out = Path(tmp) / f"{backend}.json"
            subprocess.run([sys.executable, __file__, "--worker", backend, "--model", model, "--max-tokens",
                            str(args.max_tokens), "--requests-file", str(path), "--out", str(out)], check=True)
            result["backends"][backend] = score(reqs, json.loads(out.read_text()))
    result["switch_reasons"] = _switch_reasons(result["backends"])
    write_results(result, markdown(result), args.json, args.md)


def _switch_reasons(backends: dict[str, Any]) -> dict[str, list[str]]:
    """Requests a vLLM backend refuses or gets wrong that extractor compiles and answers validly."""
    ours = backends.get("extractor")
    if ours is None:
        return {}
    good = set(ours["valid_ids"])
    return {name: sorted((set(b["refused_ids"]) | set(b["wrong_ids"])) & good)
            for name, b in backends.items() if name != "extractor"}


def markdown(result: dict[str, Any]) -> str:
    cols = ["requests", "refused", "valid_rate", "cut", "wrong_accept", "requests_per_s", "output_tokens_per_s",
            "ttft_ms_p50", "compile p50 ms", "compile p99 ms", "backend_us_per_step"]
    lines = [f"# vLLM structured-output backends ({result['vllm']}, {result['device']})", "",
             f"commit {result['commit']}; {result['maskbench']} MaskBench schemas (seed {result['seed']}) and "
             f"{result['documents']} labeled documents; greedy, {result['max_tokens']} tokens at most"
             + (f"; EXTRACTOR_VLLM_PREPARE_MS={result['prepare_ms']}" if result.get("prepare_ms") is not None else "")
             + ".", "",
             "| backend | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, b in result["backends"].items():
        values = [b[c] for c in cols[:8]] + [b["compile_ms"]["p50"], b["compile_ms"]["p99"], b["backend_us_per_step"]]
        lines.append(f"| {name} | " + " | ".join("" if v is None else str(v) for v in values) + " |")
    for name, ids in result.get("switch_reasons", {}).items():
        lines += ["", f"Refused or answered wrongly by {name}, answered validly by extractor ({len(ids)}): "
                  + (", ".join(ids) or "none")]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
