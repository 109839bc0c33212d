"""Cancelling an API upload that is already indexing: cooperatively, at the ingest's safe points.

`DELETE /v1/ingest-jobs/{id}` on an indexing job records the request on the job's row
(`cancel_requested_at`, migration 20). The worker reads it where nothing of the file has been
written yet: each stage's start (parse, chunk, embed), every page parsed (an OCR page takes
seconds: a long scan stops within one), every embedding batch, and "index", the
step just before the first write. There it raises `IngestCancelled`, the ingest stops with no
row, vector or kept file of the document, and the job ends `cancelled` with its bytes removed.

"index" is the point of no return. The worker passes it only by setting the row's stage in the
same statement that finds no request, and a request is recorded only on a row whose stage is not
yet there: SQLite runs one statement after the other, so either the ingest stops, or the client
is told the document is (about to be) committed and how to delete it. No request is lost between.
"""

from __future__ import annotations

import time

from core import store
from core.config import Settings
from core.documents import IngestCancelled
from core.ingest_jobs import INDEXING

SAFE_POINTS = ("parse", "chunk", "embed")  # stages at which nothing of the file is written yet
COMMIT_POINT = "index"  # the step before the first write: past it, the document is kept
PAST_COMMIT = (COMMIT_POINT, "done")


def request(settings: Settings, tenant: str, job_id: str) -> bool:
    """Record a cancel request on the tenant's job while it is indexing and short of the commit
    point; whether one is recorded now (asked again, it still is: a DELETE repeated)."""
    now = time.time()
    with store.connect(settings) as conn:
        return bool(conn.execute(
            "UPDATE ingest_jobs SET cancel_requested_at=coalesce(cancel_requested_at, ?), updated_at=? "
            "WHERE job_id=? AND tenant=? AND phase=? AND coalesce(stage, '') NOT IN (?,?)",
            (now, now, job_id, tenant, INDEXING, *PAST_COMMIT)).rowcount)


def checkpoint(settings: Settings, job_id: str, stage: str) -> None:
    """At a stage the job's ingest reached: raise IngestCancelled when a cancel was requested and
    the stage is a safe point. At the commit point the stage is set in the statement that finds
    no request, so a request recorded later is refused instead (`request`)."""
    if stage not in SAFE_POINTS and stage != COMMIT_POINT:
        return
    with store.connect(settings) as conn:
        if stage == COMMIT_POINT:
            passed = conn.execute("UPDATE ingest_jobs SET stage=?, updated_at=? WHERE job_id=? "
                                  "AND cancel_requested_at IS NULL", (stage, time.time(), job_id)).rowcount
            if passed:
                return
        else:
            row = conn.execute("SELECT cancel_requested_at FROM ingest_jobs WHERE job_id=?", (job_id,)).fetchone()
            if row is None or row["cancel_requested_at"] is None:
                return
    raise IngestCancelled(f"ingest job {job_id} cancelled by its client")


def requested(settings: Settings, job_id: str) -> bool:
    """Whether the job's client asked to cancel it."""
    with store.connect(settings) as conn:
        row = conn.execute("SELECT cancel_requested_at FROM ingest_jobs WHERE job_id=?", (job_id,)).fetchone()
    return row is not None and row["cancel_requested_at"] is not None
