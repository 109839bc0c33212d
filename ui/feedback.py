"""The Quality page's "User feedback" tab: what users said about answers on the Ask page.

Cards (answers rated, thumbs up, thumbs down, share positive), ratings per day, and the
feedback with the ask it rates, one row each, linking to its trace. Questions and comments
are untrusted: they reach the browser only as `st.dataframe` cells, never as Markdown or
HTML. Everything is the selected tenant's (`store.list_feedback_with_traces` is tenant-scoped).
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from core.config import Settings
from ui import auth, charts, services
from ui.format import ask_threshold, confidence_cell, fmt_pct, fmt_time
from ui.safe import clean, clip, escape_md

# words beside the emoji: a browser without an emoji font still shows which is which
RATING_TEXT = {1: "up", -1: "down"}  # words, not emoji: a browser may lack an emoji font
MIN_DAYS = 7  # the chart spans at least a week, so one busy day is not a single wall of colour
TABLE_COLUMNS = ["when", "rating", "question", "status", "confidence", "comment", "trace"]


# ---- numbers and rows (pure) ---------------------------------------------------------------


def trace_link(trace_id: str, tenant: str) -> str:
    """The Traces page deep link `traces?trace=<id>&tenant=<tenant>` (URL-encoded).

    The link column opens it in a new tab, a new session, so the tenant rides along (the
    sidebar picker applies `?tenant=`). Path-relative on purpose: from `<base>/quality` it
    resolves to `<base>/traces`, also when the server runs under `server.baseUrlPath`.
    """
    return "traces?" + urlencode({"trace": trace_id, "tenant": tenant})


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Answers rated (distinct traces), thumbs up and down (ratings given), share positive.
    The store keeps one rating per answer (a second send updates it), so ratings given are
    answers rated up or down."""
    up = sum(1 for r in rows if r.get("rating") == 1)
    down = sum(1 for r in rows if r.get("rating") == -1)
    return {"rated": len({r.get("trace_id") for r in rows}), "up": up, "down": down,
            "share_up": up / (up + down) if up + down else None}


def _day(ts: float) -> dt.date:
    return dt.datetime.fromtimestamp(ts).date()


def per_day(rows: list[dict[str, Any]], today: dt.date | None = None) -> list[dict[str, Any]]:
    """Thumbs up and down per local day, oldest first, up to today (quiet days since the last
    rating show as such), at least `MIN_DAYS` days, days without feedback filled with 0."""
    if not rows:
        return []
    counts: dict[dt.date, dict[str, int]] = {}
    for r in rows:
        day = counts.setdefault(_day(r["created_at"]), {"up": 0, "down": 0})
        day["up" if r.get("rating") == 1 else "down"] += 1
    last = max(max(counts), today or dt.date.today())
    first = min(min(counts), last - dt.timedelta(days=MIN_DAYS - 1))
    out = []
    for i in range((last - first).days + 1):
        day = first + dt.timedelta(days=i)
        out.append({"day": day.isoformat(), **counts.get(day, {"up": 0, "down": 0})})
    return out


def table_frame(rows: list[dict[str, Any]], tenant: str, threshold: float | None = None) -> pd.DataFrame:
    """One row per feedback, newest first; text cleaned and clipped (shown as data only).
    Feedback whose trace is no longer stored gets no link and status "(no trace)". A confidence
    is shown against its ask's threshold, `threshold` (the tenant's) when its trace recorded none."""
    return pd.DataFrame([{
        "when": fmt_time(r.get("created_at")),
        "rating": RATING_TEXT.get(r.get("rating"), ""),
        "question": clip(clean(r.get("question") or ""), 300),
        "status": r.get("status") or "(no trace)",
        "confidence": confidence_cell(r.get("confidence"), ask_threshold(r, threshold)),
        "comment": clip(clean(r.get("comment") or ""), 1000),
        "trace": trace_link(r["trace_id"], tenant) if r.get("status") else None,
    } for r in rows], columns=TABLE_COLUMNS)


# ---- rendering -----------------------------------------------------------------------------


def metric_cards(rows: list[dict[str, Any]]) -> None:
    s = summary(rows)
    row = st.container(horizontal=True)  # wraps when narrow: fixed columns cut the labels short
    row.metric("Answers rated", s["rated"], border=True,
               help="Distinct answers with at least one rating.")
    row.metric("Thumbs up", s["up"], border=True,
               help="Answers rated up (one rating per answer: sending again updates it).")
    row.metric("Thumbs down", s["down"], border=True,
               help="Answers rated down (one rating per answer: sending again updates it).")
    row.metric("Share positive", fmt_pct(s["share_up"]), border=True,
               help="Thumbs up over all answers rated.")


def feedback_table(rows: list[dict[str, Any]], tenant: str, linked: bool = True,
                   threshold: float | None = None) -> None:
    """The feedback rows; without `linked` (a user who may not open Traces) no trace column;
    `threshold`: the tenant's, for asks whose trace recorded none."""
    frame = table_frame(rows, tenant, threshold)
    if not linked:
        frame = frame.drop(columns="trace")
    st.dataframe(
        frame, hide_index=True, placeholder="—", width="stretch",
        height=min(35 * (len(frame) + 1) + 3, 456),
        column_config={
            "when": st.column_config.TextColumn("when", help="When the rating was given."),
            "rating": st.column_config.TextColumn("rating", width="small"),
            "status": st.column_config.TextColumn("answer status"),
            "confidence": st.column_config.TextColumn("confidence"),
            "trace": st.column_config.LinkColumn(
                "trace", display_text="open trace", width="small",
                help="Opens the ask on the Traces page in a new tab."),
        },
    )


def render(settings: Settings, tenant: str | None) -> None:
    """The tab's content for `tenant` (the sidebar's); a short message when there is nothing."""
    if not tenant:
        st.info("Pick a tenant in the sidebar to see its users' feedback.", icon=":material/person_search:")
        return
    linked = auth.may_open(settings, "traces", tenant)  # a manager's link led to a lock
    st.caption("Ratings and comments users gave on the **Ask** page for tenant "
               + escape_md(tenant, inline=True) + ", newest first."
               + (" Open a row's trace to see how the answer came about." if linked else ""))
    since_col, _ = st.columns([1, 3])
    since = since_col.date_input("Since", value=None, key="quality_fb_since")
    since_ts = dt.datetime.combine(since, dt.time()).timestamp() if since else None
    rows = services.feedback_with_traces(settings, tenant, since=since_ts)
    if not rows:
        st.info("No feedback since that day." if since else
                "No feedback yet: users rate answers with thumbs up or down on the **Ask** page (Feedback tab of an answer).",
                icon=":material/reviews:")
        return
    metric_cards(rows)
    st.plotly_chart(charts.feedback_per_day(per_day(rows)), width="stretch", key="chart_feedback")
    only_down = st.toggle("Only thumbs down", key="quality_fb_only_down")
    shown = [r for r in rows if r.get("rating") == -1] if only_down else rows  # one query per run
    if not shown:
        st.caption("No thumbs down" + (" since that day." if since else " yet."))
        return
    feedback_table(shown, tenant, linked, settings.for_tenant(tenant).gate_threshold)


def section(settings: Settings, tenant: str | None) -> None:
    """The same content under a heading, for a Quality page that has no eval run to show."""
    st.subheader("User feedback", divider="gray")
    render(settings, tenant)
