"""Uploads as background jobs (the HTTP API): a file is checked and accepted in the request,
then indexed on this process's one worker thread, so no request waits while a long file is
parsed and embedded (a QA pass: a 346-chunk file held its request 71 s, and a client that
gave up never learnt its document was indexed anyway).

A thread, not a detached process as an eval run is (core/eval_jobs.py): indexing needs the
embedder this process has loaded, and writes to one tenant take turns on its writer lock
(`journal.write_lock`, inside `ingest_file`) whoever starts them. One worker for all tenants:
on a machine of two cores a second indexing at once only slows both. It takes jobs fairly
(`next_job`): the oldest queued job of the tenant served least recently, so one tenant's queue
of long files does not hold another tenant's small upload for minutes; a tenant's own jobs keep
their order.

One row per job in SQLite (`ingest_jobs`, migration 18); the bytes wait in
`GROUNDWORK_DATA/ingest_jobs/<tenant key>/<job_id>/` until the job ends (the indexed document
keeps its own copy of the original). Phases:

    queued       accepted, waiting for the worker
    indexing     being indexed (`stage` and `fraction` say how far)
    done         indexed, or already held (`result.status` ready | unchanged): `doc_id`
    failed       not indexed: `error` is one sentence, as a synchronous upload says it
    interrupted  the process that accepted it ended first (restart, kill, out of memory):
                 settled by whoever reads it, as eval_jobs settles a dead run
    cancelled    cancelled by its client (`cancel`): while queued at once; while indexing at the
                 ingest's next safe point, short of its commit (core/ingest_cancel.py), with
                 nothing of the document kept

Every read is scoped by tenant: another tenant's job id is no job.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import queue
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from core import store
from core.background import until_finished
from core.config import Settings
from core.processes import process_alive, this_process
from core.records import new_id
from core.tenants import tenant_key, validate_tenant

log = logging.getLogger(__name__)

QUEUED, INDEXING, DONE, FAILED, INTERRUPTED, CANCELLED = (
    "queued", "indexing", "done", "failed", "interrupted", "cancelled")
RUNNING = (QUEUED, INDEXING)
KEEP_JOBS = 200  # ended jobs kept per tenant; older rows go when the tenant's next upload is accepted
INTERRUPTED_SENTENCE = ("The server stopped before this upload was indexed (restarted, killed or out of memory), "
                        "so nothing of it was kept; upload the file again.")
PROGRESS_STEP = 0.02  # write progress to SQLite at most every 2 % (or stage change), not per batch


class Refused(ValueError):
    """A file refused before it is accepted; the message is one sentence to act on."""


# ---- files -------------------------------------------------------------------------------------


def folder(settings: Settings, tenant: str) -> Path:
    """The tenant's folder of waiting uploads (named by its key, as every tenant folder is)."""
    return Path(settings.data_dir) / "ingest_jobs" / tenant_key(tenant)


def _job_folder(settings: Settings, tenant: str, job_id: str) -> Path:
    return folder(settings, tenant) / job_id


def _write_durably(path: Path, data: bytes) -> None:
    """The bytes on disk (synced, renamed into place) before the client is told they were taken."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
        tmp.write(data)
        tmp.flush()
        os.fsync(tmp.fileno())
    os.replace(tmp.name, path)


# ---- accepting -------------------------------------------------------------------------------


def refusal(settings: Settings, stored: Path) -> str | None:
    """What a synchronous upload would refuse before parsing (size, then what the bytes are:
    empty, binary, an unsupported or legacy format), as its one sentence; None when the file
    may be accepted. A file whose parse fails later fails its job with the parser's sentence."""
    from core.documents import size_refusal
    from core.ingest import IngestError, detect_format

    too_large = size_refusal(settings, stored.stat().st_size)
    if too_large:
        return too_large
    try:
        detect_format(stored)
    except IngestError as exc:
        return str(exc)
    return None


def accept(settings: Settings, tenant: str, file_name: str, data: bytes, *, uploaded_by: str = "api",
           key_id: str | None = None, start: bool = True) -> dict[str, Any]:
    """Check the file, keep its bytes and record a queued job run by this process; queue it
    on the worker unless `start` is False. Raises Refused (nothing kept) for a file a
    synchronous upload would refuse before parsing."""
    from core.documents import base_name, ensure_tenant, readable_name, upload_file_name

    validate_tenant(tenant)
    # before any byte is kept: a tenant whose deletion was decided raises TenantBeingDeleted
    # here, and no file is left in a folder the deletion may already have removed (QA pass)
    ensure_tenant(settings, tenant)
    file_name = readable_name(base_name(file_name).strip() or "upload")
    job_id = new_id()
    stored = upload_file_name(file_name)
    path = _job_folder(settings, tenant, job_id) / stored
    _write_durably(path, data)
    why = refusal(settings, path)
    if why:
        shutil.rmtree(path.parent, ignore_errors=True)
        raise Refused(why)
    pid, pid_start = this_process()
    now = time.time()
    try:
        with store.connect(settings) as conn:
            conn.execute(
                "INSERT INTO ingest_jobs (job_id, tenant, file_name, size, stored, uploaded_by, key_id, phase, "
                "pid, pid_start, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (job_id, tenant, file_name, len(data), stored, uploaded_by, key_id, QUEUED, pid, pid_start, now, now))
    except BaseException:
        shutil.rmtree(path.parent, ignore_errors=True)  # no row, so no bytes either
        raise
    _prune(settings, tenant)
    if start:
        _enqueue(settings, job_id)
    return get(settings, tenant, job_id) or {}


def _prune(settings: Settings, tenant: str, keep: int = KEEP_JOBS) -> None:
    with store.connect(settings) as conn:
        conn.execute("DELETE FROM ingest_jobs WHERE tenant=? AND phase NOT IN (?,?) AND job_id NOT IN ("
                     "SELECT job_id FROM ingest_jobs WHERE tenant=? ORDER BY created_at DESC LIMIT ?)",
                     (tenant, *RUNNING, tenant, keep))


# ---- reading -----------------------------------------------------------------------------------


def _record(row: Any) -> dict[str, Any]:
    record = dict(row)
    record["result"] = json.loads(record["result"]) if record.get("result") else None
    return record


def get(settings: Settings, tenant: str, job_id: str) -> dict[str, Any] | None:
    """One of the tenant's jobs, settled; None for an unknown id or another tenant's."""
    with store.connect(settings) as conn:
        row = conn.execute("SELECT * FROM ingest_jobs WHERE tenant=? AND job_id=?", (tenant, job_id)).fetchone()
    return _settle(settings, _record(row)) if row else None


def jobs(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """The tenant's jobs, newest first, each settled."""
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT * FROM ingest_jobs WHERE tenant=? ORDER BY created_at DESC, job_id DESC",
                            (tenant,)).fetchall()
    return [_settle(settings, _record(r)) for r in rows]


def _settle(settings: Settings, record: dict[str, Any]) -> dict[str, Any]:
    """A queued or indexing job whose process is gone will never end: it is interrupted
    (its bytes removed; the all-or-nothing ingest left nothing of it indexed), unless the
    tenant holds its bytes under its name, ready: then the process ended between the
    document's commit and the job's, and the job is done (a QA pass killed the server there,
    and was told to upload again a document that answered)."""
    if record["phase"] not in RUNNING or process_alive(record.get("pid"), record.get("pid_start")):
        return record
    held = _held(settings, record)
    if held is not None:
        _finish(settings, record, phase=DONE, doc_id=held["doc_id"],
                result={"file_name": record["file_name"], "status": "ready", "doc_id": held["doc_id"],
                        "pages": held.get("pages"), "chunks": held.get("chunks")})
    else:
        _finish(settings, record, phase=INTERRUPTED, error=INTERRUPTED_SENTENCE)
    return get(settings, record["tenant"], record["job_id"]) or record


def _held(settings: Settings, record: dict[str, Any]) -> dict[str, Any] | None:
    """The tenant's ready document of the job's name holding the job's bytes, if any."""
    path = _job_folder(settings, record["tenant"], record["job_id"]) / record["stored"]
    try:
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return next((d for d in store.find_documents(settings, record["tenant"], file_name=record["file_name"],
                                                 sha256=sha) if d["status"] == "ready"), None)


def settle_abandoned(settings: Settings) -> int:
    """Settle every tenant's jobs left running by a process that is gone, so their waiting
    bytes go at start-up, not when someone polls them (up to the size limit each); how many."""
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT * FROM ingest_jobs WHERE phase IN (?,?)", RUNNING).fetchall()
    left = [_record(r) for r in rows if not process_alive(r["pid"], r["pid_start"])]
    for record in left:
        _settle(settings, record)
    return len(left)


def _update(settings: Settings, job_id: str, **fields: Any) -> None:
    """Set fields of a job still running: an ended job keeps its outcome."""
    names = ", ".join(f"{k}=?" for k in fields)  # the keys are this module's own column names
    with store.connect(settings) as conn:
        conn.execute(f"UPDATE ingest_jobs SET {names}, updated_at=? WHERE job_id=? AND phase IN (?,?)",
                     (*fields.values(), time.time(), job_id, *RUNNING))


def _finish(settings: Settings, record: dict[str, Any], *, phase: str, error: str | None = None,
            doc_id: str | None = None, result: dict[str, Any] | None = None) -> None:
    _update(settings, record["job_id"], phase=phase, error=error, doc_id=doc_id, finished_at=time.time(),
            result=json.dumps(result, ensure_ascii=False, default=str) if result is not None else None)
    shutil.rmtree(_job_folder(settings, record["tenant"], record["job_id"]), ignore_errors=True)


def cancel(settings: Settings, tenant: str, job_id: str) -> dict[str, Any] | None:
    """Cancel one of the tenant's jobs and return it: a queued one now (its bytes removed; the
    worker passes over it); an indexing one is asked to stop (`cancel_requested_at` set, the
    worker stops at its next safe point), unless it is past its commit point, when it is
    returned as it is, as is an ended job, for the caller to say so. None for an unknown id
    or another tenant's."""
    from core import ingest_cancel

    record = get(settings, tenant, job_id)
    if record is None or record["phase"] not in RUNNING:
        return record
    with store.connect(settings) as conn:  # only while still queued: the worker may take it now
        taken = conn.execute("UPDATE ingest_jobs SET phase=?, finished_at=?, updated_at=? "
                             "WHERE job_id=? AND tenant=? AND phase=?",
                             (CANCELLED, time.time(), time.time(), job_id, tenant, QUEUED)).rowcount
    if taken:
        shutil.rmtree(_job_folder(settings, tenant, job_id), ignore_errors=True)
    else:  # indexing (perhaps taken by the worker a moment ago)
        ingest_cancel.request(settings, tenant, job_id)
    return get(settings, tenant, job_id)


# ---- running -----------------------------------------------------------------------------------


def next_job(settings: Settings) -> str | None:
    """The queued job of this process to run next, fairly across tenants: the oldest queued job
    of the tenant served least recently (a tenant never served first; ties go to the older
    job). "Served" is read from the rows (the latest `started_at`), so it holds across restarts."""
    pid, pid_start = this_process()
    with store.connect(settings) as conn:
        queued = conn.execute("SELECT job_id, tenant FROM ingest_jobs WHERE phase=? AND pid=? AND pid_start IS ? "
                              "ORDER BY created_at, rowid", (QUEUED, pid, pid_start)).fetchall()
        if not queued:
            return None
        served = {r["tenant"]: r["at"] for r in conn.execute(
            "SELECT tenant, max(started_at) AS at FROM ingest_jobs WHERE started_at IS NOT NULL GROUP BY tenant")}
    oldest: dict[str, str] = {}  # tenant -> its oldest queued job, tenants in the order of that job's age
    for row in queued:
        oldest.setdefault(row["tenant"], row["job_id"])
    tenant = min(oldest, key=lambda t: served.get(t) or 0.0)  # min keeps the first of equals: the older job
    return oldest[tenant]


def run_next(settings: Settings) -> str | None:
    """Run the job `next_job` picks (the worker's step; a test may drive it); its id, or None."""
    job_id = next_job(settings)
    if job_id is not None:
        run(settings, job_id)
    return job_id


def run(settings: Settings, job_id: str) -> None:
    """Index one queued job now (a test may call it directly)."""
    from core import ingest_cancel
    from core.documents import IngestCancelled, IngestResult, ingest_file

    now = time.time()
    with store.connect(settings) as conn:  # taken in one statement: no job runs twice
        taken = conn.execute("UPDATE ingest_jobs SET phase=?, stage=?, started_at=?, updated_at=? "
                             "WHERE job_id=? AND phase=?", (INDEXING, "waiting", now, now, job_id, QUEUED)).rowcount
        row = conn.execute("SELECT * FROM ingest_jobs WHERE job_id=?", (job_id,)).fetchone()
    if not taken:
        return
    record = _record(row)
    last = {"stage": "", "fraction": -1.0}

    def progress(stage: str, fraction: float) -> None:
        # each stage's start, every page parsed (an OCR page takes seconds), every embedding batch
        if stage != last["stage"] or stage in ("parse", "embed"):
            ingest_cancel.checkpoint(settings, job_id, stage)
        if stage != last["stage"] or fraction - last["fraction"] >= PROGRESS_STEP:
            last.update(stage=stage, fraction=fraction)
            _update(settings, job_id, stage=stage, fraction=round(float(fraction), 4))

    path = _job_folder(settings, record["tenant"], job_id) / record["stored"]
    try:
        result = ingest_file(settings, record["tenant"], path, file_name=record["file_name"],
                             uploaded_by=record.get("uploaded_by") or "api", progress=progress)
    except IngestCancelled:  # stopped before any write: nothing of it is kept
        log.info("ingest job %s cancelled by its client before its commit", job_id)
        _finish(settings, record, phase=CANCELLED)
        return
    except Exception as exc:  # noqa: BLE001 - ingest_file says a bad file in its result; this is our bug
        log.exception("ingest job %s failed", job_id)
        result = IngestResult(record["file_name"], "failed", error=(
            f"Indexing failed unexpectedly ({type(exc).__name__}); nothing was kept, try again."))
    out = result.to_dict()
    if result.status == "unchanged" and ingest_cancel.requested(settings, job_id):
        _finish(settings, record, phase=CANCELLED)  # it added nothing: the holder was there before
        return
    if result.status == "failed":
        _finish(settings, record, phase=FAILED, error=result.error, doc_id=result.doc_id, result=out)
        return
    _finish(settings, record, phase=DONE, doc_id=result.doc_id, result=out)
    if result.status == "ready" and result.doc_id:  # answer vectors after, as a synchronous upload does
        from core.answer.prepare import prepare_in_background

        prepare_in_background(settings, record["tenant"], [result.doc_id])


_queue: queue.Queue = queue.Queue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()


def _enqueue(settings: Settings, job_id: str) -> None:
    global _worker
    _queue.put((settings, job_id))
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="ingest-jobs", daemon=True)
            _worker.start()


def _work() -> None:
    # each accepted job puts one item; an item runs whichever job is fairest now (`next_job`),
    # not necessarily its own, so as many jobs run as were queued
    while True:
        settings, _ = _queue.get()
        job_id = None
        try:
            job_id = next_job(settings)
            if job_id is not None:
                run(settings, job_id)
        except Exception:  # never let one job stop the worker; the job is settled by its reader
            log.exception("ingest job %s could not be run", job_id)
            if job_id is not None:
                _update(settings, job_id, phase=FAILED, finished_at=time.time(),
                        error="Indexing failed unexpectedly; nothing was kept, try again.")
        finally:
            _queue.task_done()


def wait_for_worker(timeout: float = 120.0) -> bool:
    """Until every queued job has run (tests, orderly shutdown); False on timeout."""
    return until_finished(_queue, timeout)
