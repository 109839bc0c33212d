"""Refusal metrics: refusal_correct and too_conservative.

refusal_correct — does the system refuse when the knowledge base lacks the answer?
  1. Denominator: questions of kind `unanswerable` or `misleading` (a misleading question
     presupposes something the documents do not say).
  2. A question counts if its answer's status is `refused`, or `corrected` (the cited
     passage contradicts its premise). An ask that failed (status
     `error`) stays in the denominator and never counts: a crash is not a refusal.
  3. value = counted / denominator (None when the set has no such question).

too_conservative — does it refuse questions it should answer?
  1. Denominator: questions of kind `answerable`.
  2. A question counts if its answer's status is `refused` or `error` (an ask that failed
     did not answer either, so it counts as a failure here too).
  3. value = counted / denominator (None without answerable questions). Lower is better.

closest_hit — when it refuses a question it should answer, does it still point at the answer?
  1. Denominator: questions of kind `answerable` whose answer is `refused`.
  2. A question counts if one of its expected answers stands (as for answer_correct) in the
     closest sentence of one of the refusal's closest passages (the `sentence` of each
     `closest` entry; the console highlights it).
  3. value = counted / denominator (None when no answerable question was refused).
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.metrics.answers import expected_answers
from evals.metrics.base import (
    NOT_ANSWERABLE,
    ChunkTexts,
    MetricResult,
    Row,
    declines,
    is_answerable,
    is_error,
    is_refused,
    qid,
    rate,
)
from evals.metrics.text import contains


def refusal_correct(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    pool = [(q, a) for q, a in rows if q.get("kind") in NOT_ANSWERABLE]
    hits = [qid(q) for q, a in pool if declines(a)]
    evidence = {qid(q): {"refused": is_refused(a), "status": a.get("status"),
                         "refusal_reason": a.get("refusal_reason")} for q, a in pool}
    return rate("refusal_correct", len(hits), len(pool), hits, evidence)


def too_conservative(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    pool = [(q, a) for q, a in rows if is_answerable(q)]
    hits = [qid(q) for q, a in pool if is_refused(a) or is_error(a)]
    evidence = {qid(q): {"refused": is_refused(a), "error": is_error(a), "status": a.get("status"),
                         "refusal_reason": a.get("refusal_reason")} for q, a in pool}
    return rate("too_conservative", len(hits), len(pool), hits, evidence)


def closest_hit(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    pool = [(q, a) for q, a in rows if is_answerable(q) and is_refused(a)]
    hits, evidence = [], {}
    for q, a in pool:
        sentences = [c.get("sentence") or "" for c in a.get("closest") or []]
        at = next((i for i, s in enumerate(sentences, start=1)
                   if any(contains(s, exp) for exp in expected_answers(q))), None)
        if at:
            hits.append(qid(q))
        evidence[qid(q)] = {"closest_rank": at, "sentences": sentences}
    return rate("closest_hit", len(hits), len(pool), hits, evidence)
