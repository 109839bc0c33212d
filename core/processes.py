"""Whether a process recorded by a background job still lives: a pid and its start tick.

Eval jobs (a detached process each) and ingest jobs (a worker thread in the API's process)
both record the process that runs them; a record that still says it is running while that
process is gone was cut off (killed, out of memory, the server restarted), and whoever
reads it settles it. The start tick tells a pid the system gave to another process apart."""

from __future__ import annotations

import os
from pathlib import Path


def _stat(pid: int) -> tuple[str, int] | None:
    """(state letter, start tick) of a process from /proc; None where /proc has no such process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()  # after "pid (comm) "
    return fields[0], int(fields[19])


def process_start(pid: int) -> int | None:
    """The process's start tick since boot (Linux); None elsewhere."""
    stat = _stat(pid)
    return stat[1] if stat else None


def process_alive(pid: int | None, pid_start: int | None = None) -> bool:
    """Whether `pid` is a live process (not a zombie) and, where the start tick is known, the
    same process that was recorded."""
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by someone else
    stat = _stat(pid)
    if stat is None:
        return not Path("/proc/self").exists()  # no /proc: trust the signal check
    state, started = stat
    return state not in ("Z", "X") and (pid_start is None or started == pid_start)


def this_process() -> tuple[int, int | None]:
    """(pid, start tick) of the running process, as a job records its runner."""
    pid = os.getpid()
    return pid, process_start(pid)
