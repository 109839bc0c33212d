"""Eval runs in SQLite: reads scoped by tenant, and what makes two runs comparable."""

from __future__ import annotations

from core import store


def _report(run_id: str, tenant: str | None, **extra) -> dict:
    return {"run_id": run_id, "set": "demo", "split": "test", "tenant": tenant, "created_at": 1.0,
            "overall": {"answer_correct": 0.5, "n": 1}, "by_tenant": {tenant or "demo": {"n": 1}},
            "questions": [{"id": "q1", "tenant": tenant, "retrieved": [{"text": f"{tenant}'s chunk"}]}], **extra}


def test_runs_are_read_for_one_tenant_only(settings):
    store.save_eval_run(settings, _report("r-acme", "acme"))
    store.save_eval_run(settings, _report("r-globex", "globex"))
    store.save_eval_run(settings, _report("r-none", None, by_tenant={"a": {}, "b": {}}))
    assert [r["run_id"] for r in store.list_eval_runs(settings, "demo", tenant="acme")] == ["r-acme"]
    assert [r["run_id"] for r in store.list_eval_runs(settings, tenant="globex")] == ["r-globex"]
    assert store.get_eval_run(settings, "r-globex", tenant="acme") is None
    assert store.get_eval_run(settings, "r-globex", tenant="globex")["questions"][0]["retrieved"]
    # no tenant reads only the runs stored for none (several tenants asked), never everyone's
    assert [r["run_id"] for r in store.list_eval_runs(settings)] == ["r-none"]
    assert store.get_eval_run(settings, "r-acme") is None


def test_a_run_keeps_what_makes_it_comparable(settings):
    store.save_eval_run(settings, _report("r1", "acme", mode="calibration", limit=12,
                                          tenants_asked=["eval-demo-demo", "eval-demo-globex"]))
    store.save_eval_run(settings, _report("r2", "acme"))
    r1, r2 = store.list_eval_runs(settings, tenant="acme")
    assert (r1["mode"], r1["limit"], r1["tenants"]) == ("calibration", 12, ["eval-demo-demo", "eval-demo-globex"])
    assert (r2["mode"], r2["limit"], r2["tenants"]) == ("run", None, ["acme"])


def test_runs_stored_before_the_migration_get_mode_and_tenants(settings, monkeypatch):
    import json
    import sqlite3

    with monkeypatch.context() as m:  # a database of the three earlier migrations
        m.setattr(store, "MIGRATIONS", store.MIGRATIONS[:3])
        with store.connect(settings) as conn:
            for run_id, report in (("old-cal", {"mode": "calibration", "by_tenant": {"demo": {}}}),
                                   ("old-probes", {"by_tenant": {"demo": {}, "globex": {}}})):
                conn.execute("INSERT INTO eval_runs VALUES (?,?,?,?,?,?,?,?,?)",
                             (run_id, "demo", 1.0, None, "demo" if run_id == "old-cal" else None, "calib", "{}",
                              "{}", json.dumps(report)))
    cal = store.list_eval_runs(settings, tenant="demo")
    assert [(r["run_id"], r["mode"], r["tenants"], r["limit"]) for r in cal] == [
        ("old-cal", "calibration", ["demo"], None)]
    assert [(r["mode"], r["tenants"]) for r in store.list_eval_runs(settings)] == [("run", ["demo", "globex"])]
    with sqlite3.connect(store.db_path(settings)) as conn:
        assert conn.execute("SELECT max(id) FROM _migrations").fetchone()[0] == len(store.MIGRATIONS)


def test_a_run_summary_carries_its_rates_intervals_and_an_older_run_none(settings):
    store.save_eval_run(settings, _report("r-old", "acme"))  # stored before intervals were kept
    store.save_eval_run(settings, _report("r-new", "acme", intervals={
        "overall": {"answer_correct": [0.09, 0.91]}, "by_kind": {"answerable": {"answer_correct": [0.0, 1.0]}}}))
    old, new = store.list_eval_runs(settings, tenant="acme")
    assert old["intervals"] == {}
    assert new["intervals"] == {"answer_correct": [0.09, 0.91]}  # the overall ones only
