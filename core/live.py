"""Live quality: what real asks (the traces) say, as opposed to offline eval runs.

From each ask's status, time and rating:
- per local day: asks, answered / refused / corrected shares, p50 latency;
- overall: the same shares, p50/p95 latency, thumbs up share of rated answers;
- the questions refused most often, by what each was read as (case and spacing folded),
  with their newest trace.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from core import store
from core.config import Settings

ANSWER_STATUSES = ("answered", "narrowed", "fallback")


def percentile(values: Sequence[float], p: float) -> float | None:
    """The p-th percentile, linearly interpolated between the closest ranks (the eval
    harness's latency metrics use this too)."""
    data = sorted(float(v) for v in values)
    if not data:
        return None
    pos = (len(data) - 1) * p / 100.0
    low = int(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)


def _shares(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    count = {s: sum(1 for r in rows if r["status"] == s) for s in ("refused", "corrected")}
    answered = sum(1 for r in rows if r["status"] in ANSWER_STATUSES)
    times = [r["total_ms"] for r in rows if r.get("total_ms") is not None]
    return {"asks": n, "answer_rate": answered / n if n else None,
            "refusal_rate": count["refused"] / n if n else None,
            "corrected_rate": count["corrected"] / n if n else None,
            "latency_p50_ms": percentile(times, 50), "latency_p95_ms": percentile(times, 95)}


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Overall figures over the rows (store.trace_stats_rows)."""
    up = sum(1 for r in rows if r.get("rating") == 1)
    down = sum(1 for r in rows if r.get("rating") == -1)
    return {**_shares(rows), "rated": up + down, "share_up": up / (up + down) if up + down else None}


MIN_DAYS = 7  # a chart of one busy day is a single wall of colour


def per_day(rows: Sequence[dict[str, Any]], today: dt.date | None = None, period: int = MIN_DAYS) -> list[dict[str, Any]]:
    """One row per local day of the `period` ending today (at least MIN_DAYS; from the first
    ask when that is earlier), oldest first; a quiet day has 0 asks and no shares. The whole
    period: "last 30 days" drew the same week as "last 7 days" when its asks were recent (a
    QA pass)."""
    if not rows:
        return []
    days: dict[dt.date, list[dict[str, Any]]] = {}
    for r in rows:
        days.setdefault(dt.datetime.fromtimestamp(r["created_at"]).date(), []).append(r)
    last = max(max(days), today or dt.date.today())
    first = min(min(days), last - dt.timedelta(days=max(MIN_DAYS, period) - 1))
    span = [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]
    return [{"day": day.isoformat(), **_shares(days.get(day, []))} for day in span]


def top_refused(rows: Sequence[dict[str, Any]], limit: int = 10) -> list[dict[str, Any]]:
    """The questions refused most often, grouped by what each was read as (a follow-up's
    `asked_as`, else the question; case and spacing folded): "And in Riga?" after two other
    questions is two questions. Each: question (the newest reading), typed (the newest typed
    text when it reads otherwise, else None), times, last_asked, trace_id (the newest
    refusal's); ties broken by recency."""
    groups: dict[str, dict[str, Any]] = {}
    for r in rows:  # newest first: the first row of a group is its newest
        if r["status"] != "refused":
            continue
        reading = r.get("asked_as") or r["question"]
        typed = r["question"] if store.fold(r["question"]) != store.fold(reading) else None
        group = groups.setdefault(store.fold(reading), {
            "question": reading, "typed": typed, "times": 0, "last_asked": r["created_at"],
            "trace_id": r["trace_id"]})
        group["times"] += 1
    ranked = sorted(groups.values(), key=lambda g: (-g["times"], -g["last_asked"]))
    return ranked[:limit]


def live_quality(settings: Settings, tenant: str, days: int = 30) -> dict[str, Any]:
    """Everything the live section shows, over the last `days` days of the tenant's asks."""
    since = (dt.datetime.now() - dt.timedelta(days=days)).timestamp()
    rows = store.trace_stats_rows(settings, tenant, since=since)
    return {"summary": summary(rows), "per_day": per_day(rows, period=days), "top_refused": top_refused(rows),
            "days": days}
