"""Compliance may only get better: the JSON Schema Test Suite and a MaskBench sample against stored results.

A case (JSTS) or schema (MaskBench) that passed in the stored baseline and no longer passes fails the
test, and so does any JSTS invalid instance the automaton accepts (soundness: zero wrong accepts).
New passes are fine; refresh the baselines after an improvement with

    python benchmarks/jsts.py --json benchmarks/results/jsts_baseline.json --md benchmarks/results/jsts_baseline.md
    python benchmarks/maskbench.py --sample 60 --seed 7 --json benchmarks/results/maskbench_baseline.json

Both read the repository's copies (benchmarks/data/: the suite's draft 2020-12 tests and the 60 MaskBench schemas
that sample picks) and the Llama-3 tokenizer `make data` fetches; without the tokenizer the MaskBench test skips.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import jsts, maskbench
from benchmarks.common import LLAMA3
from tests.data import JSTS_SUITE, MASKBENCH_SAMPLE, need

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "results"
JSTS_BASELINE = RESULTS / "jsts_baseline.json"
MASKBENCH_BASELINE = RESULTS / "maskbench_baseline.json"
REFRESH_JSTS = ("python benchmarks/jsts.py --json benchmarks/results/jsts_baseline.json "
                "--md benchmarks/results/jsts_baseline.md")
REFRESH_MASKBENCH = ("python benchmarks/maskbench.py --sample 60 --seed 7 "
                     "--json benchmarks/results/maskbench_baseline.json")

FAIL_ACCEPT_ALLOWED: dict[str, str] = {
    # "relpath#group#case": "why this wrong accept is tolerated, and the issue that removes it",
    # Keep this empty: an accepted invalid instance is a soundness bug in the compiler.
}


def _need(*paths: Path, baseline: Path, refresh: str) -> None:
    for path in paths:
        need(path)
    if not baseline.exists():
        pytest.skip(f"no stored baseline {baseline}; create it with: {refresh}")


def _report(lost: list[str], gained: list[str], refresh: str) -> None:
    if gained:
        print(f"\n{len(gained)} newly passing (first: {gained[:10]}); refresh the baseline with:\n    {refresh}")
    assert not lost, f"{len(lost)} passed in the baseline and no longer pass:\n" + "\n".join(lost)


def test_json_schema_test_suite_never_regresses() -> None:
    _need(JSTS_SUITE, baseline=JSTS_BASELINE, refresh=REFRESH_JSTS)
    baseline = json.loads(JSTS_BASELINE.read_text())["cases"]
    now = jsts.run(JSTS_SUITE)["cases"]

    wrong_accepts = sorted(k for k, v in now.items() if v == "fail-accept" and k not in FAIL_ACCEPT_ALLOWED)
    assert not wrong_accepts, "invalid instances accepted (soundness):\n" + "\n".join(wrong_accepts)
    lost = [f"{k}: pass -> {now.get(k, 'missing')}" for k, v in baseline.items()
            if v == "pass" and now.get(k) != "pass"]
    gained = [k for k, v in now.items() if v == "pass" and baseline.get(k) != "pass"]
    _report(lost, gained, REFRESH_JSTS)


def test_maskbench_sample_never_regresses() -> None:
    _need(MASKBENCH_SAMPLE, LLAMA3, baseline=MASKBENCH_BASELINE, refresh=REFRESH_MASKBENCH)
    stored = json.loads(MASKBENCH_BASELINE.read_text())
    cfg = stored["config"]
    result = maskbench.run(MASKBENCH_SAMPLE, LLAMA3, cfg["sample"], cfg["seed"], tuple(cfg["engines"]),
                           cfg["timeout"], progress=False)
    before = {(e["engine"], e["file"]): e for e in stored["schemas"]}
    now = {(e["engine"], e["file"]): e for e in result["schemas"]}

    lost, gained = [], []
    for key, old in before.items():
        new = now.get(key)
        if new is None:
            lost.append(f"{key}: missing from this run")
        elif old["status"] == "pass" and new["status"] != "pass":
            lost.append(f"{key}: pass -> {new['status']} {new['error'] or ''} {new['failures'][:2]}")
        elif new["wrong_accept"] > old["wrong_accept"]:
            lost.append(f"{key}: wrong accepts {old['wrong_accept']} -> {new['wrong_accept']} {new['failures'][:2]}")
        elif new["status"] == "pass" and old["status"] != "pass":
            gained.append(key[1])
    _report(lost, gained, REFRESH_MASKBENCH)
