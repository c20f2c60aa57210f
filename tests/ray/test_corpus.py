"""Corpus jobs on a real local Ray cluster with the embedded model: every row out exactly once with its outcome,
greedy results those of `extract_many` in one process, resumed after a killed driver, finished after an actor
dies mid-batch."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from jobdata import OPTIONS, TEXTS, Person, corpus

from extractor import Extractor, ExtractorError
from extractor.integrations.ray import JobSummary, read_results, run_corpus
from extractor.integrations.ray.store import entries, tables
from extractor.integrations.ray.workers import GAPS


def _ids(folder: Path) -> Counter[str]:
    return Counter(i for table in tables(folder) for i in table.column("id").to_pylist())


@pytest.fixture(scope="module")
def job(cluster: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, JobSummary]:
    """The corpus by two actors, two rows a batch, a shard every two rows."""
    folder = tmp_path_factory.mktemp("job")
    return folder, run_corpus(corpus(), Person, folder, options=OPTIONS, concurrency=2, batch_size=2, shard_rows=2)


def test_every_row_is_written_once_with_its_outcome(job: tuple[Path, JobSummary]) -> None:
    folder, summary = job
    assert (summary.rows_in, summary.written, summary.skipped, summary.duplicates, summary.errors,
            summary.unread) == (6, 6, 0, 0, 1, 0)
    assert _ids(folder) == Counter(list(TEXTS))
    assert sum(e["rows"] for e in entries(folder)) == 6 and summary.shards == len(entries(folder)) >= 3
    rows = dict(read_results(folder, Person))
    assert rows["blank"]["type"] == "InputError"
    assert all(isinstance(rows[k], Person) for k in TEXTS if k != "blank")
    written = json.loads((folder / "summary.json").read_text())
    assert (written["complete"], written["written"], written["errors"]) == (True, 6, 1)
    assert 0 < summary.first_batch_seconds <= summary.seconds and 1 <= summary.first_batch_rows <= 2
    assert summary.steady_docs_per_second is None or summary.steady_docs_per_second > 0


def test_results_are_those_of_extract_many_in_one_process(job: tuple[Path, JobSummary],
                                                          model_extractor: Extractor) -> None:
    expected = model_extractor.extract_many(Person, list(TEXTS.values()), OPTIONS)
    rows = dict(read_results(job[0], Person))
    for key, want in zip(TEXTS, expected):
        if isinstance(want, ExtractorError):
            want = {"type": type(want).__name__, "message": str(want)}
        assert rows[key] == want, key


def test_rows_carry_their_trace_and_usage(job: tuple[Path, JobSummary]) -> None:
    rows = {r["id"]: r for r in pa.concat_tables(tables(job[0])).to_pylist()}
    anna, blank = rows["anna"], rows["blank"]
    assert {v["pointer"] for v in json.loads(anna["trace"])} == {"/name", "/email"}
    assert anna["prompt_tokens"] > 0 and anna["completion_tokens"] > 0 and anna["seconds"] > 0
    assert (blank["result"], blank["trace"], blank["prompt_tokens"], blank["refused"]) == (None, None, 0, False)


def test_a_rerun_skips_every_row_done(job: tuple[Path, JobSummary], tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(job[0], folder)
    summary = run_corpus(corpus(), Person, folder, options=OPTIONS, concurrency=2, batch_size=2, shard_rows=2)
    assert (summary.rows_in, summary.written, summary.skipped, summary.shards) == (6, 0, 6, 0)
    assert (summary.first_batch_seconds, summary.first_batch_rows, summary.steady_docs_per_second) == (None, 0, None)
    assert _ids(folder) == Counter(list(TEXTS))


def test_a_folder_written_before_the_gap_columns_existed_resumes(job: tuple[Path, JobSummary], tmp_path: Path) -> None:
    """An earlier version's shards (no gap columns) are skipped, then read back as null beside those a rerun adds."""
    folder = tmp_path / "old"
    shutil.copytree(job[0], folder)
    for shard in folder.glob("part-*.parquet"):
        pq.write_table(pq.read_table(shard).drop_columns(list(GAPS)), shard)
    more = {**TEXTS, "fay": "Fay Gold, fay@gold.io"}
    summary = run_corpus(corpus(more), Person, folder, options=OPTIONS, concurrency=2, batch_size=2, shard_rows=2)
    assert (summary.skipped, summary.written, summary.unread) == (6, 1, 0)
    rows = pa.concat_tables(tables(folder)).to_pylist()
    assert sorted(r["id"] for r in rows) == sorted(more) and all(r[name] is None for r in rows for name in GAPS)
    assert dict(read_results(folder, Person)).keys() == more.keys()


DRIVER = """
import sys
sys.path.insert(0, {here!r})
import jobdata, ray
from jobdata import OPTIONS, Person, corpus
from extractor.integrations.ray import run_corpus
ray.cloudpickle.register_pickle_by_value(jobdata)
ray.init(address={address!r}, log_to_driver=False)
run_corpus(corpus(), Person, {folder!r}, options=OPTIONS, batch_size=1, shard_rows=1)
"""


def test_a_killed_driver_leaves_whole_shards_and_a_rerun_does_the_rest(cluster: str, tmp_path: Path) -> None:
    folder = tmp_path / "job"
    script = DRIVER.format(here=str(Path(__file__).parent), address=cluster, folder=str(folder))
    driver = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not entries(folder) and time.monotonic() < deadline and driver.poll() is None:
            time.sleep(0.2)
        assert entries(folder), "the driver wrote no shard"
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    before = Counter(i for e in entries(folder) for i in e["ids"])
    assert 0 < len(before) < len(TEXTS), "the driver was killed before it finished"
    summary = run_corpus(corpus(), Person, folder, options=OPTIONS, batch_size=2, shard_rows=2)
    assert (summary.skipped, summary.written) == (len(before), len(TEXTS) - len(before))
    assert _ids(folder) == Counter(list(TEXTS))


def test_an_actor_dying_mid_batch_has_its_rows_done_again(cluster: str, tmp_path: Path) -> None:
    died = tmp_path / "died"

    def engine() -> Extractor:
        class DiesOnce(Extractor):
            """Exits its process on the first batch holding "KILL" (once: the flag file says so); raises on "BOOM"."""

            def extract_many(self, target, texts, *args, **kw):  # type: ignore[no-untyped-def]
                if any("KILL" in t for t in texts) and not died.exists():
                    died.touch()
                    os._exit(1)
                if any("BOOM" in t for t in texts):
                    raise RuntimeError("the engine broke on this text")
                return super().extract_many(target, texts, *args, **kw)

        return DiesOnce()

    texts = {**TEXTS, "kill": "KILL notes: Gil Hart, gil@hart.net", "boom": "BOOM"}
    summary = run_corpus(corpus(texts), Person, tmp_path / "job", options=OPTIONS, model=engine, concurrency=2,
                         batch_size=2, shard_rows=1)
    assert died.exists(), "no actor died"
    assert _ids(tmp_path / "job") == Counter(list(texts))
    rows = dict(read_results(tmp_path / "job", Person))
    assert isinstance(rows["kill"], Person)
    assert rows["boom"] == {"type": "RuntimeError", "message": "the engine broke on this text"}
    assert (summary.written, summary.errors) == (8, 2)


def test_a_text_longer_than_its_window_is_read_in_windows_as_extract_many_reads_it(
        cluster: str, tmp_path: Path, model_extractor: Extractor) -> None:
    """Windowing happens inside the actors' `extract_many`: the merged result is the one-process result."""
    text = " ".join(f"Note {k}: met at the fair, nothing to add." for k in range(12)) + " Anna Berg, anna@berg.se."
    options = replace(OPTIONS, window=64, overlap=8)  # the text is some 160 tokens: three windows at least
    [want] = model_extractor.extract_many(Person, [text], options)
    summary = run_corpus(corpus({"long": text}), Person, tmp_path / "long", options=options, concurrency=1,
                         batch_size=1)
    assert summary.written == 1
    got = dict(read_results(tmp_path / "long", Person))["long"]
    assert got == (want if not isinstance(want, ExtractorError) else {"type": type(want).__name__,
                                                                       "message": str(want)})
