import sqlite3
import threading
from dataclasses import replace

from core import store
from core.config import load_settings


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
    store.add_feedback(settings, "a", "t1", 1, "good")
    assert store.list_feedback(settings, "a")[0]["comment"] == "good"
    assert store.list_feedback(settings, "b") == []
    run_id = store.save_eval_run(settings, {"set": "demo", "overall": {"hit_rate@5": 0.9}, "questions": []})
    runs = store.list_eval_runs(settings, "demo")
    assert runs[0]["run_id"] == run_id and runs[0]["overall"]["hit_rate@5"] == 0.9
    assert store.get_eval_run(settings, run_id)["set"] == "demo"


def test_first_connections_in_parallel_do_not_fail(tmp_path):
    # parallel uploads into a new data folder: the switch to WAL must not fail with "locked"
    # (a race: the old code lost it about once in 60 fresh folders, so try many)
    errors: list[Exception] = []
    for attempt in range(80):
        settings = replace(load_settings({}), data_dir=tmp_path / str(attempt))
        start = threading.Barrier(12)

        def first_use(settings=settings, start=start) -> None:
            start.wait()
            try:
                with store.connect(settings) as conn:
                    conn.execute("SELECT count(*) FROM tenants").fetchone()
            except Exception as exc:  # noqa: BLE001 — collected and asserted below
                errors.append(exc)

        threads = [threading.Thread(target=first_use) for _ in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
