"""evals/train.py: the answer model learns whether the answer it would quote is right."""

from __future__ import annotations

import numpy as np

from evals.train import Ranked, Record, answer_label, ceilings, outcomes, quoted


def ranked(scores: list[float], labels: list[int], kind: str = "answerable") -> Ranked:
    record = Record("d", "q1", kind, [{} for _ in scores], labels)
    p = np.asarray(scores)
    return Ranked(record, p, np.argsort(-p, kind="stable"), {"x": 1.0})


def test_quoted_units_follow_the_runner_up_ratio() -> None:
    r = ranked([0.2, 0.9, 0.5, 0.4], [0, 0, 0, 1])
    assert quoted(r, 0.95) == [1]
    assert quoted(r, 0.5) == [1, 2]  # 0.5 >= 0.5 x 0.9, 0.4 is not
    assert quoted(r, 0.35) == [1, 2, 3]
    assert quoted(ranked([], []), 0.5) == []


def test_the_answer_label_is_the_quoted_answer_being_right() -> None:
    r = ranked([0.2, 0.9, 0.5, 0.4], [0, 0, 0, 1])
    # the answer sits in the third-best unit: right only when the answer would quote it
    assert answer_label(r, 0.95) == 0.0 and answer_label(r, 0.35) == 1.0
    assert answer_label(ranked([0.9], [1], kind="misleading"), 0.5) == 0.0


class Always:
    """An answer model whose confidence is fixed."""

    def __init__(self, p: float) -> None:
        self.p = p

    def matrix(self, rows: list) -> np.ndarray:
        return np.zeros((len(rows), 1))

    def proba(self, x: np.ndarray) -> np.ndarray:
        return np.full(len(x), self.p)


def test_outcomes_count_what_the_answer_would_quote() -> None:
    rows = [ranked([0.9, 0.5], [0, 1]), ranked([0.9], [0], kind="unanswerable")]
    assert outcomes(rows, Always(0.9), 0.5, 0.95) == ["wrong", "answered_bad"]
    assert outcomes(rows, Always(0.9), 0.5, 0.5) == ["correct", "answered_bad"]
    assert outcomes(rows, Always(0.1), 0.5, 0.5) == ["refused", "refused_ok"]


def test_ceilings_say_where_answers_are_lost() -> None:
    rows = [ranked([0.9, 0.5], [0, 1]),  # the answer is a candidate, quoted only at a low runner-up ratio
            ranked([0.9, 0.2], [0, 0]),  # not among the candidates at all
            ranked([0.8], [1]),  # the best unit holds it
            ranked([0.9], [0], kind="misleading")]
    got = ceilings(rows, Always(0.4), 0.95)
    assert got["answer_in_candidates"] == round(2 / 3, 3) and got["answer_quoted"] == round(1 / 3, 3)
    assert got["confidence_median"] == {"answerable_missed": 0.4, "answerable_quoted": 0.4, "misleading": 0.4}
    assert ceilings(rows, Always(0.4), 0.5)["answer_quoted"] == round(2 / 3, 3)


def test_one_domain_is_refused_with_a_sentence(tmp_path, capsys) -> None:
    # a cache of one domain: leave-one-domain-out would train on nothing
    import pickle

    from evals.train import main

    cache = tmp_path / "cache.pkl"
    cache.write_bytes(pickle.dumps([vars(Record("clinic", "c-1", "answerable", [], []))]))
    assert main(["--cache", str(cache), "--domains", "clinic", "--out", str(tmp_path / "m.json")]) == 2
    assert "at least two domains" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def placed(scores: list[float], labels: list[int], passages: list[int], kind: str = "answerable") -> Ranked:
    record = Record("d", "q1", kind, [{} for _ in scores], labels, passages=passages)
    p = np.asarray(scores)
    return Ranked(record, p, np.argsort(-p, kind="stable"), {"x": 1.0})


def test_a_runner_up_from_another_passage_needs_the_other_share_too() -> None:
    from evals.train import Quoting, from_elsewhere

    # best 0.9 in passage 1; 0.7 from passage 2 (no answer); 0.5 from passage 1
    r = placed([0.9, 0.7, 0.5], [1, 0, 0], [1, 2, 1])
    assert quoted(r, Quoting(0.35)) == [0, 1, 2] and from_elsewhere(r, Quoting(0.35))
    assert quoted(r, Quoting(0.35, 0.8)) == [0, 2] and not from_elsewhere(r, Quoting(0.35, 0.8))
    # a unit from elsewhere holding the answer is no rival
    assert not from_elsewhere(placed([0.9, 0.7], [0, 1], [1, 2]), Quoting(0.35))
    # caches written before passages were kept: every runner-up counts as the best's passage
    assert quoted(ranked([0.9, 0.7, 0.5], [1, 0, 0]), Quoting(0.35, 0.8)) == [0, 1, 2]


def test_among_knobs_within_noise_the_one_quoting_least_from_elsewhere_wins() -> None:
    from evals.train import Quoting, choose_knobs

    # one answerable question, answered right by the best unit alone; the runner-up comes
    # from another passage and does not hold the answer: both quotings are right, one is padded
    rows = [placed([0.9, 0.7], [1, 0], [1, 2]), placed([0.9], [0], [1], kind="unanswerable")]

    class Confident(Always):
        def matrix(self, rows: list) -> np.ndarray:
            return np.asarray([[1.0 if r["x"] else 0.0] for r in rows])

        def proba(self, x: np.ndarray) -> np.ndarray:
            return np.where(x[:, 0] > 0, 0.9, 0.1)

    rows[1] = Ranked(rows[1].record, rows[1].scores, rows[1].order, {"x": 0.0})
    held = {Quoting(0.35): {"d": (rows, Confident(0))}, Quoting(0.35, 0.8): {"d": (rows, Confident(0))}}
    threshold, quoting = choose_knobs(held)
    assert quoting == Quoting(0.35, 0.8) and 0.1 < threshold <= 0.9


def test_a_quoting_that_pads_answers_with_rivals_loses_even_when_it_scores_higher() -> None:
    from evals.train import Quoting, choose_knobs

    # the best unit lacks the answer, its runner-up from another passage holds it, and a
    # third question's runner-up from elsewhere is a rival: quoting from elsewhere is
    # "right" twice as often, because an answer counts as right when any quote holds it
    rows = [placed([0.9, 0.7], [0, 1], [1, 2]), placed([0.9, 0.7], [1, 0], [1, 2]),
            placed([0.9, 0.7], [1, 0], [1, 1])]

    class Confident(Always):
        def proba(self, x: np.ndarray) -> np.ndarray:
            return np.full(len(x), 0.9)

    held = {Quoting(0.35): {"d": (rows, Confident(0))}, Quoting(0.35, 1.0): {"d": (rows, Confident(0))}}
    threshold, quoting = choose_knobs(held)
    assert quoting == Quoting(0.35, 1.0)

