"""The gate sweep and the operating-point choice on a synthetic set with a known optimum."""

from __future__ import annotations

import pytest
from eval_helpers import cite, make_a, make_q

from evals.calibrate import calibration_curve, default_thresholds, gate, recommend


def _synthetic() -> list[tuple[dict, dict]]:
    """10 answerable questions answered correctly with confidence 0.50, 0.55, ..., 0.95;
    4 unanswerable questions answered (wrongly) with confidence 0.10, 0.20, 0.30, 0.60."""
    rows = []
    for i in range(10):
        conf = round(0.50 + 0.05 * i, 2)
        q = make_q(f"a{i}", expected="42", source="d.md", quote="is 42")
        rows.append((q, make_a(text="It is 42 [1].", citations=[cite("d:1", "The answer is 42.")],
                               confidence=conf)))
        rows[-1][1]["retrieved"] = [{"chunk_id": "d:1", "source": "d.md", "rank": 1,
                                     "text": "The answer is 42."}]
    for i, conf in enumerate([0.10, 0.20, 0.30, 0.60]):
        rows.append((make_q(f"u{i}", kind="unanswerable"), make_a(text="Made up [1].", confidence=conf)))
    return rows


def test_curve_has_one_point_per_threshold():
    curve = calibration_curve(_synthetic())
    assert [p["threshold"] for p in curve] == default_thresholds()
    assert len(curve) == 101 and curve[0]["threshold"] == 0.0 and curve[-1]["threshold"] == 1.0
    refused = [p["refused"] for p in curve]
    assert refused == sorted(refused)  # a higher threshold never refuses less
    assert curve[0]["refused"] == 0 and curve[-1]["refused"] == 14


def test_curve_values_at_known_thresholds():
    curve = {p["threshold"]: p for p in calibration_curve(_synthetic())}
    assert curve[0.0]["hallucination"] == pytest.approx(4 / 14, abs=1e-4)
    assert curve[0.0]["answer_correct"] == 1.0 and curve[0.0]["refusal_correct"] == 0.0
    p = curve[0.31]  # refuses the unanswerables at 0.10, 0.20, 0.30
    assert p["refusal_correct"] == 0.75 and p["too_conservative"] == 0.0
    assert p["hallucination"] == pytest.approx(1 / 14, abs=1e-4)
    assert p["grounded_only"] == pytest.approx(13 / 14, abs=1e-4)
    # confidence == threshold is not refused (the gate refuses only below it)
    assert curve[0.30]["refusal_correct"] == 0.5
    p = curve[0.61]  # refuses everything but answerables at >= 0.65: 3 of 10 answerable refused
    assert p["too_conservative"] == pytest.approx(0.3) and p["hallucination"] == 0.0


def test_recommend_picks_the_known_optimum():
    rec = recommend(calibration_curve(_synthetic()))
    # hallucination 1/14 is the best with too_conservative <= 0.10 (t in 0.31..0.55); of those,
    # 0.31..0.50 keep every answerable (highest grounded_only); the lowest of them wins
    assert rec["threshold"] == 0.31
    assert rec["feasible"] is True and rec["too_conservative"] == 0.0
    # a looser limit lets the gate refuse the 0.60 unanswerable too
    loose = recommend(calibration_curve(_synthetic()), max_too_conservative=0.3)
    assert loose["threshold"] == 0.61 and loose["hallucination"] == 0.0


def test_recommend_when_no_threshold_is_feasible():
    rows = [(make_q("a1", expected="x", source="s", quote="x"), make_a(status="refused", confidence=0.9)),
            (make_q("a2", expected="x", source="s", quote="x"), make_a(text="x [1]", confidence=0.9))]
    rec = recommend(calibration_curve(rows, [0.0, 0.5, 0.95]))
    assert rec["feasible"] is False
    assert rec["threshold"] == 0.0 and rec["too_conservative"] == 0.5
    with pytest.raises(ValueError):
        recommend([])


def test_gate_simulation_leaves_other_answers_alone():
    a = make_a(text="x [1]", citations=[cite("c:1", "x")], confidence=0.4)
    assert gate(a, 0.4) is a
    refused = gate(a, 0.41)
    assert refused["status"] == "refused" and refused["citations"] == [] and a["status"] == "answered"
    already = make_a(status="refused", confidence=0.0)
    assert gate(already, 0.9) is already


def test_gate_simulation_keeps_a_failed_ask_a_failure():
    """An ask that raised has confidence 0: the simulated gate used to turn it into a refusal,
    so the curve scored crashes on unanswerable questions as correct refusals."""
    error = make_a(status="error", confidence=0.0)
    assert gate(error, 0.5) is error
    rows = [(make_q("u1", kind="unanswerable"), error)]
    curve = {p["threshold"]: p for p in calibration_curve(rows, [0.0, 0.5])}
    assert curve[0.5]["refusal_correct"] == 0.0 and curve[0.5]["hallucination"] == 1.0
