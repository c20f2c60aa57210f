"""`benchmarks/long_bounded.py`: its texts are as long as asked and as degenerate as named, and a smoke run reads
a tiny one in windows in a child process, reporting its time, window reads and peak memory."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize("kind,chars", [("letter", 1), ("letter", 5_000), ("nospace", 7), ("nospace", 20_000)])
def test_the_text_is_as_long_as_asked_with_no_space(kind, chars):
    from benchmarks.long_bounded import text_of

    text = text_of(kind, chars)
    assert len(text) == chars and not any(c.isspace() for c in text) and text == text_of(kind, chars)
    assert (set(text) == {"a"}) == (kind == "letter")


def test_the_benchmark_reads_a_tiny_text_in_windows(tmp_path):
    pytest.importorskip("torch", reason="the benchmark decodes with the embedded model")
    from benchmarks.long_bounded import main

    out = tmp_path / "bounded.json"
    main(["--chars", "2000", "--kind", "letter", "--window", "128", "--max-tokens", "48", "--limit-s", "300",
          "--json", str(out), "--md", str(tmp_path / "bounded.md")])
    run = json.loads(out.read_text())["run"]
    assert run["chars"] == 2_000 and run["tokens"] > 128 and run["window_reads"] >= 2
    assert run["peak_rss_mib"] > 100 and run["seconds"] > 0  # the figure is there; its bound is the benchmark's


def test_the_peak_is_the_childs_own_not_its_large_parents():
    import subprocess
    import sys
    import time

    from benchmarks.long_bounded import _wait

    ballast = bytearray(600 * 1024 * 1024)  # the parent holds 600 MiB when it starts the child
    child = subprocess.Popen([sys.executable, "-c", "x = bytearray(50 * 1024 * 1024); import time; time.sleep(1)"])
    status, peak, killed = _wait(child, time.perf_counter() + 60)
    del ballast
    assert status == 0 and not killed and 50 < peak < 400, peak
