"""Answer metrics: answer_correct (strict and lenient) and citation_accuracy.

answer_correct — over answerable questions:
  1. Keep the questions of kind `answerable`; they form the denominator.
  2. A question counts if its answer is an answer (status answered, narrowed or fallback;
     a refusal or a failed ask, status `error`, never counts) and the expected answer,
     normalised, lies in the answer text, normalised.
     Normalised = Unicode NFKC, typographic quotes/dashes to ASCII, lowercase, `[n]`
     citation markers removed, whitespace collapsed; the expected answer's leading and
     trailing punctuation is trimmed. A list of expected answers counts if any matches.
  3. value = counted / denominator (None when the set has no answerable question).

answer_correct_lenient — the same, except step 2 also accepts an answer whose token F1
against the expected answer (SQuAD-style, over the normalised word tokens) is >= 0.5.
It is reported separately; strict correctness is what every other metric builds on.

citation_accuracy — over the strictly correct answers:
  1. Denominator: questions counted by answer_correct.
  2. A question counts if at least one of its citations
     a. has a quote that stands verbatim (exact substring) in the text of the chunk it
        cites (chunk text from the store, else from the answer's `retrieved` passages), and
     b. that quote, normalised, holds the expected answer or the gold quote. Any document
        counts: a second document stating the same fact is a correct citation.
  3. value = counted / denominator (None when nothing was answered correctly).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evals.metrics.base import (
    ChunkTexts,
    MetricResult,
    Row,
    is_answer,
    is_answerable,
    is_error,
    is_refused,
    qid,
    rate,
)
from evals.metrics.text import contains, token_f1

LENIENT_F1 = 0.5


def expected_answers(question: Mapping[str, Any]) -> list[str]:
    value = question.get("expected_answer")
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [str(v) for v in value if str(v).strip()]
    return [str(value)] if str(value).strip() else []


def is_correct(question: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    """Strict: answerable, an answer (not refused, not failed), an expected answer inside its text."""
    if not is_answerable(question) or not is_answer(answer):
        return False
    text = answer.get("answer") or ""
    return any(contains(text, exp) for exp in expected_answers(question))


def best_f1(question: Mapping[str, Any], answer: Mapping[str, Any]) -> float:
    text = answer.get("answer") or ""
    return max((token_f1(text, exp) for exp in expected_answers(question)), default=0.0)


def is_correct_lenient(question: Mapping[str, Any], answer: Mapping[str, Any]) -> bool:
    if not is_answerable(question) or not is_answer(answer):
        return False
    return is_correct(question, answer) or best_f1(question, answer) >= LENIENT_F1


def chunk_text_lookup(answer: Mapping[str, Any], chunk_texts: ChunkTexts | None) -> dict[str, str]:
    """chunk_id -> text: the store's copy first, the passages carried by the answer second."""
    out = {r["chunk_id"]: r.get("text") or "" for r in answer.get("retrieved") or [] if r.get("chunk_id")}
    out.update(chunk_texts or {})
    return out


def answer_needles(question: Mapping[str, Any]) -> list[str]:
    """What a quote must hold to carry the answer: an expected answer, or the gold quote."""
    return expected_answers(question) + ([question["gold_quote"]] if question.get("gold_quote") else [])


def citation_check(question: Mapping[str, Any], answer: Mapping[str, Any],
                   chunk_texts: ChunkTexts | None = None) -> dict[str, Any]:
    """Which citation (if any) supports the answer, and why each one does or does not."""
    texts = chunk_text_lookup(answer, chunk_texts)
    needles = answer_needles(question)
    checked = []
    for cit in answer.get("citations") or []:
        quote = cit.get("quote") or ""
        chunk = texts.get(cit.get("chunk_id", ""))
        verbatim = bool(quote) and chunk is not None and quote in chunk
        holds = any(contains(quote, n) for n in needles)
        checked.append({"chunk_id": cit.get("chunk_id"), "source": cit.get("source"),
                        "chunk_found": chunk is not None, "verbatim": verbatim, "holds_answer": holds})
        if verbatim and holds:
            return {"cited": True, "supporting": checked[-1], "checked": checked}
    return {"cited": False, "supporting": None, "checked": checked}


def answer_correct(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    answerable = [(q, a) for q, a in rows if is_answerable(q)]
    for q, a in answerable:
        ok = is_correct(q, a)
        evidence[qid(q)] = {"correct": ok, "refused": is_refused(a), "error": is_error(a),
                            "expected": q.get("expected_answer")}
        if ok:
            hits.append(qid(q))
    return rate("answer_correct", len(hits), len(answerable), hits, evidence)


def answer_correct_lenient(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    answerable = [(q, a) for q, a in rows if is_answerable(q)]
    for q, a in answerable:
        strict, f1 = is_correct(q, a), best_f1(q, a)
        ok = is_answer(a) and (strict or f1 >= LENIENT_F1)
        evidence[qid(q)] = {"correct": ok, "strict": strict, "f1": round(f1, 4), "refused": is_refused(a),
                            "error": is_error(a)}
        if ok:
            hits.append(qid(q))
    return rate("answer_correct_lenient", len(hits), len(answerable), hits, evidence)


def citation_accuracy(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    hits, evidence = [], {}
    correct = [(q, a) for q, a in rows if is_correct(q, a)]
    for q, a in correct:
        check = citation_check(q, a, chunk_texts)
        evidence[qid(q)] = check
        if check["cited"]:
            hits.append(qid(q))
    return rate("citation_accuracy", len(hits), len(correct), hits, evidence)
