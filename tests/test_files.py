"""What the command line writes: never over a file it reads, never half, never a number JSON cannot hold."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from extractor.errors import InputError
from extractor.outputs.files import atomic_text, check_folder, check_output, finite


def _link(kind: str, target: Path, at: Path) -> Path:
    """`at` made to name `target`: the same path, a symbolic link, a hard link, or the same path through `..`."""
    if kind == "symlink":
        at.symlink_to(target)
    elif kind == "hardlink":
        os.link(target, at)
    else:
        return {"same": target, "dotdot": target.parent / ".." / target.parent.name / target.name}[kind]
    return at


@pytest.mark.parametrize("kind", ["same", "symlink", "hardlink", "dotdot"])
def test_an_output_naming_an_input_is_refused_however_it_is_spelt(tmp_path, kind):
    source = tmp_path / "card.txt"
    source.write_text("Ada Lovelace")
    with pytest.raises(InputError, match="is also an input"):
        check_output(_link(kind, source, tmp_path / "out.jsonl"), [tmp_path / "other.txt", source])
    assert source.read_text() == "Ada Lovelace"


@pytest.mark.parametrize("folder,refused", [
    ("in", True),              # the input folder itself
    ("in/a.txt", True),        # an input file
    (".", True),               # a folder above the inputs
    ("in/../in", True),
    ("out", False),
    ("in-parquet", False),     # a sibling whose name starts alike
])
def test_a_corpus_jobs_folder_may_not_be_or_hold_an_input(tmp_path, folder, refused):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Ada")
    inputs = [tmp_path / "in" / "a.txt"]
    if refused:
        with pytest.raises(InputError, match="is or holds an input"):
            check_folder(tmp_path / folder, inputs)
    else:
        assert check_folder(tmp_path / folder, inputs) == tmp_path / folder


@pytest.mark.parametrize("record,pointer", [
    ({"file": "a", "result": {"score": 0.5}, "seconds": 1.0}, None),
    ({"file": "a", "result": {"score": float("nan")}, "seconds": 1.0}, "/result/score is nan"),
    ({"file": "a", "result": {"xs": [1.0, float("inf")]}, "seconds": 1.0}, "/result/xs/1 is inf"),
    ({"file": "a", "result": {"a/b~": float("-inf")}, "seconds": 1.0}, "/result/a~1b~0 is -inf"),
    ({"file": "a", "left_out": [{"item": (float("nan"),)}], "seconds": 1.0}, "/left_out/0/item/0 is nan"),
])
def test_a_record_holding_nan_or_infinity_becomes_an_error_naming_the_value(record, pointer):
    out = finite(record)
    if pointer is None:
        assert out is record
        return
    assert out == {"file": "a", "error": {"type": "ValueError", "message": out["error"]["message"]}, "seconds": 1.0}
    assert out["error"]["message"].startswith(pointer)
    json.dumps(out, allow_nan=False)


@pytest.mark.parametrize("failure", [RuntimeError("disk full"), KeyboardInterrupt()])
def test_a_write_that_stops_leaves_the_previous_file_whole_and_no_temporary_file(tmp_path, failure):
    path = tmp_path / "out.jsonl"
    path.write_text("previous\n")
    with pytest.raises(type(failure)), atomic_text(path) as out:
        out.write("half a line")
        raise failure
    assert path.read_text() == "previous\n" and os.listdir(tmp_path) == ["out.jsonl"]


def test_a_write_through_a_link_rewrites_its_target_and_keeps_the_link(tmp_path):
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "out.jsonl"
    target.write_text("previous\n")
    target.chmod(0o640)
    link = tmp_path / "out.jsonl"
    link.symlink_to(target)
    with atomic_text(link) as out:
        out.write("new\n")
    assert link.is_symlink() and target.read_text() == "new\n" and target.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path / "data")) == ["out.jsonl"]


@pytest.mark.parametrize("output", ["gone/out.jsonl", "a.txt/out.jsonl"])
def test_an_output_in_a_folder_that_is_none_is_refused_naming_the_folder(tmp_path, output):
    (tmp_path / "a.txt").write_text("Ada")
    with pytest.raises(InputError, match=r"out\.jsonl is in .*, which is not a folder"):
        check_output(tmp_path / output, [tmp_path / "a.txt"])


def test_a_folder_that_cannot_be_written_is_an_input_error_naming_the_output(tmp_path, monkeypatch):
    import tempfile

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refused)  # a read-only folder, even to a test run as root
    with pytest.raises(InputError, match=f"cannot write {tmp_path / 'out.jsonl'}: Permission denied"):
        with atomic_text(tmp_path / "out.jsonl"):
            pass
    assert os.listdir(tmp_path) == []


def test_a_corpus_jobs_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "out").write_text("not a folder")
    with pytest.raises(InputError, match="the output folder .*out is a file: name a folder"):
        check_folder(tmp_path / "out", [tmp_path / "a.txt"])
