"""`extractor extract --ray`: a folder of files as a corpus job, its JSON lines those `extract` writes without Ray,
and a rerun that reads every file's row back from the folder instead of extracting it again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jobdata import OPTIONS, Person, Windowed

from extractor.cli import main
from extractor.integrations.ray import corpus_command
from extractor.integrations.ray.workers import GAPS

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


@pytest.mark.parametrize("texts,jsonl,gaps,code", [
    (["whole", "left_out", "conflicts", "repeated"], True,
     {"left_out": ["left_out"], "conflicts": ["conflicts"], "repeated": ["repeated"]}, 0),
    (["whole", "unread"], True, {"unread": ["unread"]}, 3),
    (["unread"], False, {}, 3),  # --parquet alone: the status read from the shards
    (["unread", "latin1"], True, {"unread": ["unread"]}, 1),  # a failed file says more than an incomplete one
])
def test_extract_on_ray_says_what_a_text_read_in_windows_lacks_and_exits_as_extract_does(
        cluster: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, texts: list[str], jsonl: bool,
        gaps: dict[str, list[str]], code: int) -> None:
    """A file whose text was not read in full sets exit 3 with --ray too, and its line says so as without Ray."""
    import extractor.api

    (tmp_path / "in").mkdir()
    files = [tmp_path / "in" / f"{text}.txt" for text in texts]
    for path, text in zip(files, texts):
        path.write_bytes(FILES["latin1.txt"] if text == "latin1" else text.encode())
    out = tmp_path / "ray.jsonl" if jsonl else None
    assert corpus_command(files, Person, OPTIONS, address=None, folder=tmp_path / "ray", jsonl=out, model=Windowed,
                          actors=1, trace=False) == code
    summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert summary["unread"] == texts.count("unread")
    if out is None:
        return
    monkeypatch.setattr(extractor.api, "Extractor", Windowed)
    plain_code = main(["extract", "--schema", "jobdata:Person", "--input", str(tmp_path / "in"), "--jsonl",
                       str(tmp_path / "plain.jsonl")])
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    plain = [json.loads(line) for line in (tmp_path / "plain.jsonl").read_text().splitlines()]
    assert plain_code == code
    assert {name: stems for name in GAPS if (stems := [Path(r["file"]).stem for r in lines if name in r])} == gaps
    assert _extracted(lines) == _extracted(plain)  # the records of the command without Ray, key for key


def _extracted(records: list[dict]) -> list[dict]:
    """The records of files extracted, but for their time (the error of a file not UTF-8 is worded apart)."""
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records if "error" not in r]


def test_the_command_line_and_the_package_load_no_ray_until_a_job_runs() -> None:
    program = ("import sys, extractor, extractor.cli, extractor.integrations.ray; "
               "print(sorted(m for m in ('ray', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
