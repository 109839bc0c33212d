"""Ask (domain experts): chat over the tenant's documents; every answer is checkable."""

import logging

import streamlit as st

from ui import auth, components, conversations, services
from ui.format import reading_md
from ui.safe import escape_md
from ui.state import ensure_navigation, require_tenant, warm_models

PASTE_CHARS = 20_000  # what the box takes; the pipeline says when a question is over its limit

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings, tenant = require_tenant()
history: list[dict] = st.session_state.setdefault("history", {}).setdefault(tenant, [])
current: dict[str, str] = st.session_state.setdefault("conversation", {})
owner = auth.signed_in_name()  # with sign-in, a user's chats are their own
saved = conversations.listed(settings, tenant, owner)
if tenant not in current:  # a new session (a reload): the tenant's latest chat is back
    if saved and not history:
        history[:] = conversations.load(settings, tenant, saved[0]["id"], owner)
    current[tenant] = saved[0]["id"] if saved and history else conversations.new_id()

head, tools = st.columns([4, 1], vertical_alignment="bottom")
head.title("Ask")
head.caption(f"Answers come only from **{escape_md(tenant, inline=True)}**'s documents. "
             "Every sentence is cited, every claim checked; no answer beats a wrong one.")
if history and tools.button("New chat", icon=":material/add_comment:",
                            help="Start a new conversation; this one stays under Saved chats."):
    history.clear()
    current[tenant] = conversations.new_id()
    st.rerun()
if saved:
    with tools.popover(f"Saved chats ({len(saved)})", icon=":material/history:"):
        this = next((c for c in saved if c["id"] == current[tenant]), None)
        if this is not None:  # chats named alike by their first question are told apart by a name
            with st.form("rename_chat", border=False):
                name = st.text_input("Name this chat", value=this["title"], max_chars=conversations.TITLE_CHARS)
                if st.form_submit_button("Rename", icon=":material/edit:"):
                    conversations.rename(settings, tenant, this["id"], name, owner)
                    st.rerun()
        found = saved
        if len(saved) > conversations.SHOWN:
            words = st.text_input("Find a chat", key="find_chat", placeholder="words of its question or name")
            found = conversations.matching(saved, words)
            st.caption(f"{min(len(found), conversations.SHOWN)} of {len(found)} shown, newest first"
                       + ("; type words of an older chat's question to find it." if len(found) > conversations.SHOWN
                          else "."))
        for conv in found[:conversations.SHOWN]:
            opened, dropped = st.columns([5, 1])
            # a button label is Markdown: the user's question is escaped like any shown text
            label = escape_md(conversations.saved_label(conv), inline=True)
            if opened.button(label, key=f"open_{conv['id']}", disabled=conv["id"] == current[tenant]):
                history[:] = conversations.load(settings, tenant, conv["id"], owner)
                current[tenant] = conv["id"]
                st.rerun()
            if dropped.button("", key=f"drop_{conv['id']}", icon=":material/delete:", help="Delete this chat"):
                conversations.delete(settings, tenant, conv["id"], owner)
                if conv["id"] == current[tenant]:
                    history.clear()
                    current[tenant] = conversations.new_id()
                st.rerun()

picked_example = None
if not history:
    overview = services.tenant_overview(settings, tenant)
    components.empty_ask_state(overview)
    for n, example in enumerate(overview["examples"]):
        if st.button(escape_md(example, inline=True), key=f"example{n}", icon=":material/chat:"):
            picked_example = example

components.forget_feedback_inputs(f"{tenant}/{current[tenant]}")
for number, answer in enumerate(history, start=1):
    with st.chat_message("user"):
        st.markdown(escape_md(answer.get("question", "")))
        if answer.get("asked_as"):
            st.caption(reading_md(answer.get("question", ""), answer["asked_as"]))
        elif answer.get("unplaced_followup"):
            st.caption("Asked on its own: it reads like a follow-up, but what it changes in the question "
                       "before could not be told. Ask it as a whole question if the answer is off.")
    with st.chat_message("assistant"):
        # the latest answer in full; an older one compact, its sources one click away (a
        # conversation's own expander keys: another chat's open turns stay closed)
        components.render_answer(settings, tenant, answer, key=f"turn{number}", fold=None if number == len(history)
                                 else f"turn{number}_more_{current[tenant]}")
        st.page_link("pages/traces.py", label="Open the full trace", icon=":material/manage_search:",
                     query_params={"trace": answer.get("trace_id", ""), "tenant": tenant})

# a constant script (st.html, no user text in it): a click on an older answer's [n] marker
# opens its folded sources
st.html(components.SOURCES_LINK_OPENS, unsafe_allow_javascript=True)
if st.session_state.pop("scroll_to_newest", False):
    # a constant script run in the page itself (st.html; no user text in it): bring
    # the newest answer's top into view (the page otherwise stays scrolled to its bottom,
    # past a long answer's first lines)
    st.html(components.NEWEST_ANSWER_TOP, unsafe_allow_javascript=True)

# the box takes far more than a question may hold, so a long paste is answered with the limit
# in a sentence: at the limit itself the box dropped a longer paste without a word (a QA pass)
question = (st.chat_input("Ask about your documents…", max_chars=PASTE_CHARS) or picked_example
            or st.session_state.pop("ask_next", None))  # a suggested follow-up clicked under an answer
if question is not None and not question.strip():
    st.warning("Type a question first: that one was only spaces.", icon=":material/edit:")
elif question:
    with st.chat_message("user"):
        st.markdown(escape_md(question))
    with st.chat_message("assistant"):
        warm_models(settings.embed_threads)
        with st.spinner("Searching, answering, checking every claim…"):
            try:
                previous = services.previous_question(history)
                result = services.ask(settings, tenant, question, previous=previous)
                result["unplaced_followup"] = services.unplaced_followup(question, previous, result)
            except ValueError as exc:  # empty/too long question, bad tenant: one sentence
                st.error(escape_md(str(exc), inline=True))
                st.stop()
            except Exception as exc:  # noqa: BLE001 — an index or disk failure: say so, keep the page
                logging.getLogger("groundwork").exception("ask failed")
                st.error("The question could not be answered because of an internal error "
                         f"({escape_md(type(exc).__name__, inline=True)}). Ask again; if it keeps failing, "
                         "an admin should check the server log and re-index this tenant's documents.")
                st.stop()
    history.append(result)
    conversations.save(settings, tenant, current[tenant], history, owner)
    st.session_state["scroll_to_newest"] = True
    st.rerun()
