"""Untrusted text (document content, questions, file names) made safe to render.

Streamlit's Markdown understands links, images, HTML, LaTeX (`$...$`) and its own
directives (`:red[...]`, `:orange-background[...]`, `:material/icon:`). Text from a
tenant's documents or an operator's question must never reach any of them as syntax.

Rules the pages follow:
1. Prefer elements that never interpret text: `st.text`, `st.code`, `st.dataframe`, `st.json`.
2. Anything else that takes Markdown (st.markdown, st.caption, labels of expanders, tabs,
   buttons, pills, alerts, metrics) gets `escape_md(text)` first.
3. Never let Streamlit render raw HTML (no unsafe HTML flag anywhere).

`escape_md` backslash-escapes every ASCII punctuation character (CommonMark allows an escape
on each of them, and an escaped character can never open or close a construct), strips
leading indentation (4 spaces would start a code block), drops control and bidi-override
characters, and caps the length so a giant single line cannot freeze the browser.
"""

from __future__ import annotations

import html
import re

MAX_RENDER_CHARS = 6000

# All ASCII punctuation: CommonMark lets each be backslash-escaped.
_PUNCT = re.compile(r"([!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])")
# C0/C1 controls except tab and newline, plus bidi overrides/isolates that can spoof text.
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Characters a spreadsheet treats as the start of a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def clean(text: object) -> str:
    """The string form of a value with control and bidi-override characters removed."""
    if text is None:
        return ""
    return _INVISIBLE.sub("", str(text).replace("\r\n", "\n").replace("\r", "\n"))


def clip(text: str, limit: int = MAX_RENDER_CHARS) -> str:
    """At most `limit` characters, saying how many were left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f" … [{len(text) - limit:,} more characters not shown]"


def _escape_line(line: str) -> str:
    return _PUNCT.sub(r"\\\1", line.lstrip(" \t"))


def escape_md(text: object, *, limit: int = MAX_RENDER_CHARS, inline: bool = False) -> str:
    """Markdown that displays `text` literally.

    Paragraphs (blank lines) are kept, single newlines become hard line breaks, unless
    `inline` is set, where every newline becomes a space (for labels and table-like spots).
    """
    value = clip(clean(text), limit)
    if inline:
        return _escape_line(" ".join(value.split()))
    paragraphs = re.split(r"\n\s*\n", value)
    out = []
    for para in paragraphs:
        lines = [_escape_line(line) for line in para.split("\n")]
        lines = [line for line in lines if line.strip()]
        if lines:
            out.append("  \n".join(lines))
    return "\n\n".join(out)


def highlight_md(text: object, start: int, end: int, *, color: str = "orange",
                 limit: int = MAX_RENDER_CHARS) -> str:
    """Escaped Markdown of `text` with `text[start:end]` on a coloured background.

    The highlight directive is applied per line (a directive cannot span a paragraph
    break), and the highlighted text itself is escaped, so its brackets cannot close the
    directive early. When the text is longer than `limit`, a window around the quote is
    shown instead of the start.
    """
    return highlight_spans_md(text, [(start, end)], color=color, limit=limit)


def highlight_spans_md(text: object, spans: list[tuple[int, int]], *, color: str = "orange",
                       limit: int = MAX_RENDER_CHARS) -> str:
    """`highlight_md` with several quotes of one text marked, and only them: two sentences
    quoted under one marker had the sentences between them highlighted too, as if quoted
    (QA pass). The window of a long text is taken around the first to the last."""
    value = clean(text)
    marks = sorted((max(0, min(s, len(value))), max(0, min(e, len(value)))) for s, e in spans)
    marks = [(s, e) for s, e in marks if s < e]
    if not marks:
        return escape_md(value, limit=limit)
    merged: list[tuple[int, int]] = []
    for s, e in marks:  # overlapping or touching quotes are one mark
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    start, end = merged[0][0], merged[-1][1]
    prefix_note = suffix_note = ""
    if len(value) > limit:
        room = max(limit - (end - start), 0)
        lo = max(0, start - room // 2)
        hi = min(len(value), max(end, lo + limit))
        if lo > 0:
            prefix_note = f"[… {lo:,} characters before] "
        if hi < len(value):
            suffix_note = f" [… {len(value) - hi:,} more characters]"
        value = value[lo:hi]
        merged = [(s - lo, min(e, hi) - lo) for s, e in merged if s < hi]

    paragraphs: list[str] = []
    lines_out: list[str] = []
    pos = 0
    for line in value.split("\n"):
        line_start, line_end = pos, pos + len(line)
        pos = line_end + 1
        if not line.strip():
            if lines_out:
                paragraphs.append("  \n".join(lines_out))
                lines_out = []
            continue
        in_line = [(max(s, line_start) - line_start, min(e, line_end) - line_start) for s, e in merged
                   if max(s, line_start) < min(e, line_end)]
        piece = _marked_line(line, in_line, color)
        if piece.strip():
            lines_out.append(piece)
    if lines_out:
        paragraphs.append("  \n".join(lines_out))
    body = "\n\n".join(paragraphs)
    return escape_md(prefix_note) + body + escape_md(suffix_note)


def _marked_line(line: str, marks: list[tuple[int, int]], color: str) -> str:
    """One line, escaped, with each (lo, hi) of `marks` (sorted, apart) on a coloured
    background; what opens the line is escaped as a line start (no indentation kept)."""
    piece, pos, started = "", 0, False
    for lo, hi in [*marks, (len(line), len(line))]:
        plain = line[pos:lo]
        piece += _PUNCT.sub(r"\\\1", plain) if started else _escape_line(plain)
        started = started or bool(plain.strip())
        if lo < hi:
            mark = line[lo:hi]
            mark_md = _PUNCT.sub(r"\\\1", mark) if started else _escape_line(mark)
            if mark_md.strip():
                piece += f":{color}-background[{mark_md}]"
            started = started or bool(mark.strip())
        pos = max(pos, hi)
    return piece


def escape_html(text: object, limit: int = 300) -> str:
    """For Plotly labels and hover text, which understand a few HTML tags."""
    return html.escape(clip(clean(text), limit), quote=True)


def csv_cell(value: object) -> object:
    """A value safe to open in a spreadsheet: text starting like a formula gets a quote."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
