import sqlite3
from dataclasses import replace

import pytest

from core import store
from core.config import load_settings
from tests.threads import run_at_once


def test_migrations_are_idempotent(settings):
    with store.connect(settings) as conn:
        first = [r[0] for r in conn.execute("SELECT id FROM _migrations ORDER BY id")]
    with store.connect(settings) as conn:
        second = [r[0] for r in conn.execute("SELECT id FROM _migrations ORDER BY id")]
    assert first == second == list(range(1, len(store.MIGRATIONS) + 1))
    tables = {r[0] for r in sqlite3.connect(store.db_path(settings)).execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"tenants", "documents", "chunks", "traces", "feedback", "eval_runs"} <= tables


def test_traces_are_per_tenant_and_filterable(settings):
    for tenant, status, claims in [("a", "answered", []), ("a", "refused", []),
                                   ("b", "answered", [{"verdict": "unsupported"}])]:
        store.save_trace(settings, {"answer": {"tenant": tenant, "question": f"q {status}", "status": status,
                                               "claims": claims, "timings_ms": {"total": 5}}})
    assert len(store.list_traces(settings, "a")) == 2
    assert [t["status"] for t in store.list_traces(settings, "a", status="refused")] == ["refused"]
    assert store.list_traces(settings, "a", only_unsupported=True) == []
    assert len(store.list_traces(settings, "b", only_unsupported=True)) == 1
    tid = store.list_traces(settings, "b")[0]["trace_id"]
    assert store.get_trace(settings, "a", tid) is None  # another tenant's trace is invisible
    assert store.get_trace(settings, "b", tid)["answer"]["tenant"] == "b"


def test_feedback_and_eval_runs_round_trip(settings):
    t1 = store.save_trace(settings, {"answer": {"tenant": "a", "question": "q", "status": "answered",
                                                "claims": [], "timings_ms": {"total": 5}}})
    store.add_feedback(settings, "a", t1, 1, "good")
    assert store.list_feedback(settings, "a")[0]["comment"] == "good"
    assert store.list_feedback(settings, "b") == []
    run_id = store.save_eval_run(settings, {"set": "demo", "overall": {"hit_rate@5": 0.9}, "questions": []})
    runs = store.list_eval_runs(settings, "demo")
    assert runs[0]["run_id"] == run_id and runs[0]["overall"]["hit_rate@5"] == 0.9
    assert store.get_eval_run(settings, run_id)["set"] == "demo"


def test_feedback_with_traces_is_per_tenant_newest_first_and_filterable(settings):
    def trace(tenant, question, status, confidence):
        return store.save_trace(settings, {"answer": {"tenant": tenant, "question": question, "status": status,
                                                      "provider": "extractive", "confidence": confidence,
                                                      "claims": [], "timings_ms": {"total": 5}}})

    oil = trace("a", "What is the oil capacity?", "answered", 0.9)
    ceo = trace("a", "Who is the CEO?", "refused", 0.2)
    secret = trace("b", "b's secret question", "answered", 0.8)
    store.add_feedback(settings, "a", oil, 1, "good")
    store.add_feedback(settings, "a", ceo, -1, "wrong")
    with pytest.raises(LookupError):  # a trace id of another tenant cannot be rated
        store.add_feedback(settings, "a", secret, -1, "names b's trace")
    with pytest.raises(LookupError):  # nor one of no ask at all
        store.add_feedback(settings, "a", "no-such-trace", 1, "made up")
    with store.connect(settings) as conn:  # a row written before that check existed
        conn.execute("INSERT INTO feedback (trace_id, tenant, rating, comment, created_at) VALUES (?,?,?,?,?)",
                     (secret, "a", -1, "names b's trace", 0.0))
    store.add_feedback(settings, "b", secret, -1, "b only")
    day = 86400.0
    now = 1_800_000_000.0
    with store.connect(settings) as conn:  # rated on different days, oldest first
        for comment, when in (("good", now - 3 * day), ("names b's trace", now - 2 * day),
                              ("wrong", now - day), ("b only", now)):
            conn.execute("UPDATE feedback SET created_at=? WHERE comment=?", (when, comment))
        asked = dict(conn.execute("SELECT trace_id, created_at FROM traces").fetchall())

    rows = store.list_feedback_with_traces(settings, "a")
    assert [r["comment"] for r in rows] == ["wrong", "names b's trace", "good"]  # newest first
    wrong, foreign, good = rows
    assert (wrong["trace_id"], wrong["rating"], wrong["question"], wrong["status"], wrong["provider"],
            wrong["confidence"], wrong["asked_at"]) == (ceo, -1, "Who is the CEO?", "refused", "extractive",
                                                        0.2, asked[ceo])
    assert (good["question"], good["status"], good["rating"], good["created_at"]) == \
        ("What is the oil capacity?", "answered", 1, now - 3 * day)
    # tenant a's feedback naming b's trace id keeps its row but never shows b's question
    assert foreign["trace_id"] == secret and foreign["question"] is None and foreign["status"] is None
    assert all("secret" not in str(v) for r in rows for v in r.values() if v != secret)
    assert "b only" not in {r["comment"] for r in rows}

    assert [r["comment"] for r in store.list_feedback_with_traces(settings, "a", rating=-1)] == \
        ["wrong", "names b's trace"]
    assert [r["comment"] for r in store.list_feedback_with_traces(settings, "a", rating=1)] == ["good"]
    assert [r["comment"] for r in store.list_feedback_with_traces(settings, "a", since=now - 1.5 * day)] == ["wrong"]
    assert [r["comment"] for r in store.list_feedback_with_traces(settings, "a", rating=1, since=now - day)] == []
    assert [r["comment"] for r in store.list_feedback_with_traces(settings, "a", limit=1)] == ["wrong"]

    theirs = store.list_feedback_with_traces(settings, "b")
    assert [(r["comment"], r["question"]) for r in theirs] == [("b only", "b's secret question")]
    assert store.list_feedback_with_traces(settings, "c") == []
    with pytest.raises(ValueError):
        store.list_feedback_with_traces(settings, "a", rating=0)


def test_first_connections_in_parallel_do_not_fail(tmp_path):
    # parallel uploads into a new data folder: the switch to WAL must not fail with "locked"
    # (a race: the old code lost it about once in 60 fresh folders, so try many)
    errors: list[Exception] = []
    for attempt in range(80):
        settings = replace(load_settings({}), data_dir=tmp_path / str(attempt))

        def first_use(settings=settings) -> None:
            with store.connect(settings) as conn:
                conn.execute("SELECT count(*) FROM tenants").fetchone()

        errors += run_at_once(first_use, 12)[1]
    assert errors == []


def _trace(settings, tenant, question):
    return store.save_trace(settings, {"answer": {"tenant": tenant, "question": question, "status": "answered",
                                                  "claims": [], "timings_ms": {"total": 5}}})


def _searcher(settings, tenant):
    """The questions a trace search of `tenant` lists, newest first."""
    return lambda search: [t["question"] for t in store.list_traces(settings, tenant, search=search)]


def test_trace_search_ignores_case_in_any_script(settings):
    # SQLite's LIKE folds ASCII only: "как" did not find "Как ..."
    _trace(settings, "a", "Как исправить ошибку E20?")
    _trace(settings, "a", "What is the oil capacity?")
    _trace(settings, "b", "Как исправить ошибку E20 у соседа?")
    found = _searcher(settings, "a")
    for search in ("как", "ИСПРАВИТЬ", "Ошибку e20", "  исправить   ошибку "):
        assert found(search) == ["Как исправить ошибку E20?"], search
    assert found("OIL CAPACITY") == ["What is the oil capacity?"]
    assert found("") == found("   ") == ["What is the oil capacity?", "Как исправить ошибку E20?"]
    assert found("соседа") == []  # still only the tenant's own asks


def test_trace_search_is_literal(settings):
    # "%" listed every trace and "_" matched any character
    _trace(settings, "a", "Is the discount 100% off?")
    _trace(settings, "a", "What does error_code mean?")
    _trace(settings, "a", "What does error code mean?")
    found = _searcher(settings, "a")
    assert found("%") == ["Is the discount 100% off?"]
    assert found("100%") == ["Is the discount 100% off?"]
    assert found("error_code") == ["What does error_code mean?"]
    assert found("_") == ["What does error_code mean?"]
    assert found("%error%") == found("e%r") == []


def test_feedback_is_one_per_answer_and_a_second_send_updates_it(settings):
    t1 = _trace(settings, "a", "q1")
    t2 = _trace(settings, "a", "q2")
    assert store.add_feedback(settings, "a", t1, 1, "good") == "saved"
    assert store.add_feedback(settings, "a", t1, -1, "on second thought, wrong") == "updated"
    assert store.add_feedback(settings, "a", t2, 1, "") == "saved"
    rows = store.list_feedback(settings, "a")
    assert sorted((r["trace_id"], r["rating"], r["comment"]) for r in rows) == sorted(
        [(t1, -1, "on second thought, wrong"), (t2, 1, "")])
    joined = store.list_feedback_with_traces(settings, "a")
    assert [(r["question"], r["rating"]) for r in joined] == [("q2", 1), ("q1", -1)]  # newest rating first


def test_feedback_migration_keeps_the_newest_of_duplicate_ratings(settings, monkeypatch):
    # a database from before one-rating-per-answer, holding the same answer rated twice
    all_migrations = list(store.MIGRATIONS)
    monkeypatch.setattr(store, "MIGRATIONS", all_migrations[:4])
    t1, t2 = "trace-q1", "trace-q2"
    with store.connect(settings) as conn:
        for trace_id, question in ((t1, "q1"), (t2, "q2")):  # the traces table as it was then
            conn.execute("INSERT INTO traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                         (trace_id, "a", question, 1.0, "answered", None, None, None, None, 0, 5.0, "{}"))
        for trace_id, rating, comment, when in ((t1, 1, "first", 100.0), (t1, -1, "newest", 300.0),
                                                (t1, 1, "middle", 200.0), (t2, 1, "only", 150.0)):
            conn.execute("INSERT INTO feedback (trace_id, tenant, rating, comment, created_at) VALUES (?,?,?,?,?)",
                         (trace_id, "a", rating, comment, when))
        # the same trace id rated by another tenant is another tenant's row, kept
        conn.execute("INSERT INTO feedback (trace_id, tenant, rating, comment, created_at) VALUES (?,?,?,?,?)",
                     (t1, "b", 1, "b's row", 50.0))
    monkeypatch.setattr(store, "MIGRATIONS", all_migrations)
    rows = store.list_feedback(settings, "a")
    assert [(r["trace_id"], r["rating"], r["comment"]) for r in rows] == [(t1, -1, "newest"), (t2, 1, "only")]
    assert [r["comment"] for r in store.list_feedback(settings, "b")] == ["b's row"]
    assert store.add_feedback(settings, "a", t1, 1, "again") == "updated"
    assert len(store.list_feedback(settings, "a")) == 2
    with store.connect(settings) as conn:  # applied once
        assert [r[0] for r in conn.execute("SELECT id FROM _migrations")] == list(range(1, len(all_migrations) + 1))


def test_interrupted_uploads_are_per_tenant_and_end_when_the_file_comes_again(settings):
    store.record_interrupted_uploads(settings, "a", ["x.pdf", "y.md", "x.pdf"], at=100.0)
    store.record_interrupted_uploads(settings, "b", ["x.pdf"], at=100.0)
    assert store.list_interrupted_uploads(settings, "a") == [
        {"file_name": "x.pdf", "interrupted_at": 100.0}, {"file_name": "y.md", "interrupted_at": 100.0}]
    store.record_interrupted_uploads(settings, "a", ["x.pdf"], at=300.0)  # cut off again: the latest time
    assert [u["interrupted_at"] for u in store.list_interrupted_uploads(settings, "a")] == [100.0, 300.0]
    with store.connect(settings) as conn:  # y.md uploaded again since (here: from the command line)
        conn.execute("INSERT INTO documents (doc_id, tenant, file_name, sha256, size, status, uploaded_at) "
                     "VALUES ('d1', 'a', 'y.md', 's', 1, 'ready', 200.0)")
        conn.execute("INSERT INTO documents (doc_id, tenant, file_name, sha256, size, status, uploaded_at) "
                     "VALUES ('d2', 'a', 'x.pdf', 's', 1, 'ready', 250.0)")  # before the latest cut
    assert [u["file_name"] for u in store.list_interrupted_uploads(settings, "a")] == ["x.pdf"]
    store.clear_interrupted_uploads(settings, "a", ["x.pdf"])
    assert store.list_interrupted_uploads(settings, "a") == []
    assert [u["file_name"] for u in store.list_interrupted_uploads(settings, "b")] == ["x.pdf"]
    store.clear_interrupted_uploads(settings, "b")
    assert store.list_interrupted_uploads(settings, "b") == []


@pytest.mark.parametrize("route_in_9", [True, False])
def test_the_route_column_arrives_whichever_build_migrated_the_folder(settings, monkeypatch, route_in_9):
    """For a while migration 9 itself added traces.route; folders migrated then, and folders
    migrated without it, both end with the column and take traces."""
    old = list(store.MIGRATIONS[:12])
    if route_in_9:
        old[8] = old[8] + "ALTER TABLE traces ADD COLUMN route TEXT;\n"
    with monkeypatch.context() as m:
        m.setattr(store, "MIGRATIONS", old)
        with store.connect(settings):
            pass
    with store.connect(settings) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(traces)")}
        applied = {row[0] for row in conn.execute("SELECT id FROM _migrations")}
    assert "route" in columns and len(store.MIGRATIONS) in applied
    trace_id = store.save_trace(settings, {"answer": {"tenant": "acme", "question": "q?", "status": "refused",
                                                      "route": "human"}})
    assert store.get_trace(settings, "acme", trace_id) is not None


def test_a_failing_migration_statement_other_than_an_existing_column_still_fails(settings, monkeypatch):
    monkeypatch.setattr(store, "MIGRATIONS", [*store.MIGRATIONS, "ALTER TABLE no_such_table ADD COLUMN x TEXT;"])
    with pytest.raises(sqlite3.OperationalError):
        with store.connect(settings):
            pass
