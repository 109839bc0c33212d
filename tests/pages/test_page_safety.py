"""Untrusted document text, file names and questions never reach the page as HTML or as
Markdown syntax: every Markdown-rendered string in every page is inert."""

import re

HOSTILE_TEXT = (
    "Hostile notes\n\n"
    "<script>window.__pwned = 1</script>\n\n"
    '<img src=x onerror="window.__pwned=2">\n\n'
    "Click [here](javascript:alert(1)) or ![x](javascript:alert(2)) for the refund window.\n\n"
    "The refund window for hostile gadgets is 21 days <b>bold</b> :red[red] $x^2$ **strong**.\n\n"
    # a giant single line (no newline in 20k characters). A wordless run that long would
    # take the embedder minutes (it reads past its 512-token limit): see the report to core.
    + "lorem ipsum dolor " * 1200 + "\n"
)
HOSTILE_NAME = '<img src=x onerror=alert(1)>[a](javascript:x).txt'
HOSTILE_QUESTION = "<script>alert(1)</script> [x](javascript:alert(1)) What is the refund window for hostile gadgets?"

# what our own helpers emit: directives with fixed names, icons, bold, line breaks
OURS = re.compile(r":(?:[a-z]+-badge|[a-z]+-background)\[|:material/[a-z_]+:|\*\*|  \n|#### "
                  r'|\[\\\[\d+\\\]\]\(#gw-sources-[A-Za-z0-9_-]+ "')  # a citation marker with its quote

ANCHOR = re.compile(r'<div id="gw-sources-[A-Za-z0-9_-]+"(?: class="gw-fold")?></div>')


def inert(body: str) -> bool:
    """No unescaped HTML or link syntax, no LaTeX, and nothing huge."""
    rest = OURS.sub("", body)
    return (not re.search(r"(?<!\\)[<>$`]", rest) and not re.search(r"(?<!\\)\]\(", rest)
            and "javascript:" not in rest.replace("javascript\\:", "") and len(body) < 8000)


def check_page(at, md_bodies):
    assert not at.exception, [e.value for e in at.exception]
    # nothing but the Ask page's own constant scripts (one scrolls to the newest answer, one
    # opens an older answer's sources on a marker's click) and the empty anchors its markers
    # link to may be rendered through st.html: no text of a document, a name or a question
    from ui.components import NEWEST_ANSWER_TOP, SOURCES_LINK_OPENS

    assert all(h.proto.body in (NEWEST_ANSWER_TOP, SOURCES_LINK_OPENS) or ANCHOR.fullmatch(h.proto.body)
               for h in at.get("html")), "only our own scripts and anchors in st.html"
    bad = [b for b in md_bodies(at) if not inert(b)]
    assert not bad, bad[:3]


def test_hostile_document_name_and_question_render_inert(app, goto, md_bodies, settings):
    goto(app, "pages/documents.py")
    app.file_uploader[0].set_value([(HOSTILE_NAME, HOSTILE_TEXT.encode(), "text/plain")]).run()
    next(b for b in app.button if b.label.startswith("Index ")).click().run()
    results = app.session_state["upload_results::acme"]
    assert results[0]["status"] == "ready", results
    check_page(app, md_bodies)
    app.text_input(key="doc_search").input("onerror").run()
    check_page(app, md_bodies)
    assert any("window.__pwned" in t.value for t in app.text)  # shown verbatim, as plain text
    assert all(len(t.value) < 8000 for t in app.text)  # nothing huge reaches the page

    goto(app, "pages/ask.py")
    app.chat_input[0].set_value(HOSTILE_QUESTION).run()
    check_page(app, md_bodies)
    app.chat_input[0].set_value("What is the refund window for hostile gadgets?").run()
    check_page(app, md_bodies)
    answer = app.session_state["history"]["acme"][-1]
    assert answer["status"] != "refused" and "21 days" in answer["answer"], answer
    assert "<b>bold</b>" in answer["answer"] and "$x^2$" in answer["answer"]  # hostile markup reached the page
    assert answer["citations"][0]["source"] == HOSTILE_NAME
    # a refusal shows the hostile passage as a closest one, its nearest sentence highlighted
    app.chat_input[0].set_value("What is the refund window for hostile gadgets on Mars?").run()
    check_page(app, md_bodies)
    refusal = app.session_state["history"]["acme"][-1]
    assert refusal["status"] == "refused" and refusal["closest"], refusal
    assert any("<b>bold</b>" in c["snippet"] or "<script>" in c["snippet"] for c in refusal["closest"])

    goto(app, "pages/traces.py")
    check_page(app, md_bodies)
    for tab in ("Candidates", "Gate", "Prompt & output", "Claims", "Timings"):  # each drawn when opened
        app.session_state["trace_tab"] = tab
        app.run()
        check_page(app, md_bodies)
    goto(app, "pages/settings.py")
    check_page(app, md_bodies)
