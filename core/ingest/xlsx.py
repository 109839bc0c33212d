"""XLSX via openpyxl, read-only: every visible worksheet as a section (its name a heading)
holding its table (see core/ingest/sheet.py for how rows become a table).

A hidden sheet ("hidden" or "veryHidden") is skipped and named in a warning: it holds lookup
lists, drafts or old versions nobody reading the workbook in Excel sees, and answers quoting
them would contradict the visible sheets. Hidden rows and columns of a visible sheet (hidden
by hand or in a collapsed outline group) are left out for the same reason and counted in a
note; openpyxl's read-only sheets do not say which they are, so `hidden_lines` finds them in
the sheet's XML.

Merged cells: openpyxl's read-only sheets do not expose them, so the sheet's <mergeCells>
element is read from the zip here (`merged_ranges`) and sheet.py fills a merged header cell
across the columns it spans and a short value merged down a column into each of its rows.

Cells are read with `data_only=True`: a formula gives the value Excel last computed and
saved, and is never evaluated here (a formula never calculated reads as an empty cell, and
a note counts them: `unsaved_formulas`).
Numbers keep what their format shows of a percentage, a currency sign and decimals
("15%", "$9.99"); dates read as ISO dates. Bounded like the DOCX parser: an archive that
unpacks to an absurd size, or a sheet of absurdly many cells, is refused before or while
it is read, never loaded whole.
"""

from __future__ import annotations

import datetime as dt
import warnings
import zipfile
from pathlib import Path
from typing import IO
from xml.etree import ElementTree

from core.ingest.base import NOT_XLSX, IngestError, PageProgress, check_office_zip
from core.ingest.blocks import finish
from core.ingest.sheet import HEADER_ONLY, MAX_CELL_CHARS, NO_CELLS, Merge, shape, wide_rows_warning
from core.schema import Block, ParsedDocument

# A workbook is a zip: refuse archives that would unpack to absurd sizes (zip bombs), and
# sheets whose cells would not fit the chunk limit many times over.
MAX_UNPACKED_BYTES = 300 * 1024 * 1024
MAX_CELLS = 2_000_000
_CURRENCY = "$€£¥₽"
_HIDDEN = ("hidden", "veryHidden")  # openpyxl's sheet_state values besides "visible"
# <mergeCells> follows every row of a sheet's XML: the rows are read past in pieces of this
# size, unparsed, and at most this many ranges are taken
_PIECE = 1 << 20
MAX_MERGES = 100_000
_TAG_END = (b" ", b">", b"/", b"\t", b"\n", b"\r")
_CONTROL = {c: None for c in range(32) if chr(c) not in "\t\n\r"}


class XlsxParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        import openpyxl  # here, not at the top: 0.2 s of every CLI start-up otherwise

        path = Path(path)
        check_archive(path)
        with path.open("rb") as handle, zipfile.ZipFile(path) as archive, warnings.catch_warnings():
            # openpyxl warns about every extension it drops (data validation, slicers, ...)
            warnings.simplefilter("ignore")
            try:
                # a file object, not the path: openpyxl refuses names not ending .xlsx/.xlsm
                book = openpyxl.load_workbook(handle, read_only=True, data_only=True, keep_links=False)
            except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds on bad input
                raise IngestError(NOT_XLSX) from exc
            try:
                blocks, notes, hidden = _workbook_blocks(book, archive)
                title = (book.properties.title or "").strip() if book.properties else ""
            finally:
                book.close()
        if not any(b.kind == "table" for b in blocks):
            if hidden:
                raise IngestError(
                    f"The workbook has nothing to index outside its hidden sheets ({_names(hidden)}); "
                    "unhide the ones meant to be read in Excel and upload it again."
                )
            raise IngestError(HEADER_ONLY if notes else NO_CELLS)
        if hidden:  # first: the upload panel shows the first three notes
            them = "it" if len(hidden) == 1 else "them"
            notes.insert(0, f"Skipped {len(hidden)} hidden sheet{'s' if len(hidden) > 1 else ''} "
                            f"({_names(hidden)}); unhide {them} in Excel to have {them} indexed.")
        return finish(blocks, pages=None, title=title or path.stem, warnings=notes)


def check_archive(path: Path) -> None:
    """Reject corrupt zips and zip bombs before openpyxl unpacks anything."""
    check_office_zip(path, part="xl/workbook.xml", invalid=NOT_XLSX, label="XLSX",
                     max_unpacked=MAX_UNPACKED_BYTES)


def _workbook_blocks(book, archive: zipfile.ZipFile) -> tuple[list[Block], list[str], list[str]]:
    """The visible sheets' blocks, the notes on them, and the names of the hidden sheets
    that hold cells (a hidden empty sheet is not worth a warning)."""
    blocks: list[Block] = []
    notes: list[str] = []
    hidden: list[str] = []
    cells = [0]  # read so far, in every sheet: the bound is the workbook's
    for ws in book.worksheets:
        # the <dimension> a file declares can claim a million rows: read only what is there
        ws.reset_dimensions()
        if ws.sheet_state in _HIDDEN:
            # read only up to its first filled cell, to know whether to name it
            if any(any(_filled(c) for c in row) for row in _counted_rows(ws, cells)):
                hidden.append(ws.title)
            continue
        rows_out, columns_out = _sheet_part(archive, ws, hidden_lines, (set(), set()))
        numbered, left_out = [], [0, set()]
        for number, row in enumerate(_counted_rows(ws, cells), start=1):  # a missing row comes as ()
            if not row:
                continue
            texts = [_cell_text(c, ws.title) for c in row]
            if number in rows_out:
                left_out[0] += any(t.strip() for t in texts)
                continue
            for j in columns_out.intersection(range(len(texts))):
                if texts[j].strip():
                    left_out[1].add(j)
                texts[j] = ""
            numbered.append((number, texts))
        sheet = shape(numbered, _sheet_part(archive, ws, merged_ranges, []) if numbered else [])
        where = f"Sheet '{ws.title}': "
        if left_out[0] or left_out[1]:
            notes.append(where + _left_out(left_out[0], len(left_out[1])))
        if not sheet.header:
            continue  # an empty sheet: nothing to say
        if sheet.header_only:
            notes.append(f"{where}it has a header row but no rows under it, so it was not indexed.")
            continue
        blocks.append(Block(kind="heading", text=ws.title, level=1))
        blocks += sheet.blocks(heading_level=2)
        if sheet.wide_rows:
            notes.append(wide_rows_warning(sheet.wide_rows, where))
        unsaved = _sheet_part(archive, ws, unsaved_formulas, 0)
        if unsaved:
            notes.append(f"{where}{unsaved} formula cell{'s hold' if unsaved > 1 else ' holds'} no saved value "
                         f"and read as empty (the program that wrote the file never calculated {'them' if unsaved > 1 else 'it'}); open "
                         "the workbook in Excel or LibreOffice, save it, and upload it again.")
    return blocks, notes, hidden


# how a formula cell with no value saved ends in a sheet's XML: "<f>G3*H3</f><v></v>" (as
# openpyxl writes it), "<f>..</f><v/>", "<f>..</f></c>" (no value at all), a shared formula
# "<f t="shared" si="0"/><v></v>"; Excel writes "<f>..</f><v>1190</v>"
_UNSAVED = (b"</f><v></v>", b"</f><v/>", b"</f></c>", b"/><v></v>", b"/><v/>")


def unsaved_formulas(stream: IO[bytes], read: int = _PIECE) -> int:
    """How many formula cells of a sheet's XML hold no saved value, counted by a scan of the
    bytes in pieces (each piece read with the tail of the one before, so a mark cut in two
    is counted once)."""
    count, tail, keep = 0, b"", max(map(len, _UNSAVED)) - 1
    while piece := stream.read(read):
        data = tail + piece
        count += sum(data.count(mark) - tail.count(mark) for mark in _UNSAVED)
        tail = data[-keep:]
    return count


def _counted_rows(ws, cells: list[int]):
    """The sheet's rows, each counted into `cells[0]`; past MAX_CELLS the workbook is refused."""
    for row in ws.iter_rows():
        cells[0] += max(len(row), 1)
        if cells[0] > MAX_CELLS:
            raise IngestError(
                f"The workbook holds more than {MAX_CELLS:,} cells (a zip bomb?); it was not "
                "processed — split it into smaller workbooks if it is genuine."
            )
        yield row


def _sheet_part(archive: zipfile.ZipFile, ws, read, default):
    """`read` of the sheet's XML part, or `default` when it cannot be read: merges and
    hidden lines only refine what is read, and without them the sheet reads as it stands."""
    # openpyxl 3.1.5 (pinned) keeps the sheet's part name here, e.g. "xl/worksheets/sheet1.xml"
    part = getattr(ws, "_worksheet_path", "")
    try:
        with archive.open(part) as stream:
            return read(stream)
    except (KeyError, OSError, zipfile.BadZipFile):
        return default


def _left_out(rows: int, columns: int) -> str:
    parts = [f"{n} hidden {what}{'s' if n > 1 else ''}" for n, what in ((rows, "row"), (columns, "column")) if n]
    them = "it" if rows + columns == 1 else "them"
    return f"{' and '.join(parts)} holding cells {'were' if rows + columns > 1 else 'was'} left out; " \
           f"unhide {them} in Excel to have {them} indexed."


def hidden_lines(stream: IO[bytes], read: int = _PIECE) -> tuple[set[int], set[int]]:
    """The rows (numbered as Excel does) and columns (from 0) a sheet's XML marks hidden:
    every `hidden="1"` (or "true") attribute of a <row> or <col> tag, found by a scan of the
    bytes in pieces (a sheet without one costs a pass of `bytes.find`), nothing parsed whole."""
    rows: set[int] = set()
    columns: set[int] = set()
    data = b""
    while piece := stream.read(read):
        data += piece
        at, cut = data.find(b"hidden="), max(len(data) - 1024, 0)  # a tag is far shorter than 1 KB
        while at >= 0:
            opening, closing = data.rfind(b"<", 0, at), data.find(b">", at)
            if closing < 0:
                cut = min(cut, opening)  # the tag goes on in the next piece
                break
            _hidden_tag(data[opening + 1:closing].rstrip(b"/").split(), rows, columns)
            cut = max(cut, closing)
            at = data.find(b"hidden=", closing)
        data = data[max(cut, 0):]
    return rows, columns


def _hidden_tag(tokens: list[bytes], rows: set[int], columns: set[int]) -> None:
    if not tokens:
        return
    name = tokens[0].rsplit(b":", 1)[-1]
    attributes = dict(t.split(b"=", 1) for t in tokens[1:] if b"=" in t)
    value = {k.rsplit(b":", 1)[-1]: v.strip(b"\"'") for k, v in attributes.items()}
    if value.get(b"hidden") not in (b"1", b"true"):
        return
    try:
        if name == b"row":
            rows.add(int(value[b"r"]))
        elif name == b"col":
            columns.update(range(int(value[b"min"]) - 1, min(int(value[b"max"]), int(value[b"min"]) + 16384)))
    except (KeyError, ValueError):
        pass  # a row without its number: read as shown


def merged_ranges(stream: IO[bytes], read: int = _PIECE) -> list[Merge]:
    """The merged ranges a sheet's XML declares, as (first row, first column, last row, last
    column): rows numbered as Excel does, columns from 0. Only the <mergeCells> element is
    parsed, element by element and none kept, so memory stays bounded whatever the sheet's
    size; a malformed element gives none."""
    from openpyxl.utils.cell import range_boundaries

    out: list[Merge] = []
    for ref in _merge_refs(stream, read):
        try:
            left, top, right, bottom = range_boundaries(ref)
        except (TypeError, ValueError):
            continue
        if None not in (left, top, right, bottom):  # "A:A", a whole column, is no cell range
            out.append((top, left - 1, bottom, right - 1))
    return out


def _merge_refs(stream: IO[bytes], read: int) -> list[str]:
    tail = b""
    parser: ElementTree.XMLPullParser | None = None
    open_elements: list[ElementTree.Element] = []
    refs: list[str] = []
    try:
        while piece := stream.read(read):
            if parser is None:
                data = tail + piece
                found = _merge_start(data)
                if found is None:
                    tail = data[-64:]  # a start tag cut at the piece's end is found next time
                    continue
                at, prefix = found
                parser = ElementTree.XMLPullParser(events=("start", "end"))
                # the fragment parses alone once its prefix is bound (to any namespace)
                parser.feed(b'<w xmlns:' + prefix + b'="urn:w">' if prefix else b"<w>")
                piece = data[at:]
            parser.feed(piece)
            for event, element in parser.read_events():
                if event == "start":
                    open_elements.append(element)
                    continue
                open_elements.pop()
                if open_elements:
                    open_elements[-1].remove(element)  # nothing kept once read
                name = element.tag.rpartition("}")[2]
                if name == "mergeCell":
                    refs.append(element.get("ref") or "")
                if name == "mergeCells" or len(refs) >= MAX_MERGES:
                    return refs
    except ElementTree.ParseError:
        return []
    return []  # no <mergeCells>, or one never closed


def _merge_start(data: bytes) -> tuple[int, bytes] | None:
    """Where the <mergeCells> start tag opens in `data`, and its namespace prefix (b"" for
    none). Text and attribute values hold "<" only escaped, so "<mergeCells" (or
    "<x:mergeCells") followed by a space, ">" or "/" is the tag itself."""
    at = data.find(b"mergeCells")
    while at >= 0:
        lt = data.rfind(b"<", max(at - 32, 0), at)
        name = data[lt + 1:at] if lt >= 0 else b"/"
        prefix = name[:-1]
        plain = name == b"" or (name.endswith(b":") and prefix.replace(b"_", b"").replace(b"-", b"").isalnum())
        if plain and data[at + 10:at + 11] in _TAG_END:
            return lt, prefix
        at = data.find(b"mergeCells", at + 1)
    return None


def _filled(cell) -> bool:
    value = getattr(cell, "value", None)
    return value is not None and str(value).strip() != ""


def _names(sheets: list[str]) -> str:
    """Sheet names as the warnings quote them, five at most."""
    shown = ", ".join(f"'{name}'" for name in sheets[:5])
    return shown + (f" and {len(sheets) - 5} more" if len(sheets) > 5 else "")


def _cell_text(cell, sheet: str) -> str:
    value = getattr(cell, "value", None)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="minutes" if not value.second else "seconds")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (int, float)):
        return formatted_number(value, getattr(cell, "number_format", "") or "")
    text = str(value).translate(_CONTROL)
    if len(text) > MAX_CELL_CHARS:
        raise IngestError(
            f"Cell {cell.coordinate} of sheet '{sheet}' holds more than {MAX_CELL_CHARS:,} "
            "characters, more than Excel itself allows; the file was not made by a spreadsheet "
            "program, so save it again from one and upload it."
        )
    return text


def formatted_number(value: float, number_format: str) -> str:
    """What the cell's format shows of a number: percent, currency, fixed decimals
    ("0.00%", "[$€-407]#,##0.00", '"$"#,##0', '#,##0 "EUR"'); thousands separators are left
    out, as documents and questions write a number either way."""
    fmt = number_format.split(";")[0]  # the positive section; a sign stays on the number
    if "%" in fmt:
        value *= 100
    if "0." in fmt:
        after = fmt.split("0.", 1)[1]
        text = f"{value:.{len(after) - len(after.lstrip('0'))}f}"
    elif float(value).is_integer() and abs(value) < 1e15:
        text = str(int(value))
    else:
        text = f"{value:.12g}"
    symbol, at = _currency(fmt)
    if symbol:
        first_digit = min((fmt.index(c) for c in "0#" if c in fmt), default=len(fmt))
        text = symbol + text if at < first_digit else f"{text} {symbol}"
    return text + "%" if "%" in fmt else text


def _currency(fmt: str) -> tuple[str, int]:
    """The currency a number format shows and where: "[$€-407]", a quoted "EUR", or a bare
    sign; ("", -1) when it shows none."""
    if "[$" in fmt:
        at = fmt.index("[$")
        return fmt[at + 2:].split("]")[0].split("-")[0], at
    if fmt.count('"') >= 2:
        at = fmt.index('"')
        return fmt[at + 1:].split('"')[0].strip(), at
    at = next((i for i, c in enumerate(fmt) if c in _CURRENCY), -1)
    return (fmt[at], at) if at >= 0 else ("", -1)
