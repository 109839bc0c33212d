"""A lock file held across threads and processes: a thread lock (one per path) and `flock`.

The tenant's writer lock (core/index.py) and its answer-vector preparation lock
(core/answer_vectors.py) are both this, on different files."""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

_locks: dict[str, threading.Lock] = {}
_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    with _guard:
        return _locks.setdefault(str(path), threading.Lock())


@contextmanager
def held(path: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the lock of `path` (its folder must exist), waiting for any holder; `on_wait()`
    is called once when another thread or process holds it."""
    tlock = _thread_lock(path)
    waited = not tlock.acquire(blocking=False)
    if waited:
        if on_wait:
            on_wait()
        tlock.acquire()
    try:
        with open(path, "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait and not waited:
                    on_wait()
                fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        tlock.release()


@contextmanager
def held_if_free(path: Path) -> Iterator[bool]:
    """The lock of `path` if nobody holds it now: yields True when taken, else False."""
    tlock = _thread_lock(path)
    if not tlock.acquire(blocking=False):
        yield False
        return
    try:
        with open(path, "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        tlock.release()
