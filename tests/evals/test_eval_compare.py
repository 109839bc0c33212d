"""Comparing two reports: metric deltas with direction, and outcome flips."""

from __future__ import annotations

import json

import pytest

from evals.compare import compare_reports, load_report, main


def _report(run_id: str, overall: dict, outcomes: dict[str, str]) -> dict:
    return {"run_id": run_id, "set": "demo", "overall": overall,
            "by_kind": {"answerable": {"answer_correct": overall.get("answer_correct"), "n": 2}},
            "questions": [{"id": i, "kind": "answerable", "category": "c", "question": f"q {i}?",
                           "outcome": o, "answer": ""} for i, o in outcomes.items()]}


A = _report("runA", {"answer_correct": 0.5, "hallucination": 0.2, "latency_p50_ms": 100.0, "mrr": None, "n": 4},
            {"q1": "correct", "q2": "wrong", "q3": "refused_ok", "q4": "too_conservative", "q5": "correct"})
B = _report("runB", {"answer_correct": 0.75, "hallucination": 0.3, "latency_p50_ms": 80.0, "mrr": 0.5, "n": 4},
            {"q1": "correct", "q2": "correct", "q3": "hallucinated", "q4": "wrong", "q6": "correct"})


def test_deltas_know_which_way_is_better():
    cmp = compare_reports(A, B)
    o = cmp["overall"]
    assert o["answer_correct"] == {"a": 0.5, "b": 0.75, "delta": 0.25, "better": True}
    assert o["hallucination"]["delta"] == pytest.approx(0.1) and o["hallucination"]["better"] is False
    assert o["latency_p50_ms"]["better"] is True  # lower latency is an improvement
    assert o["mrr"]["delta"] is None and o["mrr"]["b"] == 0.5
    assert cmp["by_kind"]["answerable"]["answer_correct"]["delta"] == 0.25


def test_flips_and_missing_questions():
    cmp = compare_reports(A, B)
    flips = {f["id"]: f for f in cmp["flips"]}
    assert set(flips) == {"q2", "q3", "q4"}
    assert flips["q2"]["change"] == "improved" and (flips["q2"]["a"], flips["q2"]["b"]) == ("wrong", "correct")
    assert flips["q3"]["change"] == "regressed"
    assert flips["q4"]["change"] == "regressed"  # too_conservative -> wrong
    assert cmp["improved"] == 1 and cmp["regressed"] == 2
    assert cmp["only_in_a"] == ["q5"] and cmp["only_in_b"] == ["q6"]
    assert compare_reports(A, A)["flips"] == []


def test_cli_reads_files_and_stored_runs(settings, tmp_path, capsys):
    from core import store

    (tmp_path / "a.json").write_text(json.dumps(A), encoding="utf-8")
    run_b = store.save_eval_run(settings, json.loads(json.dumps(B)))
    assert main([str(tmp_path / "a.json"), run_b]) == 0
    out = capsys.readouterr().out
    assert "answer_correct" in out and "+25.0 pp" in out and "regressed" in out and "q3" in out
    assert load_report(settings, run_b)["run_id"] == "runB"
    assert main([str(tmp_path / "a.json"), "no-such-run"]) == 2
    assert "no-such-run" in capsys.readouterr().err
    with pytest.raises(ValueError):
        load_report(settings, str(tmp_path / "missing.json"))
