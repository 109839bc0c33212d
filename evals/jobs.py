"""The eval job's own side: `python -m evals.run --progress-file PATH` writes its phase,
progress, outcome and run id to the job record core/eval_jobs.py started (and the console
and the HTTP API read).
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from core.config import Settings
from core.eval_jobs import DONE, FAILED, RUNNING, process_start, update

# ---- the job's side ----------------------------------------------------------------------------


class ProgressFile:
    """The job's writer of its record: one call per file indexed or question answered."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.phase: str | None = None
        self.paced = False

    def _phase(self, phase: str, **fields: Any) -> None:
        now = time.time()
        if phase != self.phase:
            self.phase, self.paced = phase, False
            fields.update(phase_started_at=now, pace_at=None, pace_done=None)
        if not self.paced and fields.get("done", 0) >= 1:  # the pace is measured from here (seconds_left)
            self.paced = True
            fields.update(pace_at=now, pace_done=fields["done"])
        update(self.path, phase=phase, **fields)

    def begin(self) -> None:
        pid = os.getpid()
        update(self.path, status=RUNNING, pid=pid, pid_start=process_start(pid))

    def ingesting(self, n: int, total: int, name: str) -> None:
        """File n of `total` (1-based) starts indexing: n - 1 are done."""
        self._phase("ingesting", done=n - 1, total=total, current=name)

    def asking(self, done: int, total: int) -> None:
        self._phase("asking", done=done, total=total, current=None)

    def finished(self, run_id: str | None) -> None:
        update(self.path, status=DONE, run_id=run_id, finished_at=time.time())

    def failed(self, error: str) -> None:
        update(self.path, status=FAILED, error=error, finished_at=time.time())


def run_job(progress_file: str | Path, settings: Settings, set_path: str | Path, *, owner: str | None,
            split: str = "all", tenant: str | None = None, ingest: bool = False, limit: int | None = None,
            save: bool = True) -> int:
    """Run an eval set (`evals.run.run_set`) writing its progress, outcome and run id to
    `progress_file`; returns the process exit code (0 done, 2 a set or tenant problem, 1 an
    unexpected error). What `python -m evals.run --progress-file` does; callable in-process."""
    from evals.run import file_announcer, ingest_file_names, run_set, summary_lines

    job = ProgressFile(progress_file)
    job.begin()

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    try:
        if ingest:
            names = ingest_file_names(set_path, split=split, tenant=tenant, owner=owner, limit=limit)
            announce = file_announcer(names, job.ingesting)

            def log(line: str) -> None:  # noqa: F811 - the ingest lines also move the progress
                print(line, file=sys.stderr)
                announce(line)

        report = run_set(settings, set_path, split=split, tenant=tenant, ingest=ingest, progress=job.asking,
                         limit=limit, save=save, log=log, owner=owner)
    except (ValueError, OSError) as exc:  # EvalSetError and the like: one sentence for the page
        job.failed(str(exc))
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - whatever broke, the page must hear of it
        traceback.print_exc()
        job.failed(f"The eval run stopped with an unexpected error ({type(exc).__name__}: {exc}).")
        return 1
    for warning in report.get("warnings") or []:
        print(f"warning: {warning}", file=sys.stderr)
    print("\n".join(summary_lines(report, stored=save)))
    job.finished(report.get("run_id"))
    return 0
