"""rival_quotes — do right answers carry a sentence from elsewhere that is not the answer?

A right answer can still mislead: "You can carry over 240 hours [1]. You can carry over 15
days [2]." holds the expected answer, so answer_correct counts it, yet its second sentence
(about another kind of leave, from another passage) reads as a second, rival answer.

  1. Denominator: the strictly correct answers (answer_correct's numerator).
  2. A question counts if one of its citations has a quote that, normalised, holds neither
     an expected answer nor the gold quote, and cites a chunk none of whose quotes in this
     answer hold one: a sentence of another passage beside the answer. A further sentence
     of the answer's own passage (its context, the steps of a list) does not count.
  3. value = counted / denominator (None when nothing was answered correctly). Lower is better.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.metrics.answers import answer_needles, is_correct
from evals.metrics.base import ChunkTexts, MetricResult, Row, qid, rate
from evals.metrics.text import contains


def rivals(question: Mapping[str, Any], answer: Mapping[str, Any]) -> list[str]:
    """The quotes of a right answer that come from a passage not holding the answer."""
    needles = answer_needles(question)
    citations = answer.get("citations") or []
    holds = [any(contains(c.get("quote") or "", n) for n in needles) for c in citations]
    home = {c.get("chunk_id") for c, h in zip(citations, holds) if h}
    return [c.get("quote") or "" for c, h in zip(citations, holds) if not h and c.get("chunk_id") not in home]


def rival_quotes(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    for q, a in rows:
        if not is_correct(q, a):
            continue
        found = rivals(q, a)
        evidence[qid(q)] = {"rivals": found}
        if found:
            hits.append(qid(q))
    return rate("rival_quotes", len(hits), len(evidence), hits, evidence)
