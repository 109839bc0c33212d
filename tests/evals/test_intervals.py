"""How sure a figure is: Wilson intervals of the rates and the sign test between two runs."""

from __future__ import annotations

import pytest

from evals.compare import compare_reports, format_comparison
from evals.metrics import score
from evals.metrics.base import MetricResult
from evals.metrics.intervals import fmt_interval, rate_intervals, sign_test, verdict, wilson
from evals.run import format_table


def test_wilson_matches_the_published_values():
    low, high = wilson(30, 60)
    assert (low, high) == (pytest.approx(0.3773, abs=1e-4), pytest.approx(0.6227, abs=1e-4))
    # at 0 % the interval is not a point: ten clean answers do not prove a zero rate
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    assert wilson(10, 10) == (pytest.approx(0.7225, abs=1e-4), pytest.approx(1.0))
    assert wilson(0, 0) is None


def test_wilson_narrows_with_more_questions():
    widths = [wilson(n // 2, n)[1] - wilson(n // 2, n)[0] for n in (20, 60, 240, 1000)]
    assert widths == sorted(widths, reverse=True)
    assert widths[1] == pytest.approx(0.245, abs=0.002)  # a 60-question set: about ±0.12


def test_sign_test_exact_values():
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 5) == 1.0
    assert sign_test(6, 0) == pytest.approx(2 / 64)
    assert sign_test(2, 10) == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert sign_test(3, 4) == sign_test(4, 3)


def test_verdict_says_within_noise_or_beyond_chance():
    assert verdict(1, 2)["beyond_chance"] is False and "within noise" in verdict(1, 2)["sentence"]
    strong = verdict(12, 1)
    assert strong["beyond_chance"] is True and "better beyond chance" in strong["sentence"]
    assert "worse beyond chance" in verdict(0, 9)["sentence"]
    assert verdict(0, 0)["sentence"].startswith("No question changed")


def test_rate_intervals_skip_latencies_and_fractional_scores():
    results = {"grounded_only": MetricResult("grounded_only", 0.5, 3, 6),
               "faithfulness": MetricResult("faithfulness", 0.8, 2.4, 3),
               "latency_p50_ms": MetricResult("latency_p50_ms", 120.0, 0, 6),
               "mrr": MetricResult("mrr", 0.5, 1.5, 3),
               "citation_accuracy": MetricResult("citation_accuracy", None, 0, 0)}
    out = rate_intervals(results)
    assert list(out) == ["grounded_only"]
    assert out["grounded_only"][0] < 0.5 < out["grounded_only"][1]
    assert fmt_interval(out["grounded_only"]) == "19–81%"
    assert fmt_interval(None) == ""


def _row(i: int, right: bool) -> tuple[dict, dict]:
    q = {"id": f"q{i}", "kind": "answerable", "expected_answer": "28 days", "lang": "en"}
    if not right:
        return q, {"status": "refused", "answer": "", "citations": []}
    a = {"status": "answered", "answer": "Within 28 days [1].",
         "citations": [{"chunk_id": "c1", "quote": "within 28 days"}],
         "retrieved": [{"chunk_id": "c1", "source": "faq.md", "rank": 1, "text": "Returns within 28 days."}]}
    return q, a


def test_score_keeps_an_interval_around_each_rate_overall_and_per_group():
    scored = score([_row(i, i < 3) for i in range(6)])
    low, high = scored["intervals"]["overall"]["answer_correct"]
    assert scored["overall"]["answer_correct"] == 0.5 and low < 0.5 < high
    assert scored["intervals"]["by_lang"]["en"]["answer_correct"] == [low, high]
    assert "latency_p50_ms" not in scored["intervals"]["overall"]


def test_the_run_table_prints_the_intervals():
    scored = score([_row(i, i < 3) for i in range(6)])
    report = {**{k: scored[k] for k in ("overall", "by_kind", "by_lang", "intervals")}, "retrieval_k": 5}
    table = format_table(report)
    assert "95% intervals over 6 questions: grounded 19–81%, correct 19–81%, halluc 0–39%" in table
    del report["intervals"]  # a run stored before intervals were kept prints none
    assert "95% intervals" not in format_table(report)


def _report(run_id: str, outcomes: dict[str, str]) -> dict:
    return {"run_id": run_id, "set": "s", "overall": {"n": len(outcomes)},
            "questions": [{"id": i, "kind": "answerable", "category": "c", "question": "q?", "outcome": o,
                           "answer": ""} for i, o in outcomes.items()]}


def test_compare_says_whether_a_change_is_beyond_chance():
    before = _report("a", {f"q{i}": "too_conservative" for i in range(12)})
    small = compare_reports(before, _report("b", {**before_outcomes(before), "q0": "correct"}))
    assert small["significance"]["beyond_chance"] is False
    assert "within noise" in format_comparison(small)
    large = compare_reports(before, _report("c", {f"q{i}": "correct" for i in range(12)}))
    assert large["significance"] == {"p_value": pytest.approx(2 / 4096, abs=1e-4), "beyond_chance": True,
                                     "sentence": large["significance"]["sentence"]}
    assert "better beyond chance" in format_comparison(large)


def before_outcomes(report: dict) -> dict[str, str]:
    return {q["id"]: q["outcome"] for q in report["questions"]}
