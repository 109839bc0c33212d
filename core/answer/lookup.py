"""A verbatim lookup: the question's every topic word stands in the sentence quoted.

The answer model weighs full word overlap down: the development sets' misleading and
unanswerable questions are written close to their documents, so overlap alone proves little
there. But when the best unit holds *every* topic term of the question, ranks clearly first
among the units, comes from the first passage retrieved, in the question's language, with
every number of the question and no word the knowledge base lacks, the development sets
hold no question to decline and no wrong answer (evals/train.py `lookup_precision`). A QA
pass saw such an answer refused at 0.65 with the question's every word in the sentence shown
first under the refusal: the plainest question is the one a user trusts least to be refused.

The conditions, on the answer model's question-level signals (core/answer/extractive.py):
1. lex_unit = 1: the unit holds every topic term of the question (IDF-weighted share);
2. p_best >= MIN_BEST and p_best - p_second >= MIN_GAP: the unit model's clear first;
3. rank_prior = 1: its passage is the first retrieved;
4. no number of the question missing, same language, no unknown word, and no answer type
   that the unit contradicts (type_match > 0);
5. the question asks something: an elliptical follow-up asked on its own ("And the second
   filter?", no reading of it found) names a topic, not what is asked, and the development
   sets' one wrong lookup was such a fragment.
Then the answer confidence is at least the model's `lookup_confidence`: the share of such
development questions whose quote held the answer, by Laplace's rule ((k + 1) / (n + 2)).
"""

from __future__ import annotations

from collections.abc import Mapping

from core.followup import looks_like_followup

MIN_BEST = 0.6
MIN_GAP = 0.1


def is_lookup(qsig: Mapping[str, float], question: str) -> bool:
    """Do the question-level signals describe a verbatim lookup of `question` as asked (its
    reading, for a follow-up; the module docstring)?"""
    return (qsig["lex_unit"] >= 0.999 and qsig["p_best"] >= MIN_BEST and qsig["p_gap"] >= MIN_GAP
            and qsig["rank_prior"] >= 0.999 and qsig["numbers_missing"] == 0 and qsig["cross_language"] == 0
            and qsig["unknown_share"] == 0 and qsig["type_match"] > 0 and not looks_like_followup(question))


def lookup_confidence(right: int, n: int) -> float:
    """Laplace's rule of succession: the expected precision of the next lookup, rounded."""
    return round((right + 1) / (n + 2), 4)
