"""Why questions were refused (ui/quality.py): reason classes from the sentences core/ writes."""

import pytest

from ui import quality as q


@pytest.mark.parametrize("reason, expected", [
    ("The knowledge base never mentions “flux capacitor”.", "names something the documents never mention"),
    ("No passage mentions E401.", "an identifier, section, page or value no passage holds"),
    ("No passage is numbered 99-1 in the documents searched.", "an identifier, section, page or value no passage holds"),
    ("None of the passages found comes from page 12.", "an identifier, section, page or value no passage holds"),
    ("No passage gives 6 litres; the documents state other values.", "an identifier, section, page or value no passage holds"),
    ("No passage states what the question asks.", "no sentence passed the answer rules"),
    ("The closest passage does not address “founded”, a word the knowledge base never uses.",
     "the closest sentence ignores a word of the question"),
    ("Answer confidence 0.48 is below the threshold 0.55: the closest sentence does not clearly answer it.",
     "confidence under the threshold"),
    ("Retrieval confidence 0.10 is too low for the threshold 0.55.", "confidence under the threshold"),
    ("2 claim(s) were not supported by the cited passages.", "the answer failed its checks"),
    (None, "other"),
])
def test_a_refusal_reason_maps_to_its_class(reason, expected):
    assert q.refusal_class(reason) == expected


def test_refusals_are_counted_per_class_and_wrong_refusals_listed():
    def row(qid, kind, status, reason=None, closest=()):
        return {"id": qid, "kind": kind, "status": status, "refusal_reason": reason, "question": f"<b>{qid}</b>?",
                "expected_answer": "14 days" if kind == "answerable" else None,
                "closest": [{"sentence": s} for s in closest]}

    report = {"questions": [
        row("a1", "answerable", "refused", "No passage states what the question asks.", ["Refunds within 14 days."]),
        row("a2", "answerable", "refused", "No passage states what the question asks."),
        row("u1", "unanswerable", "refused", "The knowledge base never mentions “Mars”."),
        row("m1", "misleading", "refused", "No passage states what the question asks."),
        row("a3", "answerable", "answered"),
    ]}
    counts = q.refusal_counts(report)
    assert counts == [
        {"reason": "no sentence passed the answer rules", "bucket": q.SHOULD_ANSWER, "n": 2},
        {"reason": "no sentence passed the answer rules", "bucket": q.RIGHT_TO_REFUSE, "n": 1},
        {"reason": "names something the documents never mention", "bucket": q.RIGHT_TO_REFUSE, "n": 1},
    ]
    rows = q.wrong_refusal_rows(report)
    assert [r["id"] for r in rows] == ["a1", "a2"]
    assert rows[0]["closest sentence"] == "Refunds within 14 days." and rows[1]["closest sentence"] == ""
    assert rows[0]["question"] == "<b>a1</b>?"  # shown in a dataframe as text, never rendered


def test_many_categories_get_one_row_each_with_full_names_and_room_for_labels():
    from ui.charts import group_bars

    cats = [f"category_with_a_long_name_{n}" for n in range(14)]
    metrics = ["answer_correct", "refusal_correct", "hallucination", "grounded_only"]
    rows = [{"group": c, "metric": m, "value": 1.0, "n": 3} for c in cats for m in metrics]
    fig = group_bars(rows, "Per category", metrics, horizontal=True).to_plotly_json()
    assert [t["orientation"] for t in fig["data"]] == ["h"] * 4
    assert all(list(t["y"]) == cats for t in fig["data"])  # full names, in order, on the category axis
    assert all(list(t["x"]) == [100.0] * 14 and list(t["text"]) == ["100%"] * 14 for t in fig["data"])
    # every bar its own line, tall enough for its label: at least 14 px a bar
    assert fig["layout"]["height"] >= 14 * len(cats) * len(metrics)
    assert fig["layout"]["yaxis"]["automargin"] and fig["layout"]["xaxis"]["range"][1] > 100  # room for "100%"
    few = group_bars(rows[:8], "Per category", metrics, horizontal=True).to_plotly_json()
    assert few["layout"]["height"] < fig["layout"]["height"]


def test_the_live_chart_counts_whole_asks_and_shares_on_round_ticks():
    from ui.charts import live_per_day

    days = [{"day": "2026-11-26", "asks": 0, "refusal_rate": None, "corrected_rate": None, "answer_rate": None},
            {"day": "2026-11-27", "asks": 2, "refusal_rate": 0.5, "corrected_rate": 0.0, "answer_rate": 0.5}]
    fig = live_per_day(days).to_plotly_json()
    layout = fig["layout"]
    # equal shares stay visible: each later line's markers are smaller than the one drawn before
    sizes = [t["marker"]["size"] for t in fig["data"][1:]]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 3
    assert layout["yaxis"]["dtick"] == 1 and layout["yaxis"]["rangemode"] == "tozero"  # no 0.5 of an ask
    share = layout["yaxis2"]
    assert share["range"] == [0, 100] and share["tickmode"] == "linear" and share["dtick"] == 25
    many = live_per_day([{**days[1], "asks": 400}]).to_plotly_json()["layout"]
    assert many["yaxis"].get("dtick") is None  # plotly picks round steps for large counts


def test_rival_quotes_is_a_headline_card_beside_the_wrong_answers_and_lower_is_better():
    overall = {"grounded_only": 0.6, "hallucination": 0.05, "rival_quotes": 0.16, "mrr": 0.8}
    assert q.card_rows(overall) == [["grounded_only"], ["hallucination", "rival_quotes"], ["mrr"]]
    assert q.card_rows({"grounded_only": 0.6}) == [["grounded_only"]]  # an older run without it: no card
    assert "rival_quotes" in q.LOWER_IS_BETTER and q.label("rival_quotes") == "Rival quotes"


def test_history_draws_each_runs_interval_as_an_error_bar_and_none_where_a_run_kept_none():
    from ui import charts

    runs = [{"run_id": "old-run", "created_at": 1.0, "overall": {"answer_correct": 0.5, "latency_p50_ms": 90.0}},
            {"run_id": "new-run", "created_at": 2.0, "overall": {"answer_correct": 0.6, "latency_p50_ms": 80.0},
             "intervals": {"answer_correct": [0.45, 0.72]}}]
    fig = charts.history_lines(q.history_rows(runs, ["answer_correct"]))
    bars = fig.data[0].error_y
    assert list(bars.array) == [None, pytest.approx(12.0)]  # 72 - 60 points above
    assert list(bars.arrayminus) == [None, pytest.approx(15.0)]  # 60 - 45 below
    assert "95% interval" in fig.data[0].hovertemplate
    assert fig.data[0].customdata[1][1] == "45–72%"
    assert len(fig.layout.xaxis.ticktext) == 2 and fig.layout.xaxis.ticktext[1].endswith("new-run")
    assert list(fig.data[0].x) == [0, 1]  # one metric: on its run's tick
    runs[1]["intervals"]["grounded_only"] = [0.5, 0.9]
    for r, g in zip(runs, (0.6, 0.7)):
        r["overall"]["grounded_only"] = g
    two = charts.history_lines(q.history_rows(runs, ["answer_correct", "grounded_only"]))
    # two metrics with bars sit either side of the run's tick, so one's bar cannot hide the other's
    assert two.data[0].x[1] < 1 < two.data[1].x[1] and abs(two.data[1].x[1] - two.data[0].x[1]) < 0.5
    latency = charts.history_lines(q.history_rows(runs, ["latency_p50_ms"]))
    assert latency.data[0].error_y.array is None  # no interval for a latency: no bars


def _live_cards():
    import streamlit as st

    from core.targets import Target
    from ui import live

    live.cards(st.session_state["summary"], {"share_up": Target("share_up", 0.8, True)})


def test_the_thumbs_up_card_says_how_many_answers_were_rated():
    """"Thumbs up 0% · off target ≥ 80%" stood on one rating, beside "Asks 20": a manager
    could not tell a share of one answer from a verdict on the tenant (QA pass)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_live_cards, default_timeout=30)
    at.session_state["summary"] = {"asks": 20, "answer_rate": 0.5, "refusal_rate": 0.5, "corrected_rate": 0.0,
                                   "latency_p50_ms": 125.0, "rated": 1, "share_up": 0.0}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "of 1 rated answer" in [c.value for c in at.caption]
    # none rated: the card's "—" is said in words, not "of 0 rated answers"
    at.session_state["summary"] = {**at.session_state["summary"], "rated": 0, "share_up": None}
    at.run()
    captions = [c.value for c in at.caption]
    assert "no answer rated yet" in captions and not any("of 0" in c for c in captions)


def test_a_runs_threshold_is_read_per_tenant_from_the_settings_it_stored():
    """The run's base threshold, an asked tenant's own override (a manifest knob) over it, a
    pinned one (calibration) over both; a run of the user's own tenant says so."""
    from ui.quality import asked_thresholds, run_threshold, threshold_caption

    run = {"tenant": "acme", "tenants_asked": ["eval-s-a", "eval-s-b"],
           "settings": {"gate_threshold": 0.66, "pins": {},
                        "tenant_overrides": {"eval-s-a": {}, "eval-s-b": {"gate_threshold": 0.5}}}}
    assert asked_thresholds(run) == {"eval-s-a": 0.66, "eval-s-b": 0.5}
    assert run_threshold(run) == 0.66
    assert threshold_caption(run, "acme", 0.7).startswith(
        "Asked with the answer thresholds (gate) **0.66** (eval\\-s\\-a), **0.50** (eval\\-s\\-b). Eval runs use")
    pinned = {**run, "settings": {**run["settings"], "pins": {"gate_threshold": 0.0}}}
    assert asked_thresholds(pinned) == {"eval-s-a": 0.0, "eval-s-b": 0.0}
    own = {"tenant": "acme", "tenants_asked": ["acme"],
           "settings": {"gate_threshold": 0.66, "pins": {}, "tenant_overrides": {"acme": {"gate_threshold": 0.6}}}}
    assert threshold_caption(own, "acme", 0.7) == ("Asked with the answer threshold (gate) **0.60**, with the "
                                                   "settings acme had then (its threshold is 0.70 now).")
    assert asked_thresholds({"tenant": "acme"}) == {}


def _eval_cards():
    import streamlit as st

    from core.targets import Target
    from ui import dashboard

    s = st.session_state
    dashboard.metric_cards([{"run_id": "r1", "overall": s["overall"]}], "r1", s["overall"], 5,
                           {"faithfulness": Target("faithfulness", 0.95, True),
                            "hallucination": Target("hallucination", 0.05, False),
                            "grounded_only": Target("grounded_only", 0.75, True)},
                           s["intervals"], s["answers"])


def test_a_tiny_run_does_not_call_faithfulness_on_target():
    """QA pass: "Faithfulness 100% · on target" stood green beside "Made up 100%" on a run of
    two questions: one quoted answer is wholly faithful whether right or not."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_eval_cards, default_timeout=30)
    at.session_state["overall"] = {"faithfulness": 1.0, "hallucination": 1.0, "grounded_only": 0.0}
    at.session_state["intervals"] = {"hallucination": [0.34, 1.0], "grounded_only": [0.0, 0.66]}
    at.session_state["answers"] = 2
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert ":gray-badge[too few to tell (≥ 95\\%)]" in badges
    assert ":red-badge[:material/warning: off target ≤ 5\\%]" in badges  # its interval lies above 5%
    # 0% grounded, but 2 questions cannot rule out 75%: its interval reaches 66%, not 75%
    assert ":red-badge[:material/warning: off target ≥ 75\\%]" in badges
    assert "over the claims of 2 answers" in [c.value for c in at.caption]


def test_a_target_inside_the_rates_interval_is_within_chance():
    from core.targets import Target

    grounded = Target("grounded_only", 0.75, True)
    assert q.too_few_to_judge("grounded_only", grounded, [0.62, 0.83], None) == "within chance"
    assert q.too_few_to_judge("grounded_only", grounded, [0.76, 0.90], None) == ""
    assert q.too_few_to_judge("grounded_only", grounded, None, None) == ""  # a run stored before intervals
    faithful = Target("faithfulness", 0.95, True)
    assert q.too_few_to_judge("faithfulness", faithful, None, 40) == ""
    assert q.too_few_to_judge("faithfulness", faithful, None, None) == ""


def test_answered_count_leaves_out_refusals_and_errors():
    report = {"questions": [{"status": "answered"}, {"status": "refused"}, {"status": "error"},
                            {"status": "corrected"}, {"status": "fallback"}]}
    assert q.answered_count(report) == 3 and q.answered_count({}) is None
