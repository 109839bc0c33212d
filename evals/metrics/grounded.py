"""grounded_only: the share of questions the system handled the way a grounded assistant must.

  1. Denominator: every question.
  2. A question counts if either
     a. it is answerable, answered correctly (strict answer_correct) and the answer has a
        supporting citation (as in citation_accuracy), or
     b. it is unanswerable or misleading and the answer is refused or corrects the
        question's premise (`corrected`) (an ask that failed,
        status `error`, is no refusal and never counts).
  3. value = counted / denominator (None for an empty set).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.metrics.answers import citation_check, is_correct
from evals.metrics.base import NOT_ANSWERABLE, ChunkTexts, MetricResult, Row, declines, qid, rate


def is_grounded(question: Mapping[str, Any], answer: Mapping[str, Any],
                chunk_texts: ChunkTexts | None = None) -> bool:
    if question.get("kind") in NOT_ANSWERABLE:
        return declines(answer)
    return is_correct(question, answer) and citation_check(question, answer, chunk_texts)["cited"]


def grounded_only(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    for q, a in rows:
        ok = is_grounded(q, a, chunk_texts)
        evidence[qid(q)] = {"grounded": ok, "kind": q.get("kind"), "status": a.get("status")}
        if ok:
            hits.append(qid(q))
    return rate("grounded_only", len(hits), len(rows), hits, evidence)
