"""Hallucination: questions answered with a statement the knowledge base does not support.

  1. Denominator: every question.
  2. A question counts if
     a. it is `unanswerable` or `misleading` and the answer is not refused (answered,
        narrowed or fallback all assert something the documents do not hold), or
     b. it is `answerable`, the answer is not refused, and it is not correct (strict
        answer_correct: the expected answer is not in the answer text), or
     c. the ask failed (status `error`), whatever the kind: a crash proves nothing was
        made up, so it counts as a failure rather than flattering the rate.
  3. value = counted / denominator (None for an empty set). Lower is better.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.metrics.answers import is_correct
from evals.metrics.base import (
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


def is_hallucination(question: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    if is_error(answer):
        return True
    if is_refused(answer):
        return False
    if not is_answerable(question):
        return not declines(answer)  # a correction of a false premise is no made-up answer
    return not is_correct(question, answer)


def hallucination(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    for q, a in rows:
        bad = is_hallucination(q, a)
        evidence[qid(q)] = {"hallucinated": bad, "error": is_error(a), "kind": q.get("kind"),
                            "status": a.get("status")}
        if bad:
            hits.append(qid(q))
    return rate("hallucination", len(hits), len(rows), hits, evidence)
