"""The Review page's pieces: the queue as a table (pure) and the resolve forms.

Questions, comments and passages are untrusted: they reach the browser as dataframe cells,
escaped Markdown or text-area values, never as raw Markdown or HTML.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.config import Settings
from core.review import QueueItem
from ui import services
from ui.feedback import trace_link
from ui.format import confidence_cell, fmt_confidence, fmt_time, page_label, status_badge_md, word_to_teach
from ui.safe import clean, clip, escape_md

# the question first: on a phone only the first columns are in view, and the rows must be told apart
TABLE_COLUMNS = ["question", "why", "waiting", "asked", "status", "confidence", "decision", "trace"]
PASSAGES_SHOWN = 6
FILTER_FROM = 8  # asks in the queue before a filter box is shown above the grid


def fmt_age(seconds: float | None) -> str:
    """A wait as people say it: 40 s, 12 min, 5 h, 3 d."""
    if seconds is None:
        return "—"
    for limit, unit in ((60, "s"), (3600, "min"), (86400, "h")):
        if seconds < limit:
            return f"{int(seconds // {'s': 1, 'min': 60, 'h': 3600}[unit])} {unit}"
    return f"{int(seconds // 86400)} d"


def why_refused(item: QueueItem) -> str:
    """"refused: confidence under the threshold", the kind the Quality page counts refusals by."""
    from ui.quality import REFUSAL_CODES

    kind = REFUSAL_CODES.get(item.refusal_code or "")
    return f"refused: {kind}" if kind else "refused"


def table_frame(items: list[QueueItem], tenant: str, now: float | None = None) -> pd.DataFrame:
    return pd.DataFrame([{
        "asked": fmt_time(i.asked_at), "waiting": fmt_age(i.age_s(now)) if i.resolution is None else "",
        "why": ", ".join(why_refused(i) if r == "refused" else r for r in i.reasons), "status": i.status,
        "confidence": confidence_cell(i.confidence, i.threshold),
        "question": clip(clean(i.question), 300) + (f" (asked {len(i.repeats) + 1} times)" if i.repeats else ""),
        "decision": i.resolution or "open",
        "trace": trace_link(i.trace_id, tenant),
    } for i in items], columns=TABLE_COLUMNS)


def matching(items: list[QueueItem], words: str) -> list[QueueItem]:
    """The asks whose question, comment, status or reasons hold every word typed: the grid's
    own search only highlights its matches, and a QA pass had to scroll past the others."""
    wanted = words.casefold().split()

    def text(i: QueueItem) -> str:
        why = " ".join(why_refused(i) if r == "refused" else r for r in i.reasons)
        return f"{i.question} {i.comment or ''} {i.status} {why} {i.resolution or 'open'}".casefold()

    return [i for i in items if all(w in text(i) for w in wanted)]


def status_line(item: QueueItem) -> str:
    """Markdown of an ask's status badge, why it waits and its confidence: "refused ·
    routed to a person · confidence 0.30". A reason the badge already says is not said
    again (it read "refused refused · confidence 0.00": QA pass)."""
    reasons = [r for r in item.reasons if r != item.status]
    bits = [escape_md(", ".join(reasons), inline=True)] if reasons else []
    if item.confidence is not None:
        bits.append(f"confidence {fmt_confidence(item.confidence, item.threshold)}")
    return status_badge_md(item.status) + (" " + " · ".join(bits) if bits else "")


# (card, label, help) in core.review.CARDS' order
CARD_TEXT = (
    ("refused", "Refused", "Asks the assistant declined: was the answer in the documents after all?"),
    ("near the threshold", "Near the threshold",
     "Answers given with a confidence less than the review margin above the gate threshold, and corrections "
     "of a question's premise under it (a correction is shown whatever its confidence)."),
    ("rated down", "Rated down", "Answers a user gave a thumbs down on the Ask page."),
    ("routed to a person", "Routed to a person",
     "Answers given with enough confidence that the checks still send to a person: a claim dropped "
     "(narrowed), quotes only in place of the model's answer, or a claim not supported by its passage."),
    ("spot check", "Spot checks",
     "Confident answers drawn at random (5% of them unless GROUNDWORK_REVIEW_SAMPLE says otherwise): no check flags a wrong "
     "answer given with confidence, so a sample of them is read. Dismiss one that was right; pick the passage "
     "or mark it unanswerable when it was wrong."),
)
SEVERAL_REASONS = ("An ask waiting for several reasons (a refusal rated down) is counted under each of them, "
                   "and once in Open; the table's **why** column lists them all.")


def queue_cards(summary: dict[str, Any]) -> None:
    """Open, then one card per reason an ask waits for; an ask with two reasons in both, so a
    rating is never hidden behind a refusal (QA pass)."""
    row = st.container(horizontal=True)
    by = summary["by_reason"]
    row.metric("Open", summary["open"], border=True, help="Asks waiting for a decision.")
    for card, label, help_text in CARD_TEXT:
        row.metric(label, by.get(card, 0), border=True, help=f"{help_text}\n\n{SEVERAL_REASONS}")
    row.metric("Oldest waiting", fmt_age(summary["oldest_s"]), border=True,
               help="How long the oldest open ask has waited.")


def spot_check_line(items: list[QueueItem]) -> str | None:
    """What the decided spot checks say of confident answers: "Spot checks decided: 12, of
    which 2 were wrong (17%; 95% interval 5–45%)"; None before any was decided."""
    from evals.metrics.intervals import fmt_interval, wilson

    decided = [i for i in items if "spot check" in i.reasons and i.resolution is not None]
    if not decided:
        return None
    wrong = sum(i.resolution != "dismissed" for i in decided)
    interval = fmt_interval(wilson(wrong, len(decided)))
    return (f"Spot checks decided: {len(decided)}, of which {wrong} {'was' if wrong == 1 else 'were'} wrong "
            f"({100 * wrong / len(decided):.0f}%; 95% interval {interval}): the share of confident answers "
            "that are wrong, as far as a sample this size tells.")


def queue_table(items: list[QueueItem], tenant: str) -> int | None:
    """The queue; returns the index of the row the user clicked, if any."""
    frame = table_frame(items, tenant)
    event = st.dataframe(
        frame, hide_index=True, placeholder="—", width="stretch", key="review_grid",
        on_select="rerun", selection_mode="single-row",
        height=min(35 * (len(frame) + 1) + 3, 386),
        column_config={
            "confidence": st.column_config.TextColumn(),
            "trace": st.column_config.LinkColumn("trace", display_text="open trace", width="small",
                                                 help="Opens the ask on the Traces page in a new tab."),
        })
    rows = event.selection.rows if event is not None else []
    return rows[0] if rows else None


def flash(message: str | None = None, kind: str = "success") -> None:
    """Set a message for the next run (`message`), or show and clear the pending one."""
    if message is not None:
        st.session_state["review_flash"] = (kind, message)
        return
    pending = st.session_state.pop("review_flash", None)
    if pending:
        getattr(st, pending[0])(escape_md(pending[1], inline=True))


def _act(action, *args: Any, done: str) -> None:  # noqa: ANN001 - any resolve function
    try:
        action(*args)
    except (ValueError, LookupError) as exc:
        st.error(escape_md(str(exc), inline=True))
        return
    flash(done)
    st.rerun()


LABEL_CHARS = 120


def passage_label(p: dict[str, Any]) -> str:
    """"source, p. N · § section" of a passage ("slide N" for a deck), at most about LABEL_CHARS long.
    A long section path drops its outer headings, not its end: cut at the end, every passage of a
    PDF read "§ GENERAL CONDITIONS ... > Article 6 — Check … [16 more characters not shown]" (QA pass)."""
    head = clean(p.get("source", "")) + (f", {page_label(p['page'], p.get('source', ''))}" if p.get("page") else "")
    parts = [part.strip() for part in clean(p.get("section") or "").split(" > ") if part.strip()]
    while len(parts) > 1 and len(head) + len(" · § … > " + " > ".join(parts)) > LABEL_CHARS:
        parts = parts[1:]
    section = " > ".join(parts)
    if section and section != clean(p.get("section") or "").strip():
        section = "… > " + section
    return head + (f" · § {section}" if section else "")


def passage_forms(settings: Settings, tenant: str, item: QueueItem) -> None:
    passages = services.review_passages(settings, tenant, item.trace_id)[:PASSAGES_SHOWN]
    if not passages:
        st.caption("The passages this ask saw are no longer in the knowledge base.")
        return
    st.caption("Keep only the words that answer the question in the quote box (they must stay exactly "
               "as in the passage), then save: the question becomes an answerable eval row with that quote.")
    for n, p in enumerate(passages, start=1):
        # the section tells apart the passages of one document (six "keep-alive.md" read alike)
        with st.expander(f"{n}. {passage_label(p)}", expanded=n == 1):
            with st.form(f"review_pick_{item.trace_id}_{n}", border=False):
                # the sentence the Ask page showed of it, else the whole passage to cut down
                quote = st.text_area("Quote", value=p.get("quote") or p["text"], height=120, max_chars=4000)
                expected = st.text_input("Expected answer (optional; the quote if empty)", max_chars=2000)
                if st.form_submit_button("This passage answers it", icon=":material/check:"):
                    _act(services.review_answerable, settings, tenant, item.trace_id, p["chunk_id"], quote,
                         expected.strip() or None, done="Saved as an answerable eval row with its quote.")


def refusal_buttons(settings: Settings, tenant: str, item: QueueItem) -> None:
    row = st.container(horizontal=True)
    if row.button("Truly unanswerable", icon=":material/block:", key=f"review_unans_{item.trace_id}",
                  help="The documents do not hold the answer: saved as an eval row that must be refused."):
        _act(services.review_refusal, settings, tenant, item.trace_id, "unanswerable",
             done="Saved as an unanswerable eval row.")
    if row.button("False premise", icon=":material/rule:", key=f"review_mis_{item.trace_id}",
                  help="The question takes for granted something the documents contradict."):
        _act(services.review_refusal, settings, tenant, item.trace_id, "misleading",
             done="Saved as a misleading eval row.")
    if row.button("The answer was fine", icon=":material/done_all:", key=f"review_ok_{item.trace_id}",
                  help="Close the item without adding anything."):
        _act(services.review_dismiss, settings, tenant, item.trace_id, done="Closed.")


def unknown_word(answer: dict[str, Any]) -> str:
    """The word to teach, as the field takes it (80 characters)."""
    return clean(word_to_teach(answer))[:80]


def synonym_form(settings: Settings, tenant: str, item: QueueItem, word: str = "") -> None:
    """`word`: the user's word the refusal named, filled in (the expert had to retype it)."""
    with st.form(f"review_syn_{item.trace_id}", border=False):
        st.caption("The user's word for what the documents call otherwise (\"the app\" = the product's name).")
        c1, c2 = st.columns(2)
        word = c1.text_input("User's word", value=word, max_chars=80)
        doc_words = c2.text_input("The documents' words", max_chars=200)
        if st.form_submit_button("Teach the synonym", icon=":material/school:"):
            _act(services.review_synonym, settings, tenant, item.trace_id, word, doc_words,
                 done=f"Synonym saved: {word} = {doc_words}.")
