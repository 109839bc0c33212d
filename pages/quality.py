"""Quality (managers): run an eval set, metric cards with deltas, breakdowns, history and
drift, the confidence gate's trade-off, latency, run comparison and CSV export; and the
users' thumbs up/down and comments from the Ask page (User feedback), shown even before any run."""

import pandas as pd
import streamlit as st

from ui import charts, dashboard, feedback, services
from ui import quality as q
from ui.format import fmt_time
from ui.safe import escape_md
from ui.state import base_settings, current_tenant, ensure_navigation

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings = base_settings()


@st.cache_data(max_entries=16, show_spinner="Simulating the gate at every threshold…")
def cached_curve(run_id: str, _report: dict) -> list[dict]:
    return services.calibration_points(_report)


st.title("Quality")
st.caption("Eval runs are stored with their settings, so any two can be compared and drift shown over time. "
           "Rates are over the set's questions; see the metric table in docs/architecture.md.")

# ---- run a set ---------------------------------------------------------------------------------
sets = {services.set_name(p): p for p in services.eval_sets(settings)}
run_names = sorted({r["set_name"] for r in services.list_eval_runs(settings)})
names = list(dict.fromkeys([*sets, *run_names]))
if not names:
    st.info("No eval sets yet: add one under evals/sets/, or use **Add to eval set** on the Ask page.",
            icon=":material/playlist_add:")
    feedback.section(settings, current_tenant())
    st.stop()
set_choice = st.selectbox("Eval set", names, key="quality_set")

with st.expander("Run this set now", expanded=not services.list_eval_runs(settings, set_choice),
                 icon=":material/play_circle:"):
    missing = services.evals_available()
    if set_choice not in sets:
        st.caption("This set's file is not on this machine; only its stored runs can be shown.")
    elif missing:
        st.warning(escape_md(missing, inline=True))
    else:
        splits = services.set_splits(sets[set_choice])
        c1, c2, c3 = st.columns([1, 1, 1], vertical_alignment="bottom")
        split = c1.selectbox("Split", ["all", *splits], index=(1 + splits.index("test")) if "test" in splits else 0,
                             key="quality_split")
        tenant_mode = c2.selectbox("Tenant", ["as in the set", f"current: {current_tenant() or '—'}"],
                                   key="quality_tenant", disabled=current_tenant() is None)
        can_ingest = services.has_corpus_manifest(sets[set_choice])
        wants_ingest = c3.toggle("Ingest the set's corpus first", value=can_ingest, disabled=not can_ingest,
                                 key=f"quality_ingest_{set_choice}",
                                 help="Idempotent: files already indexed with the same bytes are skipped."
                                 if can_ingest else "This set has no NAME.corpus.json beside it.")
        ingest = can_ingest and wants_ingest
        if st.button("Run eval", type="primary", icon=":material/play_arrow:", key="quality_run_btn"):
            bar = st.progress(0.0, text="starting…")

            def progress(done: int, total: int) -> None:
                bar.progress(done / total if total else 1.0, text=f"{done} of {total} questions")

            tenant = current_tenant() if tenant_mode.startswith("current") else None
            try:
                report = services.run_eval(settings, sets[set_choice], split=split, tenant=tenant,
                                           ingest=ingest, progress=progress)
            except (ValueError, OSError) as exc:
                st.error(escape_md(str(exc), inline=True))
                st.stop()
            st.session_state["quality_pick"] = report["run_id"]
            st.rerun()

runs = services.list_eval_runs(settings, set_choice)
if not runs:
    st.info("No stored runs of this set yet: run it above.")
    feedback.section(settings, current_tenant())
    st.stop()

# ---- which run -----------------------------------------------------------------------------
ids = [r["run_id"] for r in runs][::-1]  # newest first
by_id = {r["run_id"]: r for r in runs}
pick_col, margin_col = st.columns([3, 1], vertical_alignment="bottom")
pick = st.session_state.pop("quality_pick", None)
if pick in ids or st.session_state.get("quality_run") not in ids:
    st.session_state["quality_run"] = pick if pick in ids else ids[0]
run_id = pick_col.selectbox(
    "Run", ids, key="quality_run",
    format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i} · split {by_id[i].get('split') or 'all'}"
                          f" · tenant {by_id[i].get('tenant') or 'per set'}")
margin = margin_col.number_input("Drift margin (points)", min_value=0.0, max_value=50.0, value=5.0, step=0.5,
                                 key="quality_margin") / 100
report = services.get_eval_run(settings, run_id) or {}
overall = report.get("overall") or by_id[run_id].get("overall") or {}
before = q.previous_run(runs, run_id)

# ---- metric cards + drift ------------------------------------------------------------------
metrics = q.headline_metrics(overall)
dashboard.metric_cards(runs, run_id, overall, report.get("retrieval_k"))
drifts = q.drift_alerts(runs, margin, upto=run_id)
dashboard.drift_banner(drifts, margin, before is not None)

# ---- charts ------------------------------------------------------------------------------
tab_break, tab_hist, tab_cal, tab_lat, tab_cmp, tab_q, tab_fb = st.tabs(
    ["Breakdown", "History", "Calibration", "Latency", "Compare runs", "Questions & export", "User feedback"])
rate_metrics = [m for m in metrics if not q.is_latency(m) and m != "mrr"]
with tab_break:
    shown = st.multiselect("Metrics", rate_metrics, default=[m for m in ("answer_correct", "refusal_correct",
                           "hallucination", "grounded_only") if m in rate_metrics] or rate_metrics[:4],
                           format_func=q.label, key="quality_break_metrics")
    left, right = st.columns(2)
    kind_rows = q.group_rows(report, "by_kind", shown)
    cat_rows = q.group_rows(report, "by_category", shown)
    if kind_rows:
        left.plotly_chart(charts.group_bars(kind_rows, "Per kind", shown), width="stretch", key="chart_kind")
    if cat_rows:
        right.plotly_chart(charts.group_bars(cat_rows, "Per category", shown), width="stretch", key="chart_category")
    if not kind_rows and not cat_rows:
        st.caption("This run has no per-kind or per-category breakdown.")
with tab_hist:
    hist_metrics = st.multiselect("Metrics", [m for m in metrics if m != "mrr"],
                                  default=[m for m in ("grounded_only", "answer_correct", "hallucination")
                                           if m in metrics] or metrics[:3],
                                  format_func=q.label, key="quality_hist_metrics")
    rates = [m for m in hist_metrics if not q.is_latency(m)]
    lats = [m for m in hist_metrics if q.is_latency(m)]
    drifted = {d.metric for d in drifts}
    if rates:
        st.plotly_chart(charts.history_lines(q.history_rows(runs, rates), drifted), width="stretch", key="chart_history")
    if lats:
        st.plotly_chart(charts.history_lines(q.history_rows(runs, lats)), width="stretch", key="chart_history_latency")
    st.download_button("Download all runs (CSV)", q.runs_csv(runs), file_name=f"{set_choice}-runs.csv",
                       mime="text/csv", icon=":material/download:", on_click="ignore", key="csv_runs")
with tab_cal:
    points = cached_curve(run_id, report)
    if points:
        current = q.run_threshold(report)
        st.plotly_chart(charts.calibration(points, current, q.recommended_threshold(report)), width="stretch",
                        key="chart_calibration")
        st.caption("Moving the threshold right refuses more: fewer hallucinations, more answerable questions "
                   "refused. The dashed line is the threshold in effect; change it on the Settings page."
                   + ("" if report.get("calibration") else " Below this run's own threshold the curve is flat "
                      "(those questions were refused before answering): `python -m evals.calibrate` runs "
                      "the set with the gate open for the full curve."))
    else:
        st.caption("This run has no per-question confidences.")
with tab_lat:
    values = q.latencies_ms(report)
    if values:
        st.plotly_chart(charts.latency_hist(values, overall.get("latency_p50_ms"), overall.get("latency_p95_ms")),
                        width="stretch", key="chart_latency")
    else:
        st.caption("This run has no per-question timings.")
with tab_cmp:
    if len(ids) < 2:
        st.caption("Compare needs two runs of this set.")
    else:
        a_col, b_col = st.columns(2)
        run_a = a_col.selectbox("Run A (before)", ids, index=min(1, len(ids) - 1), key="quality_cmp_a",
                                format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i}")
        run_b = b_col.selectbox("Run B (after)", ids, index=ids.index(run_id), key="quality_cmp_b",
                                format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i}")
        comparison = services.compare_runs(services.get_eval_run(settings, run_a) or {},
                                           services.get_eval_run(settings, run_b) or {})
        st.dataframe(pd.DataFrame(q.delta_rows(comparison)), hide_index=True, width="stretch")
        flips = q.flip_rows(comparison)
        st.markdown(f"**{len(flips)} questions flipped** between A and B: "
                    f":green-badge[{comparison.get('improved', 0)} improved] "
                    f":red-badge[{comparison.get('regressed', 0)} regressed]")
        if flips:
            st.dataframe(pd.DataFrame(flips), hide_index=True, width="stretch")
with tab_q:
    questions = q.question_rows(report)
    st.dataframe(pd.DataFrame(questions), hide_index=True, width="stretch")
    st.download_button("Download this run's questions (CSV)", q.questions_csv(report),
                       file_name=f"{set_choice}-{run_id}.csv", mime="text/csv", icon=":material/download:",
                       on_click="ignore", key="csv_questions")
with tab_fb:
    feedback.render(settings, current_tenant())
