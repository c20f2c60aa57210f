"""Files the command line writes: never one it reads, and never half-written (a temporary file beside the
output, renamed over it when complete, so a killed run leaves the previous file whole)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from extractor.errors import InputError


def _same(a: Path, b: Path) -> bool:
    """Whether two paths name one file, through links and `..` (a path that does not exist yet names none)."""
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(output: str | Path, inputs: Iterable[str | Path]) -> Path:
    """`output` as a Path, or an InputError where it names a file that is read (`inputs`: every file read, a
    folder's files listed one by one): the output would replace what it was made from."""
    out = Path(output)
    if out.is_dir():
        raise InputError(f"the output {out} is a folder: name a file")
    for given in inputs:
        if _same(out, Path(given)):
            raise InputError(f"the output {out} is also an input ({given}): choose another path; nothing was written")
    return out


@contextmanager
def atomic_text(path: str | Path) -> Iterator[TextIO]:
    """A text file to write `path` through: a temporary file in the same folder, renamed over `path` when the
    block ends without an error (the rename is atomic), removed otherwise."""
    target = Path(path)
    fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent or ".")
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
