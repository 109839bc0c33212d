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
    assert set(METRICS) <= set(report["overall"]) and report["overall"]["n"] == 4
    assert set(report["by_kind"]) == {"answerable", "unanswerable", "misleading"}
    assert set(report["by_category"]) == {"returns", "maintenance", "other"}
    assert report["overall"]["latency_p50_ms"] > 0
    questions = {q["id"]: q for q in report["questions"]}
    for q in questions.values():
        assert q["outcome"] in OUTCOMES and "status" in q and "timings_ms" in q and "retrieved" in q
    assert questions["a1"]["outcome"] == "correct" and questions["a1"]["gold_rank"] is not None
    assert questions["u1"]["outcome"] == "refused_ok"
    assert report["overall"]["hit_rate"] == 1.0

    stored = store.get_eval_run(settings, report["run_id"])
    assert stored is not None and stored["overall"] == report["overall"]
    assert [r["run_id"] for r in store.list_eval_runs(settings, set_name="tiny")] == [report["run_id"]]

    # the command line: split, tenant mapping, --out, table on stdout
    out = tmp_path / "report.json"
    assert run.main(["--set", str(tiny_set), "--split", "test", "--tenant", "shop", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "kind: answerable" in printed and "category: maintenance" in printed and "overall" in printed
    second = json.loads(out.read_text(encoding="utf-8"))
    assert [q["id"] for q in second["questions"]] == ["a2", "m1"] and second["split"] == "test"

    # calibration: gate pinned open, curve stored, threshold applied
    curve_path = tmp_path / "curve.json"
    assert calibrate.main(["--set", str(tiny_set), "--split", "all", "--apply", "--tenant", "shop",
                           "--out", str(curve_path)]) == 0
    assert "recommended gate_threshold" in capsys.readouterr().out
    curve = json.loads(curve_path.read_text(encoding="utf-8"))
    assert len(curve["curve"]) == 101
    assert load_tenant_overrides(settings, "shop")["gate_threshold"] == curve["recommended"]["threshold"]
    cal_run = store.get_eval_run(settings, curve["run_id"])
    assert cal_run["mode"] == "calibration" and cal_run["settings"]["gate_threshold"] == 0.0
    assert len(cal_run["calibration"]["curve"]) == 101

    # comparison of the first run with the stored report file
    assert compare.main([report["run_id"], str(out)]) == 0
    assert "outcome flips" in capsys.readouterr().out


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
