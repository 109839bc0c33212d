"""Faithfulness: how many claims of the given answers their cited passages support.

  1. Take the answers that state something (answered, narrowed, fallback); refusals and
     failed asks (status `error`) carry no claims to check.
  2. Collect their claims (the verifier's split of the answer, each with a verdict).
  3. value = claims with verdict `supported` / all those claims (None when no answer
     carried a claim). Per question: supported and total claim counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.metrics.base import ChunkTexts, MetricResult, Row, is_answer, qid


def faithfulness(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    supported = total = 0
    hits, evidence = [], {}
    for q, a in rows:
        if not is_answer(a):
            continue
        claims = a.get("claims") or []
        good = sum(1 for c in claims if c.get("verdict") == "supported")
        supported, total = supported + good, total + len(claims)
        evidence[qid(q)] = {"supported": good, "claims": len(claims),
                            "not_supported": [c.get("text") for c in claims if c.get("verdict") != "supported"]}
        if claims and good == len(claims):
            hits.append(qid(q))
    value = supported / total if total else None
    return MetricResult("faithfulness", value, supported, total, hits, evidence)
