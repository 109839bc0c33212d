"""A tenant's write-ahead record: what a write is about to change, kept until the stores agree.

An ingest, a replacement, a re-index or a delete changes four stores that share no
transaction: the registry (SQLite), the vectors (Chroma), the BM25 index and the kept
originals. Before its first change a writer records which documents it may touch
(`tenants/<key>/journal.json`, written atomically, under the tenant's lock) and removes
the record once every store agrees. A record found by a process that can take the lock
means its writer died mid-way: the documents it names are settled from the registry,
which commits in one SQLite transaction and so is the one truth (core/doctor.py): a
change the registry committed is rolled forward (stale vectors, files and BM25 entries
go), one it did not commit is rolled back (the half-added vectors and file go, vectors
the registry still lists are embedded again from its chunk text).

Writers settle a record as they take the lock (`write_lock`); readers look for one before
each question (`settle_abandoned`: one `stat` when there is none) and settle it only when
no writer holds the lock.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core import index, store
from core.config import Settings
from core.tenants import tenant_dir

RECORD = "journal.json"


def record_path(settings: Settings, tenant: str) -> Path:
    return tenant_dir(settings, tenant) / RECORD


def pending(settings: Settings, tenant: str) -> dict[str, Any] | None:
    """The record a write left, or None. A torn record (it is written by rename, so only a
    damaged disk makes one) names no documents: the doctor then checks them all."""
    path = record_path(settings, tenant)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"op": "unknown", "doc_ids": None}


def begin(settings: Settings, tenant: str, op: str, doc_ids: list[str]) -> None:
    """Record the documents a write may touch (callers hold the tenant lock)."""
    path = record_path(settings, tenant)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{RECORD}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"op": op, "doc_ids": sorted(set(doc_ids)), "at": time.time(),
                               "pid": os.getpid()}), encoding="utf-8")
    os.replace(tmp, path)


def end(settings: Settings, tenant: str) -> None:
    record_path(settings, tenant).unlink(missing_ok=True)


def settle(settings: Settings, tenant: str) -> dict[str, Any] | None:
    """Settle the record a dead writer left (callers hold the tenant lock); what was
    repaired, or None when there was nothing to settle."""
    record = pending(settings, tenant)
    if record is None:
        return None
    from core.doctor import repair  # the doctor builds on the whole ingest side

    done = repair(settings, tenant, record.get("doc_ids"))
    end(settings, tenant)
    return done


@contextmanager
def write_lock(settings: Settings, tenant: str) -> Iterator[None]:
    """The tenant's writer lock, with any write a crash left half-done settled first. A
    writer that waited here while its tenant was being deleted writes nothing (TenantError):
    what it wrote would outlive the deletion."""
    _require_live(settings, tenant)  # before the lock too: taking it makes the tenant's folder
    with index.tenant_lock(settings, tenant):
        _require_live(settings, tenant)
        settle(settings, tenant)
        yield


def _require_live(settings: Settings, tenant: str) -> None:
    if store.tenant_exists(settings, tenant):
        return
    from core.tenants import TenantBeingDeleted, TenantError

    if tenant in store.tenants_being_deleted(settings):
        raise TenantBeingDeleted(tenant)
    raise TenantError(f"Tenant '{tenant}' does not exist (it may have just been deleted); nothing was written.")


def settle_abandoned(settings: Settings, tenant: str) -> bool:
    """Before a read: settle a record whose writer is gone. False (and nothing touched)
    when there is none or a live writer holds the lock; the reader then sees the last
    committed state, as during any write."""
    if not record_path(settings, tenant).exists():
        return False
    with index.try_tenant_lock(settings, tenant) as locked:
        if locked:
            return settle(settings, tenant) is not None
    return False
