"""Pure formatting helpers (no Streamlit): colours, labels, answer markers, pipe tables."""

from __future__ import annotations

import datetime as dt
import math
import re
import time
from typing import Any

from core.schema import is_deck, page_label  # noqa: F401 - the console's names for them
from core.trace import word_to_teach as trace_word_to_teach
from ui.safe import MAX_RENDER_CHARS, clean, escape_md

# status -> (badge colour, Material icon, what it means for the reader)
STATUS_STYLE: dict[str, tuple[str, str, str]] = {
    "answered": ("green", "check_circle", "every claim is supported by its citation"),
    "narrowed": ("orange", "content_cut", "an unsupported claim was dropped; the rest is supported"),
    "corrected": ("blue", "rule", "the documents contradict what the question asks or takes for granted"),
    "refused": ("red", "block", "the knowledge base does not hold the answer"),
    "fallback": ("violet", "format_quote", "quotes only: the generated answer did not pass the checks"),
}
VERDICT_COLORS: dict[str, str] = {"supported": "green", "unsupported": "orange", "contradicted": "red"}
# background colours for the claims table (light, readable with dark text)
VERDICT_BG: dict[str, str] = {"supported": "#d3f9d8", "unsupported": "#ffe8cc", "contradicted": "#ffc9c9"}
KIND_COLORS: dict[str, str] = {"heading": "violet", "paragraph": "gray", "list_item": "blue",
                               "table": "orange", "code": "green"}

_MARKER = re.compile(r"\[(\d{1,3})\]")


def status_badge_md(status: str) -> str:
    color, icon, _ = STATUS_STYLE.get(status, ("gray", "help", ""))
    return f":{color}-badge[:material/{icon}: {escape_md(status, inline=True)}]"


def verdict_badge_md(verdict: str) -> str:
    return f":{VERDICT_COLORS.get(verdict, 'gray')}-badge[{escape_md(verdict, inline=True)}]"


def kind_badge_md(kind: str) -> str:
    return f":{KIND_COLORS.get(kind, 'gray')}-badge[{escape_md(kind or 'paragraph', inline=True)}]"


_STEP_START = re.compile(r"\s+\d{1,2}[.)]\s")


_TITLE_SAFE = str.maketrans({"\\": "/", '"': "'", "<": "‹", ">": "›", "$": "＄", "`": "'",
                              "[": "(", "]": ")"})


def hover_title(quote: str, limit: int = 240) -> str:
    """A quote as a Markdown link title: one line, clipped, no double quote or backslash
    (either would end or escape the title early), no angle bracket, bracket, dollar or backtick, no
    "javascript:" (a tooltip needs no markup, and a document's text is untrusted)."""
    flat = " ".join(clean(quote).split()).translate(_TITLE_SAFE)
    flat = re.sub(r"(?i)javascript:", "javascript ", flat)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def sources_anchor(key: str) -> str:
    """The id of the element over an answer's sources that its `[n]` markers link to: letters,
    digits, `_` and `-` only (it is written into an HTML id and a link)."""
    return "gw-sources-" + re.sub(r"[^A-Za-z0-9_-]", "-", key)


def anchor_html(key: str, folded: bool = False) -> str:
    """An empty element with the id `sources_anchor(key)`; `folded` marks it as above an
    older answer's folded sources, which the Ask page's `SOURCES_LINK_OPENS` opens on a marker's
    click (on the marker's own source, its number read off the marker's text)."""
    return f'<div id="{sources_anchor(key)}"' + (' class="gw-fold"' if folded else "") + "></div>"


def answer_md(text: str, quotes: dict[int, str] | None = None, anchor: str | None = None) -> str:
    """Escaped answer text with each `[n]` marker turned into a citation pill; with `quotes`
    and `anchor`, a marker whose quote is known becomes a link "[n]" to `#anchor` (the sources
    under the answer) that shows the quote on hover; the Ask page's script reads n off that
    text to show source n."""
    parts = _MARKER.split(clean(text))
    out = []
    for i, part in enumerate(parts):
        if i % 2:  # a captured marker number: digits only, safe as is
            n = int(part)
            quote = (quotes or {}).get(n)
            out.append(f' [\\[{n}\\]](#{anchor} "{hover_title(quote)}")' if quote and anchor
                       else f" :blue-badge[{n}]")
        elif part:
            if i and _STEP_START.match(part):  # a numbered step after a cited one: its own line
                out.append("  \n")
            elif i and part[:1].isspace():
                out.append(" ")  # the space after a marker (escape_md trims it)
            out.append(escape_md(part, inline=True))
    return "".join(out).strip()


def marker_numbers(text: str) -> list[int]:
    seen: list[int] = []
    for m in _MARKER.finditer(text or ""):
        n = int(m.group(1))
        if n not in seen:
            seen.append(n)
    return seen


SECTION_CHARS = 32  # of a citation pill's heading: enough to tell "Tier Basic (grades A..." apart


def citation_label(citation: dict[str, Any], limit: int = 40) -> str:
    """Plain-text label of a citation pill: `[1] refunds.pdf · p. 3` (`· slide 3` for a deck),
    then the heading the quote stands under (its section's last part): "Learning budget of
    800 EUR" said nothing of being the basic tier's until the citation was opened (QA pass)."""
    source = clean(citation.get("source", ""))
    page = citation.get("page")
    where = f" · {page_label(page, source)}" if page not in (None, -1, "") else ""
    heading = clean(str(citation.get("section") or "")).split(" > ")[-1].strip()
    if heading:
        where += " · " + (heading if len(heading) <= SECTION_CHARS else heading[: SECTION_CHARS - 1] + "…")
    if len(source) > limit:
        source = source[: limit - 1] + "…"
    return f"[{citation.get('index')}] {source}{where}"


def plural(n: int, one: str, many: str | None = None) -> str:
    """The word for `n` of a thing: `one` for 1, else `many` (default `one` + "s"); also a
    verb that agrees with its count: plural(n, "leaves", "leave")."""
    return one if n == 1 else (many if many is not None else one + "s")


def count_of(n: int, noun: str, many: str | None = None) -> str:
    """"1 document", "1,234 documents" (`many`: the plural when it is not `noun` + "s")."""
    return f"{n:,} {plural(n, noun, many)}"


def fmt_time(ts: float | None) -> str:
    if not ts:
        return ""
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def fmt_time_short(ts: float | None, now: float | None = None) -> str:
    """`fmt_time` where room is short: "today 03:48", "Nov 29 03:48", "2025-11-29"."""
    if not ts:
        return ""
    at = dt.datetime.fromtimestamp(ts)
    today = dt.datetime.fromtimestamp(now if now is not None else time.time()).date()
    if at.date() == today:
        return at.strftime("today %H:%M")
    return at.strftime("%b %d %H:%M") if at.year == today.year else at.strftime("%Y-%m-%d")


def fmt_confidence(confidence: float | None, threshold: float | None = None) -> str:
    """A confidence with two decimals, more (up to four) only when two would read on the other
    side of `threshold` than the value is: a refusal at 0.6596 under 0.66 reads "0.6596", never
    "0.66"; one at 0.40976 reads "0.41" (it read "0.4097" when every refusal was cut: QA pass).
    Four decimals still across it are cut toward the value's side. No threshold: two decimals."""
    value = confidence or 0.0
    if threshold is None:
        return f"{value:.2f}"
    below = value < threshold
    for digits in (2, 3, 4):
        shown = f"{value:.{digits}f}"
        if (float(shown) < threshold) == below:
            return shown
    cut = math.floor(value * 10_000) if below else math.ceil(value * 10_000)
    return f"{cut / 10_000:.4f}"


def confidence_cell(confidence: float | None, threshold: float | None) -> str | None:
    """A table's confidence cell: `fmt_confidence` against the threshold the row's ask was
    gated by, None (the table's placeholder) when none was recorded. Text, not a number
    column's "%.2f": that format rounded a refusal's 0.6596 to "0.66" under the threshold 0.66
    (QA pass); the cells still sort by value, each being "d.dd..."."""
    return None if confidence is None else fmt_confidence(confidence, threshold)


def ask_threshold(row: dict[str, Any], fallback: float | None) -> float | None:
    """The threshold a listed ask was gated by (its row's `threshold`, read from its trace),
    `fallback` (the tenant's now) when its trace recorded none."""
    return row["threshold"] if row.get("threshold") is not None else fallback


def factuality_of(factuality: float | None, unsupported: int | None) -> float | None:
    """A trace's factuality, None (n/a) when it has no claims: the pipeline stores 0 for
    none, which read "0%" on refusals. No claim is unsupported and none supported (a
    factuality of 0 with an unsupported count of 0) means there were none."""
    if factuality is None or (not factuality and not unsupported):
        return None
    return factuality


def note_of(answer: dict[str, Any]) -> str:
    """What an answer is to be read with ("" for a refusal or an answer without one); an
    answer stored before answers had a `note` carried it as `refusal_reason`."""
    if answer.get("status") == "refused":
        return ""
    return str(answer.get("note") or answer.get("refusal_reason") or "")


def word_to_teach(answer: dict[str, Any]) -> str:
    """The word a refusal says the documents never use ("" if it names none): its
    `refusal_subject` when its code is `unknown_word` (the reason may be Russian), else read
    from the reason (answers kept in chats from before refusals carried a code)."""
    return trace_word_to_teach(answer) or ""


def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def fmt_ms(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def parse_pipe_table(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    """(lines before the table, rows, lines after it) of a chunk holding a `| a | b |` table;
    header row first. The lines after matter: a chunk may go on with sentences under its
    table ("Helmets are free ...") that were otherwise never shown.

    Cells may contain escaped pipes (`\\|`). Returns no rows when the text is not a table.
    """
    before: list[str] = []
    rows: list[list[str]] = []
    after: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1:
            cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", stripped[1:-1])]
            if all(set(c) <= set("-: ") and c for c in cells):
                continue  # the |---|---| separator
            rows.append(cells)
        elif stripped:
            (after if rows else before).append(stripped)
    if rows:
        width = max(len(r) for r in rows)
        rows = [r + [""] * (width - len(r)) for r in rows]
    return before, rows, after


def unique_headers(header: list[str]) -> list[str]:
    """Column names for a DataFrame: non-empty and unique."""
    out: list[str] = []
    for i, name in enumerate(header):
        name = name or f"col {i + 1}"
        base, n = name, 2
        while name in out:
            name, n = f"{base} ({n})", n + 1
        out.append(name)
    return out


ANSWER_STATUSES = tuple(STATUS_STYLE)


def reading_md(question: str, asked_as: str, limit: int = MAX_RENDER_CHARS) -> str:
    """The caption under a follow-up: what it was read as, Markdown-escaped. A question asked
    with the one before it as its scene (a pronoun leaning back: "how much is it?") says
    which question it leaned on; shown whole, the two read as one garbled question (a QA
    pass: "How much is a lasting power of attorney? how much is it?")."""
    asked, reading = " ".join(question.split()).rstrip("?.! "), " ".join(asked_as.split())
    at = reading.rfind(asked) if asked else -1
    # the scene is a whole question before it: «... груза для ювелирных изделий?» holds
    # «а для ювелирных изделий» too, inside a word, and was shown cut (QA pass)
    if at > 0 and reading[:at].rstrip().endswith(("?", ".", "!")) \
            and reading[at + len(asked):].strip() in ("", "?", ".", "!"):
        return "Asked with the question before it: " + escape_md(reading[:at].strip(), limit=limit, inline=True)
    return "Read as a follow-up: " + escape_md(reading, limit=limit, inline=True)
