"""`extractor extract --ray`: a folder of files as a corpus job, its JSON lines those `extract` writes without Ray,
and a rerun that reads every file's row back from the folder instead of extracting it again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from extractor.cli import main

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "email": {"type": "string"}},
          "required": ["name", "email"], "additionalProperties": False}
FILES = {"anna.txt": b"Anna Berg, anna@berg.se, +46 70 123 4567", "bob.md": b"Bob Stone, bob@stone.com",
         "latin1.txt": "Zoë Ulm, zoe@ulm.de".encode("latin-1")}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "in").mkdir()
    for name, data in FILES.items():
        (tmp_path / "in" / name).write_bytes(data)
    (tmp_path / "person.json").write_text(json.dumps(PERSON))
    return tmp_path


def _extract(folder: Path, out: str, *extra: str) -> tuple[int, list[dict]]:
    code = main(["extract", "--schema", str(folder / "person.json"), "--input", str(folder / "in"), "--jsonl",
                 str(folder / out), "--max-tokens", "48", "--max-retries", "0", *extra])
    return code, [json.loads(line) for line in (folder / out).read_text().splitlines()]


def test_extract_on_ray_writes_the_lines_extract_writes_and_resumes(cluster: str, folder: Path) -> None:
    code, lines = _extract(folder, "ray.jsonl", "--ray", "--actors", "2")
    plain_code, plain = _extract(folder, "plain.jsonl")
    assert code == plain_code == 1  # the Latin-1 file is no UTF-8 text
    assert [line["file"] for line in lines] == [line["file"] for line in plain]
    for ours, theirs in zip(lines[:-1], plain):
        assert (ours["result"], ours["refused"]) == (theirs["result"], theirs["refused"])
    assert (lines[-1]["error"]["type"], plain[-1]["error"]["type"]) == ("InputError", "UnicodeDecodeError")
    assert "could not be read as UTF-8 text" in lines[-1]["error"]["message"]
    rerun = subprocess.run([sys.executable, "-m", "extractor.cli", "extract", "--schema", str(folder / "person.json"),
                            "--input", str(folder / "in"), "--jsonl", str(folder / "ray.jsonl"), "--max-tokens", "48",
                            "--max-retries", "0", "--ray", cluster], capture_output=True, text=True, timeout=300,
                           check=False)
    assert "Connecting to existing Ray cluster" in rerun.stderr  # the one named, not a local one of its own
    again = [json.loads(line) for line in (folder / "ray.jsonl").read_text().splitlines()]
    summary = json.loads((folder / "ray.jsonl.parquet" / "summary.json").read_text())
    assert (rerun.returncode, again, summary["skipped"], summary["written"]) == (1, lines, 3, 0)


def test_the_command_line_and_the_package_load_no_ray_until_a_job_runs() -> None:
    program = ("import sys, extractor, extractor.cli, extractor.integrations.ray; "
               "print(sorted(m for m in ('ray', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
