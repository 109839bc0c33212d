"""Run a function in several threads released at the same moment (races on first use)."""

import threading
from collections.abc import Callable
from typing import Any


def run_at_once(fn: Callable[[], Any], n: int) -> tuple[list[Any], list[Exception]]:
    """Call `fn` in `n` threads that start together; return (results, exceptions raised)."""
    start = threading.Barrier(n)
    results: list[Any] = []
    errors: list[Exception] = []

    def worker() -> None:
        start.wait()
        try:
            results.append(fn())
        except Exception as exc:  # noqa: BLE001 — returned for the test to assert
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, errors
