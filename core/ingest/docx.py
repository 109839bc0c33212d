"""DOCX via python-docx: body paragraphs and tables in document order.

Styles give the structure: "Title" and "Heading N" (also localised names such as
"Заголовок N", or any style based on them) are headings; "List ..." styles or numbered
paragraphs are list items, a numbered one led by its number as Word shows it ("2.", "1.2.",
"b)": core/ingest/docx_numbering.py), as a Markdown ordered list's item is; tables stay tables (header row first; a merged cell fills each
column it spans, but a label spanning a whole row is said once).
Footnotes and endnotes are read: the reference is the note's number in superscript where
it stands ("30 days ²"), numbered in the order they are referred to, as Word numbers them,
and the note follows the paragraph (or table) that refers to it, in its section ("² Calendar
days, weekends included."): under a "Footnotes" heading of its own at the end, a note lost
its section's words and was refused where the same sentence in the text was answered (QA
pass). Text boxes (a sidebar, a call-out) are read after the paragraph that anchors them.
Headers, footers and comments are not read. DOCX has no fixed pages, so `pages` is None.

A paragraph's text is read as Word shows it with every tracked change accepted (`_text`):
inserted and moved-in runs kept, deleted and moved-away ones left out, text inside inline
content controls, smart tags and simple fields kept, runs formatted as hidden left out.
python-docx's `paragraph.text` reads only plain and hyperlinked runs, so an insertion
("30" in "within [-14-] [+30+] days") was lost and hidden text was indexed. Tracked changes
and hidden text are each named in a note.
"""

from __future__ import annotations

import re
from pathlib import Path

import docx
from docx.document import Document as DocxDocument
from docx.oxml.ns import qn
from docx.table import Table
from docx.text.paragraph import Paragraph

from core.ingest.base import NOT_DOCX, IngestError, PageProgress, check_office_zip
from core.ingest.blocks import (
    SUPERSCRIPT,
    clean_inline,
    distinct_names,
    finish,
    first_heading,
    normalize_rows,
    table_block,
)
from core.ingest.docx_numbering import Numbering, num_pr
from core.schema import Block, ParsedDocument

# A DOCX is a zip: refuse archives that would unpack to absurd sizes (zip bombs).
MAX_UNPACKED_BYTES = 300 * 1024 * 1024
MAX_DOCUMENT_XML_BYTES = 100 * 1024 * 1024
_HEADING_STYLE = re.compile(r"^(?:heading|заголовок|überschrift|titre|título)\s*(\d)$", re.I)


class DocxParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        path = Path(path)
        check_archive(path)
        try:
            document = docx.Document(str(path))
        except Exception as exc:  # noqa: BLE001 - python-docx raises many kinds on bad input
            raise IngestError(NOT_DOCX) from exc
        seen = _Seen(document)
        blocks = list(_body_blocks(document, seen))
        title = (document.core_properties.title or "").strip()
        title = title or first_heading(blocks) or path.stem
        return finish(blocks, pages=None, title=title, warnings=seen.notes())


def check_archive(path: Path) -> None:
    """Reject corrupt zips and zip bombs before python-docx unpacks anything."""
    check_office_zip(path, part="word/document.xml", invalid=NOT_DOCX, label="DOCX",
                     max_unpacked=MAX_UNPACKED_BYTES, max_part=MAX_DOCUMENT_XML_BYTES)


class _Seen:
    """What the reading met that the person who uploaded the file should know of."""

    def __init__(self, document: DocxDocument) -> None:
        self.document = document
        self.texts: dict[str, dict[str, list]] = {}  # kind -> note id -> its paragraphs, read when first referred to
        self.told = 0  # of the references made, those whose notes are in the blocks already
        self.changes = 0
        self.hidden = 0
        self.referred: list[tuple[str, str, str]] = []  # (kind, note id, mark), in order
        self.marks: dict[str, int] = {"footnote": 0, "endnote": 0}
        self.boxes: list = []  # text boxes met in the paragraph being read (w:txbxContent)
        self.numbers = _numbering(document)  # list numbers counted as paragraphs are read

    def notes(self) -> list[str]:
        out = []
        if self.changes:
            out.append(f"The document has {self.changes} tracked change{'s' if self.changes > 1 else ''}; "
                       "it was read with all of them accepted. Accept or reject them in Word and "
                       "upload it again if answers should come from another version.")
        if self.hidden:
            out.append(f"{self.hidden} passage{'s' if self.hidden > 1 else ''} formatted as hidden text "
                       f"{'were' if self.hidden > 1 else 'was'} left out, as Word does not show "
                       f"{'them' if self.hidden > 1 else 'it'}.")
        return out


_CHANGED = {qn("w:ins"), qn("w:del"), qn("w:moveTo"), qn("w:moveFrom")}
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
# mc:Fallback repeats mc:Choice (a text box as DrawingML, then again as VML): one is read
_DROPPED = {qn("w:del"), qn("w:moveFrom"), qn("w:rPr"), qn("w:pPr"), _MC + "Fallback"}
_REFERENCES = {qn("w:footnoteReference"): "footnote", qn("w:endnoteReference"): "endnote"}
# tag names worked out once: qn() splits and looks up its argument on every call, and these are
# compared for every element of the document
_P, _TBL, _SDT, _SDT_CONTENT, _RUN, _TEXT, _TEXT_BOX = (
    qn(t) for t in ("w:p", "w:tbl", "w:sdt", "w:sdtContent", "w:r", "w:t", "w:txbxContent"))
_VANISH = f"{qn('w:rPr')}/{qn('w:vanish')}"
_STYLE_NAME = f"{qn('w:pPr')}/{qn('w:pStyle')}"
_OUTLINE = f"{qn('w:pPr')}/{qn('w:outlineLvl')}"
_NUMBERED = f"{qn('w:pPr')}/{qn('w:numPr')}"
_VAL = qn("w:val")
_CHARACTERS = {qn("w:t"): None, qn("w:tab"): "\t", qn("w:br"): "\n", qn("w:cr"): "\n",
               qn("w:noBreakHyphen"): "-"}


def _text(p, seen: _Seen) -> str:
    """The paragraph's text with its tracked changes accepted and its hidden runs left out
    (see the module's docstring); `seen` counts both."""
    out: list[str] = []
    hidden = False

    def walk(element) -> None:
        nonlocal hidden
        for child in element.iterchildren():
            tag = child.tag
            if tag in _CHANGED:
                seen.changes += 1
            if tag in _DROPPED:
                continue
            if tag == _RUN and _is_on(child.find(_VANISH)):
                hidden = hidden or any((t.text or "").strip() for t in child.iter(_TEXT))
                continue
            if tag in _CHARACTERS:
                out.append(child.text or "" if _CHARACTERS[tag] is None else _CHARACTERS[tag])
                continue
            if tag in _REFERENCES:
                kind = _REFERENCES[tag]
                seen.marks[kind] += 1
                mark = str(seen.marks[kind]).translate(SUPERSCRIPT)
                seen.referred.append((kind, child.get(qn("w:id"), ""), mark))
                out.append(" " + mark)  # apart: "days¹" would be a word of its own to search
                continue
            if tag == _TEXT_BOX:
                seen.boxes.append(child)
                continue
            walk(child)

    walk(p)
    seen.hidden += hidden
    return "".join(out)


def _is_on(flag) -> bool:
    """A toggle property (<w:vanish/>, <w:vanish w:val="0"/>) as Word reads it."""
    return flag is not None and flag.get(_VAL, "true") not in ("0", "false", "off")


def _body_blocks(document: DocxDocument, seen: _Seen, parent=None, styles: _Styles | None = None):
    styles = styles or _Styles()
    for element in _body_elements(document.element.body if parent is None else parent):
        if element.tag == _P:
            block = _paragraph_block(Paragraph(element, document), seen, styles)
            if block:
                yield block
        else:
            yield from _table_blocks(Table(element, document), seen)
        # what the paragraph or table referred to or anchored: its notes, then its text boxes
        yield from _notes_told(seen)
        boxes, seen.boxes = seen.boxes, []
        for box in boxes:
            yield from _body_blocks(document, seen, box, styles)


def _notes_told(seen: _Seen) -> list[Block]:
    """The notes referred to since the last call, each a paragraph led by its mark (a note
    that refers to another note brings that one too)."""
    blocks: list[Block] = []
    while seen.told < len(seen.referred):
        kind, note, mark = seen.referred[seen.told]
        seen.told += 1
        if kind not in seen.texts:
            seen.texts[kind] = _notes(seen.document, kind)
        text = clean_inline(" ".join(_text(p, seen) for p in seen.texts[kind].get(note, [])))
        if text:
            blocks.append(Block(kind="paragraph", text=f"{mark} {text}"))
    return blocks


def _notes(document: DocxDocument, kind: str) -> dict[str, list]:
    """Note id -> its paragraphs, from the document's footnotes or endnotes part."""
    from docx.oxml.parser import parse_xml

    for rel in document.part.rels.values():
        if rel.reltype.endswith(f"/{kind}s") and not rel.is_external:
            try:
                root = parse_xml(rel.target_part.blob)
            except Exception:  # noqa: BLE001 - a damaged notes part costs the notes, not the document
                return {}
            return {note.get(qn("w:id")): list(note.iter(_P)) for note in root.iterchildren(qn(f"w:{kind}"))}
    return {}


def _body_elements(parent):
    """Paragraphs and tables in order, looking inside content controls (w:sdt)."""
    for child in parent.iterchildren():
        if child.tag == _P or child.tag == _TBL:
            yield child
        elif child.tag == _SDT:
            content = child.find(_SDT_CONTENT)
            if content is not None:
                yield from _body_elements(content)


def _paragraph_block(paragraph: Paragraph, seen: _Seen, styles: _Styles) -> Block | None:
    text = clean_inline(_text(paragraph._p, seen))
    number = _list_number(paragraph, seen, styles)  # counted even when empty: Word counts it too
    if not text:
        return None
    level = _heading_level(paragraph, styles)
    if level:
        return Block(kind="heading", text=text, level=level)
    if _is_list(paragraph, styles):
        return Block(kind="list_item", text=f"{number} {text}" if number else text)
    return Block(kind="paragraph", text=text)


def _list_number(paragraph: Paragraph, seen: _Seen, styles: _Styles) -> str:
    """The number Word shows before the paragraph ("3."), "" if none: its list and level
    are its own w:numPr's, else its style's."""
    own, own_level = num_pr(paragraph._p)
    styled, styled_level = styles.of(paragraph)[2]
    if own is None and styled is None:
        return ""
    return seen.numbers.label(own or styled, own_level or styled_level)


def _numbering(document: DocxDocument) -> Numbering:
    """The document's list definitions (none when it has no numbering part or a damaged one)."""
    from docx.opc.constants import RELATIONSHIP_TYPE

    try:
        root = document.part.part_related_by(RELATIONSHIP_TYPE.NUMBERING).element
    except Exception:  # noqa: BLE001 - a damaged numbering part costs the numbers, not the document
        root = None
    styles = document.styles.element

    def style_num(style_id: str) -> str | None:
        found = next((s for s in styles.iterchildren(qn("w:style")) if s.get(qn("w:styleId")) == style_id), None)
        return num_pr(found)[0]

    return Numbering(root, style_num)


class _Styles:
    """What a paragraph's style says of it (a heading's level, a list), worked out once per
    style: python-docx's `paragraph.style` searches every style of the document for each
    paragraph, 1 ms a paragraph, so a 2 MB file of short paragraphs took minutes (QA pass)."""

    def __init__(self) -> None:
        self.known: dict[str | None, tuple[int, bool, tuple[str | None, str | None]]] = {}

    def of(self, paragraph: Paragraph) -> tuple[int, bool, tuple[str | None, str | None]]:
        """(heading level, a list style, the list and level the style numbers with)."""
        named = paragraph._p.find(_STYLE_NAME)
        key = named.get(_VAL) if named is not None else None
        if key not in self.known:
            style = paragraph.style
            self.known[key] = (_style_heading_level(style),
                               bool(style is not None and "list" in (style.name or "").lower()),
                               _style_numbering(style))
        return self.known[key]


def _style_numbering(style) -> tuple[str | None, str | None]:
    """The (numId, ilvl) a paragraph style numbers with ("List Number"), following "based on"."""
    seen = 0
    while style is not None and seen < 10:
        num, level = num_pr(style.element)
        if num is not None:
            return num, level
        style = style.base_style
        seen += 1
    return None, None


def _style_heading_level(style) -> int:
    seen = 0
    while style is not None and seen < 10:  # follow "based on" to built-in heading styles
        for name in (style.name or "", style.style_id or ""):
            if name.lower() == "title":
                return 1
            match = _HEADING_STYLE.match(name.replace("Heading", "Heading "))
            if match:
                return max(1, min(int(match.group(1)), 6))
        style = style.base_style
        seen += 1
    return 0


def _heading_level(paragraph: Paragraph, styles: _Styles) -> int:
    by_style = styles.of(paragraph)[0]
    if by_style:
        return by_style
    outline = paragraph._p.find(_OUTLINE)
    if outline is not None:
        try:
            value = int(outline.get(_VAL))
        except (TypeError, ValueError):
            return 0
        return value + 1 if value < 9 else 0  # 9 means "body text"
    return 0


def _is_list(paragraph: Paragraph, styles: _Styles) -> bool:
    if paragraph._p.find(_NUMBERED) is not None:
        return True
    return styles.of(paragraph)[1]


def _table_blocks(table: Table, seen: _Seen) -> list[Block]:
    rows = []
    for row in table.rows:
        # python-docx lists a merged cell once per grid column it spans: each column keeps
        # its place (a cell merged over two branches' columns shifted the next one under
        # the wrong branch), the text repeated in every column it covers, unless it spans
        # the whole row (a label between groups of rows: said once)
        grid = [cell._tc for cell in row.cells]
        texts: dict[int, str] = {}
        for tc in grid:
            if id(tc) not in texts:
                paragraphs = (e for e in _body_elements(tc) if e.tag == _P)
                texts[id(tc)] = "\n".join(_text(p, seen) for p in paragraphs)
        label = len(texts) == 1
        rows.append([("" if label and k else texts[id(tc)]) for k, tc in enumerate(grid)])
    rows = normalize_rows(rows)
    if not rows:
        return []
    if len(rows[0]) >= 2:
        # a header cell over two columns names both ("Sales", "Sales (2)"), as a sheet's does
        return [table_block([distinct_names(rows[0]), *rows[1:]])]
    # A one-column table is a layout box: its cells are ordinary paragraphs.
    return [Block(kind="paragraph", text=row[0]) for row in rows if row[0]]
