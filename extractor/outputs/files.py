"""Files the command line writes: never one it reads, never half-written (a temporary file beside the
output, renamed over it when complete, so a killed run leaves the previous file whole), and JSON lines only
of what JSON can hold."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from extractor.errors import InputError
from extractor.pipeline.outcome import non_finite


def _same(a: Path, b: Path) -> bool:
    """Whether two paths name one file, through links and `..` (a path that does not exist yet names none). `a`
    is resolved first, as `atomic_text` resolves it: `gone/../x` is `x`, though the system finds no `gone`."""
    a = a.resolve()
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(output: str | Path, inputs: Iterable[str | Path]) -> Path:
    """`output` as a Path, or an InputError where it names a file that is read (`inputs`: every file read, a
    folder's files listed one by one): the output would replace what it was made from. Also where it is a folder,
    or its folder is not one: said before a model is loaded, not once the file is opened."""
    out = Path(output)
    if out.is_dir():
        raise InputError(f"the output {out} is a folder: name a file")
    if not out.resolve().parent.is_dir():
        raise InputError(f"the output {out} is in {out.parent}, which is not a folder: nothing was written")
    for given in inputs:
        if _same(out, Path(given)):
            raise InputError(f"the output {out} is also an input ({given}): choose another path; nothing was written")
    return out


def check_folder(folder: str | Path, inputs: Iterable[str | Path]) -> Path:
    """`folder` as a Path, or an InputError where it is a file read or holds one: a corpus job writes its shards
    there and deletes the `part-*` and `*.tmp` files it did not list. Also where it is a file: said before a
    cluster is started, not when the job makes the folder."""
    out = Path(folder)
    for given in inputs:
        path = Path(given).resolve()
        if out.resolve() in (path, *path.parents):
            raise InputError(f"the output folder {out} is or holds an input ({given}): choose another folder; "
                             "nothing was written")
    if out.exists() and not out.is_dir():
        raise InputError(f"the output folder {out} is a file: name a folder; nothing was written")
    return out


def finite(record: dict[str, Any]) -> dict[str, Any]:
    """`record`, or an error record for its file in its place where it holds NaN or an infinity (a float from
    `1e999`, or a validator's): JSON has no such numbers, and a line holding one is not JSON to a strict reader."""
    found = non_finite(record, "")
    if found is None:
        return record
    pointer, number = found
    message = f"{pointer} is {number}, which JSON cannot write: this error stands in for the record"
    return {"file": record["file"], "error": {"type": "ValueError", "message": message}, "seconds": record["seconds"]}


@contextmanager
def atomic_text(path: str | Path) -> Iterator[TextIO]:
    """A text file to write `path` through: a temporary file in the same folder, renamed over `path` when the
    block ends without an error (the rename is atomic), removed otherwise. A link is followed: its target is
    rewritten and the link kept."""
    target = Path(path).resolve()
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    except OSError as exc:  # a folder gone or not writable: named as the output, not as the temporary file
        raise InputError(f"cannot write {path}: {exc.strerror} (in {target.parent}); nothing was written") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if target.exists():
            os.chmod(temp, target.stat().st_mode & 0o777)
        else:
            os.chmod(temp, 0o666 & ~_umask())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
