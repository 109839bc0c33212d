"""HTML via BeautifulSoup (lxml): text only, nothing is ever executed or fetched.

Dropped: script, style, nav, noscript, template, head, footer, iframe, svg, form controls,
cookie and consent banners (by id or class)
and anything hidden. Kept in document order: headings h1-h6, paragraphs, list items
(ordered ones numbered), pre as code, tables (th/td rows; one-row or one-column layout
tables are read as ordinary content) and any loose text inside containers as paragraphs.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from bs4 import BeautifulSoup, NavigableString, Tag, XMLParsedAsHTMLWarning
from bs4.element import Comment, Declaration, Doctype, ProcessingInstruction

from core.ingest.base import IngestError, PageProgress
from core.ingest.blocks import clean_inline, finish, first_heading, normalize_rows, table_block
from core.ingest.decode import decode_text, looks_binary
from core.schema import Block, ParsedDocument

DROP_TAGS = ("script", "style", "nav", "noscript", "template", "head", "footer", "iframe",
             "svg", "math", "canvas", "object", "embed", "button", "select", "option",
             "input", "textarea", "map", "audio", "video")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_LISTS = {"ul", "ol", "menu"}
# Tags whose content starts a new block (a paragraph break before and after).
_BLOCK_TAGS = _HEADINGS | _LISTS | {
    "p", "li", "pre", "table", "blockquote", "div", "section", "article", "main", "header",
    "aside", "figure", "figcaption", "dl", "dt", "dd", "address", "details", "summary",
    "fieldset", "form", "body", "html", "center", "hr", "tr", "td", "th", "thead", "tbody",
    "tfoot", "caption", "legend", "hgroup", "search",
}
_SKIP_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction)
_META_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([\w-]+)", re.IGNORECASE)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


class HtmlParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        try:
            return self._parse(path)
        except RecursionError:  # the tree is walked recursively, as BeautifulSoup walks it
            raise IngestError("This HTML nests its elements too deeply to read (about a thousand levels "
                              "or more); save the page as plain text or simplify it, then upload it again.") from None

    def _parse(self, path: Path) -> ParsedDocument:
        with warnings.catch_warnings():
            # an XHTML page (DocBook's output, say) opens with an XML declaration; read as HTML
            # it gives the same text, and the warning would fill the ingest log once a page
            warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
            soup = BeautifulSoup(_decode(Path(path).read_bytes()), "lxml")
        title_tag = soup.find("title")
        page_title = clean_inline(title_tag.get_text()) if title_tag else ""
        _drop_noise(soup)
        blocks: list[Block] = []
        _walk(soup, blocks)
        title = first_heading(blocks) or page_title or Path(path).stem
        return finish(blocks, pages=None, title=title)


def _decode(data: bytes) -> str:
    """UTF-8 (or a BOM) first; else the declared <meta charset>; else the heuristics."""
    declared = _META_CHARSET.search(data[:4096])
    if declared and not looks_binary(data):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            try:
                return data.decode(declared.group(1).decode("ascii"), errors="replace")
            except LookupError:
                pass
    return decode_text(data)


def _drop_noise(soup: BeautifulSoup) -> None:
    for tag in soup(DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(True):
        # gone with a hidden ancestor (decompose empties it and clears its name). Not bs4's
        # `decomposed`: on a live tag it searches the subtree for a tag named "_decomposed",
        # which made this loop quadratic (100,000 nested divs: an hour)
        if not tag.name or tag.attrs is None:
            continue
        if (
            tag.has_attr("hidden")
            or tag.get("aria-hidden") == "true"
            or tag.get("role") == "navigation"
            or _is_consent_banner(tag)
            or _HIDDEN_STYLE.search(str(tag.get("style", "")))
        ):
            tag.decompose()


BANNER_CHARS = 1000  # a banner is a sentence or two and its buttons, not a cookie policy page's text
# an id or class naming a cookie banner; "consent" alone could be a clinic's consent section
BANNER_NAMES = ("cookie", "gdpr")
CONSENT_BOXES = ("banner", "bar", "popup", "modal", "notice", "dialog", "overlay")


def _is_consent_banner(tag: Tag) -> bool:
    """A cookie or consent banner ("We use cookies ... Accept all"), known by its id or class:
    on every page of a site, and no part of what the page says."""
    names = " ".join([str(tag.get("id") or "")] + [str(c) for c in (tag.get("class") or [])]).lower()
    banner = any(m in names for m in BANNER_NAMES) or ("consent" in names and any(b in names for b in CONSENT_BOXES))
    return banner and len(tag.get_text(" ", strip=True)) <= BANNER_CHARS


def _walk(container: Tag, blocks: list[Block], *, blocks_only: bool = False) -> None:
    """Emit blocks for `container`'s children; loose inline text becomes paragraphs.

    With `blocks_only`, inline text is skipped (already emitted by a list item) and only
    nested lists, tables and code are visited.
    """
    buffer: list[str] = []

    def flush() -> None:
        text = clean_inline("".join(buffer))
        buffer.clear()
        if text and not blocks_only:
            blocks.append(Block(kind="paragraph", text=text))

    for child in container.children:
        if isinstance(child, NavigableString):
            if not isinstance(child, _SKIP_STRINGS):
                buffer.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name
        if name in _HEADINGS:
            flush()
            if not blocks_only:
                _emit(blocks, "heading", _inline(child), level=int(name[1]))
        elif name == "p":
            flush()
            if not blocks_only:
                _emit(blocks, "paragraph", _inline(child))
            if child.find(_BLOCK_TAGS - {"p"}):
                _walk(child, blocks, blocks_only=True)
        elif name in _LISTS:
            flush()
            _list(child, blocks)
        elif name == "li":
            flush()
            _emit(blocks, "list_item", _inline(child, skip=_LISTS | {"table", "pre"}))
            _walk(child, blocks, blocks_only=True)
        elif name == "pre":
            flush()
            text = "".join(s for s in child.strings if not isinstance(s, _SKIP_STRINGS))
            _emit(blocks, "code", text.strip("\n"), raw=True)
        elif name == "table":
            flush()
            _table(child, blocks)
        elif name == "br":
            buffer.append(" ")
        elif name in _BLOCK_TAGS or child.find(_BLOCK_TAGS):
            flush()
            _walk(child, blocks, blocks_only=blocks_only)
        else:
            buffer.append(_inline(child, clean=False))
    flush()


def _list(tag: Tag, blocks: list[Block]) -> None:
    ordered = tag.name == "ol"
    try:
        number = int(tag.get("start", 1))
    except (TypeError, ValueError):
        number = 1
    for child in tag.children:
        if isinstance(child, Tag) and child.name == "li":
            text = _inline(child, skip=_LISTS | {"table", "pre"})
            if ordered and text:
                text = f"{number}. {text}"
                number += 1
            _emit(blocks, "list_item", text)
            _walk(child, blocks, blocks_only=True)
        elif isinstance(child, Tag):
            _walk(child, blocks)  # stray content inside a list


def _table(tag: Tag, blocks: list[Block]) -> None:
    rows = normalize_rows(_grid([tr for tr in tag.find_all("tr") if tr.find_parent("table") is tag]))
    if len(rows) >= 2 and len(rows[0]) >= 2:
        caption = tag.find("caption")
        if caption is not None and caption.find_parent("table") is tag:
            _emit(blocks, "paragraph", _inline(caption))
        blocks.append(table_block(rows))
        return
    # A layout table (one row or one column): read its cells as ordinary content.
    for tr in tag.find_all("tr"):
        if tr.find_parent("table") is tag:
            for cell in tr.find_all(["th", "td"], recursive=False):
                _walk(cell, blocks)


MAX_SPAN = 100  # a colspan or rowspan past this is a typo or a trap, read as this


def _grid(trs: list[Tag]) -> list[list[str]]:
    """The table's cells on its grid, as the DOCX reader does with merged cells: a cell with
    `colspan` fills each column it covers and one with `rowspan` each row below it, unless it
    spans the whole row (a label between groups of rows: said once). Read cell by cell,
    "Altenwerder (closed on weekdays)" over two columns put the next cell's Saturday hours
    under Weekdays."""
    rows: list[list[str]] = []
    below: dict[int, tuple[int, str]] = {}  # column -> (rows still covered, text) of a rowspan
    for tr in trs:
        row: list[str] = []
        cells = tr.find_all(["th", "td"], recursive=False)
        for cell in cells:
            _carry(row, below)
            text, cols, down = _inline(cell), _span(cell, "colspan"), _span(cell, "rowspan")
            label = cols > 1 and len(cells) == 1
            for k in range(cols):
                if down > 1:
                    below[len(row)] = (down - 1, text)
                row.append("" if label and k else text)
        _carry(row, below)
        rows.append(row)
    return rows


def _carry(row: list[str], below: dict[int, tuple[int, str]]) -> None:
    """Fill the row's next columns that a cell above spans down into."""
    while len(row) in below:
        left, text = below.pop(len(row))
        if left > 1:
            below[len(row)] = (left - 1, text)
        row.append(text)


def _span(cell: Tag, name: str) -> int:
    try:
        return max(1, min(int(str(cell.get(name) or "1").strip()), MAX_SPAN))
    except ValueError:
        return 1


def _inline(tag: Tag, *, skip: set[str] | frozenset[str] = frozenset(), clean: bool = True) -> str:
    parts: list[str] = []
    for node in tag.descendants:
        if isinstance(node, Tag):
            if node.name == "br":
                parts.append(" ")
            continue
        if isinstance(node, _SKIP_STRINGS) or not isinstance(node, NavigableString):
            continue
        if skip and _under(node, tag, skip):
            continue
        parts.append(str(node))
    text = "".join(parts)
    return clean_inline(text) if clean else text


def _under(node: NavigableString, top: Tag, names: set[str] | frozenset[str]) -> bool:
    """True if `node` sits inside a tag named in `names` below `top`."""
    for parent in node.parents:
        if parent is top:
            return False
        if parent.name in names:
            return True
    return False


def _emit(blocks: list[Block], kind: str, text: str, *, level: int = 0, raw: bool = False) -> None:
    text = text if raw else clean_inline(text)
    if text.strip():
        blocks.append(Block(kind=kind, text=text, level=level))
