"""Live quality from real asks, and the tenant's quality targets."""

from __future__ import annotations

import datetime as dt

import pytest

from core import live, store, targets


def _ask(settings, tenant, question, status, ms, when=None):
    trace_id = store.save_trace(settings, {"answer": {"tenant": tenant, "question": question, "status": status,
                                                      "confidence": 0.5, "timings_ms": {"total": ms}}})
    if when is not None:
        with store.connect(settings) as conn:
            conn.execute("UPDATE traces SET created_at=? WHERE trace_id=?", (when, trace_id))
    return trace_id


def test_shares_latency_feedback_and_days(settings):
    yesterday = (dt.datetime.now() - dt.timedelta(days=1)).timestamp()
    _ask(settings, "acme", "Q1", "answered", 100, when=yesterday)
    _ask(settings, "acme", "Q2", "refused", 300, when=yesterday)
    rated = _ask(settings, "acme", "Q3", "answered", 200)
    _ask(settings, "acme", "Q4", "corrected", 400)
    _ask(settings, "globex", "Q5", "refused", 9000)
    store.add_feedback(settings, "acme", rated, 1)
    data = live.live_quality(settings, "acme", days=30)
    s = data["summary"]
    assert s["asks"] == 4 and s["answer_rate"] == 0.5 and s["refusal_rate"] == 0.25 and s["corrected_rate"] == 0.25
    assert s["latency_p50_ms"] == 250 and s["rated"] == 1 and s["share_up"] == 1.0
    days = data["per_day"]
    assert len(days) == 30 and days[-1]["day"] == dt.date.today().isoformat()  # the whole period
    assert len(live.live_quality(settings, "acme", days=1)["per_day"]) == live.MIN_DAYS  # a week at least
    assert [d["asks"] for d in days[-2:]] == [2, 2] and sum(d["asks"] for d in days) == 4
    assert days[-2]["refusal_rate"] == 0.5 and days[-1]["refusal_rate"] == 0.0
    assert days[0]["asks"] == 0 and days[0]["refusal_rate"] is None  # a quiet day: no share to draw


def test_asks_older_than_the_period_are_left_out(settings):
    _ask(settings, "acme", "old", "refused", 100, when=(dt.datetime.now() - dt.timedelta(days=40)).timestamp())
    _ask(settings, "acme", "new", "answered", 100)
    assert live.live_quality(settings, "acme", days=30)["summary"]["asks"] == 1
    assert live.live_quality(settings, "acme", days=90)["summary"]["asks"] == 2


def test_top_refused_groups_the_same_question_however_typed(settings):
    _ask(settings, "acme", "Who is the CEO?", "refused", 10)
    _ask(settings, "acme", "who is  the ceo?", "refused", 10)
    newest = _ask(settings, "acme", "WHO IS THE CEO?", "refused", 10)
    _ask(settings, "acme", "Where is the canteen?", "refused", 10)
    _ask(settings, "acme", "What is the oil capacity?", "answered", 10)
    top = live.top_refused(store.trace_stats_rows(settings, "acme"))
    assert [(t["question"], t["times"]) for t in top] == [("WHO IS THE CEO?", 3), ("Where is the canteen?", 1)]
    assert top[0]["trace_id"] == newest


def test_top_refused_groups_a_follow_up_by_what_it_was_read_as(settings):
    """Seen in the QA pass: "And in Riga?" read ×2 though it stood for two different questions."""
    def refused(question, asked_as=None):
        return store.save_trace(settings, {"answer": {"tenant": "acme", "question": question, "asked_as": asked_as,
                                                      "status": "refused", "confidence": 0.3}})

    refused("And in Riga?", "How long does delivery to Riga take?")
    refused("How long does delivery to Riga take?")  # typed whole: the same question
    newest = refused("And in Riga?", "How much does parking in Riga cost?")
    top = live.top_refused(store.trace_stats_rows(settings, "acme"))
    assert [(t["question"], t["times"]) for t in top] == [
        ("How long does delivery to Riga take?", 2), ("How much does parking in Riga cost?", 1)]
    assert [t["typed"] for t in top] == [None, "And in Riga?"]  # the first's newest was typed whole
    assert top[1]["trace_id"] == newest


def test_targets_default_save_and_judge(settings):
    loaded = targets.load(settings, "acme")
    assert loaded["grounded_only"].value == 0.75 and loaded["grounded_only"].met(0.8) is True
    assert loaded["hallucination"].met(0.08) is False and loaded["hallucination"].met(None) is None
    targets.save(settings, "acme", {"hallucination": 0.1, "latency_p50_ms": 500})
    again = targets.load(settings, "acme")
    assert again["hallucination"].met(0.08) is True and again["latency_p50_ms"].text() == "≤ 500 ms"
    assert targets.load(settings, "globex")["hallucination"].value == 0.05  # per tenant


@pytest.mark.parametrize("values, message", [
    ({"grounded_only": 75}, "between 0 and 1"), ({"latency_p50_ms": 0}, "between 1"),
    ({"vibes": 0.5}, "No target"), ({"hallucination": "low"}, "must be a number"),
])
def test_bad_targets_are_refused_and_nothing_is_saved(settings, values, message):
    with pytest.raises(ValueError, match=message):
        targets.save(settings, "acme", values)
    assert targets.load(settings, "acme")["grounded_only"].value == 0.75


def test_an_eval_or_benchmark_ask_is_listed_but_never_counted_as_a_persons(settings, write_file):
    from core.documents import ingest_file
    from core.pipeline import ask
    from core.review import queue
    from core.trace import unknown_words

    assert ingest_file(settings, "acme", write_file("hours.md", "# Hours\n\nThe office opens at 9 am.\n")).status == "ready"
    person = ask(settings, "acme", "Does the office rent kayaks?")
    harness = [ask(settings, "acme", "Does the office rent kayaks?", origin=origin) for origin in ("eval", "benchmark")]
    assert person.status == "refused" and all(a.status == "refused" for a in harness)

    listed = {t["trace_id"]: t["origin"] for t in store.list_traces(settings, "acme")}
    assert listed == {person.trace_id: None, harness[0].trace_id: "eval", harness[1].trace_id: "benchmark"}
    assert store.get_trace(settings, "acme", harness[0].trace_id)["origin"] == "eval"
    assert live.live_quality(settings, "acme")["summary"]["asks"] == 1
    assert [item.trace_id for item in queue(settings, "acme")] == [person.trace_id]
    assert [w["asked"] for w in unknown_words(settings, "acme")] == [1]
