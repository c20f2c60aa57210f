"""Every benchmark script without a test of its own runs here on a tiny input, so a change that breaks one fails
the suite (its figures come from full runs; here only that it runs and writes what it says)."""

from __future__ import annotations

import importlib
import json

import pytest

from tests.benchmark_model import shared_model  # noqa: F401 - a fixture
from tests.data import MASKBENCH_SAMPLE, need

SMOKES = [  # (script, its tiny arguments, keys its JSON result must hold)
    ("foundation", ["--max-tokens", "4", "--schemas", "Event"], ["rows", "model_load_s"]),
    ("choice_orders", ["--sets", "needle", "--targets", "ContactCard", "--docs", "1", "--length", "1500",
                       "--needle-window", "128", "--needle-max-tokens", "96", "--threads", "1"],
     ["sets", "conflicts", "commit"]),
    ("gpu_step", ["--batches", "1,2", "--context", "8", "--steps", "2", "--stream-tokens", "8"], ["runs", "device"]),
    ("kv_cache", ["--contexts", "8,40", "--steps", "2", "--repeats", "1", "--threads", "1"], ["rows", "commit"]),
    ("layout_probe", ["--split", "dev", "--limit", "1", "--targets", "ContactCard", "--layouts", "compact"],
     ["layouts", "documents"]),
    ("passes", ["--widths", "1,2", "--context", "16", "--repeats", "1"], ["ms_per_pass"]),
    ("refusal_signals", ["--limit", "1", "--targets", "Event", "--tokens", "16", "--threads", "1"],
     ["auc", "documents"]),
    ("screen_cost", ["--texts", "0", "--repeats", "1", "--threads", "1"], ["median_ratio", "runs", "commit"]),
    ("calibrate_refusal", ["--split", "dev", "--sets", "short", "--limit", "2", "--threads", "1"],
     ["chosen", "short", "documents", "commit"]),
    ("table_cache", ["--sample", "2"], ["tables", "build_ms"]),
    ("window_signals", ["--docs", "1", "--lengths", "1200", "--contracts", "0", "--far-apart", "1"],
     ["shares", "needles", "far_apart", "long_lists", "commit"]),
    ("window_signals", ["--docs", "1", "--length", "1200", "--contracts", "0", "--far-apart", "0", "--kinds", "0"],
     ["texts", "commit"]),
    ("outside_kinds", ["--docs", "1", "--length", "1500", "--contracts", "0", "--far-apart", "1"],
     ["groups", "other_kind", "commit"]),
    ("threads", ["--settings", "1", "--competitors", "0", "--repeats", "1", "--max-tokens", "4"], ["seconds"]),
]


TITLED = {"screen_cost", "calibrate_refusal", "window_signals", "kv_cache", "choice_orders", "outside_kinds"}
"""Scripts whose Markdown opens with a title."""


@pytest.fixture
def torch_threads():
    """Scripts set torch's thread count for their own process; the suite's is put back."""
    torch = pytest.importorskip("torch", reason="the benchmarks decode with the embedded model")
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize(("script", "argv", "keys"), SMOKES, ids=[s[0] for s in SMOKES])
def test_a_benchmark_runs_on_a_tiny_input(script, argv, keys, tmp_path, torch_threads, shared_model, monkeypatch):
    module = importlib.import_module(f"benchmarks.{script}")
    if hasattr(module, "MASKBENCH_DATA"):  # the repository's sample: the same schemas wherever the suite runs
        monkeypatch.setattr(module, "MASKBENCH_DATA", need(MASKBENCH_SAMPLE))
    if hasattr(module, "LLAMA3"):
        need(module.LLAMA3)
    out = tmp_path / f"{script}.json"
    extra = ["--md", str(tmp_path / f"{script}.md")] if script != "foundation" else []
    module.main([*argv, "--json", str(out), *extra])
    result = json.loads(out.read_text())
    assert all(key in result for key in keys), sorted(result)
    assert script not in TITLED or (tmp_path / f"{script}.md").read_text().startswith("# ")
