"""Latency: p50 and p95 of the end-to-end ask time, in milliseconds.

  1. Take `timings_ms.total` of every answer that has one (the pipeline measures it from
     the start of ask() to the finished Answer, trace excluded).
  2. Sort the values; the p-th percentile is linearly interpolated between the closest
     ranks: position (n - 1) * p / 100 (numpy's default method).
  3. latency_p50_ms = 50th percentile, latency_p95_ms = 95th (None with no timings).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.live import percentile
from evals.metrics.base import ChunkTexts, MetricResult, Row, qid


def _latency(name: str, p: float, rows: Sequence[Row], stage: str = "total") -> MetricResult:
    evidence = {}
    for q, a in rows:
        value = (a.get("timings_ms") or {}).get(stage)
        if isinstance(value, int | float):
            evidence[qid(q)] = float(value)
    value = percentile(list(evidence.values()), p)
    return MetricResult(name, None if value is None else round(value, 2), 0, len(evidence),
                        [], evidence)


def latency_p50_ms(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    return _latency("latency_p50_ms", 50, rows)


def latency_p95_ms(rows: Sequence[Row], chunk_texts: ChunkTexts | None = None) -> MetricResult:
    return _latency("latency_p95_ms", 95, rows)
