"""Deleting a tenant: everything it holds goes, nothing of any other tenant does, and a
delete that a crash stopped midway is finished by running it again.

Everything of a tenant is found from its id alone: its rows carry the id, its Chroma
collection and its folders are named by the id's hash (core/tenants.py). So the steps need
no record of what to remove beyond the decision itself:

1. Decide, in one SQLite transaction: `tenants.deleting_at` is set with the deleting process
   (`deleting_pid`, `deleting_pid_start`, migration 21) and the tenant's API keys and user
   roles go. From that commit every listing, picker, ask, key and role treats the tenant as
   gone (`store.tenant_exists`), and its id cannot be created again (`store.upsert_tenant`
   raises TenantBeingDeleted).
2. Under the tenant's writer lock and its preparation lock (an upload, delete or answer
   preparation under way finishes first; a writer that waited behind them finds the tenant
   gone, `journal.write_lock`): the rows of every table that carries the tenant
   (`TENANT_TABLES`), in one transaction.
3. Its Chroma collection (and a rebuild copy of it), then its folders: `tenants/<key>/`
   (kept originals, BM25, answer vectors, OCR words, settings and synonyms, targets, the
   write-ahead record), `conversations/<key>/`, `eval_jobs/<key>/`, `ingest_jobs/<key>/`
   (API uploads waiting), and its own feedback eval set.
4. The tenant's row: the id is free again.

A crash after step 1 leaves the tenant invisible and its id taken; `delete_tenant` run again
(`tenants list` names such tenants) repeats steps 2-4, each removing what is left and
passing over what is gone: journal.py's roll-forward of a decided write, with the row's
`deleting_at` as the record. The API and the console run it again themselves as they start,
for a deletion whose recorded process is gone (core/abandoned_deletions.py). Accounts stay (a
user may hold roles in other tenants), and so do eval runs stored for another tenant or for
none that asked this one.
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from core import eval_jobs, eval_rows, index, ingest_jobs, store, users
from core.answer_vectors import preparing
from core.config import Settings
from core.processes import this_process
from core.tenants import conversations_dir, tenant_dir, validate_tenant

# every table with a `tenant` column (tests/core/test_tenant_deletion.py checks that none is missed)
TENANT_TABLES = ("chunks", "documents", "traces", "feedback", "reviews", "eval_runs", "interrupted_uploads",
                 "api_keys", "memberships", "ingest_jobs")


class TenantBusy(ValueError):
    """Something still running writes into the tenant (an eval run); said in one sentence."""


@dataclass(frozen=True)
class Footprint:
    """What a tenant holds, as an admin is told before deleting it."""

    documents: int
    chunks: int
    asks: int
    api_keys: int
    user_roles: int
    eval_runs: int

    def sentence(self) -> str:
        """"3 documents, 12 asks, 1 API key, 2 user roles and 0 eval runs"."""
        parts = [_count(self.documents, "document"), _count(self.asks, "ask"), _count(self.api_keys, "API key"),
                 _count(self.user_roles, "user role"), _count(self.eval_runs, "eval run")]
        return ", ".join(parts[:-1]) + " and " + parts[-1]


@dataclass(frozen=True)
class Deleted:
    tenant: str
    footprint: Footprint  # what was left to delete when this call began
    resumed: bool  # an earlier delete had stopped midway; this one finished it


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def being_deleted(settings: Settings, tenant: str) -> bool:
    return tenant in store.tenants_being_deleted(settings)


def footprint(settings: Settings, tenant: str) -> Footprint:
    """What the tenant holds now (live or being deleted)."""
    with store.connect(settings) as conn:
        def n(sql: str) -> int:
            return int(conn.execute(sql, (tenant,)).fetchone()[0])

        return Footprint(
            documents=n("SELECT count(*) FROM documents WHERE tenant=?"),
            chunks=n("SELECT count(*) FROM chunks WHERE tenant=?"),
            asks=n("SELECT count(*) FROM traces WHERE tenant=?"),
            api_keys=n("SELECT count(*) FROM api_keys WHERE tenant=? AND revoked_at IS NULL"),
            user_roles=n("SELECT count(*) FROM memberships WHERE tenant=?"),
            eval_runs=n("SELECT count(*) FROM eval_runs WHERE tenant=?"),
        )


def check_deletable(settings: Settings, tenant: str, *, admin: str | None = None) -> bool:
    """Raise what stops `delete_tenant` now, in one sentence: LookupError (no such tenant),
    PermissionError (`admin`, a console user, is no admin of it), TenantBusy (an eval run of
    it is running). Returns whether an earlier delete of it stopped midway."""
    validate_tenant(tenant)
    if store.tenant_exists(settings, tenant):
        resumed = False
    elif admin is None and being_deleted(settings, tenant):
        resumed = True  # only the command line finishes one: the console no longer lists it
    else:
        raise LookupError(f"No tenant named '{tenant}'; `tenants list` shows them.")
    if admin is not None and users.roles_of(settings, admin).get(tenant) != "admin":
        raise PermissionError(f"Only an admin of tenant '{tenant}' may delete it.")
    running = eval_jobs.active(settings, tenant)
    if running is not None:  # it would store its run and job record after the delete
        raise TenantBusy(f"An eval run of set {running.get('set')} is running for tenant '{tenant}'; cancel it "
                         "on the Quality page or let it finish, then delete the tenant.")
    return resumed


def delete_tenant(settings: Settings, tenant: str, *, admin: str | None = None) -> Deleted:
    """Delete the tenant and everything it holds (the steps above); finish an earlier delete
    of it that stopped midway. `admin`: the console user asking, who must be its admin."""
    resumed = check_deletable(settings, tenant, admin=admin)
    held = footprint(settings, tenant)  # its keys and roles: the decision removes them
    decide(settings, tenant)
    with index.tenant_lock(settings, tenant), preparing(settings, tenant):
        # counted again once a write that was running has ended: a document it finished
        # meanwhile is deleted too, and was missing from the summary (QA pass)
        now = footprint(settings, tenant)
        held = replace(held, documents=now.documents, asks=now.asks, eval_runs=now.eval_runs)
        delete_rows(settings, tenant)
        index.drop_collection(settings, tenant)
        remove_files(settings, tenant)
        forget(settings, tenant)
    return Deleted(tenant, held, resumed)


def decide(settings: Settings, tenant: str) -> None:
    """Step 1: the tombstone, with what grants access to the tenant, in one transaction. It
    names this process as the one deleting (a delete run again takes it over), so a start that
    finds the tombstone can tell a deletion under way from one whose process died."""
    pid, pid_start = this_process()
    with store.connect(settings) as conn:
        conn.execute("UPDATE tenants SET deleting_at = coalesce(deleting_at, ?), deleting_pid=?, "
                     "deleting_pid_start=? WHERE id=?", (time.time(), pid, pid_start, tenant))
        conn.execute("DELETE FROM api_keys WHERE tenant=?", (tenant,))
        conn.execute("DELETE FROM memberships WHERE tenant=?", (tenant,))


def delete_rows(settings: Settings, tenant: str) -> None:
    """Step 2: every row that carries the tenant, in one transaction."""
    with store.connect(settings) as conn:
        for table in TENANT_TABLES:
            conn.execute(f"DELETE FROM {table} WHERE tenant=?", (tenant,))


def tenant_paths(settings: Settings, tenant: str) -> list[Path]:
    """The folders and files that hold nothing but the tenant's data."""
    return [tenant_dir(settings, tenant), conversations_dir(settings, tenant), eval_jobs.folder(settings, tenant),
            ingest_jobs.folder(settings, tenant), eval_rows.feedback_set_path(settings, tenant)]


def remove_files(settings: Settings, tenant: str) -> None:
    """Step 3's files; a path already gone is passed over (a delete run again)."""
    for path in tenant_paths(settings, tenant):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def forget(settings: Settings, tenant: str) -> None:
    """Step 4: the tombstone goes and, with it, the id is free again."""
    with store.connect(settings) as conn:
        conn.execute("DELETE FROM tenants WHERE id=? AND deleting_at IS NOT NULL", (tenant,))
