"""The console's recurring pieces, rendered one way everywhere.

Status badge, citation pills and the citation panel (highlighted quote, PDF page image,
original file), claims with verdict colours, closest passages, candidates, chunk cards,
feedback. Every untrusted string goes through `ui.safe` (see its docstring for the rules).
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from core.answer.safety import looks_like_instruction
from core.closest import first_in_other_language
from core.config import Settings
from core.lang import LANGUAGES, language_of
from core.schema import is_paged
from ui import services
from ui.format import (
    STATUS_STYLE,
    anchor_html,
    answer_md,
    ask_threshold,
    citation_label,
    confidence_cell,
    count_of,
    factuality_of,
    fmt_confidence,
    fmt_ms,
    fmt_time,
    kind_badge_md,
    note_of,
    page_label,
    parse_pipe_table,
    plural,
    sources_anchor,
    status_badge_md,
    unique_headers,
    verdict_badge_md,
    word_to_teach,
)
from ui.pdf import render_page_png
from ui.safe import MAX_RENDER_CHARS, clean, clip, escape_md, highlight_md, highlight_spans_md

# ---- answer header and text ----------------------------------------------------------------


HEADER_HELP = (
    "**answers the question**: how sure the answer step is that the quoted passage answers what "
    "was asked (0 to 1; below the tenant's threshold the question is refused). "
    "**quoted verbatim**: every sentence of the answer is copied character for character from the "
    "passage its marker cites, so the quote is in the document by construction; it says nothing about "
    "whether the passage answers the question. **claims supported** (a model's answer): the share of "
    "its claims the judge found in the cited passages.")


def answer_header(answer: dict[str, Any], threshold: float | None = None) -> None:
    """Status badge, then apart: does the passage answer the question (the answer step's
    confidence, shown against `threshold`, the one it was compared with) and is the quote in the
    document (verbatim by construction for quotes; the judged share for a model's claims);
    provider and time."""
    status = answer.get("status", "")
    bits = [status_badge_md(status),
            f"answers the question **{fmt_confidence(answer.get('confidence'), threshold)}**"]
    provider = answer.get("provider") or "extractive"
    if status != "refused":
        bits.append("quoted verbatim" if provider == "extractive"
                    else f"claims supported **{answer.get('factuality', 0):.0f}%**")
    model = answer.get("model")
    bits.append(escape_md(f"{provider}{' · ' + model if model else ''}", inline=True))
    total = (answer.get("timings_ms") or {}).get("total")
    if total is not None:
        bits.append(escape_md(fmt_ms(total), inline=True))
    status_help = STATUS_STYLE.get(status, ("", "", ""))[2]
    st.markdown(" · ".join(bits), help=f"{status_help}\n\n{HEADER_HELP}" if status_help else HEADER_HELP)


def empty_ask_state(overview: dict[str, Any]) -> None:
    """What the tenant holds and how to ask it, before the first question."""
    n = overview["documents"]
    if not n:
        st.info("This tenant has no documents yet: an admin uploads them on the Documents page.",
                icon=":material/folder_off:")
        return
    langs = " and ".join(overview["languages"]) or "no detected language"
    topics = overview["topics"]
    st.info(f"This knowledge base holds **{n:,}** {plural(n, 'document')} in {escape_md(langs, inline=True)}"
            + (f", on topics such as {escape_md(', '.join(topics[:4]), inline=True)}" if topics else "") + ". "
            f"Ask in {' or '.join(lang.name for lang in LANGUAGES.values())}; click a citation pill to see the "
            "passage (and the PDF page) it comes from. Follow-ups such as \"and for annual plans?\" are read with the question before them.",
            icon=":material/lightbulb:")
    if overview["examples"]:
        st.caption("Questions its documents answered before:")


# ---- answer text ---------------------------------------------------------------------------


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def quoted_row_under_header(answer: dict[str, Any], citation: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """(header, row) of a citation quoting one table row of its passage, else None (a sentence,
    a row not found in the passage, or the table's first line: no header to show)."""
    texts = {r.get("chunk_id"): r.get("text") or "" for r in answer.get("retrieved") or []}
    quote = (citation.get("quote") or "").strip()
    lines = [ln.strip() for ln in texts.get(citation.get("chunk_id"), "").splitlines()]
    if not quote.startswith("|") or quote not in lines:
        return None
    at = lines.index(quote)
    top = at
    while top > 0 and lines[top - 1].startswith("|"):
        top -= 1
    header, row = _cells(lines[top]), _cells(quote)
    return (header, row) if top < at and len(row) == len(header) else None


def quoted_tables(answer: dict[str, Any]) -> list[tuple[str, pd.DataFrame]]:
    """The table rows an answer quotes (its text reads "Axle: Front; Pressure: 2.4 bar"), one
    small table per header in the order first quoted, each named by its citations ("[1]
    prices.md"). Every quoted row: "The documents differ" quotes rows of two documents, whose
    headers differ, and the second row was left out (QA pass)."""
    tables: dict[tuple[str, ...], tuple[list[str], list[list[str]]]] = {}
    for c in answer.get("citations") or []:
        found = quoted_row_under_header(answer, c)
        if found is None:
            continue
        header, row = found
        names, rows = tables.setdefault(tuple(header), ([], []))
        name = f"[{c.get('index')}] {clean(c.get('source') or '')}"
        if name not in names:
            names.append(name)
        if row not in rows:
            rows.append(row)
    return [(", ".join(names), pd.DataFrame(rows, columns=unique_headers(list(header))))
            for header, (names, rows) in tables.items()]


def answer_body(answer: dict[str, Any], key: str = "answer") -> None:
    # each [n] shows its quote on hover (a link title); the pills below open the passage
    quotes = {n: c.get("quote", "") for n, c in merge_by_index(answer.get("citations") or []).items()}
    st.markdown(answer_md(answer.get("answer", ""), quotes, sources_anchor(key)))
    tables = quoted_tables(answer) if answer.get("status") != "refused" else []
    for name, table in tables:
        if len(tables) > 1:  # tables of two documents: say which is which
            st.caption(escape_md(name, inline=True))
        st.dataframe(table, hide_index=True, width="content")
    if answer.get("status") == "refused" and answer.get("refusal_reason"):
        # in the question's language, as the reason is (a QA pass read Russian reasons under "Why:")
        lang = language_of(answer.get("asked_as") or answer.get("question") or "")
        st.caption(lang.say("why", reason=escape_md(answer["refusal_reason"], inline=True)))
        word = word_to_teach(answer)
        if word:
            st.caption(lang.say("teach_word", word=escape_md(word, inline=True)))
    elif (note := note_of(answer)) and answer.get("differences"):
        # the documents disagree, or the row quoted is out of force: not a footnote
        st.warning(escape_md(note, inline=True), icon=":material/compare_arrows:")
    elif note:
        st.caption("Note: " + escape_md(note, inline=True))


# ---- citations -----------------------------------------------------------------------------


def page_bits(page: Any, source: str = "") -> list[str]:
    """`["p. 3"]` for paged formats (`["slide 3"]` for a deck, `source` its file name); nothing for
    Markdown, HTML, text."""
    return [] if page in (None, -1, "") else [escape_md(page_label(page, source), inline=True)]



@st.cache_data(max_entries=64, show_spinner=False)
def _page_png(path: str, mtime: float, page: int, rects: tuple[tuple[float, ...], ...], dpi: int,
              zoom: bool, turn: int = 0) -> bytes:
    return render_page_png(path, page, [list(r) for r in rects], dpi=dpi, zoom_to_quote=zoom, turn=turn)


def _quote_span(chunk_text: str, citation: dict[str, Any]) -> tuple[int, int] | None:
    merged = citation.get("span")  # several quotes of one passage: from the first to the last
    if merged and 0 <= merged[0] < merged[1] <= len(chunk_text):
        return merged[0], merged[1]
    return _placed(chunk_text, citation.get("char_start", -1), citation.get("char_end", -1),
                   citation.get("quote") or "")


def _placed(chunk_text: str, start: int, end: int, quote: str) -> tuple[int, int] | None:
    """Where a quote stands in its passage: at its offsets when they hold it, else where it
    is first found; None when it is not there."""
    if quote and 0 <= start < end <= len(chunk_text) and chunk_text[start:end] == quote:
        return start, end
    found = chunk_text.find(quote) if quote else -1
    return (found, found + len(quote)) if found >= 0 else None


def merge_by_index(citations: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """One entry per marker [n]: an answer may quote several sentences of one passage, all
    marked [n]; opening [n] highlights every one of them (all their rectangles on the PDF
    page; in the passage text each quote, kept in `parts` with its offsets, and not the
    sentences between them)."""
    merged: dict[int, dict[str, Any]] = {}
    for c in citations:
        first = merged.get(c["index"])
        part = (c.get("char_start", -1), c.get("char_end", -1), c.get("quote") or "")
        if first is None:
            merged[c["index"]] = {**c, "parts": [part]}
            continue
        first["quote"] = f"{first.get('quote', '')} … {c.get('quote', '')}"
        first["rects"] = [*(first.get("rects") or []), *(c.get("rects") or [])]
        starts = [x.get("char_start", -1) for x in (first, c)]
        ends = [first.get("span", (0, first.get("char_end", -1)))[1], c.get("char_end", -1)]
        if min(starts) >= 0 and c.get("chunk_id") == first.get("chunk_id"):
            first["char_start"] = min(starts)
            first["span"] = (min(starts), max(ends))
            first["parts"].append(part)
    return merged


def quote_spans(chunk_text: str, citation: dict[str, Any]) -> list[tuple[int, int]]:
    """Where each quote of a (merged) citation stands in its passage: the sentences an
    answer quoted, not the ones between them; [] when they cannot be placed."""
    spans = [_placed(chunk_text, *part) for part in citation.get("parts") or []]
    if spans and all(spans):
        return spans
    whole = _quote_span(chunk_text, citation)
    return [whole] if whole else []


def citation_pills(answer: dict[str, Any], key: str, default_first: bool) -> dict[str, Any] | None:
    """Pills `[1] source · p. 3`; returns the selected citation (or None)."""
    citations = merge_by_index(answer.get("citations", []))
    if not citations:
        return None
    options = sorted(citations)
    picked = st.pills(
        "Open a citation", options, key=key, default=options[0] if default_first else None,
        format_func=lambda i: escape_md(citation_label(citations[i]), inline=True),
        label_visibility="collapsed",
    )
    return citations.get(picked) if picked is not None else None


def citation_panel(settings: Settings, tenant: str, citation: dict[str, Any], key: str) -> None:
    """Where the quote comes from: source, page, section, the chunk with the quote
    highlighted, the PDF page image with the quote's rectangles, and the original file."""
    source = citation.get("source", "")
    where = [f"**{escape_md(source, inline=True)}**"] + page_bits(citation.get("page"), source)
    if citation.get("section"):
        where.append("§ " + escape_md(citation["section"], inline=True))
    st.markdown(f":blue-badge[{int(citation.get('index', 0))}] " + " · ".join(where))

    chunk = services.chunk(settings, tenant, citation.get("chunk_id", ""))
    path = services.original_path(settings, tenant, citation.get("doc_id", ""))
    is_pdf = path is not None and is_paged(path.name) and citation.get("page") not in (None, -1)
    text_col, page_col = st.columns([1, 1]) if is_pdf else (st.container(), None)

    with text_col:
        with st.container(border=True, height=320 if is_pdf else "content"):
            if chunk is None:
                st.caption("The cited passage is no longer in the index (re-indexed or deleted). The quote:")
                st.markdown(highlight_md(citation.get("quote", ""), 0, len(citation.get("quote", ""))))
            else:
                text = chunk.get("text", "")
                spans = quote_spans(text, citation)
                if chunk.get("kind") == "table" and quoted_table(text, citation.get("quote", "")):
                    pass
                elif not spans:
                    st.markdown(escape_md(text))
                    st.caption("Quote: " + escape_md(citation.get("quote", ""), inline=True))
                else:
                    st.markdown(highlight_spans_md(text, spans))
        if path is not None:
            st.download_button(
                f"Open the original ({escape_md(clip(clean(source), 60), inline=True)})",
                data=lambda p=path: p.read_bytes(), file_name=clean(source) or path.name,
                mime=mimetypes.guess_type(path.name)[0] or "application/octet-stream",
                key=f"{key}_dl", icon=":material/download:", on_click="ignore",
            )
        elif chunk is None:  # the version quoted is gone; a newer one may be kept under another id
            st.caption("The original of the version quoted is no longer kept (the document was replaced or "
                       "deleted); the Documents page has the current one.")
        else:
            st.caption("The original file is not kept.")

    if page_col is not None and path is not None:
        with page_col:
            page = int(citation["page"])
            page_image(path, page, citation.get("rects") or [],
                       scan=services.scanned_page(settings, tenant, citation.get("doc_id", ""), page))


def page_image(path: Path, page: int, rects: list[list[float]], scan: int | None = None) -> None:
    """The quote zoomed on its PDF page (readable at a glance), and the whole page below;
    a scanned page (`scan`: the degrees it was turned to be read, 0 if fed upright) says its
    text was read by OCR, so the quote is checked against the image, and is shown upright."""
    turn = scan or 0
    boxes = tuple(tuple(float(v) for v in r) for r in rects if len(r) == 4)
    mtime = path.stat().st_mtime
    try:
        if scan is not None:
            st.caption(f"Page {page} was read by OCR (a scan, or letters drawn as shapes), so compare the quote "
                       "with the image."
                       + (" It was fed upside down or sideways and is shown turned upright." if turn else ""))
        if boxes:
            with st.container(border=True):
                st.image(_page_png(str(path), mtime, page, boxes, 150, True, turn), width="stretch", output_format="PNG",
                         caption=f"Page {page} — quote highlighted")
        else:
            st.caption("The quote could not be located on the page image; the text panel shows it.")
        with st.expander(f"Whole page {page}", expanded=not boxes):
            st.image(_page_png(str(path), mtime, page, boxes, 110, False, turn), width="stretch", output_format="PNG",
                     caption=f"Whole page {page}" + (", quote highlighted" if boxes else ""))
    except (ValueError, RuntimeError, OSError) as exc:
        st.warning("The page could not be rendered: " + escape_md(str(exc), inline=True))


def quoted_table(text: str, quote: str, label: str = "Quote", cited: bool = True) -> bool:
    """A table chunk as a table, the quoted row(s) highlighted, with the chunk's lines above
    and below it (a quoted sentence among them highlighted; a quote that is neither is said
    under it after `label`); `cited` False: the row is only the nearest to a question
    refused, and said so. False if it is not a table."""
    before, rows, after = parse_pipe_table(clean(text))
    if len(rows) < 2:
        return False
    # the quotes of one marker arrive joined by " … " (merge_by_index): rows, and sentences of
    # the text around the table (a sentence and a row quoted together highlighted neither)
    parts = [part.strip() for part in clean(quote).split(" … ")]
    _, quoted, _ = parse_pipe_table("\n".join(part for part in parts if part.startswith("|")))
    prose = [part for part in parts if part and not part.startswith("|")]
    wanted = {tuple(r) for r in quoted}
    header, body = unique_headers(rows[0]), rows[1:]
    frame = pd.DataFrame(body, columns=header)
    marked = [tuple(r) in wanted for r in body]
    intro, outro = " / ".join(before), " / ".join(after)
    said = _prose_around(intro, prose, 300)
    unplaced = [part for part in prose if part not in intro and part not in outro]
    styled = frame.style.apply(lambda row: ["background-color: #ffe8cc" if marked[row.name] else ""] * len(row),
                               axis=1)
    st.dataframe(styled, hide_index=True, placeholder="—", width="stretch")
    said = _prose_around(outro, prose) or said
    if any(marked) and cited:
        st.caption(plural(sum(marked), "The quoted row is highlighted.", "The quoted rows are highlighted."))
    elif any(marked):  # under a refusal nothing was quoted: the row is what came nearest
        st.caption(plural(sum(marked), f"The row of the {label.lower()} is highlighted; it was not quoted.",
                          f"The rows of the {label.lower()} are highlighted; they were not quoted."))
    elif quote.strip() and not said:
        st.caption(f"{label}: " + escape_md(quote, inline=True))
    if any(marked) and unplaced:  # a sentence quoted with the row that the text around does not hold
        st.caption(f"{label}: " + escape_md(" … ".join(unplaced), inline=True))
    if len(header) > WIDE_TABLE:  # its highlighted row in full: a wide table's last cells scroll out of
        # sight (a QA pass: the Zone 2 data price asked for stood off-screen under the refusal)
        for row in (r for r, m in zip(body, marked) if m):
            st.caption(" · ".join(f"**{escape_md(h, inline=True)}**: {escape_md(v, inline=True)}"
                                  for h, v in zip(header, row) if v))
    return True


WIDE_TABLE = 5  # columns: wider, a row's last cells may lie past the page's edge


def _prose_around(text: str, prose: list[str], limit: int = MAX_RENDER_CHARS) -> bool:
    """The chunk's lines above or below its table, the quoted sentences among them
    highlighted; True if one was."""
    said = [(at, at + len(part)) for part in prose if (at := text.find(part)) >= 0]
    if said:
        st.markdown(highlight_spans_md(text, said))
    elif text:
        st.text(clip(text, limit))
    return bool(said)


def _closest_table(settings: Settings, tenant: str, item: dict[str, Any]) -> bool:
    """A closest passage that is a table row, or any passage of a table chunk, as its table
    (as a citation shows it): its snippet alone read as raw `| a | b |` pipes, flattened on
    one line when no sentence was near the question."""
    quote = item.get("quote") or ""
    chunk = services.chunk(settings, tenant, item.get("chunk_id", ""))
    if not chunk or ("|" not in quote and chunk.get("kind") != "table"):
        return False
    return quoted_table(chunk.get("text", ""), quote, label="Nearest sentence", cited=False)


# The Ask page brings the newest answer's top into view with this script (st.html runs it in
# the page itself); a constant, no user text in it, and the one thing st.html may render
# (tests/pages/test_page_safety.py)
NEWEST_ANSWER_TOP = """<script>
for (const wait of [150, 600, 1500]) {
  setTimeout(() => {
    const messages = window.parent.document.querySelectorAll('[data-testid="stChatMessage"]');
    if (messages.length) messages[messages.length - 1].scrollIntoView({block: "start"});
  }, wait);
}
</script>"""

# The Ask page runs this once a run (st.html in the page itself; a constant, no user text):
# a click on an answer's [n] marker brings its sources' anchor into view, opens an older
# answer's folded sources under it, and shows source n there: the Sources tab, its pill [n]
# picked. Every marker of an answer links to the answer's one anchor, so n is read off the
# marker's own text ("[2]"); clicking [2] left the pills on [1] (QA pass). The link alone did
# none of it: the page, kept scrolled to its bottom as it grows, did not move to the anchor.
# Installed once per page.
SOURCES_LINK_OPENS = """<script>
(() => {
  const doc = window.parent.document;
  if (doc.gwSourcesLinks) return;
  doc.gwSourcesLinks = true;
  // the elements matching `selector` that belong to the anchor's answer: in its chat message, below it
  const below = (anchor, selector) => {
    const message = anchor.closest('[data-testid="stChatMessage"]') || doc;
    return [...message.querySelectorAll(selector)].filter(
      (e) => anchor.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
  };
  const openFold = (anchor) => {
    const fold = below(anchor, "details")[0];
    if (fold && !fold.open) fold.querySelector("summary").click();
  };
  // source n shown: the Sources tab selected, its pill [n] picked. "shown" once it is,
  // "clicked" after a click (its rerun comes next), "drawing" while the pills are not there yet;
  // a picked pill is never clicked again (that would unpick it)
  const showSource = (anchor, n) => {
    const tab = below(anchor, '[role="tab"]')[0];
    if (tab && tab.textContent.trim().startsWith("Sources") && tab.getAttribute("aria-selected") !== "true") {
      tab.click();
      return "clicked";
    }
    const pills = below(anchor, '[role="radiogroup"][aria-label="Open a citation"]')[0];  // citation_pills
    const pill = pills && [...pills.querySelectorAll('[role="radio"]')].find(
      (b) => b.textContent.trim().startsWith(`[${n}]`));
    if (!pill) return "drawing";
    if (pill.getAttribute("aria-checked") === "true") return "shown";  // pills are radios
    pill.click();
    return "clicked";
  };
  const bringIntoView = (anchor) => {
    anchor.style.scrollMarginTop = "4rem";  // clear of the page's top bar
    anchor.scrollIntoView({block: "start"});
  };
  // the marker click being followed: a newer one, or the user's own pointer or wheel, ends the
  // older one's steps (they would pick its pill back, or scroll back to it)
  let following = 0;
  for (const kind of ["pointerdown", "wheel"]) doc.addEventListener(kind, () => following++, true);
  doc.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href^="#gw-sources-"]');
    const id = link && link.getAttribute("href").slice(1);
    const anchor = id && doc.getElementById(id);
    if (!anchor) return;
    const n = Number(link.textContent.replace(/[^0-9]/g, ""));  // "[2]"
    if (anchor.classList.contains("gw-fold")) openFold(anchor);
    // until source n shows (the fold's content and a picked pill's panel come with reruns),
    // then a second longer as its panel is drawn; brought into view all along (the page,
    // kept at its bottom as it grows, would stay there)
    const mine = ++following;
    let tries = 0, shown = 0, waitUntil = 0;
    const step = () => {
      const at = doc.getElementById(id);
      if (!at || mine !== following) return;
      if (Date.now() >= waitUntil) {
        const state = showSource(at, n);
        // counted only on a quiet page: a rerun still drawing grows the page and keeps it at
        // its bottom, past the sources (seen in a loaded full run: opened, out of view)
        const app = doc.querySelector('[data-testid="stApp"]');
        const quiet = !app || app.getAttribute("data-test-script-state") !== "running";
        shown = state === "shown" ? shown + (quiet ? 1 : 0) : 0;
        if (state === "clicked") waitUntil = Date.now() + 1000;
      }
      bringIntoView(at);
      if (++tries < 240 && shown < 4) setTimeout(step, 250);  // a minute at most: a slow page's reruns
    };
    step();
  });
})();
</script>"""

def other_language_note(question: str, closest: list[dict[str, Any]]) -> str | None:
    """To try asking in the closest passage's language, when the first closest passage is in
    another language than the question. One further down is not named: on the development
    sets' refusals, naming any of the closest showed the hint 241 times, 75 of them useful
    (the answer was in the other language); the first alone shows it 82 times, 47 useful, and
    four console QA passes found the others' hint confusing ("try asking in Russian" under an
    English question answered by English documents)."""
    found = first_in_other_language(question, closest[:1])
    return language_of(question).say("try_language", language=found[1]) if found else None


def closest_passages(settings: Settings, tenant: str, answer: dict[str, Any]) -> None:
    """A refusal's closest passages, each with its nearest sentence highlighted; for the
    first, when it comes from a PDF, its page with that sentence marked."""
    closest = answer.get("closest") or []
    if not closest:
        st.caption("No passages came close.")
        return
    note = other_language_note(answer.get("asked_as") or answer.get("question", ""), closest)
    if note:
        st.caption(escape_md(note, inline=True))
    st.caption("Closest passages in the knowledge base, not used as an answer. In each, the sentence "
               "nearest the question is highlighted: it was not confirmed as an answer, so read it yourself.")
    for item in closest:
        with st.container(border=True):
            where = [f"**{escape_md(item.get('source', ''), inline=True)}**"] + page_bits(item.get("page"),
                                                                                          item.get("source", ""))
            if item.get("section"):
                where.append("§ " + escape_md(item["section"], inline=True))
            st.markdown(" · ".join(where))
            if item.get("left_out") == "addresses_model":
                # its model-addressed lines only: the rest of the passage answers as usual (the
                # Documents page says so too; a QA pass read "never quoted" of quoted passages)
                st.caption(":material/block: Its text addressed to an AI model is never quoted (shown as left "
                           "out); the rest of this passage is read as usual. An admin can remove that text from "
                           "the document and upload it again.")
            span = item.get("highlight")
            if _closest_table(settings, tenant, item):
                pass  # a table's passage: its table, the nearest row highlighted (not raw pipes)
            elif span and len(span) == 2:
                st.markdown(highlight_md(item.get("snippet", ""), int(span[0]), int(span[1]), limit=600))
            else:
                st.text(clip(clean(item.get("snippet", "")), 600))
            if item.get("rects") and item.get("page") not in (None, -1):  # the first, from a PDF
                path = services.original_path(settings, tenant, item.get("doc_id", ""))
                if path is not None:
                    with st.expander(f"Page {int(item['page'])}, the nearest sentence marked"):
                        page_image(path, int(item["page"]), item["rects"], scan=services.scanned_page(
                            settings, tenant, item.get("doc_id", ""), int(item["page"])))


# ---- claims --------------------------------------------------------------------------------


def claims_list(answer: dict[str, Any]) -> None:
    claims = answer.get("claims") or []
    if not claims:
        st.caption("No claims were checked (nothing was generated)." if answer.get("status") == "refused"
                   else "No claims.")
        return
    if (answer.get("provider") or "extractive") == "extractive":
        quoted_claims(claims)
        return
    counts = {v: sum(1 for c in claims if c.get("verdict") == v) for v in ("supported", "unsupported", "contradicted")}
    st.markdown(" ".join(f"{verdict_badge_md(v)} {n}" for v, n in counts.items() if n))
    for i, claim in enumerate(claims, start=1):
        verdict = claim.get("verdict", "")
        with st.container(border=True):
            cites = " ".join(f":blue-badge[{int(n)}]" for n in claim.get("citations", []))
            st.markdown(f"{verdict_badge_md(verdict)} score **{claim.get('score', 0):.2f}** {cites} "
                        + escape_md(f"#{i}", inline=True))
            st.markdown(escape_md(claim.get("text", "")))
            evidence = claim.get("evidence") or ""
            if evidence:
                color = "green" if verdict == "supported" else "orange" if verdict == "unsupported" else "red"
                st.markdown("Evidence: " + highlight_md(evidence, 0, len(evidence), color=color, limit=1500))
            else:
                st.caption("No evidence span in the cited passage.")
            details = ", ".join(claim.get("checks") or [])
            if claim.get("reason"):
                details += (" — " if details else "") + clean(claim["reason"])
            if details:
                st.caption("Checks: " + escape_md(details, inline=True))


# what the deterministic judge checks beyond a verbatim quote (core/verify.py), as said to a reader
CHECKED_FACTS = {"numbers": "numbers and units", "identifiers": "identifiers", "entities": "names",
                 "negation": "negation"}


def quoted_claims(claims: list[dict[str, Any]]) -> None:
    """Quotes entail themselves: a card per sentence saying "supported, 1.00, evidence: itself"
    told nothing. Said instead: they are verbatim, and what was checked beyond that."""
    checked = [c for c in claims if set(c.get("checks") or []) & CHECKED_FACTS.keys()]
    st.caption(f"{count_of(len(claims), 'quoted sentence')}, each copied verbatim from the "
               "passage its marker cites. " + ("Checked beyond the quote:" if checked else
                                                "None holds a number, identifier, name or negation to check beyond it."))
    for claim in checked:
        facts = ", ".join(CHECKED_FACTS[k] for k in CHECKED_FACTS if k in (claim.get("checks") or []))
        cites = " ".join(f":blue-badge[{int(n)}]" for n in claim.get("citations", []))
        st.markdown(f"{verdict_badge_md(claim.get('verdict', ''))} {cites} "
                    + escape_md(clip(" ".join(clean(claim.get("text", "")).split()), 240), inline=True))
        st.caption(f"checked: {facts}" + (f" — {escape_md(clean(claim['reason']), inline=True)}"
                                           if claim.get("reason") else ""))


def claims_frame(claims: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([{
        "claim": clip(clean(c.get("text", "")), 400), "verdict": c.get("verdict"),
        "score": round(float(c.get("score", 0)), 3), "evidence": clip(clean(c.get("evidence", "")), 400),
        "cites": ", ".join(str(n) for n in c.get("citations", [])), "checks": ", ".join(c.get("checks") or []),
    } for c in claims])


# ---- feedback ------------------------------------------------------------------------------


FEEDBACK_INPUTS = ("_thumbs", "_comment")


def forget_feedback_inputs(chat: str) -> None:
    """The feedback widgets are keyed by turn number ("turn1_comment"): when another chat
    (or tenant) is drawn, drop what was typed or clicked under this one, or a half-typed
    comment stood under the same turn of the next chat."""
    if st.session_state.get("feedback_inputs_of") == chat:
        return
    for k in [k for k in st.session_state if isinstance(k, str) and k.startswith("turn")
              and k.endswith(FEEDBACK_INPUTS)]:
        del st.session_state[k]
    st.session_state["feedback_inputs_of"] = chat


def feedback_form(settings: Settings, tenant: str, answer: dict[str, Any], key: str) -> None:
    """Thumbs + comment (stored with the trace), and "add to eval set"."""
    trace_id = answer.get("trace_id", "")
    left, right = st.columns(2)
    with left:
        st.markdown("**Was this answer right?**")
        # a rating given before a reload (or in a saved chat) shows as given: drawn empty, the
        # user rated again and the empty comment replaced theirs
        given = services.feedback_given(settings, tenant, trace_id)
        # a thumb is stored as it is clicked: a click not followed by "Send" was silently lost
        # (the thumb stayed lit, the rating never reached Quality)
        rating = st.feedback("thumbs", key=f"{key}_thumbs",
                             default=None if given is None else int(given["rating"] == 1),
                             on_change=_rated, args=(settings, tenant, trace_id, key))
        comment = st.text_input("Comment (optional)", key=f"{key}_comment", max_chars=2000,
                                value=(given or {}).get("comment") or "")
        if st.button("Send comment", key=f"{key}_send", disabled=rating is None,
                     help="The thumb is saved as you click it; this adds or replaces the comment."):
            send_feedback(settings, tenant, trace_id, up=rating == 1, comment=comment)
        elif given is not None and trace_id not in st.session_state.get("feedback_sent", {}):
            st.caption(f"You rated this answer {'up' if given['rating'] == 1 else 'down'} on "
                       f"{fmt_time(given['created_at'])}; sending again replaces that rating.")
        feedback_note(trace_id)
    with right:
        st.markdown("**Add to eval set**")
        docs = sorted({d["file_name"] for d in services.list_documents(settings, tenant) if d["status"] == "ready"})
        # a refusal's closest passages are the likeliest source of a missed answer
        cited = [c.get("source") for c in [*answer.get("citations", []), *answer.get("closest", [])]]
        sources = list(dict.fromkeys([s for s in cited if s] + docs))
        with st.form(f"{key}_eval", border=False):
            # a refusal rated down says the answer was there: answerable (a QA pass found the
            # form offering "unanswerable (should refuse)" under a thumbs-down on a refusal)
            refusal_stands = answer.get("status") == "refused" and rating != 0
            kind = st.selectbox("Expected outcome", services.EVAL_KINDS, index=1 if refusal_stands else 0,
                                format_func=lambda k: {"answerable": "answerable (the KB holds the answer)",
                                                       "unanswerable": "unanswerable (should refuse)",
                                                       "misleading": "misleading premise (should refuse)"}[k])
            # an answer rated down is no gold: offered as the expected answer and quote, it
            # was one click from entering the eval set as right (a QA pass)
            wrong = answer.get("status") != "refused" and rating == 0
            if wrong:
                st.caption("You rated this answer down: type the right answer and copy its quote from the source.")
            plain = " ".join(answer_md_plain(answer.get("answer", "")).split())
            expected = st.text_input("Expected answer", value="" if wrong or answer.get("status") == "refused"
                                     else plain, max_chars=2000)
            gold_source = st.selectbox("Source that holds the answer", sources or ["(none)"])
            gold_quote = st.text_input("Gold quote (exact text from the source)",
                                       value="" if wrong else suggested_quote(answer), max_chars=4000)
            category = st.text_input("Category", value="feedback", max_chars=80)
            if st.form_submit_button("Add to eval set"):
                try:
                    row = services.eval_row(answer, kind, expected,
                                            None if gold_source == "(none)" else gold_source, gold_quote, category)
                except ValueError as exc:
                    st.error(escape_md(str(exc), inline=True))
                else:
                    path, outcome = services.append_eval_row(settings, tenant, row)
                    name = escape_md(path.name, inline=True)
                    st.success(f"Updated the existing row for this question in {name}." if outcome == "updated"
                               else f"Added to {name}.")


def suggested_quote(answer: dict[str, Any]) -> str:
    """The gold quote "Add to eval set" offers: the quote the answer model scored best, not the
    first shown (a runner-up, "The water tank holds 2.4 litres", or a prohibition quoted
    first is not what was asked)."""
    quoted = [c for c in answer.get("citations") or [] if c.get("quote")]
    return max(quoted, key=lambda c: c.get("score") or 0.0)["quote"] if quoted else ""


def answer_md_plain(text: str) -> str:
    """The answer without its `[n]` markers (a default for "expected answer")."""
    import re

    return re.sub(r"\s*\[\d{1,3}\]", "", clean(text))


# ---- the whole answer ----------------------------------------------------------------------


def render_answer(settings: Settings, tenant: str, answer: dict[str, Any], key: str, *,
                  open_first: bool = True, feedback: bool = True, fold: str | None = None,
                  threshold: float | None = None) -> None:
    """Header, text with pills, then Sources / Claims / Feedback tabs. `threshold`: the one the
    answer's confidence was compared with (a trace's gate records it), else the tenant's.

    With `fold` (an older turn of a chat), only the header, the text with its markers (each
    shows its quote on hover) and a stale-source warning are drawn; the suggestions and the
    tabs wait in a collapsed expander keyed `fold`, whose content runs only once it is opened
    (the first citation then opens with its page). A reopened chat of 26 turns drew every
    turn's tabs, passages and feedback form, and took seconds to show."""
    answer_header(answer, settings.gate_threshold if threshold is None else threshold)
    answer_body(answer, key)
    if fold is None:
        answer_suggestions(answer, key, feedback)
    citations = answer.get("citations") or []
    gone = services.gone_sources(settings, tenant, citations)
    if gone:  # an answer kept in the chat outlives the documents it quoted
        st.warning(f"Since this answer, {', '.join(escape_md(g, inline=True) for g in gone)} "
                   f"{plural(len(gone), 'was', 'were')} replaced or deleted: ask again for an answer from "
                   "the current documents.", icon=":material/history:")
    names = answer_tab_names(answer, feedback)
    # what the text's [n] markers link to: without it a marker's click went nowhere (no
    # element had the id); over a folded answer it sits above the expander, which stays
    # in the page closed (and SOURCES_LINK_OPENS opens on the click)
    st.html(anchor_html(key, folded=fold is not None))
    if fold is None:
        answer_tabs(settings, tenant, answer, key, names, open_first=open_first, feedback=feedback)
        return
    folded = st.expander(" · ".join(names), key=fold, on_change="rerun", icon=":material/menu_book:")
    if folded.open:  # lazy: a closed expander's content is neither computed nor sent
        with folded:
            answer_suggestions(answer, key, feedback)
            answer_tabs(settings, tenant, answer, key, names, open_first=True, feedback=feedback)


def answer_suggestions(answer: dict[str, Any], key: str, feedback: bool) -> None:
    if feedback and answer.get("suggestions"):  # the Ask page: a click asks it next
        st.caption("You could also ask (the passages above answer these):")
        row = st.container(horizontal=True)
        for n, suggestion in enumerate(answer["suggestions"]):
            row.button(escape_md(clean(suggestion), limit=200, inline=True), key=f"{key}_suggest{n}",
                       icon=":material/subdirectory_arrow_right:",
                       on_click=lambda q=suggestion: st.session_state.__setitem__("ask_next", q))


def answer_tab_names(answer: dict[str, Any], feedback: bool = True) -> list[str]:
    """The tabs of an answer: "Sources (2)" (one per marker, as the pills show them) or "Closest
    passages", then "Claims (3)" and, on the Ask page, "Feedback"."""
    citations = answer.get("citations") or []
    names = [f"Sources ({len(merge_by_index(citations))})" if citations else "Closest passages",
             f"Claims ({len(answer.get('claims') or [])})"]
    return [*names, "Feedback"] if feedback else names


def answer_tabs(settings: Settings, tenant: str, answer: dict[str, Any], key: str, names: list[str], *,
                open_first: bool, feedback: bool) -> None:
    citations = answer.get("citations") or []
    tabs = st.tabs(names)
    with tabs[0]:
        if citations:
            picked = citation_pills(answer, f"{key}_pills", default_first=open_first)
            if picked is not None:
                citation_panel(settings, tenant, picked, f"{key}_cite{picked['index']}")
            else:
                st.caption("Click a citation to see where it comes from.")
        else:
            closest_passages(settings, tenant, answer)
    with tabs[1]:
        claims_list(answer)
    if feedback:
        with tabs[2]:
            feedback_form(settings, tenant, answer, key)


# ---- traces --------------------------------------------------------------------------------


def candidates_frame(trace: dict[str, Any]) -> pd.DataFrame:
    given = {r.get("chunk_id") for r in (trace.get("answer") or {}).get("retrieved", [])}
    rows = []
    for c in trace.get("candidates") or []:
        rows.append({
            "rank": c.get("rank"), "given": c.get("chunk_id") in given, "neighbour": bool(c.get("neighbour")),
            "source": clean(c.get("source", "")), "page": c.get("page_start", c.get("page")),
            "section": clean(c.get("section", "")),
            "dense": c.get("dense_score"), "dense rank": c.get("dense_rank"),
            "bm25": c.get("bm25_score"), "bm25 rank": c.get("bm25_rank"),
            "fused": c.get("fused_score"), "text": clip(" ".join(clean(c.get("text", "")).split()), 300),
            "chunk_id": c.get("chunk_id"),
        })
    return pd.DataFrame(rows)


# ---- documents -----------------------------------------------------------------------------


def chunk_card(chunk: dict[str, Any], number: int, needle: str = "",
               on_toggle: Callable[[str, bool], None] | None = None, original: Path | None = None,
               turns: dict[int, int] | None = None) -> None:
    """One chunk as indexed: kind badge, page, section, and its text (tables as tables), the
    first match of `needle` highlighted; with `on_toggle`, a switch keeping it out of answers;
    with the kept `original` PDF or page image, a switch showing its page beside the text
    (upright: `turns`, page -> degrees a scan fed the wrong way was turned to be read)."""
    page_no = chunk.get("page_start")
    show_page = (original is not None and page_no not in (None, -1) and chunk.get("chunk_id")
                 and st.toggle(f"Show page {page_no}", key=f"chunk_page_img_{chunk['chunk_id']}"))
    outer = st.container(border=True)
    if show_page:
        text_col, page_col = outer.columns([3, 2])
        mtime = original.stat().st_mtime
        page_col.image(_page_png(str(original), mtime, int(page_no), (), 110, False, (turns or {}).get(int(page_no), 0)),
                       width="stretch",
                       output_format="PNG", caption=f"page {page_no} of the original")
        outer = text_col
    with outer:
        if on_toggle is not None and chunk.get("chunk_id"):
            cid = chunk["chunk_id"]
            used = st.toggle("Used in answers", value=not chunk.get("disabled"), key=f"chunk_use_{cid}",
                             help="Off: retrieval skips this passage, so no answer quotes it. Reversible; "
                                  "re-indexing the document turns every passage on again.")
            if used == bool(chunk.get("disabled")):
                on_toggle(cid, not used)
        elif chunk.get("disabled"):
            st.caption(":orange-badge[excluded from answers]")
        pages = chunk.get("page_start")
        if pages not in (None, -1) and chunk.get("page_end") not in (None, -1, pages):
            pages = f"{pages}–{chunk['page_end']}"
        meta = [kind_badge_md(chunk.get("kind", "")), escape_md(f"#{number}", inline=True)] + page_bits(
            pages, chunk.get("source", ""))
        if chunk.get("section"):
            meta.append("§ " + escape_md(chunk["section"], inline=True))
        meta.append(escape_md(f"{chunk.get('lang', '')} · {chunk.get('tokens', 0)} tokens", inline=True))
        st.markdown(" · ".join(meta))
        if looks_like_instruction(chunk.get("text", "")):  # "Used in answers" alone read as all of it (QA pass)
            st.caption(":orange-badge[addresses an AI model] The lines that do are never quoted nor read as "
                       "evidence; the rest of the passage answers as usual.")
        text = re.sub(r"\n\s*\n", "\n", clean(chunk.get("text", "")))  # compact: one line per block
        if chunk.get("kind") == "table":
            before, rows, after = parse_pipe_table(text)
            if rows:
                if before:
                    st.text(clip(" / ".join(before), 300))
                header, body = rows[0], rows[1:]
                st.dataframe(pd.DataFrame(body, columns=unique_headers(header)), hide_index=True, placeholder="—",
                             width="stretch")
                if after:  # sentences under the table are part of the passage too
                    st.text(clip(" / ".join(after)))
                return
        found = text.lower().find(needle) if needle else -1
        if found >= 0:
            st.markdown(highlight_md(text, found, found + len(needle), color="yellow"))
        else:
            st.text(clip(text))


def path_suffix(path: Path | None) -> str:
    return path.suffix.lower() if path else ""


def traces_table(traces: list[dict[str, Any]], threshold: float | None = None) -> str | None:
    """The asks as a table; returns the trace id of the row the user clicked, if any. Each
    confidence is shown against its ask's threshold, `threshold` (the tenant's) when its trace
    recorded none."""
    frame = pd.DataFrame([{
        "when": fmt_time(t.get("created_at")), "status": t.get("status"),
        "question": clip(clean(t.get("question", "")), 300),
        "confidence": confidence_cell(t.get("confidence"), ask_threshold(t, threshold)),
        "factuality": factuality_of(t.get("factuality"), t.get("unsupported")),
        "unsupported": t.get("unsupported"), "provider": t.get("provider"),
        "ms": round(t["total_ms"]) if t.get("total_ms") is not None else None,
        "asked by": t.get("origin") or "person",
    } for t in traces], columns=["when", "status", "question", "confidence", "factuality", "unsupported",
                                 "provider", "ms", "asked by"])
    if not any(t.get("origin") for t in traces):  # people's asks only: a column of "person" says nothing
        frame = frame.drop(columns="asked by")
    event = st.dataframe(frame, hide_index=True, placeholder="—", width="stretch",
                         height=min(35 * (len(frame) + 1) + 3, 316), key="traces_grid",
                         on_select="rerun", selection_mode="single-row",
                         column_config={"confidence": st.column_config.TextColumn(),
                                        "factuality": st.column_config.NumberColumn(format="%.0f%%")})
    rows = event.selection.rows if event is not None else []
    return traces[rows[0]]["trace_id"] if rows and rows[0] < len(traces) else None


def trace_picker(settings: Settings, tenant: str, traces: list[dict[str, Any]],
                 clicked: str | None = None) -> str | None:
    """A selectbox over the listed traces. A new `?trace=<id>` (a link from the Ask page)
    opens that trace even when the filters hide it; so does a newly clicked table row
    (`clicked`); the choice is written back to the URL.
    A link to no trace of this tenant (unknown, or another tenant's) says so in a warning
    and opens the newest listed trace instead."""
    wanted = st.query_params.get("trace")
    options = {t["trace_id"]: t for t in traces}
    fresh_link = bool(wanted) and st.session_state.get("_trace_param_seen") != wanted
    missing = False
    if fresh_link and wanted not in options:
        found = services.get_trace(settings, tenant, wanted)  # tenant-scoped: never another tenant's
        if found:
            a = found.get("answer") or {}
            options = {wanted: {"trace_id": wanted, "question": a.get("question", ""),
                                "status": a.get("status"), "created_at": None}, **options}
        else:  # an unknown id, or another tenant's: say so instead of silently opening another
            missing = True
    ids = list(options)
    if missing:
        st.warning(f"No trace {escape_md(wanted, limit=80, inline=True)} for tenant "
                   f"{escape_md(tenant, limit=80, inline=True)}" + ("; showing the newest." if ids else "."),
                   icon=":material/link_off:")
        st.session_state["_trace_param_seen"] = wanted
        if ids:
            st.session_state["trace_open"] = ids[0]
    if not ids:
        if missing:
            del st.query_params["trace"]
        return None

    def label(trace_id: str) -> str:  # selectbox options are plain text (no Markdown)
        t = options[trace_id]
        question = " ".join(clean(t.get("question", "")).split())
        return f"{fmt_time(t.get('created_at')) or 'linked'} · {t.get('status')} · {clip(question, 110)}"

    # a new ?trace= (a link from the Ask page) wins over the previous selection
    if fresh_link and wanted in ids:
        st.session_state["trace_open"] = wanted
    # a row click counts once: afterwards the selectbox may move on while the row stays selected
    if clicked in ids and st.session_state.get("_trace_clicked") != clicked:
        st.session_state["trace_open"] = clicked
    st.session_state["_trace_clicked"] = clicked
    if st.session_state.get("trace_open") not in ids:
        st.session_state["trace_open"] = ids[0]
    trace_id = st.selectbox("Open a trace", ids, format_func=label, key="trace_open")
    if trace_id != wanted or st.query_params.get("tenant") != tenant:
        # with the tenant, so a copied link opens this trace in a new session too
        st.query_params.update(trace=trace_id, tenant=tenant)
    st.session_state["_trace_param_seen"] = trace_id
    return trace_id


def candidates_table(trace: dict[str, Any]) -> None:
    frame = candidates_frame(trace)
    if frame.empty:
        st.caption("No candidates (the knowledge base was empty).")
        return
    st.caption("All fused candidates, best first. **given** = passed to the generator (top-k plus "
               "neighbours); dense = cosine, bm25 = BM25 score, fused = reciprocal-rank fusion.")
    st.dataframe(frame, hide_index=True, placeholder="—", width="stretch", column_config={
        "dense": st.column_config.NumberColumn(format="%.3f"),
        "bm25": st.column_config.NumberColumn(format="%.2f"),
        "fused": st.column_config.NumberColumn(format="%.4f"),
        "given": st.column_config.CheckboxColumn(), "neighbour": st.column_config.CheckboxColumn(),
    })


def gate_view(gate: dict[str, Any] | None, answer: dict[str, Any] | None = None) -> None:
    """The gate's decision with each figure named: the answer confidence is what the threshold
    is compared with; the retrieval confidence is the gate's evidence score, one of its parts."""
    if not gate:
        st.caption("No gate decision recorded.")
        return
    answer = answer or {}
    threshold = float(gate.get("threshold") or 0)
    retrieval = float(gate.get("confidence") or 0)
    answer_conf = gate.get("answer_confidence", answer.get("confidence"))
    decision = gate.get("decision") or (
        "answer" if answer_conf is not None and answer_conf >= threshold else "refuse")
    color = "red" if decision.startswith("refuse") else "green"
    if answer_conf is None:
        line = (f"answer confidence **not recorded**; threshold **{threshold:.2f}** "
                f"· retrieval confidence **{retrieval:.2f}**")
    else:
        side = "below" if answer_conf < threshold else "at or above"
        # on its side of the threshold: never "0.66 vs 0.66 (below)"
        line = (f"answer confidence **{fmt_confidence(answer_conf, threshold)}** vs threshold **{threshold:.2f}** ({side}) "
                f"· retrieval confidence **{retrieval:.2f}**")
    if gate.get("support") is not None:
        line += f" · sentence support **{float(gate['support']):.2f}**"
    # "answer · answer confidence 0.77": the badge is the decision, set apart from the figures
    # (it read "answer answer confidence 0.77": QA pass)
    st.markdown(f":{color}-badge[{escape_md(decision, inline=True)}] · " + line)
    st.caption("Only the answer confidence is compared with the threshold. In the embedded default it is "
               "the answer model's probability that the best sentence answers the question, learned from "
               "labelled questions of several domains; the signals that moved it most are listed below.")
    if answer.get("status") == "refused" and not decision.startswith("refuse"):
        st.caption("The gate let this ask through; the answer was refused afterwards"
                   + (": " + escape_md(answer["refusal_reason"], inline=True) if answer.get("refusal_reason") else "."))
    parts = {k: gate.get(k) for k in ("coverage", "similarity", "agreement") if gate.get(k) is not None}
    if parts:
        cols = st.columns(len(parts))
        for col, (name, value) in zip(cols, parts.items(), strict=True):
            col.metric(name.capitalize(), f"{value:.2f}", help="A part of the retrieval confidence.")
    if gate.get("reason"):
        st.caption("Reason: " + escape_md(gate["reason"], inline=True))
    if gate.get("rejected"):
        st.markdown("**Sentences the answer could not use**")
        st.dataframe(pd.DataFrame([{"passage": f"[{r['passage']}]", "sentence": clean(r["text"]), "why not": r["why"]}
                                   for r in gate["rejected"]]), hide_index=True, placeholder="—", width="stretch")
    model_rows = gate.get("answer_model") or []
    if model_rows:
        st.markdown("**Answer model: the best candidate sentences and what drove their scores**")
        st.dataframe(pd.DataFrame([
            {"passage": f"[{r['passage']}]", "sentence": clean(r["unit"]), "score": r["score"],
             "drivers": ", ".join(f"{k} {v:+.2f}" for k, v in r.get("drivers", {}).items())}
            for r in model_rows if "unit" in r]), hide_index=True, placeholder="—", width="stretch")
    with st.expander("Raw gate record"):
        st.json(gate, expanded=True)


def llm_view(trace: dict[str, Any]) -> None:
    if not trace.get("prompt") and not trace.get("raw_output"):
        st.caption("No LLM ran for this ask (extractive answer or refused at the gate).")
        return
    if trace.get("prompt"):
        st.markdown("**Prompt**")
        st.code(clip(clean(trace["prompt"]), 50_000), language=None, wrap_lines=True)
    if trace.get("raw_output"):
        st.markdown("**Raw output**")
        st.code(clip(clean(trace["raw_output"]), 50_000), language=None, wrap_lines=True)
    if trace.get("tokens"):
        st.caption("Tokens: " + escape_md(", ".join(f"{k} {v}" for k, v in trace["tokens"].items()), inline=True))


def timings_chart(timings: dict[str, float], key: str) -> None:
    from ui import charts

    if not timings:
        st.caption("No timings recorded.")
        return
    st.plotly_chart(charts.timings_bar(timings), width="stretch", key=key)


CHUNKS_PER_PAGE = 20


def chunk_viewer(chunks: list[dict[str, Any]], key: str,
                 on_toggle: Callable[[str, bool], None] | None = None, original: Path | None = None,
                 turns: dict[int, int] | None = None) -> None:
    """A document's chunks: kinds present, find-in-chunks (matches highlighted), pages of
    CHUNKS_PER_PAGE cards, each with its "used in answers" switch when `on_toggle` is given."""
    kinds = sorted({c.get("kind", "") for c in chunks})
    st.markdown(f"**{count_of(len(chunks), 'chunk')}** " + " ".join(kind_badge_md(k) for k in kinds))
    if not chunks:
        return
    find_col, page_col = st.columns([3, 1], vertical_alignment="bottom")
    needle = find_col.text_input("Find in chunks", key=f"chunk_find_{key}").lower()
    matching = [(n, c) for n, c in enumerate(chunks, start=1) if needle in c.get("text", "").lower()]
    pages = max(1, -(-len(matching) // CHUNKS_PER_PAGE))
    page = int(page_col.number_input("Page", 1, pages, 1, key=f"chunk_page_{key}")) if pages > 1 else 1
    start = (min(page, pages) - 1) * CHUNKS_PER_PAGE
    if not matching:
        st.caption("No chunk matches the search.")
        return
    excluded = sum(1 for c in chunks if c.get("disabled"))
    if excluded:
        st.caption(f"{excluded:,} of {count_of(len(chunks), 'passage')} {plural(excluded, 'is', 'are')} "
                   "kept out of answers.")
    for number, chunk in matching[start:start + CHUNKS_PER_PAGE]:
        chunk_card(chunk, number, needle, on_toggle, original, turns)
    shown_to = min(len(matching), start + CHUNKS_PER_PAGE)
    st.caption(f"Showing {start + 1:,}–{shown_to:,} of {count_of(len(matching), 'chunk')}."
               if shown_to > start + 1 else f"Showing chunk {start + 1:,} of {len(matching):,}.")


# ---- feedback: one rating per answer -------------------------------------------------------


def _rated(settings: Settings, tenant: str, trace_id: str, key: str) -> None:
    """The thumbs' on_change: store the rating now, with whatever comment is typed."""
    value = st.session_state.get(f"{key}_thumbs")
    if value is not None:
        send_feedback(settings, tenant, trace_id, up=value == 1, comment=st.session_state.get(f"{key}_comment") or "")


def send_feedback(settings: Settings, tenant: str, trace_id: str, up: bool, comment: str) -> str | None:
    """Store the answer's one rating (a second send replaces the first) and remember what
    happened for `feedback_note`; "saved", "updated", or None (an error shown) when the
    answer's trace is gone."""
    try:
        outcome = services.add_feedback(settings, tenant, trace_id, up=up, comment=comment)
    except LookupError as exc:  # the answer's trace is gone (another data folder, a reset)
        st.error(escape_md(str(exc), inline=True))
        return None
    word = "up" if up else "down"
    # said beside the thumbs (`feedback_note`), not in a toast: a toast sat over the New chat
    # button for seconds after every rating
    st.session_state.setdefault("feedback_sent", {})[trace_id] = f"Feedback {outcome} ({word})."
    return outcome


def feedback_note(trace_id: str) -> None:
    """"Feedback saved (up)." or "Feedback updated (down)." once the answer was rated here."""
    note = st.session_state.get("feedback_sent", {}).get(trace_id)
    if note:
        st.caption(note if note.startswith("Feedback") else f"Feedback saved ({note}).")
