"""The review queue: which asks wait for a person, and what each decision leaves behind."""

from __future__ import annotations

import json
import time

import pytest

from core import eval_rows, review, store
from core.config import load_tenant_overrides
from core.documents import ingest_file

POLICY = """# Leave policy

Staff earn 25 days of annual leave a year. Unused leave of up to 5 days carries over to the next year.
"""


@pytest.fixture
def tenant(settings, write_file):
    assert ingest_file(settings, "acme", write_file("leave.md", POLICY)).status == "ready"
    assert ingest_file(settings, "globex", write_file("other.md", "# Other\n\nGlobex staff park on level 2.\n")).status == "ready"
    return "acme"


def _trace(settings, tenant, question, status, confidence, chunk_ids=()):
    retrieved = [{"chunk_id": c, "source": "leave.md"} for c in chunk_ids]
    return store.save_trace(settings, {"answer": {
        "tenant": tenant, "question": question, "status": status, "confidence": confidence,
        "answer": "" if status == "refused" else "Staff earn 25 days [1].", "retrieved": retrieved,
        "refusal_reason": "No passage states it." if status == "refused" else None}, "candidates": []})


def _chunk_ids(settings, tenant):
    return [c["chunk_id"] for c in store.chunk_rows(settings, tenant)]


def test_queue_holds_refused_doubtful_and_rated_down_asks_only(settings, tenant):
    below = review.review_below(settings)
    refused = _trace(settings, tenant, "How long is parental leave?", "refused", 0.3)
    doubtful = _trace(settings, tenant, "How much leave?", "answered", below - 0.01)
    confident = _trace(settings, tenant, "How many leave days?", "answered", min(1.0, below + 0.05))
    rated = _trace(settings, tenant, "Leave days?", "answered", 0.99)
    store.add_feedback(settings, tenant, rated, -1, "wrong year")
    _trace(settings, "globex", "Where do I park?", "refused", 0.2)

    items = {i.trace_id: i for i in review.queue(settings, tenant)}
    assert set(items) == {refused, doubtful, rated}
    assert items[refused].reasons == ("refused",)
    assert items[doubtful].reasons == ("near the threshold",)
    assert items[rated].reasons == ("rated down",) and items[rated].comment == "wrong year"
    assert confident not in items
    summary = review.counts(list(items.values()))
    assert summary["open"] == 3 and summary["by_reason"] == {"refused": 1, "near the threshold": 1, "rated down": 1,
                                                              "routed to a person": 0, "spot check": 0}
    assert summary["oldest_s"] is not None and summary["oldest_s"] >= 0


def test_picking_the_passage_makes_an_answerable_row_with_its_quote(settings, tenant):
    chunk = _chunk_ids(settings, tenant)[0]
    trace_id = _trace(settings, tenant, "Can I carry leave over?", "refused", 0.4, [chunk])
    shown = review.passages(settings, tenant, trace_id)
    assert [p["chunk_id"] for p in shown] == [chunk] and shown[0]["source"] == "leave.md"

    quote = "Unused leave of up to 5 days carries over to the next year."
    path, outcome = review.resolve_with_passage(settings, tenant, trace_id, chunk, quote)
    assert outcome == "added"
    rows = [json.loads(line) for line in open(path, encoding="utf-8")]
    assert rows == [{"id": f"fb-{trace_id[:12]}", "tenant": tenant, "question": "Can I carry leave over?",
                     "kind": "answerable", "expected_answer": quote, "gold_source": "leave.md",
                     "gold_quote": quote, "category": "review"}]
    assert trace_id not in {i.trace_id for i in review.queue(settings, tenant)}
    decided = {i.trace_id: i for i in review.queue(settings, tenant, include_resolved=True)}
    assert decided[trace_id].resolution == "answerable"


def test_a_quote_not_in_the_passage_is_refused_and_nothing_is_written(settings, tenant):
    chunk = _chunk_ids(settings, tenant)[0]
    trace_id = _trace(settings, tenant, "Can I carry leave over?", "refused", 0.4, [chunk])
    with pytest.raises(ValueError, match="copied exactly"):
        review.resolve_with_passage(settings, tenant, trace_id, chunk, "Unused leave of up to 10 days carries over.")
    assert not eval_rows.feedback_set_path(settings, tenant).exists()
    assert trace_id in {i.trace_id for i in review.queue(settings, tenant)}


def test_another_tenants_ask_or_passage_cannot_be_resolved(settings, tenant):
    other_trace = _trace(settings, "globex", "Where do I park?", "refused", 0.2)
    other_chunk = _chunk_ids(settings, "globex")[0]
    with pytest.raises(LookupError):
        review.resolve_refusal_kind(settings, tenant, other_trace)
    with pytest.raises(LookupError):
        review.dismiss(settings, tenant, other_trace)
    own = _trace(settings, tenant, "Where do I park?", "refused", 0.2)
    with pytest.raises(ValueError, match="no longer in the knowledge base"):
        review.resolve_with_passage(settings, tenant, own, other_chunk, "Globex staff park on level 2.")
    assert not eval_rows.feedback_set_path(settings, tenant).exists()


def test_unanswerable_synonym_dismiss_and_reopen(settings, tenant):
    a = _trace(settings, tenant, "Who is the CEO?", "refused", 0.1)
    b = _trace(settings, tenant, "How many PTO days?", "refused", 0.3)
    c = _trace(settings, tenant, "How much leave?", "answered", 0.5)
    path, _ = review.resolve_refusal_kind(settings, tenant, a, "unanswerable")
    row = json.loads(open(path, encoding="utf-8").read().splitlines()[0])
    assert row["kind"] == "unanswerable" and row["expected_answer"] is None and row["gold_quote"] is None
    review.resolve_with_synonym(settings, tenant, b, "PTO", "annual leave")
    assert load_tenant_overrides(settings, tenant)["synonyms"] == {"pto": "annual leave"}
    review.dismiss(settings, tenant, c)
    assert review.queue(settings, tenant) == []
    review.reopen(settings, tenant, c)
    assert [i.trace_id for i in review.queue(settings, tenant)] == [c]


@pytest.mark.parametrize("row, message", [
    ({"kind": "answerable", "question": "q", "expected_answer": "x", "gold_source": "a.md"}, "quote"),
    ({"kind": "answerable", "question": "q", "gold_source": "a.md", "gold_quote": "x"}, "expected answer"),
    ({"kind": "unanswerable", "question": "q", "expected_answer": "x"}, "no expected answer"),
    ({"kind": "misleading", "question": "q", "gold_quote": "x"}, "no expected answer"),
    ({"kind": "maybe", "question": "q"}, "kind must be"),
    ({"kind": "unanswerable", "question": " "}, "needs the question"),
])
def test_contradictory_eval_rows_are_refused(settings, row, message):
    with pytest.raises(ValueError, match=message):
        eval_rows.append_eval_row(settings, "acme", {"id": "x", **row})
    assert not eval_rows.feedback_set_path(settings, "acme").exists()


def test_an_answerable_row_needs_its_quote_in_its_source(settings, write_file):
    """A QA pass saved a row whose quote came from another file than its gold source."""
    from core.documents import ingest_file

    assert ingest_file(settings, "acme", write_file("leave.md", "# Leave\n\nStaff earn 25 days of leave.\n")).status == "ready"
    assert ingest_file(settings, "acme", write_file("rates.md", "# Rates\n\nThe mileage rate is 0.30 EUR.\n")).status == "ready"
    row = {"id": "x", "kind": "answerable", "question": "How much leave?", "expected_answer": "25 days"}
    for source, quote, said in (("rates.md", "Staff earn 25 days of leave.", "The quote is not in rates.md"),
                                ("old.md", "Staff earn 25 days of leave.", "no document named old.md")):
        with pytest.raises(ValueError, match=said):
            eval_rows.append_eval_row(settings, "acme", {**row, "gold_source": source, "gold_quote": quote})
    assert not eval_rows.feedback_set_path(settings, "acme").exists()
    # case and spacing aside, as the quote was copied
    _, outcome = eval_rows.append_eval_row(settings, "acme", {**row, "gold_source": "leave.md",
                                                              "gold_quote": "staff earn  25 days\nof leave"})
    assert outcome == "added"


def test_each_open_item_is_counted_under_each_of_its_reasons(settings, tenant):
    """Cards of the Review page: a refusal rated down counts as refused and as rated down (a
    QA pass rated an answer down and the Rated down card stayed 0); "routed to a person" is
    said only of an ask that waits for nothing else (every refusal read "refused, routed to
    a person")."""
    refused = _trace(settings, tenant, "How long is parental leave?", "refused", 0.3)
    store.add_feedback(settings, tenant, refused, -1)
    with store.connect(settings) as conn:  # answered confidently, but the route sent it to a person
        conn.execute("UPDATE traces SET route='human' WHERE trace_id=?",
                     (_trace(settings, tenant, "Leave days?", "answered", 0.99),))
        conn.execute("UPDATE traces SET route='human' WHERE trace_id=?", (refused,))
    items = review.queue(settings, tenant)
    assert sorted(i.reasons for i in items) == [("refused", "rated down"), ("routed to a person",)]
    summary = review.counts(items)
    assert summary["by_reason"] == {"refused": 1, "near the threshold": 0, "rated down": 1, "routed to a person": 1,
                                    "spot check": 0}
    assert summary["open"] == 2


def test_open_asks_of_one_question_are_one_item_and_one_decision(settings, tenant):
    """A QA pass saw each question twice in the queue, asked once in the console and once
    from the CLI, and had to decide each."""
    old = _trace(settings, tenant, "Who is the CEO?", "refused", 0.2)
    time.sleep(0.01)
    new = _trace(settings, tenant, "who is  the CEO?", "refused", 0.3)
    other = _trace(settings, tenant, "How many PTO days?", "refused", 0.3)
    store.add_feedback(settings, tenant, old, -1, "it is in the org chart")
    items = review.queue(settings, tenant)
    assert [(i.trace_id, i.repeats) for i in items] == [(other, ()), (new, (old,))]
    grouped = items[1]
    assert grouped.reasons == ("refused", "rated down") and grouped.comment == "it is in the org chart"
    assert review.counts(items)["open"] == 2
    review.resolve_refusal_kind(settings, tenant, new, "unanswerable")
    assert [i.trace_id for i in review.queue(settings, tenant)] == [other]
    decided = {i.trace_id: i.resolution for i in review.queue(settings, tenant, include_resolved=True)}
    assert decided[old] == decided[new] == "unanswerable"


def test_a_share_of_confident_answers_is_drawn_for_a_spot_check(settings, tenant):
    """A QA pass: wrong answers given at 0.85 looked healthy until someone rated them down;
    what no check flags is known only by reading a sample of it."""
    from dataclasses import replace

    below = review.review_below(settings)
    ids = [_trace(settings, tenant, f"How many leave days, {n}?", "answered", min(1.0, below + 0.05))
           for n in range(40)]
    refused = _trace(settings, tenant, "How long is parental leave?", "refused", 0.3)
    every = {i.trace_id: i for i in review.queue(replace(settings, review_sample=1.0), tenant)}
    assert set(every) == {*ids, refused} and {every[t].reasons for t in ids} == {("spot check",)}
    assert every[refused].reasons == ("refused",)  # a refusal waits for itself, never as a spot check
    assert {i.trace_id for i in review.queue(replace(settings, review_sample=0.0), tenant)} == {refused}
    half = {i.trace_id for i in review.queue(replace(settings, review_sample=0.5), tenant)} - {refused}
    assert half == {t for t in ids if t[-2:] < "80"}  # by the id's last two hex digits: fixed per ask
    assert store.spot_check_bound(0.05) == "0d" and store.spot_check_bound(1.0) == "~"
    # a spot check decided: dismissed when right, anything else when wrong
    review.dismiss(settings, tenant, ids[0])
    review.resolve_refusal_kind(settings, tenant, ids[1], "unanswerable")
    from ui.review import spot_check_line

    decided = review.queue(replace(settings, review_sample=1.0), tenant, include_resolved=True)
    assert spot_check_line(decided).startswith("Spot checks decided: 2, of which 1 was wrong (50%; 95% interval")


def test_passages_come_in_the_order_the_ask_page_showed_with_its_sentence(settings, tenant, write_file):
    """A refusal's closest passages first, with the sentence shown as the quote to keep; an
    answer's cited passages first (a QA pass: the review opened on another document's passage,
    in retrieval's order, with the answering clause second)."""
    assert ingest_file(settings, tenant, write_file("memo.md", "# Memo\n\nThe canteen opens at 8.\n")).status == "ready"
    leave = next(c for c in _chunk_ids(settings, tenant) if "leave" in store.get_chunks(settings, tenant, [c])[c]["text"])
    memo = next(c for c in _chunk_ids(settings, tenant) if c != leave)
    said = "Unused leave of up to 5 days carries over to the next year."
    trace_id = store.save_trace(settings, {"answer": {
        "tenant": tenant, "question": "Can I carry leave over?", "status": "refused", "confidence": 0.4,
        "answer": "", "retrieved": [{"chunk_id": memo}, {"chunk_id": leave}],
        "closest": [{"chunk_id": leave, "quote": said}, {"chunk_id": memo, "quote": "The canteen opens at 8."}]},
        "candidates": []})
    shown = review.passages(settings, tenant, trace_id)
    assert [(p["chunk_id"], p["quote"]) for p in shown] == [(leave, said), (memo, "The canteen opens at 8.")]
    answered = store.save_trace(settings, {"answer": {
        "tenant": tenant, "question": "When does the canteen open?", "status": "answered", "confidence": 0.9,
        "answer": "The canteen opens at 8. [1]", "retrieved": [{"chunk_id": leave}, {"chunk_id": memo}],
        "citations": [{"chunk_id": memo, "quote": "The canteen opens at 8."}]}, "candidates": []})
    assert [p["chunk_id"] for p in review.passages(settings, tenant, answered)] == [memo, leave]
    # a sentence no longer in the stored passage is not offered as the quote
    stale = store.save_trace(settings, {"answer": {
        "tenant": tenant, "question": "Can I carry leave over?", "status": "refused", "confidence": 0.4,
        "answer": "", "closest": [{"chunk_id": leave, "quote": "Up to 9 days carry over."}]}, "candidates": []})
    assert review.passages(settings, tenant, stale)[0]["quote"] == ""


def test_the_table_says_why_a_refusal_was_refused(settings, tenant):
    """A QA pass read "refused" on every row of the table's "why" column."""
    from ui.review import table_frame

    low = store.save_trace(settings, {"answer": {
        "tenant": tenant, "question": "How long is parental leave?", "status": "refused", "confidence": 0.3,
        "answer": "", "retrieved": [], "refusal_code": "low_confidence",
        "refusal_reason": "Answer confidence 0.30 is below the threshold 0.69."}, "candidates": []})
    old = _trace(settings, tenant, "Where is the gym?", "refused", 0.1)  # stored before refusals had codes
    items = {i.trace_id: i for i in review.queue(settings, tenant)}
    assert items[low].refusal_code == "low_confidence" and items[old].refusal_code is None
    frame = table_frame([items[low], items[old]], tenant)
    assert list(frame["why"]) == ["refused: confidence under the threshold", "refused"]
