"""Markdown (CommonMark + GFM tables) via markdown-it-py tokens.

Headings, paragraphs, list items (ordered ones numbered as a reader of the rendered page
sees them: "1." written on every item reads 1, 2, 3, from the list's start), tables and code
(fenced or indented). Block text is plain text: emphasis markers and link targets are
dropped, link text and image alt text kept. A YAML front matter block is skipped (its
`title:` becomes the document title).
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from core.ingest.base import PageProgress
from core.ingest.blocks import clean_inline, field_lines, finish, first_heading, normalize_rows, table_block
from core.ingest.decode import decode_text
from core.ingest.html import DROP_TAGS
from core.ingest.text import parse_plain_text
from core.schema import Block, ParsedDocument

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_FM_TITLE = re.compile(r"^title:\s*[\"']?(.+?)[\"']?\s*$", re.MULTILINE)
# a template tag of a static-site generator ({% page "/tools/slack/" %}, {% image "a.png"
# "Alt text" %}): its last quoted argument is what a reader of the built page sees, so a
# link whose target is such a tag stays a link and its text stays the text
_TEMPLATE_TAG = re.compile(r"\{%-?\s*[\w-]+((?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s%]+))*)\s*-?%\}")
_QUOTED = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
_HIDDEN_INLINE = re.compile(r"<(/?)(?:script|style)\b", re.IGNORECASE)


class MarkdownParser:
    def __init__(self) -> None:
        self._md = MarkdownIt("commonmark").enable("table")

    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        text = decode_text(Path(path).read_bytes())
        text, meta_title = _strip_front_matter(text)
        text = _TEMPLATE_TAG.sub(_template_text, text)
        blocks = self.blocks(text)
        if not blocks and any(ch.isalpha() for ch in text):
            # markdown-it drops what lies past its nesting limit (a quote 2,000 levels deep):
            # the words are still there, so they are read as plain text
            blocks = parse_plain_text(text)
        title = first_heading(blocks) or meta_title or Path(path).stem
        return finish(blocks, pages=None, title=title)

    def blocks(self, text: str) -> list[Block]:
        tokens = self._md.parse(text)
        blocks: list[Block] = []
        numbers: list[str] = []  # per open list item: its number until its first paragraph
        counters: list[int | None] = []  # per open list: the next item's number (None: bullets)
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok.type == "heading_open":
                blocks.append(Block(kind="heading", text=without_attributes(inline_text(tokens[i + 1])),
                                    level=int(tok.tag[1])))
                i += 3
                continue
            if tok.type in ("ordered_list_open", "bullet_list_open"):
                counters.append(int(tok.attrGet("start") or 1) if tok.type == "ordered_list_open" else None)
            elif tok.type in ("ordered_list_close", "bullet_list_close"):
                counters.pop()
            elif tok.type == "list_item_open":
                number = counters[-1] if counters else None
                numbers.append(f"{number}{tok.markup} " if number is not None else "")
                if number is not None:
                    counters[-1] = number + 1
            elif tok.type == "list_item_close":
                numbers.pop()
            elif tok.type == "inline" and i > 0 and tokens[i - 1].type == "paragraph_open":
                if numbers:
                    blocks.append(Block(kind="list_item", text=numbers[-1] + inline_text(tok)))
                    numbers[-1] = ""
                else:
                    blocks.extend(Block(kind="paragraph", text=t) for t in paragraph_texts(tok))
            elif tok.type in ("fence", "code_block"):
                blocks.append(Block(kind="code", text=tok.content.strip("\n")))
            elif tok.type == "html_block":
                text_ = _html_text(tok.content)
                if text_:
                    blocks.append(Block(kind="paragraph", text=text_))
            elif tok.type == "table_open":
                i, rows = _table_rows(tokens, i)
                rows = normalize_rows(rows)
                if rows:
                    blocks.append(table_block(rows))
                continue
            i += 1
        return blocks


def without_attributes(heading: str) -> str:
    """A heading without its trailing attribute block ("Props {#props}", "Setup {#setup
    .advanced}"): the anchor syntax of VitePress, Pandoc, MkDocs and Hugo, which no reader of
    the built page sees; kept, it stood in every section name and passage of such a guide."""
    text = heading.rstrip()
    start = text.rfind("{")
    if text.endswith("}") and start > 0 and text[start + 1:start + 2] in ("#", "."):
        return text[:start].rstrip()
    return heading


def inline_text(token: Token) -> str:
    """Plain text of an inline token: text, code spans, link text, image alt text. The body
    of an inline <script> or <style> is code no reader of the page ever sees, so it is not
    document text ("opens at <script>alert(1)</script> 30 bar" would be quoted with it)."""
    return clean_inline(" ".join(_inline_lines(token)))


def _inline_lines(token: Token) -> list[str]:
    """The inline token's text line by line, as its source breaks it."""
    lines: list[list[str]] = [[]]
    hidden = 0  # open <script>/<style> tags around the current child
    for child in token.children or []:
        if child.type == "html_inline" and (tag := _HIDDEN_INLINE.match(child.content)):
            hidden = max(hidden + (-1 if tag.group(1) else 1), 0)
            continue
        if hidden:
            continue
        if child.type in ("text", "code_inline"):
            lines[-1].append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            lines.append([])
        elif child.type == "image":
            lines[-1].append(child.content)
    return ["".join(parts) for parts in lines]


def paragraph_texts(token: Token) -> list[str]:
    """A paragraph's text: one, or one per line when its lines are fields of a record
    (core/ingest/blocks.field_lines)."""
    lines = [clean_inline(line) for line in _inline_lines(token)]
    lines = [line for line in lines if line]
    if field_lines(lines):
        return lines
    return [clean_inline(" ".join(lines))]


def _table_rows(tokens: list[Token], i: int) -> tuple[int, list[list[str]]]:
    rows: list[list[str]] = []
    while i < len(tokens) and tokens[i].type != "table_close":
        tok = tokens[i]
        if tok.type == "tr_open":
            rows.append([])
        elif tok.type == "inline" and rows:
            rows[-1].append(inline_text(tok))
        i += 1
    return i + 1, rows


_SPACE_BEFORE_PUNCT = re.compile(r" ([.,;:!?](?:\s|$))")


def _html_text(html: str) -> str:
    if html.lstrip().startswith("<!--"):
        return ""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(DROP_TAGS):  # as for an HTML file: a <script> block's code is no text
        tag.decompose()
    # elements are joined with a space so "<td>a</td><td>b</td>" stays two words; the space
    # that join puts before punctuation after an inline tag ("<b>end</b>.") is not text
    return _SPACE_BEFORE_PUNCT.sub(r"\1", clean_inline(soup.get_text(" ")))


def _template_text(match: re.Match[str]) -> str:
    quoted = [a or b for a, b in _QUOTED.findall(match.group(1))]
    return quoted[-1] if quoted else ""


def _strip_front_matter(text: str) -> tuple[str, str]:
    match = _FRONT_MATTER.match(text)
    if not match:
        return text, ""
    title = _FM_TITLE.search(match.group(1))
    return text[match.end():], (title.group(1) if title else "")
