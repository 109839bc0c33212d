"""Tenant deletions whose process died, finished by the next start of the API or the console.

`tenants delete` (or the console's delete) killed midway leaves the tenant's tombstone
(`tenants.deleting_at`) and whatever steps 2-4 had not removed yet (core/tenant_deletion.py).
Nothing else ever runs that deletion again, so the API (`create_app`) and the console, as they
start, finish on a background thread every deletion whose recorded process is gone
(core/processes.py), by the CLI's own `delete_tenant`; a deletion whose process still runs is
left to it. One log line per tenant finished.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from core import store
from core.config import Settings
from core.processes import process_alive, this_process

log = logging.getLogger(__name__)

_threads: list[threading.Thread] = []


def _tombstones(settings: Settings) -> list[dict[str, Any]]:
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT id, deleting_pid, deleting_pid_start FROM tenants "
                            "WHERE deleting_at IS NOT NULL ORDER BY deleting_at").fetchall()
    return [dict(r) for r in rows]


def abandoned(settings: Settings) -> list[str]:
    """Tenants being deleted whose deleting process is gone (one deleted before migration 21
    names none: gone too)."""
    return [r["id"] for r in _tombstones(settings) if not process_alive(r["deleting_pid"], r["deleting_pid_start"])]


def _take_over(settings: Settings, tenant: str) -> bool:
    """Name this process as the tenant's deleter, unless another did since it was read as
    abandoned (two servers starting at once finish it once)."""
    row = next((r for r in _tombstones(settings) if r["id"] == tenant), None)
    if row is None or process_alive(row["deleting_pid"], row["deleting_pid_start"]):
        return False
    pid, pid_start = this_process()
    with store.connect(settings) as conn:
        return bool(conn.execute(
            "UPDATE tenants SET deleting_pid=?, deleting_pid_start=? WHERE id=? AND deleting_at IS NOT NULL "
            "AND deleting_pid IS ? AND deleting_pid_start IS ?",
            (pid, pid_start, tenant, row["deleting_pid"], row["deleting_pid_start"])).rowcount)


def _let_go(settings: Settings, tenant: str) -> None:
    """After a failure: the deletion reads as abandoned again, for the next start or the CLI."""
    with store.connect(settings) as conn:
        conn.execute("UPDATE tenants SET deleting_pid=NULL, deleting_pid_start=NULL WHERE id=?", (tenant,))


def finish(settings: Settings) -> list[str]:
    """Finish every abandoned deletion now; the tenants finished."""
    from core.tenant_deletion import delete_tenant

    finished = []
    for tenant in abandoned(settings):
        if not _take_over(settings, tenant):
            continue
        try:
            done = delete_tenant(settings, tenant)
        except Exception as exc:  # noqa: BLE001 - one tenant's failure must not stop a start
            _let_go(settings, tenant)
            log.warning("could not finish deleting tenant %r (%s); run `python -m core.cli tenants delete "
                        "--tenant %r --yes`", tenant, exc, tenant)
            continue
        log.warning("finished deleting tenant %r, left half-deleted by a process that stopped: %s",
                    tenant, done.footprint.sentence())
        finished.append(tenant)
    return finished


def finish_in_background(settings: Settings) -> threading.Thread | None:
    """`finish` on a thread when there is anything to finish (a start does not wait for a
    large tenant's collection and folders to go); the thread, or None."""
    if not abandoned(settings):
        return None
    thread = threading.Thread(target=finish, args=(settings,), name="tenant-deletions", daemon=True)
    _threads.append(thread)
    thread.start()
    return thread


def wait(timeout: float = 120.0) -> bool:
    """Until every deletion started here has finished (tests, orderly shutdown); False on timeout."""
    for thread in list(_threads):
        thread.join(timeout)
    return not any(t.is_alive() for t in _threads)
