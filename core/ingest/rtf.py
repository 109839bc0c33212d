"""Rich Text Format (RTF): what Word saves as "Rich Text", and what many old ".doc" files
really are. Read as the text it shows, then structured as plain text is.

1. The control words are stripped by `striprtf` (groups a reader never shows, such as the
   font table, pictures and document info, are dropped); `\\'xx` bytes are decoded in the
   code page the file declares (`\\ansicpg1251` for Russian), Unicode escapes as they are.
2. Every RTF paragraph (`\\par`) is a paragraph: plain text's rules then find the headings
   (a short line in capitals, a numbered title), list items and paragraphs.
3. A run of table rows (striprtf ends each cell with "|") is one table block, its first row
   the header, so each row is answered from with its column names as a spreadsheet's is.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from core.ingest.base import IngestError, PageProgress
from core.ingest.blocks import finish, first_heading, normalize_rows, table_block
from core.ingest.text import parse_plain_text
from core.schema import Block, ParsedDocument

MAGIC = b"{\\rtf"
NOT_RTF = ("The file is not a valid RTF document (it may be damaged); open it in Word, save it "
           "as DOCX and upload that.")
_CELL_END = "|"
# a `\bin` run's bytes come out as characters: no control character reaches a passage
_CONTROLS = {c: None for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]}


class RtfParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        text = rtf_text(Path(path).read_bytes())
        blocks = rtf_blocks(text)
        return finish(blocks, pages=None, title=first_heading(blocks) or Path(path).stem)


def code_page(data: bytes) -> str:
    """The encoding of the file's `\\'xx` bytes: its `\\ansicpgN`, else Windows-1252."""
    at = data.find(b"\\ansicpg", 0, 4096)
    digits = b""
    if at >= 0:
        for byte in data[at + len(b"\\ansicpg"):at + len(b"\\ansicpg") + 6]:
            if not chr(byte).isdigit():
                break
            digits += bytes([byte])
    name = f"cp{int(digits)}" if digits else "cp1252"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


def rtf_text(data: bytes) -> str:
    """The text an RTF file shows, one line per paragraph or table row."""
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip().startswith(MAGIC):
        raise IngestError(NOT_RTF)
    # RTF is 7-bit: anything else is an escape's byte or a stray one; latin-1 keeps each byte
    source = data.decode("latin-1")
    try:
        text = rtf_to_text(source, encoding=code_page(data), errors="replace")
    except (IndexError, ValueError, KeyError) as exc:  # a truncated or malformed group
        raise IngestError(NOT_RTF) from exc
    return text.translate(_CONTROLS)


def rtf_blocks(text: str) -> list[Block]:
    """Paragraph lines as plain text, runs of table rows as tables, in document order."""
    blocks: list[Block] = []
    prose: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if prose:
            blocks.extend(parse_plain_text("\n\n".join(prose)))
            prose.clear()
        if rows:
            table = normalize_rows(rows)
            if table:
                blocks.append(table_block(table))
            rows.clear()

    for line in text.replace("\r\n", "\n").split("\n"):
        stripped = line.strip()
        if stripped.endswith(_CELL_END):
            if prose:
                flush()
            rows.append(stripped[:-1].split(_CELL_END))
        elif stripped:
            if rows:
                flush()
            prose.append(stripped)
    flush()
    return blocks
