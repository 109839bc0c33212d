"""The Quality page's live section: figures from real asks (core/live.py), each card with
its target (core/targets.py) and a good/bad colour, the refused questions with links to
their traces, and the users' feedback (ui/feedback.py)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.config import Settings
from core.targets import Target
from ui import auth, charts, services
from ui.feedback import trace_link
from ui.format import count_of, fmt_time
from ui.safe import clean, clip, escape_md

LIVE_CARD_WIDTH = 190
LIVE_CARDS = (
    ("asks", "Asks", "Questions asked on any page, the CLI or the API in the period.", None),
    ("answer_rate", "Answered", "Share of asks answered with cited quotes (answered, narrowed or quotes-only).", None),
    ("refusal_rate", "Refused", "Share of asks the assistant declined: not in the knowledge base, or not sure enough.",
     "refusal_rate"),
    ("corrected_rate", "Premise corrected", "Share of asks whose question took for granted something the "
     "documents contradict; the answer said so.", None),
    ("latency_p50_ms", "Typical wait", "Median time from question to answer.", "latency_p50_ms"),
    ("share_up", "Thumbs up", "Share of rated answers rated up on the Ask page.", "share_up"),
)


def target_badge_md(target: Target | None, observed: float | None, unsure: str = "") -> str:
    """":green-badge[on target ≥ 80%]" / ":red-badge[off target ...]" / "" (no target or no data);
    gray with `unsure` when the figure cannot tell either way (too few questions)."""
    if target is None:
        return ""
    met = target.met(observed)
    if met is None:
        return f":gray-badge[target {escape_md(target.text(), inline=True)}]"
    if unsure:  # short: a card is 200 px wide, and a longer badge was cut (the layout test)
        return f":gray-badge[{escape_md(unsure, inline=True)} ({escape_md(target.text(), inline=True)})]"
    return (f":green-badge[:material/check: on target {escape_md(target.text(), inline=True)}]" if met
            else f":red-badge[:material/warning: off target {escape_md(target.text(), inline=True)}]")


def fmt_live(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if key == "asks":
        return f"{value:,}"
    if key.endswith("_ms"):
        return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"
    return f"{100 * value:.0f}%"


def cards(summary: dict[str, Any], targets: dict[str, Target]) -> None:
    row = st.container(horizontal=True)
    for key, label, help_text, target_key in LIVE_CARDS:
        target = targets.get(target_key) if target_key else None
        # 190: "on target ≤ 1000 ms" whole (at 170, two to a row on a phone, it was cut to "1000 …")
        box = row.container(border=True, width=LIVE_CARD_WIDTH)
        box.metric(label, fmt_live(key, summary.get(key)),
                   help=help_text + (f" Target {target.text()} (set on the Settings page)." if target else ""))
        if key == "share_up" and summary.get("rated") is not None:
            # a share of one or two ratings read as a verdict on the tenant: say how many (QA pass)
            rated = summary["rated"]
            box.caption(f"of {count_of(rated, 'rated answer')}" if rated else "no answer rated yet")
        badge = target_badge_md(target, summary.get(key))
        if badge:
            box.markdown(badge)


def refused_frame(rows: list[dict[str, Any]], tenant: str) -> pd.DataFrame:
    """One row per question as it was read; "typed" beside it when a follow-up was typed
    otherwise ("And in Riga?"), the column left out when none was."""
    # the count first: on a phone a long question pushed it off the screen
    frame = pd.DataFrame([{"question": clip(clean(r["question"]), 300), "typed": clip(clean(r.get("typed") or ""), 300),
                           "times refused": r["times"], "last asked": fmt_time(r["last_asked"]),
                           "trace": trace_link(r["trace_id"], tenant)}
                          for r in rows], columns=["times refused", "question", "typed", "last asked", "trace"])
    return frame if any(r.get("typed") for r in rows) else frame.drop(columns="typed")


def render(settings: Settings, tenant: str) -> None:
    days = st.segmented_control("Period", [7, 30, 90], default=30, format_func=lambda d: f"last {d} days",
                                key="live_days") or 30
    data = services.live_quality(settings, tenant, days)
    summary = data["summary"]
    if not summary["asks"]:
        st.info(f"No asks in the last {days} days: figures appear here as people use the **Ask** page.",
                icon=":material/monitoring:")
        return
    cards(summary, services.quality_targets(settings, tenant))
    st.plotly_chart(charts.live_per_day(data["per_day"]), width="stretch", key="chart_live_days")
    st.markdown("**Questions refused most often**")
    if data["top_refused"]:
        frame = refused_frame(data["top_refused"], tenant)
        if auth.may_open(settings, "traces", tenant):
            st.caption("Open a trace to see what was retrieved; the **Review** page turns a refusal into an eval "
                       "row or a synonym.")
        else:  # a manager: Traces and Review are the experts' and admins' pages
            frame = frame.drop(columns="trace")
            st.caption("The tenant's experts and admins see what was retrieved for each on the **Traces** page, "
                       "and turn a refusal into an eval row or a synonym on the **Review** page.")
        st.dataframe(frame, hide_index=True, width="stretch",
                     column_config={"times refused": st.column_config.NumberColumn("times refused", width="small"),
                                    "question": st.column_config.TextColumn(
                                        "question", help="The question as it was read: a follow-up as the whole "
                                        "question it stands for."),
                                    "typed": st.column_config.TextColumn(
                                        "typed", help="What the user typed, when it was a follow-up read otherwise."),
                                    "trace": st.column_config.LinkColumn(
                         "trace", display_text="open trace", width="small",
                         help="Opens the newest refusal of this question on the Traces page.")})
    else:
        st.caption("No refusals in this period.")
