"""Refusal metrics: refusal_correct and too_conservative.

refusal_correct — does the system refuse when the knowledge base lacks the answer?
  1. Denominator: questions of kind `unanswerable` or `misleading` (a misleading question
     presupposes something the documents do not say).
  2. A question counts if its answer's status is `refused`. An ask that failed (status
     `error`) stays in the denominator and never counts: a crash is not a refusal.
  3. value = counted / denominator (None when the set has no such question).

too_conservative — does it refuse questions it should answer?
  1. Denominator: questions of kind `answerable`.
  2. A question counts if its answer's status is `refused` or `error` (an ask that failed
     did not answer either, so it counts as a failure here too).
  3. value = counted / denominator (None without answerable questions). Lower is better.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.metrics.base import (
    NOT_ANSWERABLE,
    ChunkTexts,
    MetricResult,
    Row,
    is_answerable,
    is_error,
    is_refused,
    qid,
    rate,
)


def refusal_correct(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    pool = [(q, a) for q, a in rows if q.get("kind") in NOT_ANSWERABLE]
    hits = [qid(q) for q, a in pool if is_refused(a)]
    evidence = {qid(q): {"refused": is_refused(a), "status": a.get("status"),
                         "refusal_reason": a.get("refusal_reason")} for q, a in pool}
    return rate("refusal_correct", len(hits), len(pool), hits, evidence)


def too_conservative(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    pool = [(q, a) for q, a in rows if is_answerable(q)]
    hits = [qid(q) for q, a in pool if is_refused(a) or is_error(a)]
    evidence = {qid(q): {"refused": is_refused(a), "error": is_error(a), "status": a.get("status"),
                         "refusal_reason": a.get("refusal_reason")} for q, a in pool}
    return rate("too_conservative", len(hits), len(pool), hits, evidence)
