"""Traces (claim inspector): every past ask, and everything that happened inside it."""

import datetime as dt

import streamlit as st

from ui import components, services
from ui.format import ANSWER_STATUSES, fmt_confidence, fmt_ms, reading_md, status_badge_md
from ui.safe import clean, escape_md
from ui.state import ensure_navigation, require_tenant

QUESTION_SHOWN = 300  # characters of the question shown before "Whole question"

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings, tenant = require_tenant()
st.title("Traces")
st.caption("Search past asks; open one to see the candidates and their scores, the gate decision, "
           "the prompt and raw output (when an LLM ran), claims and verdicts, and timings.")

TRACES_SHOWN = 200  # rows of the grid; older asks are reached by the filters
search_col, status_col, provider_col, since_col = st.columns([3, 1.3, 1.3, 1.3], vertical_alignment="bottom")
search = search_col.text_input("Search questions", key="trace_search", placeholder="words in the question")
status = status_col.selectbox("Status", ["any", *ANSWER_STATUSES], key="trace_status")
provider = provider_col.selectbox("Provider", ["any", "extractive", "llm"], key="trace_provider")
since = since_col.date_input("Since", value=None, key="trace_since")
# a row each: squeezed beside the filters or each other a label was cut to "Uns…"
only_unsupported = st.toggle("Only asks with unsupported claims", key="trace_unsupported")
# one eval run asks hundreds of questions: off, the people's asks are not buried under them
with_runs = st.toggle("Include eval and benchmark runs", key="trace_runs",
                      help="Asks made by an eval run or a benchmark, left out of live quality and review.")

traces = services.list_traces(
    settings, tenant, search=search.strip(), status=None if status == "any" else status,
    provider=None if provider == "any" else provider, only_unsupported=only_unsupported,
    since=dt.datetime.combine(since, dt.time()).timestamp() if since else None, people_only=not with_runs,
    limit=TRACES_SHOWN + 1,
)
more = len(traces) > TRACES_SHOWN  # the grid stopped at 200 without a word (a scale pass)
traces = traces[:TRACES_SHOWN]
clicked = None
if traces:
    clicked = components.traces_table(traces, settings.gate_threshold)
    st.caption("Click a row to open that ask below."
               + (f" Showing the newest {TRACES_SHOWN} that match: search, or pick a day under Since, to reach "
                  "older asks." if more else ""))
else:  # no empty grid; say whether the filters hide the tenant's asks or there are none
    any_trace = services.list_traces(settings, tenant, limit=1)
    st.info("No asks match the filters." if any_trace else "No asks yet: ask something on the **Ask** page.")
trace_id = components.trace_picker(settings, tenant, traces, clicked)
if trace_id is None:
    st.stop()
trace = services.get_trace(settings, tenant, trace_id)
if trace is None:
    st.error("This trace no longer exists.")
    st.stop()
answer = trace.get("answer") or {}
threshold = (trace.get("gate") or {}).get("threshold", settings.gate_threshold)  # the one this ask was gated by

st.divider()
# the question is untrusted and may be 2,000 characters: plain escaped text, clipped
question = clean(answer.get("question", ""))
st.caption("Question")
st.markdown("**" + escape_md(question, limit=QUESTION_SHOWN, inline=True) + "**")
if len(question) > QUESTION_SHOWN:
    with st.expander(f"Whole question ({len(question):,} characters)"):
        st.text(question)
if answer.get("asked_as"):
    st.caption(reading_md(question, clean(answer["asked_as"]), limit=QUESTION_SHOWN))
asked_by = f" · asked by {trace['origin']} run, left out of live quality and review" if trace.get("origin") else ""
st.markdown(status_badge_md(answer.get("status", "")) + " " + escape_md(f"trace {trace_id}{asked_by}", inline=True))
with st.container(horizontal=True):  # a row that wraps when narrow (fixed columns cut the labels short)
    st.metric("Answer confidence", fmt_confidence(answer.get("confidence"), threshold),
              help="What the gate threshold is compared with (the Gate tab shows how it was made).")
    st.metric("Gate threshold", f"{(trace.get('gate') or {}).get('threshold', 0):.2f}")
    # no claims (a refusal): no share of them to show
    st.metric("Factuality", f"{answer.get('factuality', 0):.0f}%" if answer.get("claims") else "—")
    st.metric("Claims", len(answer.get("claims") or []))
    st.metric("Total", fmt_ms((answer.get("timings_ms") or {}).get("total")))

# Only the open tab is drawn; a click on another reruns the page to draw that one. Drawing
# all six each time made Traces the one page over 1 s warm (docs/quality.md).
tab_answer, tab_cand, tab_gate, tab_llm, tab_claims, tab_time = st.tabs(
    ["Answer", "Candidates", "Gate", "Prompt & output", "Claims", "Timings"], key="trace_tab", on_change="rerun")
if tab_answer.open:
    with tab_answer:
        components.render_answer(settings, tenant, answer, key=f"trace_{trace_id}", open_first=True, feedback=False,
                                 threshold=threshold)
if tab_cand.open:
    with tab_cand:
        components.candidates_table(trace)
if tab_gate.open:
    with tab_gate:
        components.gate_view(trace.get("gate"), answer)
if tab_llm.open:
    with tab_llm:
        components.llm_view(trace)
if tab_claims.open:
    with tab_claims:
        components.claims_list(answer)
if tab_time.open:
    with tab_time:
        components.timings_chart(answer.get("timings_ms") or {}, key=f"timings_{trace_id}")
        with st.expander("Settings used for this ask"):
            st.json(trace.get("settings") or {}, expanded=True)
