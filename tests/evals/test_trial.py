"""evals/trial.py: a candidate signal is judged by leave-one-domain-out against the shipped ones."""

from __future__ import annotations

import numpy as np

from core.answer.signals import FEATURES
from evals.train import SHIPPED, Record
from evals.trial import (
    agreement,
    general_words,
    leave_one_word_out,
    premise_conflict,
    rank_consensus,
    sparse_latents,
    trial,
    with_candidate,
)


def noise_records(seed: int = 0) -> list[Record]:
    """Three domains of questions whose shipped signals are noise: half answerable (one
    unit of five holds the answer), half unanswerable."""
    rng = np.random.default_rng(seed)
    out = []
    for domain in ("a", "b", "c"):
        for n in range(40):
            answerable = n % 2 == 0
            labels = [int(answerable and i == n % 5) for i in range(5)]
            signals = [{f: float(rng.random()) for f in FEATURES} for _ in labels]
            out.append(Record(domain, f"{domain}{n}", "answerable" if answerable else "unanswerable",
                              signals, labels, qtext="q", utexts=["u"] * 5))
    return out


def oracle(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    for r in records:
        for s, y in zip(r.signals, r.labels):
            s["holds_answer"] = float(y)
    return ("holds_answer",), ("holds_answer",)


def test_a_signal_that_tells_the_answer_lifts_the_held_out_figures() -> None:
    result = trial(noise_records(), oracle)
    assert result["with_candidate"]["grounded_only"] > result["shipped"]["grounded_only"] + 0.3
    assert result["with_candidate"]["answer_correct"] > 0.9
    assert set(result["shipped"]["grounded_by_domain"]) == {"a", "b", "c"}


def test_a_signal_of_noise_does_not() -> None:
    def noise(records: list[Record]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        rng = np.random.default_rng(1)
        for r in records:
            for s in r.signals:
                s["noise"] = float(rng.random())
        return ("noise",), ("noise",)

    result = trial(noise_records(), noise)
    assert result["with_candidate"]["grounded_only"] < result["shipped"]["grounded_only"] + 0.1


def test_the_candidate_spec_adds_to_the_shipped_one() -> None:
    spec = with_candidate(("x",), ("x",))
    assert spec.unit == SHIPPED.unit + ("x",) and spec.answer == SHIPPED.answer + ("best_x",)


def record(question: str, units: list[str]) -> Record:
    return Record("d", "q", "answerable", [{} for _ in units], [0] * len(units), qtext=question, utexts=units)


def test_premise_conflict_reads_negation_and_numbers() -> None:
    r = record("Why are the vCPUs of the Blaze plan shared?",
               ["Blaze uses dedicated vCPUs that are not shared.", "Blaze has 8 vCPUs."])
    premise_conflict([r])
    assert r.signals[0]["negation_of_assertion"] == 1.0 and r.signals[1]["negation_mismatch"] == 0.0
    r = record("Why is parental leave 20 weeks long?", ["You get 12 weeks of paid parental leave.",
                                                         "Parental leave is 20 weeks long."])
    premise_conflict([r])
    assert r.signals[0]["number_conflict"] == 1.0 and r.signals[1]["number_conflict"] == 0.0


def test_rank_consensus_marks_the_first_by_each_view() -> None:
    r = record("q", ["a", "b"])
    r.signals = [{"sim_unit": 0.9, "sim_window": 0.5, "lex_window": 0.1, "lex_context": 0.2},
                 {"sim_unit": 0.1, "sim_window": 0.8, "lex_window": 0.3, "lex_context": 0.2}]
    rank_consensus([r])
    assert r.signals[0]["first_by_sim_unit"] == 1.0 and r.signals[1]["first_by_sim_unit"] == 0.5
    assert r.signals[1]["first_by_sim_window"] == 1.0 and r.signals[0]["near_best"] == 0.2


def test_sparse_latents_cover_a_matching_sentence_more_than_an_unrelated_one() -> None:
    r = record("How many vacation days do employees get each year?",
               ["Employees receive 20 days of paid vacation per year.", "The office is closed on public holidays."])
    sparse_latents([r])
    assert r.signals[0]["latent_coverage"] > r.signals[1]["latent_coverage"]
    assert r.signals[0]["latent_cosine"] > r.signals[1]["latent_cosine"]


def test_general_words_weigh_the_question_s_rare_word_over_its_common_ones() -> None:
    r = record("When does the hydrotherapy course start?",
               ["The hydrotherapy course starts in the first week.", "It does not start before noon.",
                "Курс начинается в первую неделю."])
    r.signals = [{"cross_language": 0.0}, {"cross_language": 0.0}, {"cross_language": 1.0}]
    general_words([r])
    rare, common, other = r.signals
    assert rare["general_rarest"] == 1.0 and common["general_rarest"] == 0.0
    # "start" is one of the question's words, but a common one
    assert rare["general_coverage"] > 0.5 > common["general_coverage"] > 0.0
    assert other["general_coverage"] == other["general_rarest"] == 0.0  # no word across languages


def test_leave_one_word_out_keeps_the_answer_first_without_any_one_word() -> None:
    from core.models import get_embedder

    e = get_embedder()
    units = ["Employees receive 20 days of paid vacation per year.", "The office is closed on public holidays."]
    r = record("How many vacation days do employees get each year?", units)
    r.qvec, r.uvecs = e.embed_query(r.qtext), e.embed_passages(units)
    assert leave_one_word_out([r])[0] == ("loo_first", "loo_drop", "loo_gapmin", "loo_mean")
    answer, other = r.signals
    assert answer["loo_first"] == 1.0 and other["loo_first"] == 0.0
    assert answer["loo_gapmin"] == 0.0 > other["loo_gapmin"]
    assert answer["loo_drop"] > 0.0  # every reading without "vacation" is further from the answer


def test_agreement_marks_a_unit_another_passage_states_too() -> None:
    r = record("When is check-in?", ["Check-in is from 15:00.", "Guests check in from 15:00 at reception.",
                                     "Check-out is until 11:00.", "Check-in is from 15:00."])
    r.signals = [{} for _ in r.utexts]
    r.passages = [1, 2, 2, 1]
    agreement([r])
    assert [s["agrees"] for s in r.signals] == [1.0, 1.0, 0.0, 1.0]
    r.passages = [1, 1, 1, 1]  # one passage repeating itself is no second source
    agreement([r])
    assert [s["agrees"] for s in r.signals] == [0.0, 0.0, 0.0, 0.0]
