"""Every metric on hand-made rows whose values were worked out by hand."""

from __future__ import annotations

import importlib

import pytest
from eval_helpers import cite, make_a, make_q, passage

from evals.metrics import METRICS, OUTCOMES, compute, outcome, score
from evals.metrics.answers import answer_correct, answer_correct_lenient, citation_accuracy
from evals.metrics.faithfulness import faithfulness
from evals.metrics.grounded import grounded_only
from evals.metrics.hallucination import hallucination
from evals.metrics.latency import latency_p50_ms, latency_p95_ms, percentile
from evals.metrics.refusals import closest_hit, refusal_correct, too_conservative
from evals.metrics.retrieval import hit_rate, mrr
from evals.metrics.text import contains, normalize, token_f1


def test_every_metric_on_the_mixed_set(mixed_rows):
    r = compute(mixed_rows)
    assert r["answer_correct"].value == pytest.approx(2 / 4)
    assert r["answer_correct"].hits == ["a1", "a2"]
    assert r["citation_accuracy"].value == pytest.approx(1 / 2)
    assert r["citation_accuracy"].hits == ["a1"]
    assert r["refusal_correct"].value == pytest.approx(1 / 2)
    assert r["too_conservative"].value == pytest.approx(1 / 4) and r["too_conservative"].hits == ["a3"]
    assert r["hallucination"].value == pytest.approx(2 / 6) and r["hallucination"].hits == ["a4", "m1"]
    assert r["grounded_only"].value == pytest.approx(2 / 6) and r["grounded_only"].hits == ["a1", "u1"]
    # non-refused answers a1 (2/2), a2 (1/2), a4 (0/1), m1 (1/1)
    assert r["faithfulness"].value == pytest.approx(4 / 6)
    assert r["hit_rate"].value == pytest.approx(2 / 4) and r["hit_rate"].hits == ["a1", "a2"]
    assert r["mrr"].value == pytest.approx((1 / 2 + 1) / 4)
    assert r["latency_p50_ms"].value == pytest.approx(350.0)
    assert r["latency_p95_ms"].value == pytest.approx(575.0)
    assert set(r) == set(METRICS)


def test_evidence_explains_each_decision(mixed_rows):
    cit = citation_accuracy(mixed_rows)
    assert set(cit.evidence) == {"a1", "a2"}  # denominator: the correct answers
    assert cit.evidence["a1"]["supporting"]["chunk_id"] == "r:1"
    assert cit.evidence["a2"]["checked"] == [{"chunk_id": "x:1", "source": "doc.md", "chunk_found": True,
                                              "verbatim": True, "holds_answer": False}]
    hits = hit_rate(mixed_rows)
    assert hits.evidence["a1"]["rank"] == 2 and hits.evidence["a1"]["chunk_id"] == "r:1"
    assert hits.evidence["a3"]["rank"] is None
    assert hits.denominator == 4 and hits.numerator == 2


def test_outcomes(mixed_rows):
    got = {q["id"]: outcome(q, a) for q, a in mixed_rows}
    assert got == {"a1": "correct", "a2": "correct", "a3": "too_conservative", "a4": "wrong",
                   "u1": "refused_ok", "m1": "hallucinated"}
    assert set(got.values()) <= set(OUTCOMES)


def test_score_groups_and_questions(mixed_rows):
    s = score(mixed_rows)
    assert s["overall"]["n"] == 6 and s["overall"]["answer_correct"] == 0.5
    assert list(s["by_kind"]) == ["answerable", "unanswerable", "misleading"]
    assert s["by_kind"]["answerable"]["hallucination"] == 0.25
    assert s["by_kind"]["unanswerable"]["refusal_correct"] == 1.0
    assert s["by_kind"]["misleading"]["refusal_correct"] == 0.0
    assert s["by_kind"]["unanswerable"]["answer_correct"] is None
    assert s["by_category"]["billing"]["answer_correct"] == 0.5  # a2 right, a4 wrong
    assert s["by_tenant"]["globex"]["n"] == 2 and s["by_tenant"]["acme"]["n"] == 4
    assert s["by_lang"]["de"]["n"] == 2
    q = {x["id"]: x for x in s["questions"]}
    assert q["a1"]["outcome"] == "correct" and q["a1"]["cited"] and q["a1"]["gold_rank"] == 2
    assert q["a2"]["cited"] is False
    assert q["m1"]["outcome"] == "hallucinated" and "correct" not in q["m1"]
    assert s["evidence"]["hallucination"]["hits"] == ["a4", "m1"]


def test_empty_denominators_are_none():
    only_refusals = [(make_q("u1", kind="unanswerable"), make_a(status="refused", total=None)),
                     (make_q("m1", kind="misleading"), make_a(status="refused", total=None))]
    r = compute(only_refusals)
    for name in ("answer_correct", "answer_correct_lenient", "citation_accuracy", "too_conservative",
                 "hit_rate", "mrr", "faithfulness", "latency_p50_ms", "latency_p95_ms"):
        assert r[name].value is None, name
    assert r["refusal_correct"].value == 1.0
    assert r["hallucination"].value == 0.0
    assert r["grounded_only"].value == 1.0
    assert compute([])["hallucination"].value is None
    # answers with claims only among refusals: faithfulness still has nothing to judge
    answered_no_claims = [(make_q("a1", expected="x", source="s", quote="x"), make_a(text="x [1]."))]
    assert faithfulness(answered_no_claims).value is None


def test_lenient_f1_is_reported_separately():
    q = make_q("a1", expected="free collection in Germany", source="s.md", quote="free in Germany")
    close = make_a(text="Collection is free in Germany [1].")
    far = make_a(text="We charge a fee for collection everywhere except some places [1].")
    rows = [(q, close), (dict(q, id="a2"), far)]
    assert token_f1(close["answer"], q["expected_answer"]) == pytest.approx(2 * (4 / 5) * 1 / (4 / 5 + 1))
    assert answer_correct(rows).value == 0.0
    lenient = answer_correct_lenient(rows)
    assert lenient.value == 0.5 and lenient.hits == ["a1"]
    assert lenient.evidence["a2"]["f1"] < 0.5
    refused = [(q, make_a(status="refused", text="Collection is free in Germany"))]
    assert answer_correct_lenient(refused).value == 0.0


def test_answer_normalisation():
    q = make_q("a1", expected="14 Days.", source="s", quote="q")
    # fullwidth digits (NFKC), no-break space, case, citation marker glued to the answer
    a = make_a(text="Refunds within １４\u00a0days[1], then never.")
    assert outcome(q, a) == "correct"
    assert normalize("A  [1] b\n[2, 3] C") == "a b c"
    assert contains("Pay “€8.99” per month", '"€8.99"')
    assert not contains("anything", "")
    assert outcome(dict(q, expected_answer=["3 weeks", "14 days"]), a) == "correct"
    assert outcome(q, make_a(text="Refunds within 4 days [1].")) == "wrong"
    # a number's unit however written: "the 14-day period" states "14 days"; 114 days does not
    assert outcome(q, make_a(text="The 14-day refund period starts on payment [1].")) == "correct"
    assert outcome(q, make_a(text="The 114-day refund period [1].")) == "wrong"
    assert outcome(q, make_a(text="Refunds within 14 weeks [1].")) == "wrong"
    assert outcome(q, make_a(status="narrowed", text="within 14 days [1]")) == "correct"
    assert outcome(q, make_a(status="fallback", text="“within 14 days” [1]")) == "correct"


def test_citation_needs_verbatim_quote_and_the_answer():
    q = make_q("a1", expected="5 quarts", source="manual.md", quote="capacity is 5 quarts")
    text = "The engine oil capacity is 5 quarts with filter change."
    good = make_a(text="The capacity is 5 quarts [1].", citations=[cite("m:1", "capacity is 5 quarts")],
                  retrieved=[passage("m:1", "manual.md", text, 1)])
    assert citation_accuracy([(q, good)]).value == 1.0
    # the store's chunk text wins over the copy the answer carries
    assert citation_accuracy([(q, good)], chunk_texts={"m:1": "Something else entirely."}).value == 0.0
    # a quote that is not in the chunk
    forged = make_a(text="The capacity is 5 quarts [1].", citations=[cite("m:1", "capacity is 5 quarts!")],
                    retrieved=[passage("m:1", "manual.md", text, 1)])
    assert citation_accuracy([(q, forged)]).value == 0.0
    # an unknown chunk
    unknown = make_a(text="The capacity is 5 quarts [1].", citations=[cite("z:9", "capacity is 5 quarts")])
    assert citation_accuracy([(q, unknown)]).evidence["a1"]["checked"][0]["chunk_found"] is False
    # another document stating the same fact counts
    other = make_a(text="It takes 5 quarts [1].", citations=[cite("f:2", "It takes 5 quarts of oil.", "faq.md")],
                   retrieved=[passage("f:2", "faq.md", "Q: oil? It takes 5 quarts of oil.", 1)])
    assert citation_accuracy([(q, other)]).value == 1.0
    # the gold quote held by the citation also counts, even if the answer is phrased differently
    q2 = dict(q, expected_answer="five quarts (5 qt)")
    ans = make_a(text="five quarts (5 qt) [1].", citations=[cite("m:1", "capacity is 5 quarts")],
                 retrieved=[passage("m:1", "manual.md", text, 1)])
    assert citation_accuracy([(q2, ans)]).value == 1.0


def test_retrieval_matching_rules():
    q = make_q("a1", expected="x", source="docs/Refunds.MD", quote="refunded  within\n14 DAYS")
    text = "Plans can be **refunded** within 14 days."
    hit = make_a(retrieved=[passage("a:1", "other.md", text, 1), passage("r:1", "refunds.md", text, 2)])
    assert hit_rate([(q, hit)]).value == 1.0  # other.md has the words but is not the gold source
    assert mrr([(q, hit)]).value == 0.5
    neighbour_only = make_a(retrieved=[passage("r:2", "refunds.md", text, 1, neighbour=True)])
    assert hit_rate([(q, neighbour_only)]).value == 0.0
    no_field = make_a()  # no "retrieved" at all: a miss, with a warning
    res = hit_rate([(q, no_field)])
    assert res.value == 0.0 and res.warnings and "retrieved" in res.warnings[0]
    assert score([(q, no_field)])["warnings"]


def test_refusal_hallucination_grounded_modules_directly(mixed_rows):
    assert refusal_correct(mixed_rows).hits == ["u1"]
    assert too_conservative(mixed_rows).denominator == 4
    assert hallucination(mixed_rows).denominator == 6
    assert grounded_only(mixed_rows).evidence["m1"]["grounded"] is False


def test_a_failed_ask_is_its_own_outcome_and_a_failure_in_every_metric():
    """Status "error" (the runner's record of an ask that raised) used to count as a correct
    refusal: a crash on an unanswerable question scored as a success."""
    rows = [(make_q("u1", kind="unanswerable"), make_a(status="error", total=5)),
            (make_q("m1", kind="misleading"), make_a(status="refused")),
            (make_q("a1", expected="14 days", source="s.md", quote="14 days"),
             make_a(status="error", retrieved=[], total=5)),
            (make_q("a2", expected="14 days", source="s.md", quote="14 days"),
             make_a(text="Within 14 days [1].", citations=[cite("s:1", "within 14 days")],
                    retrieved=[passage("s:1", "s.md", "Refunds within 14 days.", 1)]))]
    assert [outcome(q, a) for q, a in rows] == ["error", "refused_ok", "error", "correct"]
    assert "error" in OUTCOMES
    r = compute(rows)
    assert r["refusal_correct"].value == 0.5 and r["refusal_correct"].hits == ["m1"]
    assert r["too_conservative"].value == 0.5 and r["too_conservative"].hits == ["a1"]
    assert r["hallucination"].value == 0.5 and r["hallucination"].hits == ["u1", "a1"]
    assert r["grounded_only"].value == 0.5 and r["grounded_only"].hits == ["m1", "a2"]
    assert r["answer_correct"].value == 0.5 and r["answer_correct_lenient"].value == 0.5
    assert r["hit_rate"].value == 0.5
    s = score(rows)
    assert s["overall"]["errors"] == 2 and s["overall"]["n"] == 4
    assert s["by_kind"]["unanswerable"]["errors"] == 1 and s["by_kind"]["misleading"]["errors"] == 0
    assert {q["id"]: q["error"] for q in s["questions"]} == {"u1": True, "m1": False, "a1": True, "a2": False}


def test_the_printed_table_counts_errors():
    from evals.run import format_table

    rows = [(make_q("u1", kind="unanswerable"), make_a(status="error")),
            (make_q("u2", kind="unanswerable"), make_a(status="refused"))]
    table = format_table({**score(rows), "retrieval_k": 5}).splitlines()
    header = table[0].split()
    assert header[:3] == ["group", "n", "errors"]
    overall = next(line.split() for line in table if line.startswith("overall"))
    assert overall[1:3] == ["2", "1"]


def test_latency_percentiles():
    assert percentile([], 50) is None
    assert percentile([7], 95) == 7
    assert percentile([1, 2, 3, 4], 50) == 2.5
    rows = [(make_q(f"q{i}"), make_a(total=float(v))) for i, v in enumerate([10, 30, 20, 40, 1000])]
    assert latency_p50_ms(rows).value == 30
    assert latency_p95_ms(rows).value == pytest.approx(40 + 0.8 * 960)


@pytest.mark.parametrize("module", ["retrieval", "answers", "refusals", "hallucination", "grounded",
                                    "faithfulness", "latency"])
def test_each_family_documents_its_algorithm(module):
    doc = importlib.import_module(f"evals.metrics.{module}").__doc__
    assert doc and "1." in doc and "2." in doc


def test_closest_hit_counts_refusals_that_still_point_at_the_answer():
    def refused(*sentences):
        a = make_a(status="refused")
        a["closest"] = [{"source": "s.md", "snippet": s, "sentence": s} for s in sentences]
        return a

    rows = [
        (make_q("a1", expected="14 days"), refused("Rentals end after 3 days.", "Refunds within 14 days.")),
        (make_q("a2", expected="€0.30"), refused("Taxis are reimbursed.")),
        (make_q("a3", expected="5 quarts"), refused()),  # no closest passages at all
        (make_q("a4", expected="28 days"), make_a(text="Within 28 days [1].")),  # answered: not in the pool
        (make_q("u1", kind="unanswerable"), refused("Refunds within 14 days.")),  # not answerable: not in the pool
    ]
    r = closest_hit(rows)
    assert (r.numerator, r.denominator) == (1, 3) and r.hits == ["a1"]
    assert r.evidence["a1"]["closest_rank"] == 2 and r.evidence["a2"]["closest_rank"] is None
    assert closest_hit(rows[3:]).value is None
    assert "closest_hit" in METRICS


def test_rival_quotes_counts_a_right_answer_carrying_another_passages_sentence():
    from evals.metrics.rivals import rival_quotes

    q = make_q("r1", expected="240 hours")
    padded = make_a(text="You can carry over 240 hours [1]. You can carry over 15 days [2].",
                    citations=[cite("leave:1", "You can carry over 240 hours."),
                               cite("leave:7", "You can carry over 15 days.")])
    # the same passage's next sentence is the answer's context, not a rival
    context = make_a(text="You can carry over 240 hours [1]. Hours above that are lost [1].",
                     citations=[cite("leave:1", "You can carry over 240 hours."),
                                cite("leave:1", "Hours above that are lost.")])
    wrong = make_a(text="You can carry over 15 days [1].", citations=[cite("leave:7", "You can carry over 15 days.")])
    rows = [(q, padded), ({**q, "id": "r2"}, context), ({**q, "id": "r3"}, wrong)]
    r = rival_quotes(rows)
    assert r.hits == ["r1"] and r.value == pytest.approx(1 / 2)  # over the two right answers only
    assert r.evidence["r1"]["rivals"] == ["You can carry over 15 days."]
    assert rival_quotes([(q, wrong)]).value is None
