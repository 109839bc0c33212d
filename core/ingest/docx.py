"""DOCX via python-docx: body paragraphs and tables in document order.

Styles give the structure: "Title" and "Heading N" (also localised names such as
"Заголовок N", or any style based on them) are headings; "List ..." styles or numbered
paragraphs are list items; tables stay tables (header row first, merged cells once).
Headers, footers, comments and text boxes are not read. DOCX has no fixed pages, so
`pages` is None.
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
from core.ingest.blocks import clean_inline, finish, first_heading, normalize_rows, table_block
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
        blocks = list(_body_blocks(document))
        title = (document.core_properties.title or "").strip()
        title = title or first_heading(blocks) or path.stem
        return finish(blocks, pages=None, title=title)


def check_archive(path: Path) -> None:
    """Reject corrupt zips and zip bombs before python-docx unpacks anything."""
    check_office_zip(path, part="word/document.xml", invalid=NOT_DOCX, label="DOCX",
                     max_unpacked=MAX_UNPACKED_BYTES, max_part=MAX_DOCUMENT_XML_BYTES)


def _body_blocks(document: DocxDocument):
    for element in _body_elements(document.element.body):
        if element.tag == qn("w:p"):
            block = _paragraph_block(Paragraph(element, document))
            if block:
                yield block
        elif element.tag == qn("w:tbl"):
            yield from _table_blocks(Table(element, document))


def _body_elements(parent):
    """Paragraphs and tables in order, looking inside content controls (w:sdt)."""
    for child in parent.iterchildren():
        if child.tag in (qn("w:p"), qn("w:tbl")):
            yield child
        elif child.tag == qn("w:sdt"):
            content = child.find(qn("w:sdtContent"))
            if content is not None:
                yield from _body_elements(content)


def _paragraph_block(paragraph: Paragraph) -> Block | None:
    text = clean_inline(paragraph.text)
    if not text:
        return None
    level = _heading_level(paragraph)
    if level:
        return Block(kind="heading", text=text, level=level)
    if _is_list(paragraph):
        return Block(kind="list_item", text=text)
    return Block(kind="paragraph", text=text)


def _heading_level(paragraph: Paragraph) -> int:
    style = paragraph.style
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
    outline = paragraph._p.find(f"{qn('w:pPr')}/{qn('w:outlineLvl')}")
    if outline is not None:
        try:
            value = int(outline.get(qn("w:val")))
        except (TypeError, ValueError):
            return 0
        return value + 1 if value < 9 else 0  # 9 means "body text"
    return 0


def _is_list(paragraph: Paragraph) -> bool:
    if paragraph._p.find(f"{qn('w:pPr')}/{qn('w:numPr')}") is not None:
        return True
    style = paragraph.style
    return bool(style is not None and "list" in (style.name or "").lower())


def _table_blocks(table: Table) -> list[Block]:
    rows = []
    for row in table.rows:
        cells, elements = [], []
        for cell in row.cells:
            if any(cell._tc is e for e in elements):  # a merged cell is listed per grid column
                continue
            elements.append(cell._tc)
            cells.append(cell.text)
        rows.append(cells)
    rows = normalize_rows(rows)
    if not rows:
        return []
    if len(rows[0]) >= 2:
        return [table_block(rows)]
    # A one-column table is a layout box: its cells are ordinary paragraphs.
    return [Block(kind="paragraph", text=row[0]) for row in rows if row[0]]
