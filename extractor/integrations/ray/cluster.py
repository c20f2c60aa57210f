"""The Ray cluster a corpus job runs on, and what it leaves behind: a local cluster that `ray.init` starts is made of
this process's children, some of which (Ray's dashboard and runtime-env agents) outlive a driver killed with
SIGKILL and ignore SIGTERM, and a worker busy in a forward pass can outlive its raylet. A guard process, started beside
the first cluster this process starts, ends them when this process ends however it ends: it holds the read end of a
pipe whose write end only this process holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path
from typing import IO

_GUARD: IO[str] | None = None
_LOCK = threading.Lock()


def connect(address: str | None) -> None:
    """Ray initialized in this process (connected to `address`, or `RAY_ADDRESS`, else a local cluster started
    here), the processes it started here handed to the guard."""
    import ray

    if ray.is_initialized():
        return
    before = _descendants()
    ray.init(address=address)
    guard(sorted(_descendants() - before))


def _descendants() -> set[tuple[int, float]]:
    """This process's descendants, each as (pid, start time)."""
    import psutil

    found = set()
    for process in psutil.Process(os.getpid()).children(recursive=True):
        try:
            found.add((process.pid, process.create_time()))
        except psutil.Error:  # ended meanwhile
            continue
    return found


def guard(children: list[tuple[int, float]]) -> None:
    """Hand these processes to the guard (started on first use, importing this package from where this process
    did), to be ended when this process is gone; a guard that cannot run is a warning, not a failed job."""
    global _GUARD
    with _LOCK:
        try:
            if _GUARD is None:
                root = str(Path(__file__).resolve().parents[3])
                env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
                _GUARD = subprocess.Popen([sys.executable, "-m", __name__], stdin=subprocess.PIPE, text=True, env=env,
                                          start_new_session=True, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL).stdin
            assert _GUARD is not None
            _GUARD.write(json.dumps(children) + "\n")
            _GUARD.flush()
        except OSError as exc:  # the guard could not start, or has ended
            warnings.warn(f"the Ray cluster's processes are not guarded ({exc}); if this process is killed, end "
                          f"them with `ray stop`", RuntimeWarning, stacklevel=2)


def _watch(lines: IO[str]) -> None:
    """Gather the processes handed over until the pipe closes (its writer ended), then end those still running and
    the workers their raylets started (`RAY_RAYLET_PID` in their environment; an actor busy in a model's forward
    pass can outlive its raylet): SIGTERM, and SIGKILL for those alive two seconds later. A process is known by its
    pid and start time, so a pid taken by a new process since is left alone."""
    import psutil

    known = {(pid, started) for line in lines for pid, started in json.loads(line)}
    raylets = {str(pid) for pid, _ in known}
    first = min((started for _, started in known), default=0.0)
    doomed = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            mine = (process.pid, process.create_time()) in known or process.create_time() >= first and \
                process.environ().get("RAY_RAYLET_PID") in raylets
        except psutil.Error:
            continue
        if mine:
            doomed.append(process)
    for process in doomed:
        try:
            process.terminate()
        except psutil.Error:
            continue
    _, left = psutil.wait_procs(doomed, timeout=2)
    for process in left:
        try:
            process.kill()
        except psutil.Error:
            continue


if __name__ == "__main__":
    _watch(sys.stdin)
