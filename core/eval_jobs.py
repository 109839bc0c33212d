"""Eval runs as background jobs: the console and the HTTP API start `python -m evals.run ...
--progress-file PATH` as a detached process (its own process group) and read the run's
progress from that file, so the Quality page stays usable while a set is asked. The job's
own side (writing its progress) is evals/jobs.py; this module never imports evals/ — it
only names its command line.

One JSON file per job under `GROUNDWORK_DATA/eval_jobs/<tenant key>/<job_id>.json` (the
folder named by the tenant's key, as every tenant folder is, so tenant A never lists tenant
B's jobs), beside it the job's output (`<job_id>.log`) and its lock file. Every write takes
the job's lock (`flock`), reads the record, merges the new fields and replaces the file by
rename: the console (start, cancel) and the job (progress) never drop each other's fields,
and a reader, which takes no lock, never sees half a file.

The record:

    job_id, owner         the job, and the tenant its run is stored for
    set, set_path, split, tenant (every question asked as it, or null), ingest, limit
    status                running | done | failed | cancelled
    phase                 starting | ingesting | asking (kept as it was when the job ended)
    done, total           files indexed while ingesting, questions answered while asking
    current               the file being indexed (ingesting)
    started_at, phase_started_at, updated_at, finished_at   (epoch seconds)
    pace_at, pace_done    when the phase's first item was done, and how many: time left is
                          estimated from the pace since (`seconds_left`)
    pid, pid_start        the job's process (leader of its process group) and its start
                          tick (so a pid the system gave to another process is not it)
    run_id                the stored run, once done
    error                 one sentence, once failed

Rules:
  1. One running job per tenant: `start` refuses a second with `JobRunning`.
  2. A job whose record says running while its process is gone (killed, out of memory, the
     machine restarted) is settled as failed with a sentence saying so, by whoever reads it.
  3. `cancel` ends the job's whole process group (SIGTERM, then SIGKILL after a grace) and
     marks it cancelled; a run is stored only at the very end, so a cancelled job stores none.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.config import Settings
from core.processes import process_alive, process_start
from core.records import new_id, record_path
from core.tenants import tenant_key

ROOT = Path(__file__).resolve().parents[1]
BUNDLED_SETS = ROOT / "evals" / "sets"  # the sets shipped with the project
RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"
ENDED = (DONE, FAILED, CANCELLED)
KEEP_JOBS = 20  # ended jobs kept per tenant; older ones (record, log, lock) are removed at the next start
START_GRACE_S = 60.0  # a record with no pid yet (start cut off before the process began) is failed after this
CANCEL_GRACE_S = 5.0  # SIGTERM, then SIGKILL if the group still lives after this long
DIED = ("The eval run stopped without finishing: its process ended unexpectedly (killed, out of memory, or the "
        "server restarted), so no run was stored; start it again.")


class JobRunning(ValueError):
    """A tenant already has a running eval job; the message says which and what to do."""


# ---- files -------------------------------------------------------------------------------------


def folder(settings: Settings, owner: str) -> Path:
    """The tenant's job folder (named by its key; `tenant_key` validates the id)."""
    return Path(settings.data_dir).resolve() / "eval_jobs" / tenant_key(owner)


def job_path(settings: Settings, owner: str, job_id: str) -> Path | None:
    """The record of a job id this module made (no path tricks in an id), in the owner's folder."""
    return record_path(folder(settings, owner), job_id)


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # missing or damaged: no job
    return record if isinstance(record, dict) else None


def update(path: str | Path, **fields: Any) -> dict[str, Any]:
    """Merge `fields` into the job's record under its lock and replace the file by rename;
    returns the record as written. A job already ended keeps its status (a cancelled job's
    last progress line, or its finish racing the cancel, does not revive it)."""
    path = Path(path)
    with _locked(path.with_name(path.stem + ".lock")):
        record = _read(path) or {}
        if record.get("status") in ENDED:
            fields = {k: v for k, v in fields.items() if k not in ("status", "error", "run_id", "finished_at")}
        record.update(fields, updated_at=time.time())
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(record, ensure_ascii=False, default=str), encoding="utf-8")
        os.replace(tmp, path)
    return record


# ---- processes ---------------------------------------------------------------------------------


def _settle(path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Rule 2: a running record whose process is gone becomes failed. A job that wrote its
    finish after `record` was read and then exited keeps it: `update` never changes the
    status of an ended record."""
    if record.get("status") != RUNNING or _looks_alive(record):
        return record
    return update(path, status=FAILED, error=DIED, finished_at=time.time())


def _looks_alive(record: dict[str, Any]) -> bool:
    if record.get("pid"):
        return process_alive(record["pid"], record.get("pid_start"))
    return time.time() - float(record.get("started_at") or 0) < START_GRACE_S


# ---- the console's side -----------------------------------------------------------------------


def command(progress_file: Path, set_path: Path, *, owner: str, split: str = "all", tenant: str | None = None,
            ingest: bool = False, limit: int | None = None) -> list[str]:
    """The `python -m evals.run` command line a job runs (the page's options, one flag each)."""
    cmd = [sys.executable, "-m", "evals.run", "--set", str(set_path), "--split", split or "all",
           "--owner", owner, "--progress-file", str(progress_file)]
    if tenant:
        cmd += ["--tenant", tenant]
    if ingest:
        cmd.append("--ingest")
    if limit is not None:
        cmd += ["--limit", str(limit)]
    return cmd


def start(settings: Settings, set_path: str | Path, *, owner: str, split: str = "all", tenant: str | None = None,
          ingest: bool = False, limit: int | None = None) -> dict[str, Any]:
    """Start an eval run of `set_path` stored for `owner` as a detached process; returns the
    job's record. Raises JobRunning when the tenant already has a running job (rule 1)."""
    base = folder(settings, owner)
    set_path = Path(set_path).resolve()
    with _locked(base / "start.lock"):
        running = active(settings, owner)
        if running is not None:
            raise JobRunning(f"An eval run of set {running.get('set')} is already running for tenant {owner} "
                             f"({describe(running)}); wait for it to finish or cancel it.")
        job_id = new_id()
        path = base / f"{job_id}.json"
        log = path.with_suffix(".log")
        now = time.time()
        update(path, job_id=job_id, owner=owner, set=set_path.name.removesuffix(".jsonl"), set_path=str(set_path),
               split=split or "all", tenant=tenant, ingest=bool(ingest), limit=limit, status=RUNNING,
               phase="starting", done=0, total=0, current=None, started_at=now, phase_started_at=now,
               finished_at=None, pid=None, pid_start=None, run_id=None, error=None, log=str(log))
        env = {**os.environ, "GROUNDWORK_DATA": str(Path(settings.data_dir).resolve()), "PYTHONUNBUFFERED": "1"}
        try:
            with open(log, "ab") as out:
                proc = subprocess.Popen(
                    command(path, set_path, owner=owner, split=split, tenant=tenant, ingest=ingest, limit=limit),
                    cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True)  # its own process group: cancel ends it and its children
        except OSError as exc:
            return update(path, status=FAILED, error=f"The eval run could not start ({exc}).", finished_at=time.time())
        # reap it when it exits, so a finished job never lingers as a zombie that looks alive
        threading.Thread(target=proc.wait, name=f"eval-job-{job_id}", daemon=True).start()
        record = update(path, pid=proc.pid, pid_start=process_start(proc.pid))
    prune(settings, owner)
    return record


def jobs(settings: Settings, owner: str) -> list[dict[str, Any]]:
    """The tenant's jobs, newest first, each settled by rule 2."""
    out = []
    for path in folder(settings, owner).glob("*.json"):
        record = _read(path)
        if record and record.get("owner") == owner:
            out.append(_settle(path, record))
    return sorted(out, key=lambda r: -float(r.get("started_at") or 0))


def get(settings: Settings, owner: str, job_id: str) -> dict[str, Any] | None:
    """One of the tenant's jobs; None for an unknown id or another tenant's."""
    path = job_path(settings, owner, job_id)
    record = _read(path) if path else None
    if not record or record.get("owner") != owner:
        return None
    return _settle(path, record)


def latest(settings: Settings, owner: str) -> dict[str, Any] | None:
    found = jobs(settings, owner)
    return found[0] if found else None


def active(settings: Settings, owner: str) -> dict[str, Any] | None:
    """The tenant's running job, if any."""
    return next((r for r in jobs(settings, owner) if r.get("status") == RUNNING), None)


def cancel(settings: Settings, owner: str, job_id: str) -> dict[str, Any] | None:
    """Rule 3: end the job's process group and mark it cancelled; an ended job is left as it
    is. None for an unknown id or another tenant's."""
    record = get(settings, owner, job_id)
    if record is None or record.get("status") != RUNNING:
        return record
    pid = record.get("pid")
    if pid and process_alive(pid, record.get("pid_start")) and _own_group(pid):
        _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + CANCEL_GRACE_S
        while process_alive(pid, record.get("pid_start")) and time.monotonic() < deadline:
            time.sleep(0.05)
        if process_alive(pid, record.get("pid_start")):
            _signal_group(pid, signal.SIGKILL)
    return update(job_path(settings, owner, job_id), status=CANCELLED, finished_at=time.time())


def _own_group(pid: int) -> bool:
    """Whether `pid` leads a process group other than ours (a job started detached): never
    signal our own group, as a job run in this very process would have us do."""
    try:
        return os.getpgid(pid) == pid and pid != os.getpgrp()
    except ProcessLookupError:
        return False


def _signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def dismiss(settings: Settings, owner: str, job_id: str) -> None:
    """Hide an ended job's outcome on the page (its record stays until pruned)."""
    record = get(settings, owner, job_id)
    if record is not None and record.get("status") in ENDED:
        update(job_path(settings, owner, job_id), dismissed=True)


def prune(settings: Settings, owner: str, keep: int = KEEP_JOBS) -> None:
    """Remove the tenant's ended jobs beyond the newest `keep` (record, log, lock and any
    temporary file a killed write left)."""
    ended = [r for r in jobs(settings, owner) if r.get("status") in ENDED]
    for record in ended[keep:]:
        path = job_path(settings, owner, str(record.get("job_id")))
        if path is not None:
            for old in (path, path.with_suffix(".log"), path.with_name(path.stem + ".lock"),
                        path.with_name(path.name + ".tmp")):
                old.unlink(missing_ok=True)


# ---- time left ---------------------------------------------------------------------------------


def seconds_left(record: dict[str, Any], now: float | None = None) -> float | None:
    """Time left in the current phase at its pace so far: seconds per item * items left. The
    pace is taken from the first item done on (`pace_at`, `pace_done`), so the first item's
    wait for the models to load does not inflate it; with one item done, from the phase's
    start. None before the first file or question is done (no pace yet)."""
    done, total = int(record.get("done") or 0), int(record.get("total") or 0)
    if record.get("status") != RUNNING or record.get("phase") not in ("ingesting", "asking") or done <= 0:
        return None
    now = now or time.time()
    pace_done = int(record.get("pace_done") or 0)
    if record.get("pace_at") and 0 < pace_done < done:
        per_item = (now - float(record["pace_at"])) / (done - pace_done)
    else:
        per_item = (now - float(record.get("phase_started_at") or record.get("started_at") or now)) / done
    return max(0.0, per_item * max(total - done, 0))


def fmt_left(seconds: float | None) -> str:
    """"about 4 min left" / "less than a minute left" / "estimating time left"."""
    if seconds is None:
        return "estimating time left"
    if seconds < 60:
        return "less than a minute left"
    return f"about {math.ceil(seconds / 60)} min left"


def describe(record: dict[str, Any], now: float | None = None) -> str:
    """One line on a running job: "12 of 40 questions · about 3 min left"."""
    done, total = int(record.get("done") or 0), int(record.get("total") or 0)
    phase = record.get("phase")
    if phase == "ingesting":
        current = f": {record['current']}" if record.get("current") else ""
        n = min(done + 1, total)
        return f"indexing file {n} of {total}{current} · {fmt_left(seconds_left(record, now))}"
    if phase == "asking":
        if total and done >= total:
            return f"{done} of {total} questions · scoring and storing the run"
        return f"{done} of {total} questions · {fmt_left(seconds_left(record, now))}"
    return "starting (loading the set and the models)"


def fraction(record: dict[str, Any]) -> float:
    """How far the current phase is, in [0, 1]."""
    done, total = int(record.get("done") or 0), int(record.get("total") or 0)
    return min(1.0, done / total) if total else 0.0


# ---- which sets a tenant may run --------------------------------------------------------------


def eval_sets(settings: Settings, tenant: str) -> list[Path]:
    """Bundled sets (evals/sets), the sets an operator put in GROUNDWORK_DATA/eval_sets, and
    the tenant's own feedback set built in the console: never another tenant's, whose rows
    quote its documents (a reliability pass read another tenant's gold quotes through an
    eval run started with its own key)."""
    from core.eval_rows import FEEDBACK_SUFFIX, feedback_set_path

    own = feedback_set_path(settings, tenant)
    kept = [p for p in sorted((Path(settings.data_dir) / "eval_sets").glob("*.jsonl"))
            if not p.stem.endswith(FEEDBACK_SUFFIX) or p == own]
    return sorted(BUNDLED_SETS.glob("*.jsonl")) + kept


def find_set(settings: Settings, name: str, tenant: str) -> Path | None:
    """The set named `name` (its file name without .jsonl) among the tenant's `eval_sets`;
    None for any other name, so a name is never read as a path."""
    return next((p for p in eval_sets(settings, tenant) if p.stem == name), None)
