"""The Llama-3-shaped GPU benchmark (benchmarks/gpu_llama.py) on CPU with a tiny config, and its step clock
(benchmarks/step_clock.py): it runs, writes what it says, and leaves the decoding loop as it found it."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch", reason="the benchmark decodes with a torch model")

from benchmarks import gpu_llama  # noqa: E402
from benchmarks.step_clock import Pass, StepClock, summary  # noqa: E402
from extractor.decode import loop, rows  # noqa: E402
from tests.data import need_tokenizer  # noqa: E402


def test_the_benchmark_runs_a_tiny_llama_on_cpu_and_writes_its_steps(tmp_path):
    need_tokenizer("llama3")
    out = tmp_path / "gpu_llama.json"
    gpu_llama.main(["--device", "cpu", "--tiny", "--batches", "1,2", "--repeats", "1", "--max-tokens", "12",
                    "--json", str(out)])
    result = json.loads(out.read_text())
    assert [run["documents"] for run in result["runs"]] == [1, 2]
    for run in result["runs"]:
        assert run["steps"] > 0 and run["forward_ms"] > 0
        assert run["hidden_share"] == pytest.approx(0.0, abs=0.05)  # a CPU pass is synchronous: nothing hides
    assert "| 2 |" in out.with_suffix(".md").read_text()


def test_the_clock_puts_the_loop_back_as_it_found_it():
    before = (loop._Batch.__init__, loop._Batch.forward, rows.Row.prepare, rows.Row.step, rows.Row._mask)
    with StepClock(torch.device("cpu")):
        assert loop._Batch.forward is not before[1]
    assert (loop._Batch.__init__, loop._Batch.forward, rows.Row.prepare, rows.Row.step, rows.Row._mask) == before


def test_a_mask_ready_before_the_pass_ends_is_hidden_and_one_after_it_exposed():
    hidden = Pass(rows=1, tokens=1, call=0.0, launched=0.001, prepared=True, mask_s=0.002, prep_end=0.003,
                  busy=True)
    late = Pass(rows=1, tokens=1, call=0.0, launched=0.001, prepared=True, mask_s=0.004, prep_end=0.005)
    assert hidden.exposed_s == 0.0
    assert late.exposed_s == pytest.approx(0.004)  # a synchronous pass: all of it after the pass
    figures = summary([hidden, late])
    assert figures["steps"] == 2 and figures["hidden_share"] == pytest.approx(1 - 0.004 / 0.006, abs=1e-4)
    assert figures["steps_hidden_share"] == 0.5
