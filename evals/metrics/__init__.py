"""Eval metrics: one module per family, a registry, and `score()` over (question, answer) rows.

Families (each module's docstring states its algorithm step by step):
  retrieval      hit_rate (@k: the top-k passages the answer carries), mrr
  answers        answer_correct, answer_correct_lenient, citation_accuracy
  refusals       refusal_correct, too_conservative, closest_hit
  hallucination  hallucination
  rivals         rival_quotes (right answers carrying a sentence of another passage)
  grounded       grounded_only
  faithfulness   faithfulness
  latency        latency_p50_ms, latency_p95_ms

Every metric is `fn(rows, chunk_texts=None) -> MetricResult`; rows are
(eval-set row, Answer dict) pairs, `chunk_texts` maps chunk_id -> text for checking that a
citation's quote stands verbatim in its chunk. Rates are fractions in [0, 1]; a metric whose
denominator is empty is None.

An ask that raised is recorded by the runner with status `error`. It is its own outcome
(`error`), counted beside `n` as `errors`, and a failure in every metric it could flatter:
never correct, never a correct refusal, never grounded; a hit of too_conservative and of
hallucination (the lower-is-better rates).

Example:
    >>> q = {"id": "q1", "kind": "answerable", "expected_answer": "28 days",
    ...      "gold_source": "faq.md", "gold_quote": "within 28 days of delivery"}
    >>> a = {"status": "answered", "answer": "Returns are accepted within 28 days of delivery [1].",
    ...      "citations": [{"chunk_id": "c1", "quote": "within 28 days of delivery"}],
    ...      "retrieved": [{"chunk_id": "c1", "source": "faq.md", "rank": 1,
    ...                     "text": "Returns are accepted within 28 days of delivery."}]}
    >>> s = score([(q, a)])
    >>> s["overall"]["answer_correct"], s["overall"]["citation_accuracy"], s["questions"][0]["outcome"]
    (1.0, 1.0, 'correct')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evals.metrics.answers import (
    answer_correct,
    answer_correct_lenient,
    best_f1,
    citation_accuracy,
    citation_check,
    is_correct,
    is_correct_lenient,
)
from evals.metrics.base import (
    KINDS,
    ChunkTexts,
    MetricResult,
    Row,
    declines,
    is_answerable,
    is_error,
    is_refused,
    qid,
)
from evals.metrics.faithfulness import faithfulness
from evals.metrics.grounded import grounded_only
from evals.metrics.hallucination import hallucination
from evals.metrics.intervals import rate_intervals, verdict
from evals.metrics.latency import latency_p50_ms, latency_p95_ms, percentile
from evals.metrics.refusals import closest_hit, refusal_correct, too_conservative
from evals.metrics.retrieval import gold_rank, hit_rate, mrr
from evals.metrics.rivals import rival_quotes

Metric = Callable[..., MetricResult]

METRICS: dict[str, Metric] = {
    "answer_correct": answer_correct,
    "answer_correct_lenient": answer_correct_lenient,
    "citation_accuracy": citation_accuracy,
    "rival_quotes": rival_quotes,
    "refusal_correct": refusal_correct,
    "too_conservative": too_conservative,
    "closest_hit": closest_hit,
    "hallucination": hallucination,
    "grounded_only": grounded_only,
    "faithfulness": faithfulness,
    "hit_rate": hit_rate,
    "mrr": mrr,
    "latency_p50_ms": latency_p50_ms,
    "latency_p95_ms": latency_p95_ms,
}
# Metrics where a smaller number is better (for comparisons and arrows in tables).
LOWER_IS_BETTER = frozenset({"too_conservative", "hallucination", "rival_quotes", "latency_p50_ms", "latency_p95_ms", "errors"})

OUTCOMES = ("correct", "wrong", "refused_ok", "too_conservative", "hallucinated", "error")
GROUPS = {"by_kind": "kind", "by_category": "category", "by_tenant": "tenant", "by_lang": "lang",
          "by_crossing": "crossing"}
GROUP_DEFAULTS = {"kind": "unknown", "category": "uncategorised", "tenant": "unknown", "lang": "unknown",
                  "crossing": "unknown"}


def outcome(question: Mapping[str, Any], answer: Mapping[str, Any]) -> str:
    """correct | wrong | too_conservative (answerable); refused_ok | hallucinated (the rest);
    error (any kind) when the ask raised.

    `wrong` (an answerable question answered without the expected answer),
    `hallucinated` (an answer where the knowledge base has none) and `error` together make
    up the hallucination metric; `error` is never a refusal.
    """
    if is_error(answer):
        return "error"
    if is_answerable(question):
        if is_refused(answer):
            return "too_conservative"
        return "correct" if is_correct(question, answer) else "wrong"
    return "refused_ok" if declines(answer) else "hallucinated"


def group_key(question: Mapping[str, Any], field: str) -> str:
    value = question.get(field)
    return str(value) if value not in (None, "") else GROUP_DEFAULTS[field]


def compute(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None,
            names: Sequence[str] | None = None) -> dict[str, MetricResult]:
    """Run the named metrics (all by default) over rows."""
    return {name: METRICS[name](rows, chunk_texts=chunk_texts) for name in (names or METRICS)}


def values(results: Mapping[str, MetricResult], n: int, errors: int = 0) -> dict[str, Any]:
    """Rounded metric values plus `n` (questions) and `errors` (asks that raised)."""
    out: dict[str, Any] = {name: _round(r.value) for name, r in results.items()}
    out["n"] = n
    out["errors"] = errors
    return out


def count_errors(rows: Sequence[Row]) -> int:
    return sum(1 for _, a in rows if is_error(a))


def judge_question(question: Mapping[str, Any], answer: Mapping[str, Any],
                   chunk_texts: ChunkTexts | None = None) -> dict[str, Any]:
    """Everything decided about one question, for the report and the UI."""
    out: dict[str, Any] = {
        "id": qid(question),
        **{f: group_key(question, f) for f in ("kind", "category", "lang", "tenant", "crossing")},
        "outcome": outcome(question, answer),
        "refused": is_refused(answer),
        "error": is_error(answer),
    }
    if is_answerable(question):
        out["correct"] = is_correct(question, answer)
        out["f1"] = round(best_f1(question, answer), 4)
        out["correct_lenient"] = is_correct_lenient(question, answer)
        out["cited"] = out["correct"] and citation_check(question, answer, chunk_texts)["cited"]
        found = gold_rank(question, answer)
        out["gold_rank"] = found["rank"]
        out["gold_chunk"] = found["chunk_id"]
    return out


def score(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> dict[str, Any]:
    """All metrics overall and per kind, category, tenant and language, plus per-question outcomes.

    Returns {"overall": {metric: value, "n", "errors"}, "by_kind": {kind: {...}}, "by_category",
    "by_tenant", "by_lang", "by_crossing" (question in the documents' language or not),
    "intervals": {"overall": {metric: [low, high]}, "by_kind": {kind: {...}}, ...} (95 % Wilson
    intervals of the rates, evals/metrics/intervals.py), "questions": [per-question judgement], "evidence":
    {metric: MetricResult dict (overall)}, "warnings": [...]}.
    """
    rows = list(rows)
    overall = compute(rows, chunk_texts)
    out: dict[str, Any] = {"overall": values(overall, len(rows), count_errors(rows))}
    intervals: dict[str, Any] = {"overall": rate_intervals(overall)}
    for group_name, field in GROUPS.items():
        buckets: dict[str, list[Row]] = {}
        for q, a in rows:
            buckets.setdefault(group_key(q, field), []).append((q, a))
        order = sorted(buckets, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
        results = {k: compute(buckets[k], chunk_texts) for k in order}
        out[group_name] = {k: values(results[k], len(buckets[k]), count_errors(buckets[k])) for k in order}
        intervals[group_name] = {k: rate_intervals(results[k]) for k in order}
    out["intervals"] = intervals
    out["questions"] = [judge_question(q, a, chunk_texts) for q, a in rows]
    out["evidence"] = {name: r.to_dict() for name, r in overall.items()}
    out["warnings"] = sorted({w for r in overall.values() for w in r.warnings})
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


__all__ = [
    "GROUPS", "LOWER_IS_BETTER", "METRICS", "OUTCOMES", "MetricResult", "Row", "compute",
    "judge_question", "outcome", "percentile", "rate_intervals", "score", "values", "verdict",
]
