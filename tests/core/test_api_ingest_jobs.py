"""Uploads over the HTTP API as background jobs (core/ingest_jobs.py), and the access log
(core/access_log.py): the real app through TestClient, a data folder per test."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from core import doctor, index, ingest_jobs, keys, store
from core.access_log import LOGGER_NAME
from core.api import create_app
from core.documents import ingest_file
from core.index import tenant_lock
from core.ingest import EMPTY
from core.models import get_embedder
from core.tenants import tenant_dir
from tests.conftest import ANSWERING_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]
ACME = "# Leave policy\n\nStaff earn 25 days of annual leave a year.\n"
PARKING = b"# Parking policy\n\nStaff park on level 2 of the north garage. Each parking permit costs 40 euros a month.\n"
HOLD_S = 10  # how long the test holds a tenant's writer lock
DEADLINE_S = 120  # a generous bound on a tiny file's indexing, never a claim about its speed


@pytest.fixture
def api(settings, write_file):
    assert ingest_file(settings, "acme", write_file("acme.md", ACME)).status == "ready"
    assert ingest_file(settings, "other", write_file("other.md", ACME)).status == "ready"
    s = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    client = TestClient(create_app(s))
    client.keys = {t: keys.create_key(s, t, label=f"{t} sync")[1] for t in ("acme", "other")}
    client.settings = s
    yield client
    assert ingest_jobs.wait_for_worker(DEADLINE_S)  # no job of this test runs into the next one


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def poll(api, key: dict[str, str], url: str) -> dict:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        job = api.get(url, headers=key).json()
        if job["phase"] not in ingest_jobs.RUNNING or time.monotonic() > deadline:
            return job
        time.sleep(0.1)


@contextmanager
def writer_lock_held(settings, tenant: str, seconds: float):
    """The tenant's writer lock held by another thread for the block (at most `seconds`)."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with tenant_lock(settings, tenant):
            holding.set()
            release.wait(seconds)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(30)
    try:
        yield
    finally:
        release.set()
        holder.join()


def test_an_upload_is_answered_202_before_it_is_indexed_then_polled_to_done(api):
    key = auth(api.keys["acme"])
    # the tenant's writer lock held for a while: indexing cannot start, and the request must
    # not wait for it (an upload indexed within the request would answer only once it is let go)
    with writer_lock_held(api.settings, "acme", HOLD_S):
        started = time.monotonic()
        res = api.post("/v1/documents", headers=key, files={"file": ("parking.md", PARKING, "text/markdown")})
        assert time.monotonic() - started < HOLD_S / 2
        assert res.status_code == 202, res.text
        job = res.json()
        assert job["phase"] in ("queued", "indexing") and job["doc_id"] is None and "progress" in job
        assert res.headers["location"] == job["status_url"] == f"/v1/ingest-jobs/{job['job_id']}"
        assert "pid" not in job and "stored" not in job  # the server's side stays its own
        assert "parking.md" not in {d["file_name"] for d in api.get("/v1/documents", headers=key).json()}
    done = poll(api, key, job["status_url"])
    assert done["phase"] == "done" and done["error"] is None and done["result"]["status"] == "ready", done
    listed = {d["file_name"]: d for d in api.get("/v1/documents", headers=key).json()}
    assert listed["parking.md"]["doc_id"] == done["doc_id"] and listed["parking.md"]["status"] == "ready"
    answer = api.post("/v1/ask", headers=key, json={"question": "How much does a parking permit cost?"}).json()
    assert "40 euros" in answer["answer"] and done["doc_id"] in json.dumps(answer["citations"])
    assert [j["job_id"] for j in api.get("/v1/ingest-jobs", headers=key).json()] == [job["job_id"]]
    # the waiting bytes are gone once indexed; the document keeps its own copy
    assert not any(ingest_jobs.folder(api.settings, "acme").rglob("*.md"))


def test_a_file_that_fails_to_parse_fails_its_job_with_one_sentence(api):
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents", headers=key, files={"file": ("x.pdf", b"%PDF-1.4 nope", "application/pdf")})
    assert res.status_code == 202, res.text  # a PDF by its bytes: only parsing finds it broken
    job = poll(api, key, res.json()["status_url"])
    assert job["phase"] == "failed" and job["error"] and job["error"].endswith(".") and "\n" not in job["error"]
    assert job["result"]["status"] == "failed"


@pytest.mark.parametrize("name, data", [
    ("blank.txt", b"   \n\n  "),
    ("tool.bin", bytes(range(256)) * 64),
    ("big.txt", b"word " * (1024 * 1024 // 5 + 4096)),  # just over the 1 MB limit set below, under the body cap
])
def test_a_bad_file_is_refused_with_one_sentence_and_nothing_is_kept(api, name, data):
    small = TestClient(create_app(replace(api.settings, max_file_mb=1)))  # the same data folder and keys
    key = auth(api.keys["acme"])
    before = store.list_documents(api.settings, "acme")
    res = small.post("/v1/documents", headers=key, files={"file": (name, data, "application/octet-stream")})
    assert res.status_code == 422, res.text
    body = res.json()
    assert body["status"] == "failed" and body["doc_id"] is None and body["file_name"] == name
    error = body["error"]
    assert error[:1].isupper() and error.endswith(".") and "\n" not in error, error
    assert small.get("/v1/ingest-jobs", headers=key).json() == []
    assert store.list_documents(api.settings, "acme") == before  # not even a failed row
    assert not any(p.is_file() for p in ingest_jobs.folder(api.settings, "acme").rglob("*"))


def test_a_job_of_one_tenant_is_no_job_for_another_tenants_key(api):
    acme, other = auth(api.keys["acme"]), auth(api.keys["other"])
    job = api.post("/v1/documents", headers=acme, files={"file": ("parking.md", PARKING, "text/markdown")}).json()
    assert api.get(job["status_url"], headers=other).status_code == 404
    assert api.get("/v1/ingest-jobs", headers=other).json() == []
    assert poll(api, acme, job["status_url"])["phase"] == "done"
    missing = api.get(job["status_url"], headers=other)
    assert missing.status_code == 404 and missing.json() == {"detail": f"No ingest job {job['job_id']} for this tenant."}
    assert "parking.md" not in {d["file_name"] for d in api.get("/v1/documents", headers=other).json()}


def test_a_queued_upload_is_cancelled_at_once_and_an_ended_one_cannot_be(api):
    acme, other = auth(api.keys["acme"]), auth(api.keys["other"])
    queued = ingest_jobs.accept(api.settings, "acme", "later.md", PARKING, start=False)
    url = f"/v1/ingest-jobs/{queued['job_id']}"
    assert api.delete(url, headers=other).status_code == 404  # another tenant's job is no job
    cancelled = api.delete(url, headers=acme)
    assert cancelled.status_code == 200 and cancelled.json()["phase"] == "cancelled", cancelled.text
    assert not (ingest_jobs.folder(api.settings, "acme") / queued["job_id"]).exists()  # its bytes gone
    ingest_jobs.run(api.settings, queued["job_id"])  # the worker passes over it
    assert api.get(url, headers=acme).json()["phase"] == "cancelled"
    assert "later.md" not in {d["file_name"] for d in api.get("/v1/documents", headers=acme).json()}
    again = api.delete(url, headers=acme)  # as a DELETE is: the same outcome again
    assert again.status_code == 200 and again.json()["phase"] == "cancelled"
    done = ingest_jobs.accept(api.settings, "acme", "done.md", PARKING, start=False)
    ingest_jobs.run(api.settings, done["job_id"])
    ended = api.delete(f"/v1/ingest-jobs/{done['job_id']}", headers=acme)
    doc_id = ingest_jobs.get(api.settings, "acme", done["job_id"])["doc_id"]
    assert ended.status_code == 409 and ended.json()["detail"] == (
        f"Ingest job {done['job_id']} was already indexed as document {doc_id}, so it cannot be cancelled; "
        f"delete the document with DELETE /v1/documents/{doc_id} if you do not want it.")
    failed = ingest_jobs.accept(api.settings, "acme", "gone.md", PARKING, start=False)
    ingest_jobs._update(api.settings, failed["job_id"], phase=ingest_jobs.FAILED)
    assert api.delete(f"/v1/ingest-jobs/{failed['job_id']}", headers=acme).json()["detail"] == (
        f"Ingest job {failed['job_id']} is failed, so it cannot be cancelled.")


def _blocking(monkeypatch, cls, name: str) -> tuple[threading.Event, threading.Event]:
    """`cls.name` made to say it was reached and wait for the test's go: (reached, go)."""
    reached, go = threading.Event(), threading.Event()
    original = getattr(cls, name)

    def blocked(*args, **kwargs):
        reached.set()
        assert go.wait(DEADLINE_S)
        return original(*args, **kwargs)

    monkeypatch.setattr(cls, name, blocked)
    return reached, go


def _held(settings, tenant: str) -> tuple:
    """What the tenant's stores hold: registry rows, chunks, vectors, kept files."""
    files = tenant_dir(settings, tenant) / "files"
    return ([(d["doc_id"], d["status"]) for d in store.list_documents(settings, tenant)],
            len(store.chunk_rows(settings, tenant)), index.vector_count(settings, tenant),
            sorted(p.name for p in files.iterdir()))


def _indexing_in_background(api) -> tuple[dict, str, threading.Thread]:
    """A small upload accepted for acme and indexed by a thread of the test's own: the job,
    its status URL and the thread."""
    job = ingest_jobs.accept(api.settings, "acme", "lockers.md", b"# Lockers\n\nLockers are on level 3.\n",
                             start=False)
    runner = threading.Thread(target=ingest_jobs.run, args=(api.settings, job["job_id"]))
    runner.start()
    return job, f"/v1/ingest-jobs/{job['job_id']}", runner


def test_an_upload_cancelled_while_indexing_stops_before_its_commit_and_keeps_nothing(api, monkeypatch):
    acme = auth(api.keys["acme"])
    before = _held(api.settings, "acme")
    # the embedder waits for the test: the job is indexing, parsed and chunked, nothing written yet
    embedding, go = _blocking(monkeypatch, type(get_embedder()), "embed_passages")
    job, url, runner = _indexing_in_background(api)
    try:
        assert embedding.wait(DEADLINE_S)
        assert api.delete(url, headers=auth(api.keys["other"])).status_code == 404  # another tenant's: no job
        asked = api.delete(url, headers=acme)
        assert asked.status_code == 202, asked.text
        assert asked.json()["phase"] == "indexing" and asked.json()["cancel_requested_at"]
        assert asked.headers["location"] == url
        assert api.delete(url, headers=acme).status_code == 202  # asked again: the same answer
    finally:
        go.set()
        runner.join(DEADLINE_S)
    ended = api.get(url, headers=acme).json()
    assert ended["phase"] == "cancelled" and ended["doc_id"] is None and ended["error"] is None, ended
    # nothing of it anywhere: no row (not even a failed one), chunk, vector or kept file; its bytes gone
    assert _held(api.settings, "acme") == before
    assert not (ingest_jobs.folder(api.settings, "acme") / job["job_id"]).exists()
    assert doctor.check(api.settings, "acme").consistent
    assert api.delete(url, headers=acme).json()["phase"] == "cancelled"


def test_a_long_pdf_cancelled_while_its_pages_are_read_stops_within_a_page(api, monkeypatch):
    import pymupdf

    from core.ingest import pdf

    acme = auth(api.keys["acme"])
    before = _held(api.settings, "acme")
    doc = pymupdf.open()
    for n in range(1, 7):
        doc.new_page().insert_text((72, 72), f"Locker room {n} is on level {n}.")
    pages_read = []
    original = pdf._page_items

    def counted(page, *args, **kwargs):
        pages_read.append(page.number)
        return original(page, *args, **kwargs)

    monkeypatch.setattr(pdf, "_page_items", counted)
    # the second page waits for the test, as an OCR page takes seconds
    reading, go = _blocking(monkeypatch, pdf, "_upright")
    job = ingest_jobs.accept(api.settings, "acme", "lockers.pdf", doc.tobytes(), start=False)
    url = f"/v1/ingest-jobs/{job['job_id']}"
    runner = threading.Thread(target=ingest_jobs.run, args=(api.settings, job["job_id"]))
    runner.start()
    try:
        assert reading.wait(DEADLINE_S)
        assert api.delete(url, headers=acme).status_code == 202
    finally:
        go.set()
        runner.join(DEADLINE_S)
    ended = api.get(url, headers=acme).json()
    assert ended["phase"] == "cancelled" and ended["error"] is None, ended
    assert len(pages_read) == 1, pages_read  # the page it was on; none of the five after it
    assert _held(api.settings, "acme") == before


def test_a_cancel_that_comes_after_the_commit_leaves_the_upload_done_and_says_how_to_delete_it(api, monkeypatch):
    acme = auth(api.keys["acme"])
    # the registry has committed the document; its BM25 write waits for the test
    committed, go = _blocking(monkeypatch, index, "rebuild_lexical")
    job, url, runner = _indexing_in_background(api)
    try:
        assert committed.wait(DEADLINE_S)
        late = api.delete(url, headers=acme)
        assert late.status_code == 409 and late.json()["detail"] == (
            f"Ingest job {job['job_id']} was already being written to the index, so it cannot be cancelled; "
            "once its status URL says done, delete its document with DELETE /v1/documents/{doc_id} "
            "if you do not want it.")
    finally:
        go.set()
        runner.join(DEADLINE_S)
    ended = api.get(url, headers=acme).json()
    assert ended["phase"] == "done" and ended["cancel_requested_at"] is None, ended
    kept = {d["file_name"]: d for d in store.list_documents(api.settings, "acme")}["lockers.md"]
    assert kept["doc_id"] == ended["doc_id"] and kept["status"] == "ready"
    assert index.vector_count(api.settings, "acme", kept["doc_id"]) == kept["chunks"]
    assert api.delete(url, headers=acme).json()["detail"].startswith(
        f"Ingest job {job['job_id']} was already indexed as document {kept['doc_id']}")


def test_one_tenants_queue_does_not_hold_another_tenants_upload(api):
    s = api.settings
    queued = [ingest_jobs.accept(s, "acme", f"room{i}.md", f"# Room {i}\n\nRoom {i} seats {i + 4}.\n".encode(),
                                 start=False)["job_id"] for i in range(3)]
    other = ingest_jobs.accept(s, "other", "parking.md", PARKING, start=False)["job_id"]
    # the worker's steps, one by one: acme's first job (the oldest), then other's, then acme's in order
    assert [ingest_jobs.run_next(s) for _ in range(5)] == [queued[0], other, queued[1], queued[2], None]
    assert {ingest_jobs.get(s, "acme", j)["phase"] for j in queued} == {"done"}
    assert ingest_jobs.get(s, "other", other)["phase"] == "done"


def test_the_worker_indexes_a_second_tenants_upload_before_the_rest_of_the_first_tenants_queue(api):
    acme, other = auth(api.keys["acme"]), auth(api.keys["other"])
    with writer_lock_held(api.settings, "acme", DEADLINE_S):  # acme's first job waits while the rest queue
        jobs = [api.post("/v1/documents", headers=acme, files={"file": (
            f"room{i}.md", f"# Room {i}\n\nRoom {i} seats {i + 4}.\n".encode(), "text/markdown")}).json()["job_id"]
            for i in range(3)]
        jobs.insert(1, api.post("/v1/documents", headers=other, files={
            "file": ("parking.md", PARKING, "text/markdown")}).json()["job_id"])
    assert ingest_jobs.wait_for_worker(DEADLINE_S)
    rows = {j["job_id"]: j for t in ("acme", "other") for j in ingest_jobs.jobs(api.settings, t)}
    assert {rows[j]["phase"] for j in jobs} == {"done"}
    assert sorted(jobs, key=lambda j: rows[j]["started_at"]) == jobs  # acme 1, other 1, acme 2, acme 3


@pytest.mark.parametrize("wait", [False, True])
def test_an_empty_file_is_refused_400_before_anything_is_recorded(api, wait):
    key = auth(api.keys["acme"])
    before = _held(api.settings, "acme")
    res = api.post("/v1/documents" + ("?wait=true" if wait else ""), headers=key,
                   files={"file": ("empty.md", b"", "text/markdown")})
    assert res.status_code == 400, res.text
    body = res.json()
    assert body["status"] == "failed" and body["doc_id"] is None and body["file_name"] == "empty.md"
    assert body["error"] == EMPTY  # the console's sentence for an empty file
    assert _held(api.settings, "acme") == before  # no failed row, chunk, vector or kept file
    assert api.get("/v1/ingest-jobs", headers=key).json() == []
    with store.connect(api.settings) as conn:
        assert conn.execute("SELECT count(*) FROM ingest_jobs").fetchone()[0] == 0
    assert not any(p.is_file() for p in ingest_jobs.folder(api.settings, "acme").rglob("*"))


ACCEPT_AND_DIE = """
import os, sys
from core import ingest_jobs
from core.config import load_settings
settings = load_settings()
queued = ingest_jobs.accept(settings, "acme", "queued.md", b"# Q\\n\\nQueued text.\\n", start=False)
busy = ingest_jobs.accept(settings, "acme", "busy.md", b"# B\\n\\nBusy text.\\n", start=False)
ingest_jobs._update(settings, busy["job_id"], phase=ingest_jobs.INDEXING, stage="embed", fraction=0.5)
# killed after the document's commit, before the job's: the document is whole and answers
kept = ingest_jobs.accept(settings, "acme", "kept.md", b"# K\\n\\nLockers are on level 3.\\n", start=False)
ingest_jobs._update(settings, kept["job_id"], phase=ingest_jobs.INDEXING, stage="index", fraction=0.95)
from core.documents import ingest_file
assert ingest_file(settings, "acme", ingest_jobs._job_folder(settings, "acme", kept["job_id"]) / kept["stored"],
                   file_name="kept.md").status == "ready"
print(queued["job_id"], busy["job_id"], kept["job_id"])
sys.stdout.flush()
os._exit(0)  # the server process ends with both jobs unfinished
"""


def test_jobs_of_a_server_that_stopped_read_as_interrupted_after_a_restart(api):
    key = auth(api.keys["acme"])
    env = {"GROUNDWORK_DATA": str(api.settings.data_dir), "PATH": "/usr/bin:/bin"}
    gone = subprocess.run([sys.executable, "-c", ACCEPT_AND_DIE], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert gone.returncode == 0, gone.stderr
    queued_id, busy_id, kept_id = gone.stdout.split()
    # a job of this very process that waits is not interrupted: only a stopped server's are
    waiting = ingest_jobs.accept(api.settings, "acme", "waiting.md", PARKING, start=False)
    restarted = TestClient(create_app(api.settings))
    # settled as the server starts: no abandoned upload's bytes wait for a poll (QA pass)
    assert not any((ingest_jobs.folder(api.settings, "acme") / j).exists() for j in (queued_id, busy_id, kept_id))
    assert (ingest_jobs.folder(api.settings, "acme") / waiting["job_id"]).exists()
    kept = restarted.get(f"/v1/ingest-jobs/{kept_id}", headers=key).json()
    kept_doc = next(d for d in store.list_documents(api.settings, "acme") if d["file_name"] == "kept.md")
    assert kept["phase"] == "done" and kept["doc_id"] == kept_doc["doc_id"] and not kept["error"], kept
    for job_id in (queued_id, busy_id):
        job = restarted.get(f"/v1/ingest-jobs/{job_id}", headers=key).json()
        assert job["phase"] == "interrupted" and job["error"] == ingest_jobs.INTERRUPTED_SENTENCE, job
        assert job["finished_at"] and "progress" not in job
        assert not (ingest_jobs.folder(api.settings, "acme") / job_id).exists()  # its bytes removed
    phases = {j["job_id"]: j["phase"] for j in restarted.get("/v1/ingest-jobs", headers=key).json()}
    assert phases == {queued_id: "interrupted", busy_id: "interrupted", kept_id: "done", waiting["job_id"]: "queued"}
    names = {d["file_name"] for d in restarted.get("/v1/documents", headers=key).json()}
    assert names == {"acme.md", "kept.md"}
    ingest_jobs.run(api.settings, waiting["job_id"])  # so it ends (the fixture waits for the worker)


def test_an_upload_to_a_tenant_whose_deletion_was_just_decided_is_409_and_keeps_nothing(api):
    # a QA pass: an upload authenticated a moment before `tenants delete` decided got a 500
    key = auth(api.keys["other"])
    with store.connect(api.settings) as conn:  # decided after the key was checked: the key still reads
        conn.execute("UPDATE tenants SET deleting_at=? WHERE id=?", (time.time(), "other"))
    res = api.post("/v1/documents", headers=key, files={"file": ("late.md", PARKING, "text/markdown")})
    assert res.status_code == 409 and "being deleted" in res.json()["error"], res.text
    waiting = ingest_jobs.folder(api.settings, "other")
    assert not waiting.exists() or not any(waiting.iterdir())
    with store.connect(api.settings) as conn:
        assert conn.execute("SELECT count(*) FROM ingest_jobs WHERE tenant='other'").fetchone()[0] == 0
        conn.execute("UPDATE tenants SET deleting_at=NULL WHERE id=?", ("other",))


def test_concurrent_uploads_to_one_tenant_all_land_whole(api):
    key = auth(api.keys["acme"])
    files = {f"room{i}.md": f"# Room {i}\n\nMeeting room {i} seats {10 + i} people.\n".encode() for i in range(4)}
    waited: list = []
    # one synchronous upload beside three background ones: they take turns on the tenant's lock
    sync = threading.Thread(target=lambda: waited.append(api.post(
        "/v1/documents?wait=true", headers=key, files={"file": ("room0.md", files["room0.md"], "text/markdown")})))
    sync.start()
    jobs = [api.post("/v1/documents", headers=key, files={"file": (n, files[n], "text/markdown")}).json()
            for n in ("room1.md", "room2.md", "room3.md")]
    sync.join(DEADLINE_S)
    assert waited and waited[0].status_code == 200 and waited[0].json()["status"] == "ready"
    assert [poll(api, key, j["status_url"])["phase"] for j in jobs] == ["done"] * 3
    listed = {d["file_name"]: d for d in api.get("/v1/documents", headers=key).json()}
    assert set(listed) == {"acme.md", *files} and {d["status"] for d in listed.values()} == {"ready"}
    rows = store.chunk_rows(api.settings, "acme")
    assert len(rows) == sum(d["chunks"] for d in listed.values())
    assert {d["doc_id"] for d in listed.values()} == {r["doc_id"] for r in rows}


def test_every_request_writes_one_access_line_without_the_key_or_the_body(api, caplog):
    acme = api.keys["acme"]
    key_id = acme.split("_")[1]
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    api.post("/v1/documents", headers=auth(acme), files={"file": ("parking.md", PARKING, "text/markdown")})
    api.get("/v1/documents", headers=auth(acme))
    api.post("/v1/ask", headers=auth(acme), json={"question": "What does the sealed annex say?"})
    api.get("/v1/documents", headers=auth("gw_deadbeef_notakey"))
    api.post("/v1/ask", headers=auth(acme), json={"question": "x" * 70000})  # 413 before any route
    lines = [r for r in caplog.records if r.name == LOGGER_NAME]
    assert [(r.http_method, r.http_path, r.http_status) for r in lines] == [
        ("POST", "/v1/documents", 202), ("GET", "/v1/documents", 200), ("POST", "/v1/ask", 200),
        ("GET", "/v1/documents", 401), ("POST", "/v1/ask", 413)]
    assert lines[0].getMessage().startswith("POST /v1/documents 202 ")
    assert f'tenant="acme" key={key_id} label="acme sync"' in lines[0].getMessage()
    assert lines[3].getMessage().endswith("tenant=- key=- label=-")
    assert all(r.duration_ms >= 0 for r in lines)
    everything = "\n".join(r.getMessage() + json.dumps(vars(r), default=str) for r in lines)
    assert acme not in everything and acme.rsplit("_", 1)[1] not in everything and "notakey" not in everything
    assert "sealed annex" not in everything and "north garage" not in everything  # never a body


def test_a_path_with_a_line_break_stays_one_line(api, caplog):
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    api.get("/v1/ingest-jobs/a%0Ab", headers=auth(api.keys["acme"]))
    (line,) = [r.getMessage() for r in caplog.records if r.name == LOGGER_NAME]
    assert "\n" not in line and line.startswith("GET /v1/ingest-jobs/a%0Ab 404 ")
