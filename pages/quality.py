"""Quality (managers): run an eval set in the background (progress, time left, cancel),
metric cards with deltas, breakdowns, history and drift, the confidence gate's trade-off,
why questions were refused, latency, run comparison and CSV export; and the users' thumbs
up/down and comments from the Ask page (User feedback), shown even before any run.

Only the runs stored for the tenant picked in the sidebar are shown, and a run started here
is stored for it. Cards, history, drift and compare use one comparable series of runs: same
set, split, tenants asked, mode and question limit."""

import pandas as pd
import streamlit as st

from ui import charts, dashboard, eval_job, feedback, live, services
from ui import quality as q
from ui.format import count_of, fmt_time
from ui.safe import escape_md
from ui.state import base_settings, current_tenant, ensure_navigation, tenant_settings

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings = base_settings()
tenant = current_tenant()


@st.cache_data(max_entries=16, show_spinner="Simulating the gate at every threshold…")
def cached_curve(run_id: str, _report: dict) -> list[dict]:
    return services.calibration_points(_report)


st.title("Quality")
st.caption("Live figures from the questions people really asked, then eval runs: stored with their settings, "
           "so any two can be compared and drift shown over time. "
           "Each card's (?) says what its rate counts and over which questions.")

if tenant is None:
    st.info("Pick a tenant in the sidebar: eval runs are stored and shown per tenant.",
            icon=":material/person_search:")
    st.stop()

# ---- live traffic (real asks) ------------------------------------------------------------------
st.subheader("Live: real asks", divider="gray")
live.render(settings, tenant)

# ---- run a set (in the background: ui/eval_job.py) -------------------------------------------
st.subheader("Eval runs", divider="gray")
running = eval_job.section(settings, tenant)  # the tenant's running job's progress, or how its last one ended
sets = {services.set_name(p): p for p in services.eval_sets(settings, tenant)}
run_names = sorted({r["set_name"] for r in services.list_eval_runs(settings, tenant)})
# the tenant's own first: its feedback set, then the sets it has runs of (a QA pass opened the
# page for its tenant on the demo set, offering to build eval-demo-demo tenants)
own = [n for n in sets if n == services.set_name(services.feedback_set_path(settings, tenant))]
names = list(dict.fromkeys([*own, *run_names, *sets]))
if not names:
    st.info("No eval sets yet: add one under evals/sets/, or use **Add to eval set** on the Ask page.",
            icon=":material/playlist_add:")
    feedback.section(settings, tenant)
    st.stop()
if not own and not run_names:  # a law firm's manager found only the demo's set here (QA pass)
    st.info(f"Tenant {escape_md(tenant, inline=True)} has no eval set of its own yet. Each answer an expert decides "
            "on the **Review** page, and each **Add to eval set** on the **Ask** page, adds a question of yours to "
            f"`{services.set_name(services.feedback_set_path(settings, tenant))}`, which then leads this list. "
            "The sets below are bundled examples that ask their own example documents.",
            icon=":material/playlist_add:")
finished_set = st.session_state.pop(eval_job.PICK_SET, None)
if finished_set in names and st.session_state.get("quality_set") is None:
    # a run that just finished is shown with its own set, unless the user picked a set:
    # a pick made while the run went on was undone when it ended (QA pass)
    st.session_state["quality_set"] = finished_set
# a hotel manager saw the product's own development sets listed as if they were theirs (QA pass)
set_choice = st.selectbox("Eval set", names, key="quality_set",
                          format_func=lambda n: f"{n} · bundled example (its own documents)"
                          if n in sets and services.is_bundled(sets[n]) else n)
all_runs = services.list_eval_runs(settings, tenant, set_choice)

with st.expander("Run this set now", expanded=not all_runs and running is None, icon=":material/play_circle:"):
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
        tenant_mode = c2.selectbox("Tenant", ["as in the set", f"current: {tenant}"], key="quality_tenant")
        can_ingest = services.has_corpus_manifest(sets[set_choice])
        wants_ingest = c3.toggle("Ingest the set's corpus into eval tenants", value=can_ingest, wrap=True,
                                 disabled=not can_ingest, key=f"quality_ingest_{set_choice}",
                                 help="Builds fresh tenants eval-<set>-<tenant> from the set's corpus and asks "
                                      "them; no user's tenant is written." if can_ingest
                                 else "This set has no NAME.corpus.json beside it.")
        ingest = can_ingest and wants_ingest
        mapped = tenant if tenant_mode.startswith("current") else None
        try:
            plan = services.eval_plan(sets[set_choice], owner=tenant, split=split, tenant=mapped, ingest=ingest)
            problem = None
        except (ValueError, OSError) as exc:
            plan, problem = {}, str(exc)
        if problem:
            st.warning(escape_md(problem, inline=True), icon=":material/block:")
        else:
            asked = sorted(set(plan.values()))
            st.caption(("Fresh eval tenants " if ingest else "Asks ") + ", ".join(f"`{t}`" for t in asked)
                       + (" are built from the set's corpus and asked" if ingest else "")
                       + "; the run is stored for " + escape_md(tenant, inline=True)
                       + ". It runs in the background: the page stays usable, with its progress above.")
        failed_start = st.session_state.pop(eval_job.RUN_ERROR, None)
        if failed_start:
            st.error(escape_md(failed_start, inline=True), icon=":material/error:")
        if running is not None:
            st.caption("A run is in progress above; wait for it or cancel it to start another.")
        st.button("Run eval", type="primary", icon=":material/play_arrow:", key="quality_run_btn",
                  disabled=problem is not None or running is not None,
                  help="One run at a time per tenant." if running is not None else None,
                  on_click=eval_job.start, args=(settings, sets[set_choice], tenant, split, mapped, ingest))

if not all_runs:
    st.info("No stored runs of this set yet for tenant " + escape_md(tenant, inline=True) + (
        ": the run in progress above is shown here when it ends." if running is not None else ": run it above."))
    feedback.section(settings, tenant)
    st.stop()

# ---- which runs can be compared, and which run ------------------------------------------------
series = q.group_series(all_runs)
keys = list(series)
pick = st.session_state.pop(eval_job.PICK_RUN, None)
picked_key = next((k for k, rs in series.items() if pick in {r["run_id"] for r in rs}), None)
if picked_key is not None or st.session_state.get("quality_series") not in keys:
    st.session_state["quality_series"] = picked_key or keys[0]
series_key = st.selectbox(
    "Series", keys, key="quality_series",
    format_func=lambda k: f"{q.series_label(k)} · {count_of(len(series[k]), 'run')}",
    help="History, drift and deltas compare only runs of the same set, split, tenants asked, mode (a calibration "
         "run has the gate open) and question limit.")
runs = series[series_key]
ids = [r["run_id"] for r in runs][::-1]  # newest first
by_id = {r["run_id"]: r for r in runs}
pick_col, margin_col = st.columns([3, 1], vertical_alignment="bottom")
if pick in ids or st.session_state.get("quality_run") not in ids:
    st.session_state["quality_run"] = pick if pick in ids else ids[0]
run_id = pick_col.selectbox(
    "Run", ids, key="quality_run",
    format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i} · commit {(by_id[i].get('git_commit') or '?')[:8]}")
margin = margin_col.number_input("Drift margin (points)", min_value=0.0, max_value=50.0, value=5.0, step=0.5,
                                 key="quality_margin") / 100
report = services.get_eval_run(settings, tenant, run_id) or {}
# which gate the run was asked with, and whose settings: a threshold changed on the Settings
# page moves no run on the set's own corpus (fresh eval tenants keep their own)
st.caption(q.threshold_caption(report, tenant, tenant_settings(tenant).gate_threshold))
overall = report.get("overall") or by_id[run_id].get("overall") or {}
before = q.previous_run(runs, run_id)
if overall.get("errors"):
    st.warning(f"{overall['errors']} of {overall.get('n', '?')} questions failed with an error in this run; they "
               "count as failures (never as refusals) in every metric.", icon=":material/error:")

# ---- metric cards + drift ------------------------------------------------------------------
metrics = q.headline_metrics(overall)
dashboard.metric_cards(runs, run_id, overall, report.get("retrieval_k"), services.quality_targets(settings, tenant),
                       (report.get("intervals") or {}).get("overall"), q.answered_count(report))
drifts = q.drift_alerts(runs, margin, upto=run_id)
significance = services.change_significance(settings, tenant, drifts[0].run_before, report) if drifts else None
dashboard.drift_banner(drifts, margin, before is not None, significance)

# ---- charts ------------------------------------------------------------------------------
tab_break, tab_hist, tab_cal, tab_ref, tab_lat, tab_cmp, tab_q, tab_fb = st.tabs(
    ["Breakdown", "History", "Calibration", "Refusals", "Latency", "Compare runs", "Questions & export",
     "User feedback"])
rate_metrics = [m for m in metrics if not q.is_latency(m) and m != "mrr"]
with tab_break:
    shown = st.multiselect("Metrics", rate_metrics, default=[m for m in ("answer_correct", "refusal_correct",
                           "hallucination", "grounded_only") if m in rate_metrics] or rate_metrics[:4],
                           format_func=q.label, key="quality_break_metrics")
    kind_rows = q.group_rows(report, "by_kind", shown)
    cat_rows = q.group_rows(report, "by_category", shown)
    if kind_rows:
        st.plotly_chart(charts.group_bars(kind_rows, "Per kind", shown), width="stretch", key="chart_kind")
    if cat_rows:  # one row per category, full names, full width: a set has a dozen or more categories
        st.plotly_chart(charts.group_bars(cat_rows, "Per category", shown, horizontal=True), width="stretch",
                        key="chart_category")
    # per language and per tenant only where there are two or more to compare: a manager
    # should see at a glance that Russian questions are answered less often than English ones
    for group, title in (("by_lang", "Per language"), ("by_crossing", "Question in the documents' language (same) "
                         "or another (cross)"), ("by_tenant", "Per tenant")):
        if len(report.get(group) or {}) >= 2:
            st.plotly_chart(charts.group_bars(q.group_rows(report, group, shown), title, shown), width="stretch",
                            key=f"chart_{group}")
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
        if any(r.get("intervals") for r in runs):
            st.caption("The bars are each run's 95% interval: where two runs' bars overlap widely, the change "
                       "between them may be chance (Compare runs tests it).")
    if lats:
        st.plotly_chart(charts.history_lines(q.history_rows(runs, lats)), width="stretch", key="chart_history_latency")
    st.download_button("Download all runs (CSV)", q.runs_csv(all_runs), file_name=f"{set_choice}-runs.csv",
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
with tab_ref:
    refusals = q.refusal_counts(report)
    if refusals:
        st.plotly_chart(charts.refusal_bars(refusals), width="stretch", key="chart_refusals")
        wrong = q.wrong_refusal_rows(report)
        hit = overall.get("closest_hit")
        st.caption(f"{len(wrong)} answerable question(s) were refused"
                   + (f"; for {hit:.0%} of them a highlighted closest sentence held the expected answer."
                      if hit is not None and wrong else "."))
        if wrong:
            st.dataframe(pd.DataFrame(wrong), hide_index=True, placeholder="—", width="stretch")
    else:
        st.caption("Nothing was refused in this run.")
with tab_lat:
    values = q.latencies_ms(report)
    if values:
        st.plotly_chart(charts.latency_hist(values, overall.get("latency_p50_ms"), overall.get("latency_p95_ms")),
                        width="stretch", key="chart_latency")
    else:
        st.caption("This run has no per-question timings.")
with tab_cmp:
    if len(ids) < 2:
        st.caption("Compare needs two comparable runs of this set.")
    else:
        a_col, b_col = st.columns(2)
        run_a = a_col.selectbox("Run A (before)", ids, index=min(1, len(ids) - 1), key="quality_cmp_a",
                                format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i}")
        run_b = b_col.selectbox("Run B (after)", ids, index=ids.index(run_id), key="quality_cmp_b",
                                format_func=lambda i: f"{fmt_time(by_id[i]['created_at'])} · {i}")
        comparison = services.compare_runs(services.get_eval_run(settings, tenant, run_a) or {},
                                           services.get_eval_run(settings, tenant, run_b) or {})
        st.dataframe(pd.DataFrame(q.delta_rows(comparison)), hide_index=True, placeholder="—", width="stretch")
        flips = q.flip_rows(comparison)
        st.markdown(f"**{len(flips)} questions flipped** between A and B: "
                    f":green-badge[{comparison.get('improved', 0)} improved] "
                    f":red-badge[{comparison.get('regressed', 0)} regressed]")
        if comparison.get("significance"):
            st.caption(comparison["significance"]["sentence"])
        if flips:
            st.dataframe(pd.DataFrame(flips), hide_index=True, placeholder="—", width="stretch")
with tab_q:
    questions = q.question_rows(report)
    st.dataframe(pd.DataFrame(questions), hide_index=True, placeholder="—", width="stretch")
    st.download_button("Download this run's questions (CSV)", q.questions_csv(report),
                       file_name=f"{set_choice}-{run_id}.csv", mime="text/csv", icon=":material/download:",
                       on_click="ignore", key="csv_questions")
with tab_fb:
    feedback.render(settings, tenant)
