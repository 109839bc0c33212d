"""The HTTP API: per-tenant keys, every endpoint, limits, and a real uvicorn process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from core import keys
from core.api import MAX_JSON_BYTES, create_app
from core.documents import ingest_file
from tests.conftest import ANSWERING_THRESHOLD

ROOT = Path(__file__).resolve().parents[2]
ACME = "# Leave policy\n\nStaff earn 25 days of annual leave a year. The acme canary is ZEBRA-41.\n"
GLOBEX = "# Leave policy\n\nStaff earn 30 days of annual leave a year. The globex canary is OTTER-77.\n"


@pytest.fixture
def api(settings, write_file, monkeypatch):
    from dataclasses import replace

    assert ingest_file(settings, "acme", write_file("acme.md", ACME)).status == "ready"
    assert ingest_file(settings, "globex", write_file("globex.md", GLOBEX)).status == "ready"
    s = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    client = TestClient(create_app(s))
    client.keys = {t: keys.create_key(s, t)[1] for t in ("acme", "globex")}
    client.settings = s
    return client


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_ask_answers_from_the_keys_tenant_only(api):
    res = api.post("/v1/ask", json={"question": "How many days of annual leave do staff earn?"},
                   headers=auth(api.keys["acme"]))
    assert res.status_code == 200
    body = res.json()
    assert body["tenant"] == "acme" and "25 days" in body["answer"] and body["citations"]
    assert "OTTER-77" not in json.dumps(body) and "30 days" not in json.dumps(body)
    other = api.post("/v1/ask", json={"question": "What is the canary?"}, headers=auth(api.keys["globex"]))
    assert other.json()["tenant"] == "globex" and "ZEBRA-41" not in json.dumps(other.json())


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer "}, {"Authorization": "Bearer gw_nope_nope"}, {"Authorization": "Basic abc"},
])
def test_no_or_wrong_key_is_401_and_says_nothing(api, headers):
    for method, path, kwargs in (("post", "/v1/ask", {"json": {"question": "canary?"}}),
                                 ("get", "/v1/documents", {}), ("get", "/v1/eval-runs", {})):
        res = getattr(api, method)(path, headers=headers, **kwargs)
        assert res.status_code == 401 and res.headers["www-authenticate"] == "Bearer"
        assert "ZEBRA" not in res.text and "acme" not in res.text


def test_a_revoked_key_stops_working(api):
    key_id = api.keys["acme"].split("_")[1]
    assert api.get("/v1/documents", headers=auth(api.keys["acme"])).status_code == 200
    assert keys.revoke_key(api.settings, "acme", key_id)
    assert api.get("/v1/documents", headers=auth(api.keys["acme"])).status_code == 401
    assert not keys.revoke_key(api.settings, "globex", key_id)  # another tenant cannot revoke it


def test_another_tenants_key_cannot_reach_this_tenant(api):
    res = api.get("/v1/documents", headers={**auth(api.keys["globex"]), "X-Groundwork-Tenant": "acme"})
    assert res.status_code == 403 and "acme.md" not in res.text
    acme_doc = api.get("/v1/documents", headers=auth(api.keys["acme"])).json()[0]["doc_id"]
    gone = api.delete(f"/v1/documents/{acme_doc}", headers=auth(api.keys["globex"]))
    assert gone.status_code == 404
    assert [d["doc_id"] for d in api.get("/v1/documents", headers=auth(api.keys["acme"])).json()] == [acme_doc]


def test_upload_list_and_delete(api):
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents?wait=true", headers=key,
                   files={"file": ("parking.md", b"# Parking\n\nStaff park on level 2.\n", "text/markdown")})
    assert res.status_code == 200 and res.json()["status"] == "ready"
    doc_id = res.json()["doc_id"]
    names = {d["file_name"] for d in api.get("/v1/documents", headers=key).json()}
    assert names == {"acme.md", "parking.md"}
    bad = api.post("/v1/documents?wait=true", headers=key, files={"file": ("x.pdf", b"%PDF-1.4 nope", "application/pdf")})
    assert bad.status_code == 422 and bad.json()["status"] == "failed" and bad.json()["error"]
    assert api.delete(f"/v1/documents/{doc_id}", headers=key).json() == {"deleted": doc_id}
    assert {d["file_name"] for d in api.get("/v1/documents", headers=key).json()} == {"acme.md", "x.pdf"}
    # the id a failed upload returns is the listed row's, so the client can clean it up
    failed_id = bad.json()["doc_id"]
    assert api.delete(f"/v1/documents/{failed_id}", headers=key).json() == {"deleted": failed_id}
    assert {d["file_name"] for d in api.get("/v1/documents", headers=key).json()} == {"acme.md"}



def test_two_files_in_one_upload_are_refused_not_one_dropped(api):
    # a reliability pass: two `file` parts answered 200 with the second, the first gone unsaid
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents", headers=key, files=[("file", ("a.md", b"# A\n\nAlpha.\n", "text/markdown")),
                                                        ("file", ("b.md", b"# B\n\nBeta.\n", "text/markdown"))])
    assert res.status_code == 422, res.text
    assert res.json()["detail"] == [{"type": "too_many_files", "loc": ["body", "file"],
                                     "msg": "This request carried 2 files under `file`; send one file per request."}]
    assert {d["file_name"] for d in api.get("/v1/documents", headers=key).json()} == {"acme.md"}


def test_an_upload_named_only_as_a_folder_is_named_upload(api):
    # a reliability pass: a file named ".." was listed as "..", and said "(same content as ..)"
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents?wait=true", headers=key, files={"file": ("..", b"Staff park on level 2.\n", "text/plain")})
    assert res.status_code == 200 and res.json()["file_name"] == "upload", res.text


@pytest.mark.parametrize("sent", ["../../etc/passwd.txt", "..\\..\\windows\\passwd.txt", "/abs/dir/passwd.txt"])
def test_an_uploads_folder_part_is_dropped_from_its_name(api, sent):
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents?wait=true", headers=key, files={"file": (sent, b"Staff park on level 2.\n", "text/plain")})
    assert res.status_code == 200, res.text
    listed = {d["file_name"] for d in api.get("/v1/documents", headers=key).json()}
    assert listed == {"acme.md", "passwd.txt"}
    answer = api.post("/v1/ask", headers=key, json={"question": "Where do staff park?"}).json()
    assert all("/" not in c.get("file_name", c.get("source", "")) for c in answer.get("citations", []))

def test_a_tenant_named_in_another_script_is_reached_by_its_header(api, write_file):
    tenant = "Склад север"
    assert ingest_file(api.settings, tenant, write_file("sklad.md", "# Склад\n\nСклад открыт с 8 до 20.\n")).status == "ready"
    key = keys.create_key(api.settings, tenant)[1]
    # HTTP carries the header as bytes; the id is sent as UTF-8, as a client writes it
    res = api.get("/v1/documents", headers={**auth(key), "X-Groundwork-Tenant": tenant.encode("utf-8")})
    assert res.status_code == 200 and [d["file_name"] for d in res.json()] == ["sklad.md"]
    other = api.get("/v1/documents", headers={**auth(key), "X-Groundwork-Tenant": "acme"})
    assert other.status_code == 403


def test_bad_requests_are_422_with_the_fields_at_fault(api):
    key = {**auth(api.keys["acme"]), "Content-Type": "application/json"}
    # a lone surrogate is valid JSON but no text: refused, and the refusal itself renders
    res = api.post("/v1/ask", headers=key, content=b'{"question": "What is the limit \\ud800?"}')
    assert res.status_code == 422 and res.json()["detail"]
    split = api.post("/v1/eval-runs", headers=key, json={"set": "demo", "split": "tset"})
    assert split.status_code == 422 and "The split must be one of all, calib, test." in split.text
    assert api.get("/v1/eval-jobs", headers=key).json() == []  # nothing was started



def test_an_empty_and_a_blank_question_get_the_same_sentence(api):
    """"" got pydantic's string_too_short and "  " the pipeline's sentence (QA pass): one
    field error for every question with nothing but blanks, and the schema says so."""
    key = auth(api.keys["acme"])
    replies = [api.post("/v1/ask", headers=key, json={"question": q}) for q in ("", "   ", "\t\n", "\u0007 ")]
    assert {r.status_code for r in replies} == {422}
    details = [r.json()["detail"] for r in replies]
    assert all(len(d) == 1 and d[0]["loc"] == ["body", "question"] and d[0]["type"] == "empty_question"
               and d[0]["msg"] == "Ask a question: the text is empty." for d in details), details
    question = api.get("/openapi.json").json()["components"]["schemas"]["AskBody"]["properties"]["question"]
    assert question["minLength"] == 1 and question["pattern"] == r"\S" and "blank" in question["description"]


def _one_sentence_each(res) -> list[str]:
    """The API's error shape (the empty question's): fields at fault, each with one sentence."""
    assert res.status_code == 422, res.text
    detail = res.json()["detail"]
    assert isinstance(detail, list) and detail
    assert all(set(d) == {"type", "loc", "msg"} and d["loc"][0] == "body" for d in detail), detail
    msgs = [d["msg"] for d in detail]
    assert all(m[:1].isupper() and m.endswith(".") and m.count(". ") == 0 and "\n" not in m for m in msgs), msgs
    return msgs


def test_a_malformed_body_is_one_sentence_that_never_echoes_it(api):
    """The QA pass: broken JSON got FastAPI's json_invalid list, bytes that are not UTF-8 a
    400 "There was an error parsing the body", and a long question came back whole."""
    key = {**auth(api.keys["acme"]), "Content-Type": "application/json"}
    broken = _one_sentence_each(api.post("/v1/ask", headers=key, content=b'{"question":'))
    assert broken == ["The body is not valid JSON (expecting value at character 12); check its quotes, "
                      "commas and braces and send it again."]
    cut = _one_sentence_each(api.post("/v1/ask", headers=key, content=b'{"question": "How many'))
    assert cut == ["The body is not valid JSON (unterminated string starting at character 13); check its "
                   "quotes, commas and braces and send it again."]  # a QA pass: "starting at at character"
    not_text = _one_sentence_each(api.post("/v1/ask", headers=key, content=b'{"question": "caf\xe9 \xff"}'))
    assert not_text == ["The body is not UTF-8 text; send the JSON encoded as UTF-8."]
    question = "How many days of annual leave do staff earn? " * 50  # 2,250 characters
    res = api.post("/v1/ask", headers=key, json={"question": question})
    assert _one_sentence_each(res) == ["The question is 2,250 characters; keep it to 2,000 characters or fewer."]
    assert "annual leave" not in res.text
    assert _one_sentence_each(api.post("/v1/ask", headers=key, json={})) == [
        "The request has no question; add it."]
    claim = _one_sentence_each(api.post("/v1/verify", headers=key, json={"pairs": [{"premise": "a", "claim": ""}]}))
    assert claim == ["The pairs[0].claim is empty; fill it in."]
    assert api.get("/v1/documents", headers=auth("wrong")).json() == {"detail": (
        "A valid API key is required: send Authorization: Bearer <key>.")}  # other errors as they were


def test_a_json_body_sent_without_its_content_type_says_what_to_send(api):
    # the QA pass: curl -d '{"question": ...}' read "Input should be a valid dictionary" and no more
    key = auth(api.keys["acme"])
    res = api.post("/v1/ask", headers={**key, "Content-Type": "application/x-www-form-urlencoded"},
                   content=b'{"question": "How many days of annual leave?"}')
    assert res.status_code == 422 and "Content-Type: application/json" in res.json()["hint"]
    right = api.post("/v1/ask", headers=key, json={"question": ""})
    assert right.status_code == 422 and "hint" not in right.json()  # a real field error says only that

def test_verify_and_eval_runs(api):
    key = auth(api.keys["acme"])
    res = api.post("/v1/verify", headers=key, json={"pairs": [
        {"id": "a", "premise": "The oil capacity is 4.5 litres.", "claim": "The oil capacity is 4.5 litres."},
        {"id": "b", "premise": "The oil capacity is 4.5 litres.", "claim": "The oil capacity is 6 litres."}]})
    assert res.status_code == 200
    verdicts = {v["id"]: v["verdict"] for v in res.json()}
    assert verdicts["a"] == "supported" and verdicts["b"] == "contradicted"
    assert api.get("/v1/eval-runs", headers=key).json() == []
    assert api.get("/v1/eval-runs/nope", headers=key).status_code == 404


def test_a_tenant_never_sees_or_runs_another_tenants_feedback_set(api):
    """A reliability pass: GET /v1/eval-sets answered without a key and listed every tenant's
    feedback set, and an eval run of another tenant's set returned its gold quotes."""
    from core.eval_rows import feedback_set_path

    row = {"id": "g1", "tenant": "globex", "question": "What is the canary?", "kind": "answerable",
           "expected_answer": "ZEBRA-41", "gold_source": "globex.md", "gold_quote": "The canary is ZEBRA-41."}
    theirs = feedback_set_path(api.settings, "globex")
    theirs.parent.mkdir(parents=True, exist_ok=True)
    theirs.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert api.get("/v1/eval-sets").status_code == 401
    assert theirs.stem in api.get("/v1/eval-sets", headers=auth(api.keys["globex"])).json()
    assert theirs.stem not in api.get("/v1/eval-sets", headers=auth(api.keys["acme"])).json()
    assert api.post("/v1/eval-runs", headers=auth(api.keys["acme"]), json={"set": theirs.stem}).status_code == 404


def test_feedback_sets_of_two_tenants_never_share_a_file(settings):
    from core.eval_rows import feedback_set_path
    from core.tenants import tenant_key

    odd = "Смит и партнёры"
    assert feedback_set_path(settings, odd) != feedback_set_path(settings, tenant_key(odd))


JOB_DEADLINE_S = 600  # a generous bound on waiting for a job to end, never a claim about its speed


@pytest.mark.slow
def test_an_eval_run_started_over_http_runs_in_the_background_for_the_keys_tenant_only(api):
    sets = Path(api.settings.data_dir) / "eval_sets"
    sets.mkdir(parents=True, exist_ok=True)
    rows = [{"id": "k1", "tenant": "somebody-else", "question": "How many days of annual leave do staff earn?",
             "kind": "answerable", "expected_answer": "25 days", "gold_source": "acme.md",
             "gold_quote": "Staff earn 25 days of annual leave a year."},
            {"id": "k2", "tenant": "somebody-else", "question": "Who founded the Zyxcorp company?",
             "kind": "unanswerable", "expected_answer": None, "gold_source": None, "gold_quote": None}]
    (sets / "api-tiny.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    acme, globex = auth(api.keys["acme"]), auth(api.keys["globex"])
    assert "api-tiny" in api.get("/v1/eval-sets", headers=acme).json()
    for name in ("no-such-set", "../../etc/passwd", "api-tiny.jsonl"):
        assert api.post("/v1/eval-runs", headers=acme, json={"set": name}).status_code == 404

    started = api.post("/v1/eval-runs", headers=acme, json={"set": "api-tiny"})
    assert started.status_code == 202, started.text
    job = started.json()
    assert job["status"] == "running" and job["set"] == "api-tiny" and "pid" not in job and "log" not in job
    again = api.post("/v1/eval-runs", headers=acme, json={"set": "api-tiny"})
    assert again.status_code == 409 and "already running" in again.json()["detail"]
    assert api.get(f"/v1/eval-jobs/{job['job_id']}", headers=globex).status_code == 404  # not globex's job
    assert api.delete(f"/v1/eval-jobs/{job['job_id']}", headers=globex).status_code == 404

    deadline = time.monotonic() + JOB_DEADLINE_S
    while job["status"] == "running" and time.monotonic() < deadline:
        time.sleep(1)
        job = api.get(f"/v1/eval-jobs/{job['job_id']}", headers=acme).json()
    assert job["status"] == "done", job
    runs = api.get("/v1/eval-runs", headers=acme).json()
    assert [r["run_id"] for r in runs] == [job["run_id"]] and runs[0]["overall"]["n"] == 2
    report = api.get(f"/v1/eval-runs/{job['run_id']}", headers=acme).json()
    assert report["tenants_asked"] == ["acme"]  # the set named another tenant; the key's was asked
    # the server's folders and service addresses stay the operator's (a reliability pass)
    assert "data_dir" not in report["settings"] and "chroma_url" not in report["settings"]
    assert report["set_path"] == "api-tiny.jsonl" and str(api.settings.data_dir) not in json.dumps(report)
    assert api.get("/v1/eval-runs", headers=globex).json() == []
    assert [j["job_id"] for j in api.get("/v1/eval-jobs", headers=acme).json()] == [job["job_id"]]
    assert api.get("/v1/eval-jobs", headers=globex).json() == []


def test_bodies_over_the_limit_are_refused_before_reading(api):
    key = auth(api.keys["acme"])
    huge = {"question": "x" * (MAX_JSON_BYTES + 10)}
    assert api.post("/v1/ask", headers=key, json=huge).status_code == 413

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(20):
            yield b"x" * 8192

    res = api.post("/v1/ask", headers={**key, "Content-Type": "application/json"}, content=chunks())
    assert res.status_code == 413
    assert api.post("/v1/ask", headers=key, json={"question": ""}).status_code == 422


def test_openapi_schema_lists_the_endpoints(api):
    paths = api.get("/openapi.json").json()["paths"]
    assert {"/v1/ask", "/v1/documents", "/v1/documents/{doc_id}", "/v1/verify", "/v1/eval-runs", "/v1/eval-sets",
            "/v1/eval-jobs", "/v1/eval-jobs/{job_id}", "/v1/ingest-jobs", "/v1/ingest-jobs/{job_id}"} <= set(paths)
    # the schema says what the server accepts: the pipeline's own question limit
    ask_body = api.get("/openapi.json").json()["components"]["schemas"]["AskBody"]["properties"]
    assert ask_body["question"]["maxLength"] == 2000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_real_server_started_as_the_readme_says(settings, write_file, tmp_path):
    """`python -m core.api` in its own process; a key made by `core.cli keys create`."""
    assert ingest_file(settings, "acme", write_file("acme.md", ACME)).status == "ready"
    env = {**os.environ, "GROUNDWORK_DATA": str(settings.data_dir), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)}
    made = subprocess.run([sys.executable, "-m", "core.cli", "keys", "create", "--tenant", "acme"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip().splitlines()[-1]
    assert key.startswith("gw_")
    listed = subprocess.run([sys.executable, "-m", "core.cli", "keys", "list", "--tenant", "acme", "--json"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert key not in listed.stdout and json.loads(listed.stdout)[0]["revoked_at"] is None
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "core.api", "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                httpx.get(url + "/openapi.json", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        res = httpx.post(url + "/v1/ask", json={"question": "How many days of annual leave do staff earn?"},
                         headers=auth(key), timeout=120)
        assert res.status_code == 200 and "25 days" in res.json()["answer"]
        assert httpx.get(url + "/v1/documents", timeout=10).status_code == 401
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    # the access log is on by default: one line per request, naming the key by its id only
    printed = proc.stdout.read().decode("utf-8", "replace")
    key_id = key.split("_")[1]
    assert 'POST /v1/ask 200 ' in printed and f'tenant="acme" key={key_id}' in printed, printed
    assert "GET /v1/documents 401 " in printed and key not in printed and key.rsplit("_", 1)[1] not in printed


def test_a_full_data_disk_is_507_with_one_sentence(api, monkeypatch):
    # a delete needs room to rebuild the tenant's vectors; any other write that found the disk
    # full (SQLite's "database or disk is full") was a bare 500
    import sqlite3

    from core import disk, pipeline

    key = auth(api.keys["acme"])
    doc_id = api.get("/v1/documents", headers=key).json()[0]["doc_id"]
    monkeypatch.setattr(disk, "free_bytes", lambda settings: 0)
    res = api.delete(f"/v1/documents/{doc_id}", headers=key)
    assert res.status_code == 507 and "deleting needs about" in res.json()["detail"]

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(pipeline, "ask", full)
    api_quiet = TestClient(api.app, raise_server_exceptions=False)
    res = api_quiet.post("/v1/ask", json={"question": "How many days of leave?"}, headers=key)
    assert res.status_code == 507 and res.json()["detail"].startswith("The disk holding the data folder")
    assert [d["doc_id"] for d in api.get("/v1/documents", headers=key).json()] == [doc_id]


def test_a_document_lists_what_indexing_noted(api):
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The yak heater draws 900 watts.", fontsize=11)
    data = doc.tobytes()
    key = auth(api.keys["acme"])
    res = api.post("/v1/documents?wait=true", headers=key, files={"file": ("cut.pdf", data[: int(len(data) * 0.8)], "application/pdf")})
    assert res.status_code == 200 and res.json()["warnings"]
    notes = {d["file_name"]: d["notes"] for d in api.get("/v1/documents", headers=key).json()}
    assert notes == {"acme.md": [], "cut.pdf": res.json()["warnings"]}
