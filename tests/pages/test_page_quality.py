"""Quality page: run a tiny eval in the background (a real `python -m evals.run` job: its
progress file, time left, cancel, a dead job, one job per tenant, tenant isolation), cards
with deltas, charts with the right data, drift alert, calibration with the threshold marked,
latency, compare, CSV export."""

import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from core import eval_jobs as jobs
from core import store
from evals.jobs import run_job

JOB_DEADLINE_S = 600  # a generous bound on waiting for a job to end, never a claim about its speed


def chart(at, key):
    for element in at.get("plotly_chart"):
        if element.proto.id and key in element.proto.id:
            return json.loads(element.proto.spec)
    raise AssertionError(f"no chart {key}: {[e.proto.id for e in at.get('plotly_chart')]}")


def question(qid, kind, category, outcome, confidence, ms, status=None):
    answered = outcome in ("correct", "wrong", "hallucinated")
    return {"id": qid, "kind": kind, "category": category, "tenant": "acme", "question": f"question {qid}?",
            "outcome": outcome, "status": status or ("answered" if answered else "refused"),
            "confidence": confidence, "answer": "An answer [1]." if answered else "I did not find this.",
            "expected_answer": "answer" if kind == "answerable" else None, "gold_source": None,
            "gold_quote": None, "citations": [], "claims": [], "retrieved": [], "timings_ms": {"total": ms}}


def report(answer_correct, hallucination, outcomes, created_at):
    qs = [question("q1", "answerable", "billing", outcomes[0], 0.9, 120),
          question("q2", "answerable", "maintenance", outcomes[1], 0.7, 340),
          question("q3", "unanswerable", "billing", outcomes[2], 0.3, 80)]
    overall = {"answer_correct": answer_correct, "refusal_correct": 1.0, "hallucination": hallucination,
               "grounded_only": answer_correct, "too_conservative": 0.0, "hit_rate": 1.0, "mrr": 1.0,
               "latency_p50_ms": 120.0, "latency_p95_ms": 340.0, "n": 3}
    return {"set": "tiny", "split": "all", "tenant": "acme", "created_at": created_at,
            "settings": {"gate_threshold": 0.5}, "overall": overall,
            "by_kind": {"answerable": {"answer_correct": answer_correct, "hallucination": hallucination, "n": 2},
                        "unanswerable": {"refusal_correct": 1.0, "hallucination": 0.0, "n": 1}},
            "by_category": {"billing": {"answer_correct": 1.0, "n": 2},
                            "maintenance": {"answer_correct": answer_correct, "n": 1}},
            "questions": qs}


def open_quality(app, goto, set_name="tiny"):
    goto(app, "pages/quality.py")
    app.selectbox(key="quality_set").select(set_name).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def wait_for_job(settings, tenant="acme", job_id=None):
    """Poll the tenant's job record until it has ended (done, failed or cancelled)."""
    deadline = time.monotonic() + JOB_DEADLINE_S
    while True:
        job = jobs.get(settings, tenant, job_id) if job_id else jobs.latest(settings, tenant)
        if job and job["status"] in jobs.ENDED:
            return job
        assert time.monotonic() < deadline, f"the eval job has not ended: {job}"
        time.sleep(0.2)


def job_log(job):
    try:
        return open(job["log"], encoding="utf-8").read()[-3000:]
    except (OSError, KeyError, TypeError):
        return ""


def run_from_page(app, settings, tenant="acme"):
    """Click "Run eval", wait for the background job to end, and rerun the page (what the
    progress fragment does by itself in a browser)."""
    app.button(key="quality_run_btn").click().run()
    assert not app.exception, [e.value for e in app.exception]
    job = wait_for_job(settings, tenant)
    assert job["status"] == "done", (job, job_log(job))
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return job


def test_run_a_tiny_eval_from_the_page(app, goto, settings):
    open_quality(app, goto)
    assert app.toggle(key="quality_ingest_tiny").disabled  # no corpus manifest beside the tiny set
    job = run_from_page(app, settings)
    runs = store.list_eval_runs(settings, "tiny", tenant="acme")
    assert [r["run_id"] for r in runs] == [job["run_id"]]
    assert app.selectbox(key="quality_run").value == job["run_id"]  # the new run is selected and shown
    assert any("Eval run finished" in s.value and job["run_id"] in s.value for s in app.success)
    assert len(runs) == 1 and runs[0]["overall"]["n"] == 3
    labels = [m.label for m in app.metric]
    assert {"Handled right", "Answer correct", "Wrong or made up", "Latency p95"} <= set(labels)
    full = store.get_eval_run(settings, runs[0]["run_id"], tenant="acme")
    kind = chart(app, "chart_kind")
    assert {x for trace in kind["data"] for x in trace["x"]} == {"answerable", "unanswerable"}
    answer_correct = next(t for t in kind["data"] if t["name"] == "Answer correct")
    assert answer_correct["y"][0] == 100 * full["by_kind"]["answerable"]["answer_correct"]
    category = chart(app, "chart_category")  # one row per category (horizontal bars)
    assert set(category["data"][0]["y"]) == {"billing", "maintenance"}
    answer_correct = next(t for t in category["data"] if t["name"] == "Answer correct")
    assert dict(zip(answer_correct["y"], answer_correct["x"])) == {
        g: 100 * v["answer_correct"] for g, v in full["by_category"].items()}
    latency = chart(app, "chart_latency")
    assert len(latency["data"][0]["x"]) == 3

    second = run_from_page(app, settings)  # a second run: deltas appear
    assert len(store.list_eval_runs(settings, "tiny", tenant="acme")) == 2
    assert app.selectbox(key="quality_run").value == second["run_id"]
    assert any(m.delta for m in app.metric)
    app.run()  # the finish is announced once
    assert not [s for s in app.success if "Eval run finished" in s.value]


def test_history_drift_compare_and_export(app, goto, settings):
    now = time.time()
    store.save_eval_run(settings, {**report(1.0, 0.0, ["correct", "correct", "refused_ok"], now - 60),
                                   "run_id": "run-good"})
    store.save_eval_run(settings, {**report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now),
                                   "run_id": "run-bad"})
    open_quality(app, goto)
    assert app.selectbox(key="quality_run").value == "run-bad"
    drift = [e.value for e in app.error if e.value.startswith("Drift")]
    assert any("Answer correct" in d for d in drift) and any("Wrong or made up" in d for d in drift)
    cards = {m.label: m for m in app.metric}
    assert cards["Answer correct"].value == "50.0%" and cards["Answer correct"].delta == "-50.0 pts"

    history = chart(app, "chart_history")
    correct = next(t for t in history["data"] if t.get("name", "").startswith("Answer correct"))
    assert correct["y"] == [100.0, 50.0] and correct["name"].endswith("⚠")

    calibration = chart(app, "chart_calibration")
    lines = [s for s in calibration["layout"]["shapes"] if s.get("type") == "line"]
    assert any(s["x0"] == 0.5 for s in lines)  # the current threshold is marked
    assert {t.get("name") for t in calibration["data"]} >= {"Wrong or made up", "Answer correct"}

    flips = next(d.value for d in app.dataframe if "outcome A" in d.value.columns)
    assert list(flips["id"]) == ["q2"] and list(flips["change"]) == ["regressed"]

    app.number_input(key="quality_margin").set_value(50.0).run()  # a wider margin: no alert
    assert not [e for e in app.error if e.value.startswith("Drift")]

    export = [d for d in app.get("download_button") if "CSV" in d.proto.label]
    assert len(export) == 2


def test_a_run_says_the_threshold_it_was_asked_with_and_whose_settings(app, goto, settings):
    """A manager raised acme's threshold and ran the set again on its corpus: nothing moved,
    and no word said the eval tenant kept its own threshold (QA pass)."""
    from core.config import save_tenant_overrides

    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.7})
    eval_run = {**report(1.0, 0.0, ["correct", "correct", "refused_ok"], time.time()), "run_id": "run-eval",
                "tenants_asked": ["eval-tiny-acme"],
                "settings": {"gate_threshold": 0.66, "pins": {}, "tenant_overrides": {"eval-tiny-acme": {}}}}
    store.save_eval_run(settings, eval_run)
    open_quality(app, goto)
    said = [c.value for c in app.caption if "Asked with the answer threshold" in c.value]
    assert said == ["Asked with the answer threshold (gate) **0.66**. Eval runs use the eval tenants' own settings "
                    "(defaults, or knobs in the set's manifest), not acme's (its threshold is 0.70 now)."], said


def test_cards_show_each_rates_interval_and_a_drift_says_whether_it_can_be_chance(app, goto, settings):
    now = time.time()
    store.save_eval_run(settings, {**report(1.0, 0.0, ["correct", "correct", "refused_ok"], now - 60),
                                   "run_id": "run-old"})  # stored before intervals were kept
    store.save_eval_run(settings, {**report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now), "run_id": "run-new",
                                   "intervals": {"overall": {"answer_correct": [0.09, 0.91],
                                                             "hallucination": [0.03, 0.83]}}})
    open_quality(app, goto)
    captions = [c.value for c in app.caption]
    assert "95% interval 9–91%" in captions and "95% interval 3–83%" in captions
    cards = {m.label: m for m in app.metric}
    assert "within 9–91% 95 times in 100" in cards["Answer correct"].help
    assert "interval" not in cards["Refusal correct"].help  # no interval stored for it
    # one question regressed, none improved: a drop of 50 points on 3 questions is no evidence
    assert any(e.value.startswith("Drift") for e in app.error)
    assert any(c.startswith("Between these two runs: 0 questions improved and 1 regressed") and "within noise" in c
               for c in captions)
    history = chart(app, "chart_history")
    correct = next(t for t in history["data"] if t.get("name", "").startswith("Answer correct"))
    # the older run kept no interval: no bar there; the newer one's runs from 9 to 91 around 50
    assert correct["error_y"]["array"] == [None, pytest.approx(41.0)]
    assert correct["error_y"]["arrayminus"] == [None, pytest.approx(41.0)]
    assert any(c.startswith("The bars are each run's 95% interval") for c in captions)
    app.selectbox(key="quality_run").select("run-old").run()
    assert not [c.value for c in app.caption if c.value.startswith("95% interval")]


def test_questions_csv_is_formula_safe():
    from ui.quality import questions_csv

    rep = report(1.0, 0.0, ["correct", "correct", "refused_ok"], 0)
    rep["questions"][0]["question"] = "=HYPERLINK(\"http://evil\")"
    text = questions_csv({**rep, "run_id": "r1"}).decode("utf-8-sig")
    assert "'=HYPERLINK" in text and text.splitlines()[0].startswith("run_id,id,kind")


def test_card_deltas_are_coloured_by_which_direction_is_better(app, goto, settings):
    from streamlit.proto.Metric_pb2 import Metric as MetricProto

    color, arrow = MetricProto.MetricColor, MetricProto.MetricDirection
    now = time.time()
    old = report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now - 60)
    new = report(1.0, 0.0, ["correct", "correct", "refused_ok"], now)
    old["overall"].update(too_conservative=0.0, latency_p50_ms=120.0, latency_p95_ms=340.0)
    # p95 moved by a fraction of a millisecond: shown as whole ms that is no change at all
    new["overall"].update(too_conservative=0.5, latency_p50_ms=95.0, latency_p95_ms=340.3)
    store.save_eval_run(settings, {**old, "run_id": "run-old"})
    store.save_eval_run(settings, {**new, "run_id": "run-new"})
    open_quality(app, goto)
    cards = {m.label: m for m in app.metric}

    def shown(label):
        card = cards[label]
        return card.delta, card.proto.color, card.proto.direction

    assert shown("Latency p95") == ("no change", color.GRAY, arrow.NONE)  # was "+0 ms" in red
    assert shown("Latency p50") == ("-25 ms", color.GREEN, arrow.DOWN)  # faster is better
    assert shown("Wrong or made up") == ("-50.0 pts", color.GREEN, arrow.DOWN)  # lower is better
    assert shown("Answerable, refused") == ("+50.0 pts", color.RED, arrow.UP)  # lower is better
    assert shown("Answer correct") == ("+50.0 pts", color.GREEN, arrow.UP)
    assert shown("Refusal correct") == ("no change", color.GRAY, arrow.NONE)


def test_a_change_too_small_to_show_has_no_sign():
    from ui.quality import fmt_delta, shown_delta

    assert fmt_delta("latency_p95_ms", 340.3, 340.0) == "±0 ms"
    assert fmt_delta("latency_p95_ms", 339.8, 340.0) == "±0 ms"  # not "-0 ms"
    assert shown_delta("latency_p95_ms", 340.3, 340.0) == 0
    assert fmt_delta("hallucination", 0.1004, 0.1) == "±0.0 pts"
    assert fmt_delta("mrr", 0.5, 0.75) == "-0.250"
    assert fmt_delta("latency_p95_ms", 5000.0, 544.0) == "+4.46 s"  # seconds, like the value
    assert fmt_delta("latency_p50_ms", 120.0, None) is None


# ---- User feedback tab -----------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"


def seed_feedback(settings):
    """Two asks of acme rated (up; down with a script in the comment) and one of another tenant."""
    from core.pipeline import ask

    oil = ask(settings, "acme", "What is the engine oil capacity?")
    ceo = ask(settings, "acme", "Who is the CEO of Microsoft?")
    store.add_feedback(settings, "acme", oil.trace_id, 1, "spot on")
    store.add_feedback(settings, "acme", ceo.trace_id, -1, f"wrong {SCRIPT}")
    other = store.save_trace(settings, {"answer": {"tenant": "globex", "question": "Globex's own question?",
                                                   "status": "answered", "claims": [], "timings_ms": {}}})
    store.add_feedback(settings, "globex", other, -1, "globex comment")
    return oil, ceo


def feedback_table(at):
    return next(d for d in at.dataframe if "comment" in d.value.columns)


def test_user_feedback_tab_cards_chart_table_and_toggle(answering_env, app, goto, settings, md_bodies):
    import datetime as dt
    from urllib.parse import parse_qs, urlparse

    oil, ceo = seed_feedback(settings)
    store.save_eval_run(settings, {**report(1.0, 0.0, ["correct", "correct", "refused_ok"], time.time()),
                                   "run_id": "run-1"})
    open_quality(app, goto)
    assert "User feedback" in [t.label for t in app.tabs]  # next to the run's tabs
    assert "Breakdown" in [t.label for t in app.tabs]

    cards = {m.label: m.value for m in app.metric}
    assert (cards["Answers rated"], cards["Thumbs up"], cards["Thumbs down"], cards["Share positive"]) == \
        ("2", "1", "1", "50%")
    days = chart(app, "chart_feedback")
    by_name = {t["name"]: t for t in days["data"]}
    week = [(dt.date.today() - dt.timedelta(days=n)).isoformat() for n in range(6, -1, -1)]
    assert by_name["thumbs up"]["x"] == by_name["thumbs down"]["x"] == week  # at least a week, up to today
    assert by_name["thumbs up"]["y"] == by_name["thumbs down"]["y"] == [0, 0, 0, 0, 0, 0, 1]

    table = feedback_table(app)
    frame = table.value
    assert list(frame.columns) == ["when", "rating", "question", "status", "confidence", "comment", "trace"]
    assert list(frame["question"]) == ["Who is the CEO of Microsoft?", "What is the engine oil capacity?"]
    assert list(frame["rating"]) == ["down", "up"]
    assert list(frame["status"]) == [ceo.status, oil.status] == ["refused", "answered"]
    assert list(frame["comment"]) == [f"wrong {SCRIPT}", "spot on"]  # the script is a plain cell value
    assert not frame.isin(["globex comment", "Globex's own question?"]).any().any()  # another tenant's
    assert list(frame["trace"]) == [f"traces?trace={ceo.trace_id}&tenant=acme",
                                    f"traces?trace={oil.trace_id}&tenant=acme"]
    config = json.loads(table.proto.columns)
    assert config["trace"]["type_config"]["type"] == "link"

    # the script never reaches anything that renders Markdown or HTML
    assert not [b for b in md_bodies(app) if "<script" in b or "alert(1)" in b]

    app.toggle(key="quality_fb_only_down").set_value(True).run()
    assert not app.exception
    frame = feedback_table(app).value
    assert list(frame["rating"]) == ["down"] and list(frame["comment"]) == [f"wrong {SCRIPT}"]
    assert {m.label: m.value for m in app.metric}["Thumbs up"] == "1"  # the cards count every rating

    app.date_input(key="quality_fb_since").set_value(dt.date.today() + dt.timedelta(days=1)).run()
    assert any("No feedback since" in i.value for i in app.info)
    assert not [d for d in app.dataframe if "comment" in d.value.columns]

    # the row's link opens that trace on the Traces page
    link = urlparse(list(frame["trace"])[0])
    assert link.path == "traces"
    for name, values in parse_qs(link.query).items():
        app.query_params[name] = values[0]
    goto(app, "pages/traces.py")
    shown = [e.value for e in (*app.subheader, *app.markdown)]  # however the Traces page sets the question
    assert "**Who is the CEO of Microsoft\\?**" in shown


def test_user_feedback_shows_before_any_run_and_says_when_there_is_none(app, goto, settings):
    open_quality(app, goto)
    assert any("No stored runs of this set yet" in i.value for i in app.info)
    assert "User feedback" in [s.value for s in app.subheader]
    assert any(i.value.startswith("No feedback yet") for i in app.info)
    assert not [m for m in app.metric if m.label == "Answers rated"]

    seed_feedback(settings)
    app.run()
    cards = {m.label: m.value for m in app.metric}
    assert (cards["Answers rated"], cards["Thumbs down"]) == ("2", "1")
    assert len(feedback_table(app).value) == 2


def test_feedback_numbers_per_day_and_per_answer():
    import datetime as dt

    from ui.feedback import per_day, summary, trace_link

    day = dt.datetime(2026, 3, 10, 12).timestamp()
    rows = [{"trace_id": "t1", "rating": 1, "created_at": day + 10 * 86400},
            {"trace_id": "t1", "rating": -1, "created_at": day + 10 * 86400 + 60},  # rated twice
            {"trace_id": "t2", "rating": -1, "created_at": day}]
    assert summary(rows) == {"rated": 2, "up": 1, "down": 2, "share_up": 1 / 3}
    assert summary([]) == {"rated": 0, "up": 0, "down": 0, "share_up": None}
    days = per_day(rows, today=dt.date(2026, 3, 25))
    assert days[0] == {"day": "2026-03-10", "up": 0, "down": 1}
    assert days[10] == {"day": "2026-03-20", "up": 1, "down": 1}
    assert days[-1] == {"day": "2026-03-25", "up": 0, "down": 0} and len(days) == 16  # quiet days shown
    assert [d["day"] for d in per_day(rows[2:], today=dt.date(2026, 3, 10))][0] == "2026-03-04"  # a week
    assert trace_link("abc", "acme & co/x") == "traces?trace=abc&tenant=acme+%26+co%2Fx"


# ---- tenancy, comparable series, eval tenants ---------------------------------------------------


def test_only_the_sidebar_tenants_runs_are_shown(app, goto, settings):
    """Every tenant's runs used to be listed, their questions' retrieved chunk text included."""
    now = time.time()
    own = report(1.0, 0.0, ["correct", "correct", "refused_ok"], now - 60)
    other = report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now)
    other["tenant"] = "globex"
    for qq in other["questions"]:
        qq["tenant"] = "globex"
        qq["retrieved"] = [{"chunk_id": "g:1", "source": "secret.md", "rank": 1, "text": "Codename Bluefin."}]
    store.save_eval_run(settings, {**own, "run_id": "run-acme"})
    store.save_eval_run(settings, {**other, "run_id": "run-globex"})
    store.save_eval_run(settings, {**other, "set": "globex-only", "run_id": "run-globex-set"})
    open_quality(app, goto)
    shown = app.selectbox(key="quality_run").options
    assert len(shown) == 1 and "run-acme" in shown[0]
    assert "globex-only" not in app.selectbox(key="quality_set").options
    assert not [e for e in app.error if e.value.startswith("Drift")]  # no comparison with globex's run
    assert store.get_eval_run(settings, "run-globex", tenant="acme") is None
    assert [r["run_id"] for r in store.list_eval_runs(settings, "tiny", tenant="globex")] == ["run-globex"]


def test_history_and_drift_compare_only_comparable_runs(app, goto, settings):
    """calib, test, --limit and calibration runs (gate at 0) used to share one history, so a
    full test run after a 12-question run raised a false drift alert."""
    now = time.time()
    full_a = report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now - 180)
    calibration = {**report(0.2, 0.8, ["wrong", "wrong", "hallucinated"], now - 120), "split": "calib",
                   "mode": "calibration", "settings": {"gate_threshold": 0.0}}
    limited = {**report(1.0, 0.0, ["correct", "correct", "refused_ok"], now - 60), "limit": 12}
    full_b = report(0.5, 0.5, ["correct", "wrong", "refused_ok"], now)
    for run_id, rep in (("full-a", full_a), ("calibration", calibration), ("limited", limited), ("full-b", full_b)):
        store.save_eval_run(settings, {**rep, "run_id": run_id})
    open_quality(app, goto)
    series = app.selectbox(key="quality_series")
    labels = series.options  # as shown
    assert len(labels) == 3
    assert any("split all" in x and "all questions" in x and "2 runs" in x for x in labels)
    assert any("first 12 questions" in x for x in labels)
    assert any("split calib" in x and "calibration" in x for x in labels)
    assert [o.split(" · ")[1] for o in app.selectbox(key="quality_run").options] == ["full-b", "full-a"]
    assert not [e for e in app.error if e.value.startswith("Drift")]  # full-a -> full-b: no change
    history = chart(app, "chart_history")
    correct = next(t for t in history["data"] if t.get("name", "").startswith("Answer correct"))
    assert correct["y"] == [50.0, 50.0]
    cards = {m.label: m for m in app.metric}
    assert cards["Answer correct"].delta == "no change"

    series.set_value(("tiny", "calib", ("acme",), "calibration", None)).run()
    assert not app.exception
    assert [o.split(" · ")[1] for o in app.selectbox(key="quality_run").options] == ["calibration"]
    assert not [e for e in app.error if e.value.startswith("Drift")]


def test_ingest_from_the_page_builds_eval_tenants_not_the_users(app, goto, settings, data_dir, tmp_path):
    """The page's ingest toggle (on by default) used to index the set's corpus into the tenant."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "engine.md").write_text("# Engine manual\n\nThe engine oil capacity is 4.5 litres.\n", encoding="utf-8")
    (data_dir / "eval_sets" / "tiny.corpus.json").write_text(json.dumps({"acme": [str(corpus)]}), encoding="utf-8")
    before = sorted((d["file_name"], d["sha256"]) for d in store.list_documents(settings, "acme"))
    open_quality(app, goto)
    toggle = app.toggle(key="quality_ingest_tiny")
    assert toggle.value and not toggle.disabled
    assert any("eval-tiny-acme" in c.value for c in app.caption)
    run_from_page(app, settings)
    assert sorted((d["file_name"], d["sha256"]) for d in store.list_documents(settings, "acme")) == before
    assert [d["file_name"] for d in store.list_documents(settings, "eval-tiny-acme")] == ["engine.md"]
    runs = store.list_eval_runs(settings, "tiny", tenant="acme")
    assert len(runs) == 1 and runs[0]["tenants"] == ["eval-tiny-acme"]


def test_a_set_of_another_tenant_runs_only_as_the_current_tenant(app, goto, settings, data_dir):
    rows = [{"id": "g1", "tenant": "globex", "question": "What is the engine oil capacity?", "kind": "answerable",
             "expected_answer": "4.5 litres", "gold_source": "engine.md",
             "gold_quote": "The engine oil capacity is 4.5 litres.", "category": "maintenance"}]
    (data_dir / "eval_sets" / "other.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    open_quality(app, goto, "other")
    assert any("asks tenant globex besides" in w.value for w in app.warning)
    assert app.button(key="quality_run_btn").disabled
    app.selectbox(key="quality_tenant").select("current: acme").run()
    assert not app.button(key="quality_run_btn").disabled
    run_from_page(app, settings)
    runs = store.list_eval_runs(settings, "other", tenant="acme")
    assert len(runs) == 1 and runs[0]["tenants"] == ["acme"]


def test_the_tenants_own_feedback_set_is_picked_first(app, goto, settings, data_dir):
    # a QA pass opened the page for its tenant on the demo set, which offered to build
    # eval-demo-demo tenants; the tenant's own set (from Review and "Add to eval set") leads
    row = {"id": "f1", "tenant": "acme", "question": "What is the engine oil capacity?", "kind": "answerable",
           "expected_answer": "4.5 litres", "gold_source": "engine.md",
           "gold_quote": "The engine oil capacity is 4.5 litres.", "category": "feedback"}
    (data_dir / "eval_sets" / "acme-feedback.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    goto(app, "pages/quality.py")
    assert app.selectbox(key="quality_set").value == "acme-feedback"
    assert app.selectbox(key="quality_set").options[0] == "acme-feedback"
    # the sets shipped with Groundwork say so: a hotel manager read "ood_clinic" as theirs (QA pass)
    assert "demo · bundled example (its own documents)" in app.selectbox(key="quality_set").options
    assert not any("no eval set of its own" in i.value for i in app.info)


def test_a_tenant_without_a_set_of_its_own_is_told_how_to_make_one(app, goto):
    # a law firm's manager found only "demo · bundled example" here, and nothing said how to
    # measure the firm's own questions (QA pass)
    goto(app, "pages/quality.py")
    told = [i.value for i in app.info if "no eval set of its own" in i.value]
    assert len(told) == 1 and "**Review**" in told[0] and "acme-feedback" in told[0]


def test_refusals_tab_shows_why_and_the_wrongly_refused_questions(app, goto, settings):
    run = report(0.5, 0.0, ["correct", "too_conservative", "refused_ok"], time.time())
    run["questions"][1].update(refusal_reason="No passage states what the question asks.",
                               closest=[{"sentence": "Refunds are paid within 14 days."}])
    run["questions"][2]["refusal_reason"] = "The knowledge base never mentions “Mars”."
    run["overall"]["closest_hit"] = 0.0
    store.save_eval_run(settings, {**run, "run_id": "run-refusals"})
    open_quality(app, goto)
    spec = chart(app, "chart_refusals")
    bars = {t["name"]: dict(zip(t["y"], t["x"])) for t in spec["data"]}
    assert bars["answerable (too conservative)"]["no sentence passed the answer rules"] == 1
    assert bars["unanswerable or misleading (right to refuse)"]["names something the documents never mention"] == 1
    table = next(df.value for df in app.dataframe if "closest sentence" in df.value.columns)
    assert list(table["id"]) == ["q2"] and table["closest sentence"][0] == "Refunds are paid within 14 days."
    assert any("1 answerable question(s) were refused" in c.value for c in app.caption)


def test_run_eval_reports_each_corpus_file_as_it_is_indexed(settings, data_dir, tmp_path):
    from ui import services

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "engine.md").write_text("# Engine manual\n\nThe engine oil capacity is 4.5 litres.\n", encoding="utf-8")
    (corpus / "refunds.md").write_text("# Refunds\n\nMonthly plans are refunded within 14 days.\n", encoding="utf-8")
    (data_dir / "eval_sets" / "tiny.corpus.json").write_text(json.dumps({"acme": [str(corpus)]}), encoding="utf-8")
    files, questions = [], []
    report = services.run_eval(settings, data_dir / "eval_sets" / "tiny.jsonl", owner="acme", ingest=True,
                               progress=lambda done, total: questions.append((done, total)),
                               ingest_progress=lambda n, total, name: files.append((n, total, name)))
    assert files == [(1, 2, "engine.md"), (2, 2, "refunds.md")]  # announced as each file starts
    assert questions[0] == (0, 3) and questions[-1] == (3, 3)
    assert report["ingest"]["ready"] == 2


# ---- background jobs --------------------------------------------------------------------------


@pytest.fixture
def stand_in():
    """stand_in(settings, tenant, **fields): a running job's record whose process is a sleeping
    stand-in (its own process group, as a real job's), for what the page shows mid-run."""
    sleepers = []

    def make(settings, tenant="acme", **fields):
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"], start_new_session=True)
        sleepers.append(sleeper)
        now = time.time()
        job_id = jobs.new_id()
        record = {"job_id": job_id, "owner": tenant, "set": "tiny", "split": "all", "tenant": None,
                  "ingest": False, "status": "running", "phase": "asking", "done": 0, "total": 3, "current": None,
                  "started_at": now - 120, "phase_started_at": now - 120, "pid": sleeper.pid,
                  "pid_start": jobs.process_start(sleeper.pid), **fields}
        jobs.update(jobs.job_path(settings, tenant, job_id), **record)
        return record, sleeper

    yield make
    for sleeper in sleepers:
        if sleeper.poll() is None:
            sleeper.kill()
        sleeper.wait()


def test_a_running_job_shows_progress_and_time_left_and_the_page_stays_usable(app, goto, settings, stand_in,
                                                                             monkeypatch):
    now = time.time()
    monkeypatch.setattr(jobs, "time", SimpleNamespace(time=lambda: now, monotonic=time.monotonic,
                                                      sleep=time.sleep, strftime=time.strftime))  # a still clock
    job, _ = stand_in(settings, phase="ingesting", done=2, total=16, current="warranty-policy.pdf",
                      phase_started_at=now - 60)  # 30 s a file so far, 14 to go: 420 s
    open_quality(app, goto)
    bar = app.get("progress")[-1].proto
    assert bar.text == "indexing file 3 of 16\\: warranty\\-policy\\.pdf · about 7 min left" and bar.value == 12
    assert app.button(key="quality_run_btn").disabled  # one run at a time per tenant
    assert any("A run is in progress above" in c.value for c in app.caption)

    jobs.update(jobs.job_path(settings, "acme", job["job_id"]), phase="asking", done=12, total=40,
                phase_started_at=now - 120)  # 10 s a question, 28 to go: 280 s
    app.selectbox(key="quality_split").select("all").run()  # the rest of the page works meanwhile
    assert not app.exception
    bar = app.get("progress")[-1].proto
    assert bar.text == "12 of 40 questions · about 5 min left" and bar.value == 30



def test_a_set_picked_while_a_run_goes_on_stays_picked_when_it_ends(app, goto, settings, data_dir, stand_in):
    # the QA pass: a set picked during a background run jumped back to the run's set when it ended
    (data_dir / "eval_sets" / "other.jsonl").write_bytes((data_dir / "eval_sets" / "tiny.jsonl").read_bytes())
    job, sleeper = stand_in(settings)  # running on set "tiny"
    open_quality(app, goto)
    app.selectbox(key="quality_set").select("other").run()
    assert app.selectbox(key="quality_set").value == "other"
    sleeper.kill()
    jobs.update(jobs.job_path(settings, "acme", job["job_id"]), status="done", run_id="r-tiny", finished_at=time.time())
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.selectbox(key="quality_set").value == "other"
    assert any("Eval run finished" in s.value and "pick its set under Eval set" in s.value for s in app.success)

def test_time_left_is_estimated_from_the_pace_so_far():
    now = 1000.0
    job = {"status": "running", "phase": "asking", "done": 0, "total": 40, "phase_started_at": now - 30}
    assert jobs.describe(job, now) == "0 of 40 questions · estimating time left"
    assert jobs.describe({**job, "done": 39}, now) == "39 of 40 questions · less than a minute left"
    assert jobs.describe({**job, "done": 10}, now) == "10 of 40 questions · about 2 min left"  # 90 s
    assert jobs.describe({**job, "done": 40}, now) == "40 of 40 questions · scoring and storing the run"
    assert jobs.describe({**job, "phase": "starting"}, now).startswith("starting")
    assert jobs.fraction({**job, "done": 10}) == 0.25 and jobs.fraction({"total": 0}) == 0.0
    # the first question waited 25 s for the models; the 9 after it took 9 s: about 30 s left
    paced = {**job, "done": 10, "pace_at": now - 9, "pace_done": 1}
    assert jobs.seconds_left(paced, now) == 30.0
    assert jobs.describe(paced, now) == "10 of 40 questions · less than a minute left"


def test_the_job_writes_well_formed_progress_while_it_runs(settings, data_dir, tmp_path):
    """Read the record as the page does (no lock) as fast as possible through a real run with
    an ingest: every read is whole JSON, and the phases follow one another."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "engine.md").write_text("# Engine manual\n\nThe engine oil capacity is 4.5 litres.\n", encoding="utf-8")
    (corpus / "refunds.md").write_text("# Refunds\n\nMonthly plans are refunded within 14 days.\n", encoding="utf-8")
    (data_dir / "eval_sets" / "tiny.corpus.json").write_text(json.dumps({"acme": [str(corpus)]}), encoding="utf-8")
    job = jobs.start(settings, data_dir / "eval_sets" / "tiny.jsonl", owner="acme", ingest=True)
    path = jobs.job_path(settings, "acme", job["job_id"])
    assert path.parent == data_dir.resolve() / "eval_jobs" / jobs.tenant_key("acme")
    assert job["pid"] and job["status"] == "running" and job["phase"] == "starting"
    seen = []
    deadline = time.monotonic() + JOB_DEADLINE_S
    while True:
        record = json.loads(path.read_text(encoding="utf-8"))  # never half a file
        assert {"job_id", "owner", "status", "phase", "done", "total", "started_at", "pid"} <= set(record)
        assert record["owner"] == "acme" and 0 <= record["done"] <= max(record["total"], 0)
        assert record["phase"] in ("starting", "ingesting", "asking")
        if not seen or seen[-1] != (record["phase"], record["done"], record["total"], record.get("current")):
            seen.append((record["phase"], record["done"], record["total"], record.get("current")))
        if record["status"] != "running":
            break
        assert time.monotonic() < deadline, seen
        time.sleep(0.01)
    assert record["status"] == "done", (record, job_log(record))
    assert record["run_id"] and store.get_eval_run(settings, record["run_id"], tenant="acme")
    assert record["error"] is None and record["finished_at"] >= record["started_at"]
    phases = [p for p, *_ in seen]
    assert phases == sorted(phases, key=["starting", "ingesting", "asking"].index)  # in order, never back
    assert ("ingesting", 0, 2, "engine.md") in seen  # the first file announced as it starts
    assert seen[-1] == ("asking", 3, 3, None)
    assert record["pace_done"] == 1 and record["pace_at"] >= record["phase_started_at"]  # paced from the first answer
    asked = [d for p, d, *_ in seen if p == "asking"]
    assert asked == sorted(asked)


def test_cancel_ends_the_job_and_stores_no_run(app, goto, settings):
    open_quality(app, goto)
    app.button(key="quality_run_btn").click().run()
    job = jobs.latest(settings, "acme")
    assert job["status"] == "running", job
    assert app.button(key="quality_run_btn").disabled
    app.button(key="quality_job_cancel").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert jobs.get(settings, "acme", job["job_id"])["status"] == "cancelled"
    assert not jobs.process_alive(job["pid"], job["pid_start"])  # its process group is gone
    assert any("cancelled" in i.value for i in app.info)
    assert not app.get("progress") and not app.button(key="quality_run_btn").disabled
    assert store.list_eval_runs(settings, "tiny", tenant="acme") == []


def test_cancel_ends_a_stand_in_and_never_another_tenants_job(settings, stand_in):
    job, sleeper = stand_in(settings, "acme")
    assert jobs.cancel(settings, "globex", job["job_id"]) is None  # another tenant's id: nothing
    assert sleeper.poll() is None
    assert jobs.cancel(settings, "acme", job["job_id"])["status"] == "cancelled"
    assert sleeper.wait(timeout=JOB_DEADLINE_S) == -signal.SIGTERM


def test_a_job_whose_process_died_is_reported_as_failed(app, goto, settings):
    open_quality(app, goto)
    app.button(key="quality_run_btn").click().run()
    job = jobs.latest(settings, "acme")
    os.killpg(job["pid"], signal.SIGKILL)  # as the out-of-memory killer would
    deadline = time.monotonic() + JOB_DEADLINE_S
    while jobs.process_alive(job["pid"], job["pid_start"]):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert jobs.get(settings, "acme", job["job_id"])["status"] == "failed"
    errors = [e.value for e in app.error]
    assert any("stopped without finishing" in e and "start it again" in e for e in errors), errors
    assert not app.button(key="quality_run_btn").disabled and not app.get("progress")
    next(b for b in app.button if b.label == "Dismiss").click().run()
    assert not [e for e in app.error if "stopped without finishing" in e.value]


def test_a_job_that_fails_says_why_in_one_sentence(settings, data_dir):
    (data_dir / "eval_sets" / "broken.jsonl").write_text('{"id": "b1"}\n', encoding="utf-8")
    path = jobs.job_path(settings, "acme", jobs.new_id())
    jobs.update(path, job_id=path.stem, owner="acme", set="broken", status="running", started_at=time.time())
    code = run_job(path, settings, data_dir / "eval_sets" / "broken.jsonl", owner="acme")  # in-process
    record = jobs.get(settings, "acme", path.stem)
    assert code == 2 and record["status"] == "failed"
    assert record["error"] == "broken.jsonl line 1: missing field 'tenant', 'question', 'kind'."


def test_a_second_run_while_one_is_running_says_so(app, goto, settings, data_dir, stand_in):
    open_quality(app, goto)  # drawn before the other run started (another tab, another manager)
    running, _ = stand_in(settings, "acme", done=1, total=3)
    app.button(key="quality_run_btn").click().run()
    assert not app.exception
    errors = [e.value for e in app.error]
    assert any("already running for tenant acme" in e and "cancel it" in e for e in errors), errors
    assert [j["job_id"] for j in jobs.jobs(settings, "acme")] == [running["job_id"]]  # none started
    with pytest.raises(jobs.JobRunning):
        jobs.start(settings, data_dir / "eval_sets" / "tiny.jsonl", owner="acme")


def test_jobs_are_per_tenant(app, goto, settings, stand_in):
    from ui import services

    services.create_tenant(settings, "globex")
    running, _ = stand_in(settings, "acme", done=1, total=3)
    failed = jobs.job_path(settings, "acme", jobs.new_id())
    jobs.update(failed, job_id=failed.stem, owner="acme", set="tiny", status="failed", error="Acme's own failure.",
                started_at=time.time() - 600)
    assert jobs.latest(settings, "globex") is None and jobs.active(settings, "globex") is None
    assert jobs.get(settings, "globex", running["job_id"]) is None
    assert jobs.get(settings, "globex", failed.stem) is None

    open_quality(app, goto)
    assert app.get("progress") and app.button(key="quality_run_btn").disabled  # acme sees its run
    app.selectbox(key="tenant").select("globex").run()
    assert not app.exception, [e.value for e in app.exception]
    assert not app.get("progress") and not [b for b in app.button if b.key == "quality_job_cancel"]
    assert not [e for e in app.error if "Acme" in e.value or "failed" in e.value]
    assert jobs.get(settings, "acme", running["job_id"])["status"] == "running"  # untouched


def test_a_start_that_is_refused_says_why_beside_an_enabled_button(app, goto, monkeypatch):
    from ui import services

    def bad_set(*args, **kwargs):
        raise ValueError("tiny.jsonl line 2: an answerable question needs 'gold_quote'.")

    monkeypatch.setattr(services, "start_eval_job", bad_set)
    open_quality(app, goto)
    app.button(key="quality_run_btn").click().run()
    assert not app.exception
    assert any("needs" in e.value and "gold" in e.value for e in app.error)
    assert not app.button(key="quality_run_btn").disabled


def test_a_run_over_two_languages_and_tenants_is_broken_down_by_each(app, goto, settings):
    run = report(0.5, 0.0, ["correct", "refused", "refused_ok"], time.time())
    run["by_lang"] = {"en": {"answer_correct": 1.0, "n": 2}, "ru": {"answer_correct": 0.25, "n": 1}}
    run["by_tenant"] = {"acme": {"answer_correct": 0.5, "n": 3}}  # one tenant: nothing to compare
    store.save_eval_run(settings, {**run, "run_id": "run-langs"})
    open_quality(app, goto)
    lang = chart(app, "chart_by_lang")
    correct = next(t for t in lang["data"] if t["name"] == "Answer correct")
    assert dict(zip(correct["x"], correct["y"])) == {"en": 100.0, "ru": 25.0}
    assert not [e for e in app.get("plotly_chart") if "chart_by_tenant" in (e.proto.id or "")]


def test_a_run_over_two_tenants_is_broken_down_by_tenant(app, goto, settings):
    run = report(0.5, 0.0, ["correct", "refused", "refused_ok"], time.time())
    run["by_tenant"] = {"acme": {"answer_correct": 0.5, "n": 2}, "globex": {"answer_correct": 1.0, "n": 1}}
    store.save_eval_run(settings, {**run, "run_id": "run-tenants"})
    open_quality(app, goto)
    tenants = chart(app, "chart_by_tenant")
    correct = next(t for t in tenants["data"] if t["name"] == "Answer correct")
    assert dict(zip(correct["x"], correct["y"])) == {"acme": 50.0, "globex": 100.0}


def test_live_section_shows_real_asks_with_targets_and_refused_questions(app, goto, settings):
    from core.pipeline import ask

    goto(app, "pages/quality.py")
    assert any("No asks in the last 30 days" in i.value for i in app.info)
    ask(settings, "acme", "Who is the CEO of Microsoft?")
    ask(settings, "acme", "who is the CEO of microsoft?")
    ask(settings, "acme", "What is the engine oil capacity?")
    goto(app, "pages/quality.py")
    cards = {m.label: m.value for m in app.metric}
    assert cards["Asks"] == "3"
    assert int(cards["Refused"].rstrip("%")) >= 66  # both CEO asks are refused
    badges = [m.value for m in app.markdown if "target" in m.value]
    assert any(":red-badge[:material/warning: off target ≤ 30\\%]" in b for b in badges)  # refused share
    table = next(d.value for d in app.dataframe if "times refused" in d.value.columns)
    assert table["times refused"].iloc[0] == 2 and table["trace"].iloc[0].startswith("traces?trace=")
    assert any("chart_live_days" in (c.proto.id or "") for c in app.get("plotly_chart"))


def test_refused_questions_are_listed_as_they_were_read_with_what_was_typed(app, goto, settings):
    """Seen in the QA pass: "And in Riga?" read ×2 under "Questions refused most often", though the
    two were read as different questions: listed by the reading, the typed text beside it."""
    for asked_as in ("How long does delivery to Riga take?", "How much does parking in Riga cost?"):
        store.save_trace(settings, {"answer": {"tenant": "acme", "question": "And in Riga?", "asked_as": asked_as,
                                               "status": "refused", "confidence": 0.3}})
    store.save_trace(settings, {"answer": {"tenant": "acme", "question": "Who is the CEO?", "status": "refused",
                                           "confidence": 0.2}})
    goto(app, "pages/quality.py")
    table = next(d.value for d in app.dataframe if "times refused" in d.value.columns)
    rows = sorted(zip(table["question"], table["typed"], table["times refused"], strict=True))
    assert rows == [("How long does delivery to Riga take?", "And in Riga?", 1),
                    ("How much does parking in Riga cost?", "And in Riga?", 1), ("Who is the CEO?", "", 1)]


def test_targets_saved_in_settings_recolour_the_live_cards(app, goto, settings):
    from core.pipeline import ask

    ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/settings.py")
    # a latency reads as whole milliseconds ("1000", not "1000.00": the QA pass)
    assert app.number_input(key="target_latency_p50_ms").proto.format == "%.0f"
    app.number_input(key="target_refusal_rate").set_value(100.0)
    next(b for b in app.button if b.label == "Save targets").click().run()
    assert any("Targets saved" in s.value for s in app.success)
    goto(app, "pages/quality.py")
    badges = [m.value for m in app.markdown if "target" in m.value]
    assert any(":green-badge[:material/check: on target ≤ 100\\%]" in b for b in badges)


def test_old_ended_jobs_are_pruned_and_a_running_one_is_kept(settings, stand_in):
    running, _ = stand_in(settings, "acme", started_at=time.time() - 10_000)  # older than every ended one
    for n in range(jobs.KEEP_JOBS + 2):
        path = jobs.job_path(settings, "acme", f"old-{n:02d}")
        jobs.update(path, job_id=path.stem, owner="acme", status="done", started_at=time.time() - 1000 + n)
        path.with_suffix(".log").write_text("output\n")
    jobs.prune(settings, "acme")
    kept = {j["job_id"] for j in jobs.jobs(settings, "acme")}
    assert running["job_id"] in kept and len(kept) == jobs.KEEP_JOBS + 1
    assert {"old-00", "old-01"}.isdisjoint(kept)
    assert not jobs.job_path(settings, "acme", "old-00").with_suffix(".log").exists()
