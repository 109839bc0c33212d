"""The route verdict: auto, human, retry (core/route.py), and where human verdicts land."""

from dataclasses import replace

import pytest

from core import review, store
from core.route import route_of
from core.schema import Answer, Claim


def _answer(status="answered", confidence=0.95, code=None, claims=("supported",)):
    return Answer(question="q", tenant="acme", status=status, answer="a [1].", confidence=confidence,
                  refusal_code=code, claims=[Claim("a", [1], v, 1.0, "a") for v in claims])


@pytest.mark.parametrize("answer, route", [
    (_answer(), "auto"),
    (_answer(confidence=0.80), "human"),  # answered, but under the review line
    (_answer(claims=("supported", "unsupported")), "human"),
    (_answer(status="narrowed"), "human"),
    (_answer(status="fallback"), "human"),
    (_answer(status="corrected"), "auto"),
    (_answer(status="refused", confidence=0.0, code="no_passages"), "auto"),
    (_answer(status="refused", confidence=0.0, code="missing_identifier"), "auto"),
    (_answer(status="refused", confidence=0.4, code="low_confidence"), "human"),
    (_answer(status="refused", confidence=0.4, code="unknown_word"), "human"),
])
def test_route_of(settings, answer, route):
    s = replace(settings, gate_threshold=0.77, review_margin=0.1)
    assert route_of(answer, s) == route


def test_a_failed_endpoint_routes_to_retry(settings):
    assert route_of(_answer(status="fallback"), settings, model_failed=True) == "retry"


def test_every_ask_carries_a_route_and_human_ones_reach_the_review_queue(settings, write_file):
    from core.documents import ingest_file
    from core.pipeline import ask

    assert ingest_file(settings, "acme", write_file("a.md", "# Leave\n\nStaff earn 25 days of leave.\n")).status == "ready"
    unrelated = ask(settings, "acme", "Who won the football world cup in 1954?")
    assert unrelated.route in ("auto", "human")
    trace = store.get_trace(settings, "acme", unrelated.trace_id)
    assert trace["answer"]["route"] == unrelated.route
    human = store.save_trace(settings, {"answer": {"tenant": "acme", "question": "Odd one", "status": "answered",
                                                   "confidence": 0.99, "route": "human"}})
    items = {i.trace_id: i for i in review.queue(settings, "acme")}
    assert items[human].reasons == ("routed to a person",)
