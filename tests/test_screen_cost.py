"""The relevance screen's benchmarks and data: the short texts are what their generator writes, and the cost and
calibration scripts run on a tiny input and write what they say (their figures come from full runs)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SHORT = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "short"


def _generator():
    spec = importlib.util.spec_from_file_location("short_generate", SHORT / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_short_texts_are_what_the_generator_writes_and_each_split_has_both_labels(tmp_path):
    generator = _generator()
    generator.main(tmp_path / "documents.jsonl")
    assert (tmp_path / "documents.jsonl").read_bytes() == (SHORT / "documents.jsonl").read_bytes()
    docs = [json.loads(line) for line in (SHORT / "documents.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len({d["id"] for d in docs}) == len(docs)
    for split in ("dev", "test"):
        assert {d["answerable"] for d in docs if d["split"] == split} == {True, False}
    assert all(not any("description" in f for f in d["schema"]["properties"].values()) for d in docs)


@pytest.fixture
def torch_threads():
    """Scripts set torch's thread count for their own process; the suite's is put back."""
    torch = pytest.importorskip("torch", reason="the benchmarks run the embedded model")
    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


SMOKES = [  # (script, its tiny arguments, keys its JSON result must hold)
    ("screen_cost", ["--texts", "0", "--repeats", "1", "--threads", "1"], ["median_ratio", "runs", "commit"]),
    ("calibrate_refusal", ["--split", "dev", "--sets", "short", "--limit", "2", "--threads", "1"],
     ["chosen", "short", "documents", "commit"]),
]


@pytest.mark.parametrize(("script", "argv", "keys"), SMOKES, ids=[s[0] for s in SMOKES])
def test_a_screen_benchmark_runs_on_a_tiny_input(script, argv, keys, tmp_path, torch_threads):
    import importlib

    module = importlib.import_module(f"benchmarks.{script}")
    out = tmp_path / f"{script}.json"
    module.main([*argv, "--json", str(out), "--md", str(tmp_path / f"{script}.md")])
    result = json.loads(out.read_text())
    assert all(key in result for key in keys), sorted(result)
    assert (tmp_path / f"{script}.md").read_text().startswith("# ")
