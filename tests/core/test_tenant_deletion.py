"""Deleting a tenant (core/tenant_deletion.py): everything of it goes, from a real Chroma
store, real SQLite and its folders; nothing of another tenant does; a delete stopped midway
leaves the tenant invisible and is finished by running it again."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from dataclasses import replace

import pytest

from core import eval_jobs, eval_rows, index, ingest_jobs, journal, keys, store, tenant_deletion, users
from core.config import save_tenant_overrides
from core.documents import ensure_tenant, ingest_file
from core.pipeline import ask
from core.processes import process_start
from core.tenants import TenantBeingDeleted, collection_name, conversations_dir
from tests.conftest import ANSWERING_THRESHOLD

ACME = "# Travel policy\n\nHotel costs are reimbursed up to 180 euros per night.\n"
BETA = "# Equipment\n\nBroken equipment is reported to the IT service desk on extension 4455.\n"
PASSWORD = "correct horse battery"


class Crash(BaseException):
    """Stands for the process dying: no `except Exception` in the code under test catches it."""


def _fill(settings, tenant: str, text: str, write_file) -> dict[str, str]:
    """A tenant holding a document, an ask with a rating and a review decision, an API key,
    a user role, settings, an eval run, an interrupted upload, a chat, an eval job, its own
    eval set and a queued API upload: something in every place a tenant's data lives."""
    assert ingest_file(settings, tenant, write_file(f"{tenant}.md", text)).status == "ready"
    asked = ask(replace(settings, gate_threshold=ANSWERING_THRESHOLD), tenant, "How much is reimbursed for a hotel night?"
                if tenant == "acme" else "What extension does the IT service desk have?")
    assert asked.status == "answered", asked
    store.add_feedback(settings, tenant, asked.trace_id, 1)
    store.save_review(settings, tenant, asked.trace_id, "dismissed")
    _, key = keys.create_key(settings, tenant, "integration")
    users.add_user(settings, f"admin-{tenant}", PASSWORD, tenant, "admin")
    save_tenant_overrides(settings, tenant, {"top_k": 3, "synonyms": {"lodging": "hotel"}})
    store.save_eval_run(settings, {"set": "tiny", "tenant": tenant, "overall": {}, "settings": {}})
    store.record_interrupted_uploads(settings, tenant, ["cut.pdf"])
    chats = conversations_dir(settings, tenant)
    chats.mkdir(parents=True)
    (chats / "c1.json").write_text("{}", encoding="utf-8")
    jobs = eval_jobs.folder(settings, tenant)
    jobs.mkdir(parents=True)
    (jobs / "j1.json").write_text(json.dumps({"job_id": "j1", "owner": tenant, "status": "done"}), encoding="utf-8")
    own_set = eval_rows.feedback_set_path(settings, tenant)
    own_set.parent.mkdir(parents=True, exist_ok=True)
    own_set.write_text("{}\n", encoding="utf-8")
    # an API upload waiting for the worker: its row and its bytes
    ingest_jobs.accept(settings, tenant, "later.md", b"# Later\n\nQueued for indexing.\n", start=False)
    return {"key": key, "trace_id": asked.trace_id}


def _rows_of(settings, tenant: str) -> dict[str, int]:
    with store.connect(settings) as conn:
        found = {t: conn.execute(f"SELECT count(*) FROM {t} WHERE tenant=?", (tenant,)).fetchone()[0]
                 for t in tenant_deletion.TENANT_TABLES}
        found["tenants"] = conn.execute("SELECT count(*) FROM tenants WHERE id=?", (tenant,)).fetchone()[0]
    return {t: n for t, n in found.items() if n}


def _collections(settings) -> set[str]:
    return {c.name for c in index.chroma_client(settings).list_collections()}


def _paths_left(settings, tenant: str) -> list[str]:
    return [str(p) for p in tenant_deletion.tenant_paths(settings, tenant) if p.exists()]


def test_every_table_that_carries_a_tenant_is_emptied_of_it(settings):
    """A table added later with a `tenant` column must join TENANT_TABLES, or a deleted
    tenant's rows would stay in it."""
    with store.connect(settings) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        carrying = {t for t in tables if any(c[1] == "tenant" for c in conn.execute(f"PRAGMA table_info({t})"))}
    assert carrying == set(tenant_deletion.TENANT_TABLES)


def test_a_deleted_tenant_leaves_nothing_and_another_tenant_keeps_everything(settings, write_file):
    acme = _fill(settings, "acme", ACME, write_file)
    beta = _fill(settings, "beta", BETA, write_file)
    beta_rows, beta_vectors = _rows_of(settings, "beta"), index.vector_count(settings, "beta")
    assert _rows_of(settings, "acme").keys() == beta_rows.keys()  # acme held something in every table
    assert len(_paths_left(settings, "acme")) == 5

    done = tenant_deletion.delete_tenant(settings, "acme")

    assert (done.footprint.documents, done.footprint.asks, done.footprint.api_keys, done.footprint.user_roles,
            done.footprint.eval_runs) == (1, 1, 1, 1, 1) and not done.resumed
    assert _rows_of(settings, "acme") == {}
    assert collection_name("acme") not in _collections(settings)
    assert _paths_left(settings, "acme") == []
    assert keys.tenant_for_key(settings, acme["key"]) is None
    refused = ask(settings, "acme", "How much is reimbursed for a hotel night?")
    assert refused.refusal_code == "unknown_tenant"
    assert [t["id"] for t in store.list_tenants(settings)] == ["beta"]
    assert users.roles_of(settings, "admin-acme") == {}  # the account stays, without the role

    # the other tenant: every row, every vector, every file, its key, and its answers
    assert _rows_of(settings, "beta") == beta_rows
    assert index.vector_count(settings, "beta") == beta_vectors
    assert _paths_left(settings, "beta") == [str(p) for p in tenant_deletion.tenant_paths(settings, "beta")]
    assert keys.tenant_for_key(settings, beta["key"]) == "beta"
    answer = ask(replace(settings, gate_threshold=ANSWERING_THRESHOLD), "beta",
                 "What extension does the IT service desk have?")
    assert answer.status == "answered" and "4455" in answer.answer


@pytest.mark.parametrize("step", ["delete_rows", "drop_collection", "remove_files", "forget"])
def test_a_delete_stopped_midway_hides_the_tenant_and_a_second_delete_finishes_it(settings, write_file,
                                                                                  monkeypatch, step):
    acme = _fill(settings, "acme", ACME, write_file)

    def die(*args, **kwargs):
        raise Crash(step)

    monkeypatch.setattr(index if step == "drop_collection" else tenant_deletion, step, die)
    with pytest.raises(Crash):
        tenant_deletion.delete_tenant(settings, "acme")
    monkeypatch.undo()

    # from the decision on, the tenant is gone for every reader and takes no writes
    assert store.list_tenants(settings) == [] and not store.tenant_exists(settings, "acme")
    assert store.tenants_being_deleted(settings) == ["acme"]
    assert keys.tenant_for_key(settings, acme["key"]) is None
    assert users.roles_of(settings, "admin-acme") == {}
    assert ask(settings, "acme", "How much is reimbursed for a hotel night?").refusal_code == "unknown_tenant"
    with pytest.raises(TenantBeingDeleted):
        ensure_tenant(settings, "acme")  # no re-creation until the delete is finished
    with pytest.raises(TenantBeingDeleted), journal.write_lock(settings, "acme"):
        pass  # a writer that waited for the lock writes nothing
    with pytest.raises(LookupError):
        keys.create_key(settings, "acme")

    done = tenant_deletion.delete_tenant(settings, "acme")
    assert done.resumed
    assert _rows_of(settings, "acme") == {}
    assert collection_name("acme") not in _collections(settings)
    assert _paths_left(settings, "acme") == []
    assert store.tenants_being_deleted(settings) == []
    ensure_tenant(settings, "acme")  # the id is free again, and empty
    assert store.tenant_exists(settings, "acme") and store.list_documents(settings, "acme") == []


def test_only_an_admin_of_the_tenant_may_delete_it(settings):
    ensure_tenant(settings, "acme")
    ensure_tenant(settings, "beta")
    users.add_user(settings, "eve", PASSWORD, "acme", "expert")
    users.add_user(settings, "eve", None, "beta", "admin")
    with pytest.raises(PermissionError, match="Only an admin of tenant 'acme' may delete it."):
        tenant_deletion.delete_tenant(settings, "acme", admin="eve")
    assert store.tenant_exists(settings, "acme") and users.roles_of(settings, "eve")["acme"] == "expert"
    users.add_user(settings, "ada", PASSWORD, "acme", "admin")
    tenant_deletion.delete_tenant(settings, "acme", admin="ada")
    assert not store.tenant_exists(settings, "acme") and store.tenant_exists(settings, "beta")


def test_an_unknown_tenant_is_said_in_one_sentence(settings):
    ensure_tenant(settings, "acme")
    with pytest.raises(LookupError, match=r"^No tenant named 'acmee'; `tenants list` shows them\.$"):
        tenant_deletion.delete_tenant(settings, "acmee")
    assert store.tenant_exists(settings, "acme")


def test_a_tenant_with_a_running_eval_run_is_not_deleted(settings):
    ensure_tenant(settings, "acme")
    jobs = eval_jobs.folder(settings, "acme")
    jobs.mkdir(parents=True)
    (jobs / "j1.json").write_text(json.dumps({"job_id": "j1", "owner": "acme", "status": "running", "set": "tiny",
                                              "started_at": time.time()}), encoding="utf-8")
    with pytest.raises(tenant_deletion.TenantBusy, match="An eval run of set tiny is running"):
        tenant_deletion.delete_tenant(settings, "acme")
    assert store.tenant_exists(settings, "acme") and store.tenants_being_deleted(settings) == []


def test_the_console_cannot_create_a_tenant_being_deleted(settings, monkeypatch):
    from ui.services import create_tenant

    ensure_tenant(settings, "acme")
    monkeypatch.setattr(tenant_deletion, "delete_rows", lambda *a: (_ for _ in ()).throw(Crash()))
    with pytest.raises(Crash):
        tenant_deletion.delete_tenant(settings, "acme")
    with pytest.raises(TenantBeingDeleted, match="is being deleted"):
        create_tenant(settings, "acme")  # single-user mode: how to finish it
    ensure_tenant(settings, "beta")
    users.add_user(settings, "ada", PASSWORD, "beta", "admin")
    with pytest.raises(ValueError, match="^The tenant id 'acme' cannot be used; choose another id.$"):
        create_tenant(settings, "acme", owner="ada")  # signed in: no word on whose id it is
    assert store.tenants_being_deleted(settings) == ["acme"]


def _gone_process() -> tuple[int, int | None]:
    """(pid, start tick) of a process that has ended: the recorded deleter of a killed delete."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        started = process_start(child.pid)
    finally:
        child.kill()
        child.wait()
    return child.pid, started


def test_a_deletion_whose_process_died_is_finished_as_the_api_starts_and_one_under_way_is_left(
        settings, write_file, caplog):
    from core import abandoned_deletions, doctor
    from core.api import create_app

    for tenant, text in (("acme", ACME), ("beta", BETA), ("gamma", ACME)):
        assert ingest_file(settings, tenant, write_file(f"{tenant}.md", text)).status == "ready"
        keys.create_key(settings, tenant, "integration")

    def die(*args, **kwargs):
        raise Crash()

    # acme: its `tenants delete` killed after its rows went, before its collection and folders did
    with pytest.MonkeyPatch.context() as patch, pytest.raises(Crash):
        patch.setattr(tenant_deletion, "this_process", _gone_process)
        patch.setattr(index, "drop_collection", die)
        tenant_deletion.delete_tenant(settings, "acme")
    # beta: a deletion under way in a process that lives (this one), stopped before its rows
    with pytest.MonkeyPatch.context() as patch, pytest.raises(Crash):
        patch.setattr(tenant_deletion, "delete_rows", die)
        tenant_deletion.delete_tenant(settings, "beta")
    assert store.tenants_being_deleted(settings) == ["acme", "beta"]
    assert _paths_left(settings, "acme") and collection_name("acme") in _collections(settings)
    beta_rows = _rows_of(settings, "beta")

    # the doctor names both: what is left, and who finishes it
    left = doctor.unfinished_deletions(settings)
    assert set(left) == {"acme", "beta"}
    assert left["acme"].startswith("tenant 'acme' was left half-deleted by a process that stopped: its vector "
                                   "collection, ") and "finishes it as it starts" in left["acme"]
    assert left["beta"].startswith("tenant 'beta' is being deleted by a running process")

    caplog.set_level(logging.INFO, logger=abandoned_deletions.__name__)
    create_app(settings)
    assert abandoned_deletions.wait(120)

    # acme finished by the CLI's own steps: nothing of it left, and its id is free
    assert _rows_of(settings, "acme") == {}
    assert collection_name("acme") not in _collections(settings)
    assert _paths_left(settings, "acme") == []
    lines = [r.getMessage() for r in caplog.records if r.name == abandoned_deletions.__name__]
    assert len(lines) == 1 and lines[0].startswith("finished deleting tenant 'acme'"), lines
    # beta, whose deleting process lives, is left to it; gamma is untouched
    assert store.tenants_being_deleted(settings) == ["beta"] and _rows_of(settings, "beta") == beta_rows
    assert collection_name("beta") in _collections(settings)
    assert store.tenant_exists(settings, "gamma") and index.vector_count(settings, "gamma") == 1
    assert set(doctor.unfinished_deletions(settings)) == {"beta"}
    ensure_tenant(settings, "acme")
    assert store.list_documents(settings, "acme") == []
