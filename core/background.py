"""Background worker queues: waiting until one has run everything queued on it."""

from __future__ import annotations

import queue
import time


def until_finished(jobs: queue.Queue, timeout: float) -> bool:
    """Wait until every task queued on `jobs` is done (tests, orderly shutdown); False when
    `timeout` seconds pass first."""
    deadline = time.monotonic() + timeout
    while jobs.unfinished_tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    return not jobs.unfinished_tasks
