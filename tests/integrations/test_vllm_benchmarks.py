"""The vLLM benchmark scripts on a tiny input (their figures come from full runs): each runs and writes what it
says, so a change that breaks one fails `make test-vllm`. Each reads the repository's MaskBench sample, so the same
schemas run wherever the suite does."""

from __future__ import annotations

import importlib
import json

import pytest

from tests.data import MASKBENCH_SAMPLE, need

pytest.importorskip("vllm", reason="vLLM is not installed here: `make test-vllm` installs it in .venv-vllm")


@pytest.fixture
def sample(monkeypatch):
    """The benchmarks that read MaskBench in this process read the repository's sample (backend_replay's children
    are told with --data)."""
    for name in ("vllm_masks", "vllm_bench"):
        monkeypatch.setattr(importlib.import_module(f"benchmarks.{name}"), "MASKBENCH_DATA", need(MASKBENCH_SAMPLE))
    return MASKBENCH_SAMPLE


def test_the_mask_fill_benchmark_runs_on_two_schemas(tmp_path, sample):
    import torch

    from benchmarks.vllm_masks import main

    threads = torch.get_num_threads()
    try:
        main(["--batches", "2", "--steps", "2", "--schemas", "2", "--threads", "1", "--json", str(tmp_path / "m.json"),
              "--md", str(tmp_path / "m.md")])
    finally:
        torch.set_num_threads(threads)
    result = json.loads((tmp_path / "m.json").read_text())
    assert set(result["batches"]) == {"2"}


def test_the_backend_benchmark_runs_one_request_of_each_kind_through_our_backend(tmp_path, sample):
    from benchmarks.vllm_bench import main

    main(["--maskbench", "1", "--documents", "1", "--max-tokens", "8", "--backends", "extractor",
          "--json", str(tmp_path / "b.json"), "--md", str(tmp_path / "b.md")])
    ours = json.loads((tmp_path / "b.json").read_text())["backends"]["extractor"]
    assert ours["requests"] == 2 and ours["wrong_accept"] == 0


def test_the_replay_benchmark_runs_two_streams_through_every_backend(tmp_path, sample):
    from benchmarks.backend_replay import main

    main(["--streams", "2", "--batches", "2", "--drafts", "2", "--mix", "2", "--data", str(sample), "--clock", "cpu",
          "--backends", "extractor,xgrammar,guidance,extractor-unguarded",
          "--json", str(tmp_path / "r.json"), "--md", str(tmp_path / "r.md")])
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["clock"] == "cpu" and "the thread's CPU time" in (tmp_path / "r.md").read_text()
    assert set(result["runs"]) == {"batch 2, drafts 0", "batch 2, drafts 2"}
    assert set(result["mix"]) == {"batch 2, drafts 0"}
    rows = [(run, "warm") for run in result["runs"].values()] + [(run, "mix") for run in result["mix"].values()]
    for run, phase in rows:
        assert run["streams_common"] >= 2, run  # every instance is valid JSON every backend accepts
        assert all(run[name][phase]["request_steps"] > 0
                   for name in ("extractor", "xgrammar", "guidance", "extractor-unguarded"))
    assert "mean ÷ XGrammar's" in (tmp_path / "r.md").read_text()
