"""Quality-page rendering: metric cards (value and delta vs the previous run) and the drift
banner. The numbers come from `ui.quality` (pure)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from evals.metrics.intervals import fmt_interval
from ui import quality as q
from ui.safe import escape_md


def metric_cards(runs: list[dict[str, Any]], run_id: str, overall: dict[str, Any], retrieval_k: int | None,
                 targets: dict[str, Any] | None = None, intervals: dict[str, Any] | None = None,
                 answers: int | None = None) -> None:
    """Cards in three themed rows (answers; refusals; retrieval and speed), each with its
    delta against the previous run of the set (inverse colours where lower is better), the
    rate's 95 % interval (`intervals`, from the report; a run stored before has none) and,
    where the tenant has a target for it, a green "on target" or red "off target" badge, gray
    when the run cannot tell (`q.too_few_to_judge`; `answers`: how many were answered)."""
    from ui.live import target_badge_md

    before = q.previous_run(runs, run_id)
    for row in q.card_rows(overall):
        line = st.container(horizontal=True)  # wraps when narrow: fixed columns cut the labels short
        for m in row:
            now, old = overall.get(m), (before or {}).get("overall", {}).get(m)
            # judged at the shown precision: Streamlit colours "+0 ms" as a rise (red when inverse)
            unchanged = q.shown_delta(m, now, old) == 0
            target = (targets or {}).get(m)
            bounds = (intervals or {}).get(m)
            interval = fmt_interval(bounds)
            box = line.container(border=True, width=200)
            box.metric(
                q.label(m, retrieval_k), q.fmt_value(m, now),
                delta="no change" if unchanged else q.fmt_delta(m, now, old),
                # lower is better for hallucination, too_conservative and latencies: a fall is green
                delta_color="off" if unchanged else ("inverse" if q.lower_is_better(m) else "normal"),
                delta_arrow="off" if unchanged else "auto",
                help=q.HELP.get(m, "") + (f" Compared with run {before['run_id']}." if before
                                          else " First run of this set.")
                + (f" Target {target.text()} (Settings page)." if target else "")
                + (f" Over the questions it counts, the rate lies within {interval} 95 times in 100 "
                   "(Wilson interval): a change smaller than that can be chance." if interval else ""),
            )
            if interval:
                box.caption(f"95% interval {interval}")
            if m == "faithfulness" and answers is not None:
                box.caption(f"over the claims of {answers} answer{'' if answers == 1 else 's'}")
            if target is not None:
                box.markdown(target_badge_md(target, now, q.too_few_to_judge(m, target, bounds, answers)))


def drift_banner(drifts: list[q.Drift], margin: float, has_previous: bool,
                 significance: dict[str, Any] | None = None) -> None:
    """Each drop beyond the margin, with the sign test over the questions that changed
    between the two runs (`significance`, evals.compare): a drop can be chance."""
    for d in drifts:
        st.error("Drift: " + escape_md(d.sentence(), inline=True), icon=":material/trending_down:")
    if drifts and significance:
        st.caption("Between these two runs: " + escape_md(significance["sentence"], inline=True))
    if has_previous and not drifts:
        st.success(f"No metric dropped more than {100 * margin:.1f} points since the previous run.",
                   icon=":material/verified:")
