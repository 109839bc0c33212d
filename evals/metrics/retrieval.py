"""Retrieval metrics: hit_rate@k and mrr, from the passages each answer carries.

Each answer's `retrieved` list holds the top-k passages retrieval ranked (plus neighbour
chunks added as extra context, marked `neighbour`; they are not ranked and are skipped).

hit_rate@k:
  1. Keep the answerable questions; they form the denominator.
  2. Walk the question's retrieved passages in rank order (neighbours skipped). A passage
     is the gold passage if its source file is the gold source (file name, case-insensitive)
     and the gold quote lies in its text — whitespace-normalised and case-insensitive, with
     a fallback on word tokens only so markup the parser dropped does not decide it.
  3. The question is a hit if any of its top-k passages is a gold passage.
  4. value = hits / denominator (None without answerable questions). An answer without a
     `retrieved` list counts as a miss and raises a warning; a failed ask (status `error`)
     carries an empty list, so it is a miss too.

mrr:
  1. Same denominator and matching as hit_rate@k.
  2. Per question: 1 / rank of the first gold passage (its position among the ranked
     passages, 1 = best), 0 if none.
  3. value = mean over the denominator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from evals.metrics.base import ChunkTexts, MetricResult, Row, is_answerable, qid
from evals.metrics.text import loose_contains


def _same_source(gold: str | None, source: str | None) -> bool:
    if not gold:
        return True  # no gold source given: any document may hold the quote
    return PurePath(str(gold).replace("\\", "/")).name.casefold() == \
        PurePath(str(source or "").replace("\\", "/")).name.casefold()


def ranked_passages(answer: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    passages = [p for p in answer.get("retrieved") or [] if not p.get("neighbour")]
    return sorted(passages, key=lambda p: p.get("rank") or 10**9)


def gold_rank(question: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
    """The rank and chunk of the first retrieved passage holding the gold quote, if any."""
    if "retrieved" not in answer:
        return {"rank": None, "chunk_id": None, "k": 0, "missing_retrieved": True}
    passages = ranked_passages(answer)
    gold_quote = question.get("gold_quote")
    for position, p in enumerate(passages, start=1):
        if not _same_source(question.get("gold_source"), p.get("source")):
            continue
        if gold_quote and loose_contains(p.get("text") or "", gold_quote):
            return {"rank": position, "chunk_id": p.get("chunk_id"), "k": len(passages)}
    return {"rank": None, "chunk_id": None, "k": len(passages)}


def _judge(rows: Sequence[Row]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    judged, missing = [], []
    for q, a in rows:
        if not is_answerable(q):
            continue
        found = gold_rank(q, a)
        if found.get("missing_retrieved"):
            missing.append(qid(q))
        judged.append((qid(q), found))
    warnings = []
    if missing:
        warnings.append(f"{len(missing)} answer(s) carry no 'retrieved' passages; counted as misses "
                        f"(e.g. {', '.join(missing[:3])}).")
    return judged, warnings


def hit_rate(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    judged, warnings = _judge(rows)
    hits = [i for i, f in judged if f["rank"] is not None]
    value = len(hits) / len(judged) if judged else None
    return MetricResult("hit_rate", value, len(hits), len(judged), hits, dict(judged), warnings)


def mrr(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    judged, warnings = _judge(rows)
    total = sum(1.0 / f["rank"] for _, f in judged if f["rank"])
    hits = [i for i, f in judged if f["rank"] is not None]
    value = total / len(judged) if judged else None
    return MetricResult("mrr", value, round(total, 6), len(judged), hits, dict(judged), warnings)
