"""evals/slices.py: how well the answer confidence separates right answers from questions
to decline, per slice."""

from __future__ import annotations

from evals.slices import auc, slice_report


def test_auc_counts_pairs_and_half_ties() -> None:
    assert auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert auc([0.1], [0.9]) == 0.0
    assert auc([0.5, 0.9], [0.5]) == 0.75  # one tie (half), one above
    assert auc([], [0.3]) is None and auc([0.3], []) is None


def test_the_report_keeps_missed_answers_out_and_splits_by_slice() -> None:
    rows = [
        {"slices": ("all", "plain"), "label": "quoted", "confidence": 0.9, "p_best": 0.8},
        {"slices": ("all", "plain"), "label": "declinable", "confidence": 0.2, "p_best": 0.9},
        {"slices": ("all", "paraphrase"), "label": "quoted", "confidence": 0.3, "p_best": 0.7},
        {"slices": ("all", "paraphrase"), "label": "declinable", "confidence": 0.6, "p_best": 0.2},
        # no decision makes it right: in the counts of questions, in no AUC
        {"slices": ("all", "paraphrase"), "label": "missed", "confidence": 0.99, "p_best": 0.99},
    ]
    got = slice_report(rows)
    assert got["plain"]["auc_confidence"] == 1.0 and got["plain"]["auc_p_best"] == 0.0
    assert got["paraphrase"]["auc_confidence"] == 0.0 and got["paraphrase"]["auc_p_best"] == 1.0
    assert got["paraphrase"]["questions"] == 3 and got["paraphrase"]["quoted"] == 1
    assert got["all"]["auc_confidence"] == 0.75  # 0.9 and 0.3 against 0.2 and 0.6: 3 of 4 pairs
    assert got["all"]["median_quoted"] == 0.6 and got["all"]["median_declinable"] == 0.4
