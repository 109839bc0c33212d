"""End to end: a tiny set over a tiny corpus through the real pipeline, runner, calibration
and comparison (own GROUNDWORK_DATA in tmp_path; no network)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import store
from core.config import load_tenant_overrides
from evals import calibrate, compare, run
from evals.metrics import METRICS, OUTCOMES

QUESTIONS = [
    {"id": "a1", "tenant": "shop", "question": "Within how many days can I return an unused appliance?",
     "kind": "answerable", "expected_answer": "28 days", "gold_source": "returns.md",
     "gold_quote": "within 28 days of delivery", "category": "returns", "lang": "en", "split": "calib"},
    {"id": "a2", "tenant": "shop", "question": "What is the engine oil capacity with a filter change?",
     "kind": "answerable", "expected_answer": "5 quarts", "gold_source": "oil.md",
     "gold_quote": "The engine oil capacity is 5 quarts", "category": "maintenance", "lang": "en",
     "split": "test"},
    {"id": "u1", "tenant": "shop", "question": "What is the capital of Mongolia?", "kind": "unanswerable",
     "expected_answer": None, "gold_source": None, "gold_quote": None, "category": "other", "lang": "en",
     "split": "calib"},
    {"id": "m1", "tenant": "shop", "question": "How much does return collection cost on Mars?",
     "kind": "misleading", "expected_answer": None, "gold_source": None, "gold_quote": None,
     "category": "returns", "lang": "en", "split": "test"},
]


@pytest.fixture
def tiny_set(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "returns.md").write_text(
        "# Returns\n\nYou can return an unused appliance in its original packaging within 28 days of "
        "delivery and receive the full purchase price.\n\n## Collection\n\nCollection of the return is free "
        "in Germany; in all other delivery countries we charge €49 for the collection.\n", encoding="utf-8")
    (corpus / "oil.md").write_text(
        "# Maintenance\n\nThe engine oil capacity is 5 quarts with filter change. Change the oil every "
        "10,000 km.\n", encoding="utf-8")
    sets = tmp_path / "sets"
    sets.mkdir()
    path = sets / "tiny.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS), encoding="utf-8")
    (sets / "tiny.corpus.json").write_text(json.dumps({"shop": [str(corpus)]}), encoding="utf-8")
    return path


def test_run_calibrate_compare(settings, tiny_set, tmp_path, capsys):
    calls: list[tuple[int, int]] = []
    report = run.run_set(settings, tiny_set, ingest=True, progress=lambda d, t: calls.append((d, t)))

    assert calls[0] == (0, 4) and calls[-1] == (4, 4)
    for key in ("set", "run_id", "split", "settings", "git_commit", "created_at", "overall", "by_kind",
                "by_category", "by_tenant", "by_lang", "questions"):
        assert key in report, key
    assert report["set"] == "tiny" and report["split"] == "all" and report["ingest"]["ready"] == 2
    # --ingest asks a fresh eval tenant, and the run is stored for it
    assert report["tenant_map"] == {"shop": "eval-tiny-shop"} and report["tenant"] == "eval-tiny-shop"
    assert store.list_documents(settings, "shop") == []
    assert set(METRICS) <= set(report["overall"]) and report["overall"]["n"] == 4
    assert report["overall"]["errors"] == 0
    assert set(report["by_kind"]) == {"answerable", "unanswerable", "misleading"}
    assert set(report["by_category"]) == {"returns", "maintenance", "other"}
    assert report["overall"]["latency_p50_ms"] > 0
    questions = {q["id"]: q for q in report["questions"]}
    for q in questions.values():
        assert q["outcome"] in OUTCOMES and "status" in q and "timings_ms" in q and "retrieved" in q
    assert questions["a1"]["outcome"] == "correct" and questions["a1"]["gold_rank"] is not None
    assert questions["u1"]["outcome"] == "refused_ok"
    assert report["overall"]["hit_rate"] == 1.0
    # the harness's asks are listed as its own, never as people's (live figures, review queue)
    asked = store.list_traces(settings, "eval-tiny-shop")
    assert len(asked) == 4 and {t["origin"] for t in asked} == {"eval"}
    assert store.trace_stats_rows(settings, "eval-tiny-shop") == []

    stored = store.get_eval_run(settings, report["run_id"], tenant="eval-tiny-shop")
    assert stored is not None and stored["overall"] == report["overall"]
    runs = store.list_eval_runs(settings, set_name="tiny", tenant="eval-tiny-shop")
    assert [r["run_id"] for r in runs] == [report["run_id"]]
    assert (runs[0]["mode"], runs[0]["limit"], runs[0]["tenants"]) == ("run", None, ["eval-tiny-shop"])

    # the command line: split, tenant mapping, --out, table on stdout
    out = tmp_path / "report.json"
    assert run.main(["--set", str(tiny_set), "--split", "test", "--tenant", "eval-tiny-shop",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "kind: answerable" in printed and "category: maintenance" in printed and "overall" in printed
    assert "stored for eval-tiny-shop" in printed
    second = json.loads(out.read_text(encoding="utf-8"))
    assert [q["id"] for q in second["questions"]] == ["a2", "m1"] and second["split"] == "test"
    # --no-store says so: "stored for" was printed of a run nothing stored (QA pass)
    before = len(store.list_eval_runs(settings, set_name="tiny", tenant="eval-tiny-shop"))
    assert run.main(["--set", str(tiny_set), "--split", "test", "--tenant", "eval-tiny-shop", "--no-store"]) == 0
    printed = capsys.readouterr().out
    assert "not stored (--no-store)" in printed and "stored for" not in printed
    assert len(store.list_eval_runs(settings, set_name="tiny", tenant="eval-tiny-shop")) == before

    # calibration: gate pinned open, curve stored; four questions are too few to --apply
    curve_path = tmp_path / "curve.json"
    assert calibrate.main(["--set", str(tiny_set), "--split", "all", "--tenant", "eval-tiny-shop",
                           "--out", str(curve_path)]) == 0
    assert "recommended gate_threshold" in capsys.readouterr().out
    curve = json.loads(curve_path.read_text(encoding="utf-8"))
    assert len(curve["curve"]) == 101
    cal_run = store.get_eval_run(settings, curve["run_id"], tenant="eval-tiny-shop")
    assert cal_run["mode"] == "calibration" and cal_run["settings"]["gate_threshold"] == 0.0
    assert len(cal_run["calibration"]["curve"]) == 101

    # comparison of the first run with the stored report file
    assert compare.main([report["run_id"], str(out), "--tenant", "eval-tiny-shop"]) == 0
    assert "outcome flips" in capsys.readouterr().out
    assert compare.main([report["run_id"], str(out), "--tenant", "shop"]) == 2  # not shop's run
    assert "No stored eval run" in capsys.readouterr().err


def test_calibrate_apply_refuses_a_run_that_cannot_choose_a_threshold(settings, tiny_set, tmp_path, capsys):
    """`calibrate --limit 12 --apply` on twelve answerable questions recommended 0.00 and saved it,
    switching the gate off."""
    answerable = tmp_path / "sets" / "answerable.jsonl"
    rows = [dict(QUESTIONS[i % 2], id=f"a{i}") for i in range(40)]
    answerable.write_text("".join(json.dumps(q) + "\n" for q in rows), encoding="utf-8")
    assert calibrate.main(["--set", str(answerable), "--apply", "--tenant", "shop", "--split", "all"]) == 2
    err = capsys.readouterr().err
    assert "--apply refused" in err and "0 of them unanswerable or misleading" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    # too few questions, although the set has every kind
    assert calibrate.main(["--set", str(tiny_set), "--apply", "--tenant", "shop", "--split", "all"]) == 2
    assert "the run has 4 questions" in capsys.readouterr().err
    assert "gate_threshold" not in load_tenant_overrides(settings, "shop")
    assert store.list_eval_runs(settings, tenant="shop") == []  # refused before asking anything


def test_calibrate_apply_on_enough_questions(settings, tiny_set, tmp_path, capsys):
    big = tiny_set.with_name("big.jsonl")
    rows = [dict(q, id=f"{q['id']}-{i}") for i in range(8) for q in QUESTIONS]  # 32, every kind
    big.write_text("".join(json.dumps(q) + "\n" for q in rows), encoding="utf-8")
    big.with_name("big.corpus.json").write_text(tiny_set.with_name("tiny.corpus.json").read_text())
    curve_path = tmp_path / "curve.json"
    assert calibrate.main(["--set", str(big), "--split", "all", "--ingest", "--apply", "--tenant", "shop",
                           "--out", str(curve_path)]) == 0
    out = capsys.readouterr().out
    curve = json.loads(curve_path.read_text(encoding="utf-8"))
    assert f"applied: tenant shop gate_threshold = {curve['recommended']['threshold']:.2f}" in out
    assert load_tenant_overrides(settings, "shop")["gate_threshold"] == curve["recommended"]["threshold"]
    # calibrated on its own eval tenant, stored for shop, and shop's documents untouched
    assert store.list_documents(settings, "shop") == []
    cal_run = store.get_eval_run(settings, curve["run_id"], tenant="shop")
    assert cal_run["tenants_asked"] == ["eval-big-shop"] and cal_run["mode"] == "calibration"


def test_cli_user_errors(settings, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n', encoding="utf-8")
    assert run.main(["--set", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl line 1: missing field" in err and "Traceback" not in err
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(QUESTIONS[2]) + "\n", encoding="utf-8")
    assert run.main(["--set", str(good), "--ingest"]) == 2
    assert "No corpus manifest good.corpus.json" in capsys.readouterr().err


TWO_TENANTS = [
    {"id": "s1", "tenant": "shop", "question": "Within how many days can I return an unused appliance?",
     "kind": "answerable", "expected_answer": "28 days", "gold_source": "returns.md",
     "gold_quote": "within 28 days of delivery", "category": "returns", "lang": "en", "split": "test"},
    {"id": "x1", "tenant": "shop", "question": "What is the codename of the Rival Corp merger project?",
     "kind": "unanswerable", "expected_answer": None, "gold_source": None, "gold_quote": None,
     "category": "cross_tenant", "lang": "en", "split": "test"},
    {"id": "r1", "tenant": "rival", "question": "What is the codename of the Rival Corp merger project?",
     "kind": "answerable", "expected_answer": "Bluefin", "gold_source": "rival.md",
     "gold_quote": "The merger project is codenamed Bluefin", "category": "cross_tenant", "lang": "en",
     "split": "test"},
]


@pytest.fixture
def two_tenant_set(tmp_path: Path, tiny_set: Path) -> Path:
    rival = tmp_path / "rival"
    rival.mkdir()
    (rival / "rival.md").write_text("# Rival Corp\n\nThe merger project is codenamed Bluefin and stays "
                                    "confidential until the announcement.\n", encoding="utf-8")
    path = tiny_set.with_name("two.jsonl")
    path.write_text("".join(json.dumps(q) + "\n" for q in TWO_TENANTS), encoding="utf-8")
    corpus = json.loads(tiny_set.with_name("tiny.corpus.json").read_text())["shop"]
    path.with_name("two.corpus.json").write_text(json.dumps({"shop": corpus, "rival": [str(rival)]}))
    return path


def _docs(settings, tenant):
    from core.documents import list_documents

    return sorted((d["file_name"], d["uploaded_by"], d["sha256"]) for d in list_documents(settings, tenant))


def test_ingest_builds_fresh_eval_tenants_and_never_writes_a_users_tenant(settings, two_tenant_set, tmp_path):
    from dataclasses import replace

    from tests.conftest import ANSWERING_THRESHOLD

    # the runner's bookkeeping is under test, not the answer threshold: the plain questions
    # of this tiny set are answered at the lower test threshold
    settings = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    """`evals.run --set probes --ingest` used to index the injection document into the live
    `demo` tenant. Now each of the set's tenants gets its own eval tenant, built afresh."""
    from core.documents import ingest_file

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nOur own notes about the shop.\n", encoding="utf-8")
    for user_tenant in ("shop", "rival"):
        assert ingest_file(settings, user_tenant, notes, uploaded_by="alice").status == "ready"
    before = {t: _docs(settings, t) for t in ("shop", "rival")}

    report = run.run_set(settings, two_tenant_set, ingest=True, owner="shop")
    assert {t: _docs(settings, t) for t in ("shop", "rival")} == before  # the users' tenants untouched
    assert report["tenant_map"] == {"rival": "eval-two-rival", "shop": "eval-two-shop"}
    assert [d[0] for d in _docs(settings, "eval-two-shop")] == ["oil.md", "returns.md"]
    assert [d[0] for d in _docs(settings, "eval-two-rival")] == ["rival.md"]
    outcomes = {q["id"]: (q["tenant"], q["outcome"]) for q in report["questions"]}
    # the cross-tenant probe still has a second tenant to reach for, and is refused
    assert outcomes["x1"] == ("eval-two-shop", "refused_ok")
    assert outcomes["s1"] == ("eval-two-shop", "correct")
    # its own fact, asked in its own tenant: answered right or refused, never made up
    assert outcomes["r1"][0] == "eval-two-rival" and outcomes["r1"][1] in ("correct", "too_conservative")
    assert report["tenant"] == "shop" and store.get_eval_run(settings, report["run_id"], tenant="shop")

    # fresh every time: whatever an earlier run left in the eval tenant is gone
    stale = tmp_path / "stale.md"
    stale.write_text("# Stale\n\nReturns are accepted within 99 days.\n", encoding="utf-8")
    ingest_file(settings, "eval-two-shop", stale, uploaded_by="evals")
    again = run.run_set(settings, two_tenant_set, ingest=True)
    assert [d[0] for d in _docs(settings, "eval-two-shop")] == ["oil.md", "returns.md"]
    assert again["ingest"]["ready"] == 3 and again["tenant"] is None  # two tenants asked, no owner
    assert any("belongs to none of them" in w for w in again["warnings"])


def test_an_eval_tenant_holding_someone_elses_documents_is_left_alone(settings, tiny_set, tmp_path, capsys):
    from core.documents import ingest_file

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nA user's own document.\n", encoding="utf-8")
    ingest_file(settings, "eval-tiny-shop", notes, uploaded_by="alice")
    assert run.main(["--set", str(tiny_set), "--ingest"]) == 2
    assert "holds documents not added by an eval (notes.md)" in capsys.readouterr().err
    assert [d[0] for d in _docs(settings, "eval-tiny-shop")] == ["notes.md"]
    with pytest.raises(run.EvalSetError):
        run.reset_eval_tenant(settings, "shop")  # not an eval tenant


def test_a_run_stored_for_a_tenant_reads_no_other_tenant(settings, two_tenant_set):
    with pytest.raises(run.EvalSetError, match="asks tenant rival besides 'shop'"):
        run.run_set(settings, two_tenant_set, owner="shop")
    # every question asked as the owner itself is fine
    rows = run.select_rows(TWO_TENANTS, tenant="shop")
    assert run.plan_tenants("two", rows, tenant="shop", owner="shop") == ({"shop": "shop"}, "shop")


def test_the_bundled_probes_get_two_eval_tenants():
    probes = run.ROOT / "evals" / "sets" / "probes.jsonl"
    rows = run.load_set(probes)
    tenant_map, owner = run.plan_tenants("probes", rows, ingest=True)
    assert tenant_map == {"demo": "eval-probes-demo", "globex": "eval-probes-globex"} and owner is None
    assert set(run.load_manifest(probes)) == set(tenant_map)
    assert all(not t.startswith("eval-") for t in tenant_map)  # the manifest names the set's tenants


def test_an_ingest_run_can_prepare_its_tenants_first(settings, tiny_set):
    from core.answer.prepare import texts_of
    from core.answer.vectors import model_name
    from core.answer_vectors import AnswerVectors, key_of
    from core.models import get_embedder

    report = run.run_set(settings, tiny_set, ingest=True, prepare=True, save=False)
    tenant = report["tenant_map"]["shop"]
    model = model_name(get_embedder())
    keys = {key_of(model, t) for r in store.chunk_rows(settings, tenant) for t in texts_of(r)}
    assert report["ingest"]["prepared"][tenant] >= len(keys) > 0
    assert len(AnswerVectors.of(settings, tenant).get(sorted(keys))) == len(keys)  # every unit text stored


def test_prepare_without_ingest_is_refused_with_a_sentence(capsys):
    with pytest.raises(SystemExit):
        run.main(["--set", "evals/sets/demo.jsonl", "--prepare"])
    assert "add --ingest" in capsys.readouterr().err


def test_a_manifest_tenants_knobs_are_applied_before_its_documents_are_read(settings, tiny_set):
    # one chunk a document is too few for returns.md: the knob must be in force when it is read
    manifest = tiny_set.with_name("tiny.corpus.json")
    folders = json.loads(manifest.read_text(encoding="utf-8"))["shop"]
    manifest.write_text(json.dumps({"shop": {"folders": folders, "knobs": {"max_chunks_per_doc": 1}}}),
                        encoding="utf-8")
    report = run.run_set(settings, tiny_set, ingest=True, save=False)
    tenant = report["tenant_map"]["shop"]
    assert load_tenant_overrides(settings, tenant) == {"max_chunks_per_doc": 1}
    assert [f["file"].rsplit("/", 1)[-1] for f in report["ingest"]["failed"]] == ["returns.md"]
    # the next run starts from the defaults again when the manifest drops the knob
    manifest.write_text(json.dumps({"shop": folders}), encoding="utf-8")
    report = run.run_set(settings, tiny_set, ingest=True, save=False)
    assert load_tenant_overrides(settings, tenant) == {} and report["ingest"]["ready"] == 2


def test_a_knob_out_of_range_in_the_manifest_is_one_sentence(settings, tiny_set):
    manifest = tiny_set.with_name("tiny.corpus.json")
    folders = json.loads(manifest.read_text(encoding="utf-8"))["shop"]
    manifest.write_text(json.dumps({"shop": {"folders": folders, "knobs": {"max_chunks_per_doc": -5}}}),
                        encoding="utf-8")
    with pytest.raises(run.EvalSetError, match="knobs of tenant 'shop'"):
        run.run_set(settings, tiny_set, ingest=True, save=False)


def test_a_second_run_over_the_same_eval_tenants_waits_for_the_first(settings):
    # the API and the console start runs per tenant, but every tenant's --ingest run of a
    # set fills the same eval-<set>-<tenant>: the second must not empty it mid-run
    import threading

    from evals.run import eval_tenants_held

    entered, said = threading.Event(), []
    with eval_tenants_held(settings, ["eval-demo-demo", "eval-demo-globex"]):
        def second():
            with eval_tenants_held(settings, ["eval-demo-globex"], log=said.append):
                entered.set()

        worker = threading.Thread(target=second)
        worker.start()
        for _ in range(600):  # until the second run has found the tenant taken (a bound, not a timing)
            if said:
                break
            worker.join(timeout=0.1)
        assert said == ["waiting   eval-demo-globex: another eval run is using it"] and not entered.is_set()
    worker.join()
    assert entered.is_set()
