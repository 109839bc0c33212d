"""Review (experts): refused, doubtful and rated-down asks wait here until a person decides.

Each decision teaches the system something that stays: an eval row (answerable with its
quote, or one to refuse) or a synonym; core/review.py holds the rules."""

import streamlit as st

from ui import review as rv
from ui import services
from ui.format import reading_md
from ui.safe import clean, escape_md
from ui.state import ensure_navigation, require_tenant

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings, tenant = require_tenant()
st.title("Review")
st.caption("Asks that were refused, answered with low confidence, rated down or routed to a person, and a "
           "random sample of confident answers to spot-check. "
           "Open one, see what it was given, and decide: the passage that answers it, truly "
           "unanswerable, or a word to teach. Decisions become eval rows the Quality page can run.")
rv.flash()

show_resolved = st.toggle("Show decided asks too", key="review_show_resolved")
items = services.review_queue(settings, tenant, include_resolved=show_resolved)
rv.queue_cards(services.review_counts(items))
if show_resolved and (spot := rv.spot_check_line(items)):
    st.caption(escape_md(spot, inline=True))
if not items:
    st.info("Nothing to review: no refused, low-confidence or rated-down asks are waiting.",
            icon=":material/task_alt:")
    st.stop()

if len(items) > rv.FILTER_FROM:
    words = st.text_input("Filter the asks", key="review_filter", max_chars=200,
                          placeholder="words of the question, a comment or why it waits")
    if words.strip():
        shown = rv.matching(items, words)
        st.caption(f"{len(shown)} of {len(items)} asks match.")
        if not shown:
            st.stop()
        items = shown
clicked = rv.queue_table(items, tenant)
item = items[clicked if clicked is not None and clicked < len(items) else 0]
trace = services.get_trace(settings, tenant, item.trace_id) or {}
answer = trace.get("answer") or {}

st.divider()
st.caption("Question" + ("" if clicked is not None else " (the newest; click a row to open another)"))
st.markdown("**" + escape_md(clean(item.question), limit=400, inline=True) + "**")
if answer.get("asked_as"):  # a follow-up: what it was read as (only Traces said it: QA pass)
    st.caption(reading_md(item.question, clean(answer["asked_as"]), limit=400))
st.markdown(rv.status_line(item))
if answer.get("status") == "refused" and answer.get("refusal_reason"):
    st.caption("Why it was refused: " + escape_md(clean(answer["refusal_reason"]), limit=300, inline=True))
elif answer.get("answer"):
    # open: an answer rated down or answered with low confidence is what the reviewer judges
    # (a QA pass had to open it for every item)
    with st.expander("The answer given", expanded=True):
        st.text(clean(answer["answer"]))
if item.comment:
    st.caption("User's comment: " + escape_md(clean(item.comment), limit=300, inline=True))

if item.resolution is not None:
    st.success("Decided: " + escape_md(item.resolution, inline=True))
    if st.button("Reopen", icon=":material/undo:", key=f"review_reopen_{item.trace_id}"):
        services.review_reopen(settings, tenant, item.trace_id)
        st.rerun()
    st.stop()

tab_pass, tab_refuse, tab_syn = st.tabs(["The passage that answers it", "Should be refused", "Teach a word"])
with tab_pass:
    rv.passage_forms(settings, tenant, item)
with tab_refuse:
    rv.refusal_buttons(settings, tenant, item)
with tab_syn:
    rv.synonym_form(settings, tenant, item, rv.unknown_word(answer))
