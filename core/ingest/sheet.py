"""Spreadsheets as tables: a sheet's rows -> Blocks (shared by CSV/TSV and XLSX), and the
CSV/TSV parser.

A sheet becomes one table block, header row first, rendered as the Markdown table every
other parser makes of a table: the chunker cuts it into pieces of whole rows that each
repeat the header, and the answer step reads each row as a unit ("Plan: Gold; Premium:
120"). Around the table:
- leading rows with one filled cell in the first column above a wider table are its title
  lines: the first becomes a heading (so every piece of the table carries it), the others
  paragraphs; trailing one-cell rows of several words are notes under the table;
- columns empty in every row are dropped (spacers, a table starting in column C);
- the first remaining row is the header unless every cell of it is a value (a number, a
  date, an amount): then the columns are named "Column 1", "Column 2", ... A row with one
  word in it is read as names, as sheets carry a header by convention and year columns
  ("Plan, 2023, 2024") are common;
- a header name given twice is numbered ("Price", "Price (2)"), so each column stays
  distinguishable in a row read alone;
- merged cells (XLSX): a header cell merged across columns names each of them (so "Price"
  over two columns gives "Price" and "Price (2)"); in the rows under it only a short value
  merged down a column (a region, a category) is filled into each row it spans. A value
  merged across a row is left in its first cell: such a row is mostly a label between
  groups, and repeated in every column it would read as that label's value everywhere.
  A merge that only widens a cell over a column holding nothing adds no column, and a
  merged title line stays a title;
- a row wider than the header keeps its extra cells, without a column name, and the upload
  says which rows (a ragged file loses nothing);
- a row too long for a passage (prose in cells) is read as a paragraph "Header: value; ...",
  its first filled cell the block's `row_key`: the chunker starts every later piece of it
  with that cell ("Case: A-1; ..."), so a piece cut from the row still names the row.

CSV/TSV: bytes decoded as every text format is (core/ingest/decode.py), delimiter found by
csv.Sniffer among , ; tab | (else the one that splits the first lines most consistently),
cells read as text: a formula such as =HYPERLINK(...) stays the text it is, never run.
"""

from __future__ import annotations

import bisect
import codecs
import csv
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from core.ingest.base import IngestError, PageProgress
from core.ingest.blocks import clean_inline, distinct_names, finish, table_block
from core.ingest.decode import decode_text, utf16_without_bom
from core.schema import Block, ParsedDocument

# Excel's own limit for one cell: a longer "cell" is text that belongs in a document, or a
# quote left open that swallowed the rest of the file.
MAX_CELL_CHARS = 32767
# A row longer than this (about 400 tokens) would fill a chunk alone, past the embedder's
# reach: it is read as a paragraph instead (see Sheet.blocks).
LONG_ROW_CHARS = 1200
# A long row's key is repeated before each later piece of it: a longer first cell (prose,
# not a key) is shortened to this many characters
ROW_KEY_CHARS = 150
DELIMITERS = ",;\t|"
_SNIFF_CHARS = 65536
_VALUE_CHARS = set("0123456789 .,:/-+%$€£¥₽'()")
# Merged cells are filled only with a short value (a label, a key): a long text merged down
# many rows would be repeated in every one of them. The fill as a whole is bounded too.
FILL_CHARS = 100
MAX_FILLED = 100_000
NO_CELLS = ("The spreadsheet has no filled cells; check that it is the file you meant and "
            "upload it again.")
HEADER_ONLY = ("The spreadsheet has a header row but no rows under it; add the rows and "
               "upload it again.")


@dataclass
class Sheet:
    """One sheet's rows, shaped: title lines, header, body, notes, and what was odd."""

    titles: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    body: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    named_header: bool = True  # False: the header was made up ("Column 1", ...)
    wide_rows: list[int] = field(default_factory=list)  # row numbers wider than the header

    @property
    def header_only(self) -> bool:
        return bool(self.header) and self.named_header and not self.body

    def blocks(self, heading_level: int = 1) -> list[Block]:
        """Title lines, the table, notes. The first title is a heading at `heading_level`."""
        out: list[Block] = []
        for i, title in enumerate(self.titles):
            kind = "heading" if i == 0 else "paragraph"
            out.append(Block(kind=kind, text=title, level=heading_level if i == 0 else 0))
        if self.header:
            width = max(len(self.header), *(len(r) for r in self.body)) if self.body else len(self.header)
            header = self.header + [""] * (width - len(self.header))
            run: list[list[str]] = []
            for row in self.body:
                if sum(len(c) + 3 for c in row) <= LONG_ROW_CHARS:
                    run.append(row + [""] * (width - len(row)))
                    continue
                # a row longer than a passage holds is prose in cells: read as a paragraph
                # the chunker can cut between sentences, the table going on after it
                if run:
                    out.append(table_block([header, *run]))
                    run = []
                cells = [f"{h}: {v}" if h else v for h, v in zip(header, row + [""] * (width - len(row))) if v]
                out.append(Block(kind="paragraph", text="; ".join(cells), row_key=_shortened(cells[0])))
            if run or not self.body:
                out.append(table_block([header, *run]))
        out += [Block(kind="paragraph", text=note) for note in self.notes]
        return out


# A merged range: (first row, first column, last row, last column); rows numbered as the
# rows given to `shape`, columns 0-based
Merge = tuple[int, int, int, int]


def shape(numbered: list[tuple[int, list[str]]], merges: Sequence[Merge] = ()) -> Sheet:
    """Shape a sheet's rows, each with the row (or line) number a person would look for;
    `merges` are the sheet's merged ranges (XLSX), filled as the module docstring says."""
    rows = [(n, _trimmed([clean_inline(c) for c in cells])) for n, cells in numbered]
    rows = [(n, cells) for n, cells in rows if cells]
    if not rows:
        return Sheet(header=[])
    # columns empty in every row go: spacer columns, a table that starts in column C, and
    # the thousands of blank columns before one stray cell far to the right
    used = sorted({j for _, cells in rows for j, c in enumerate(cells) if c})
    if len(used) < max(len(cells) for _, cells in rows):
        rows = [(n, _trimmed([cells[j] if j < len(cells) else "" for j in used])) for n, cells in rows]
    width = len(used)
    sheet = Sheet()
    if width >= 2:
        while len(rows) > 1 and len(rows[0][1]) == 1 and len(sheet.titles) < 5:
            sheet.titles.append(rows.pop(0)[1][0])
        while len(rows) > 2 and len(rows[-1][1]) == 1 and rows[-1][1][0].count(" ") >= 3:
            sheet.notes.insert(0, rows.pop()[1][0])
    first = rows[0][1]
    named = not all(is_value(cell) for cell in first if cell)
    if merges:
        _fill_merges(rows, used, merges, header=rows[0][0] if named else None)
    if named:
        sheet.header, rows = distinct_names(first), rows[1:]
        sheet.wide_rows = [n for n, cells in rows if len(cells) > len(first)]
    else:
        sheet.named_header = False
        sheet.header = [f"Column {i + 1}" for i in range(max(len(c) for _, c in rows))]
    sheet.body = [cells for _, cells in rows]
    return sheet


def _fill_merges(rows: list[tuple[int, list[str]]], used: list[int], merges: Sequence[Merge],
                 header: int | None) -> None:
    """Fill merged cells in place: a header cell across the columns it spans, a short body
    value down the rows it spans (see the module docstring). `rows` are the table's rows
    (title lines and notes taken off, so a merged title stays one cell), their columns the
    `used` ones, renumbered from 0."""
    numbers = [n for n, _ in rows]
    budget = MAX_FILLED
    for top, left, bottom, right in merges:
        i = bisect.bisect_left(numbers, top)
        if i == len(numbers) or numbers[i] != top:
            continue  # a title line, a note, or an empty row
        if top == header:
            bottom = top  # a header cell merged down spans a second header row, not data
        elif left != right or bottom == top:
            continue
        # only columns holding something somewhere: a merge widening a cell adds no column
        first, last = bisect.bisect_left(used, left), bisect.bisect_right(used, right)
        if first == last or used[first] != left:
            continue
        value = rows[i][1][first] if first < len(rows[i][1]) else ""
        if not value or (top != header and len(value) > FILL_CHARS):
            continue
        for _, cells in rows[i:bisect.bisect_right(numbers, bottom)]:
            if len(cells) < last:
                cells.extend([""] * (last - len(cells)))
            for k in range(first, last):
                if not cells[k]:
                    cells[k] = value
                    budget -= 1
            if budget <= 0:
                return


def is_value(cell: str) -> bool:
    """A number, date, time or amount ("1,250.00", "2024-03-01", "15%", "$9.99")."""
    return any(c.isdigit() for c in cell) and all(c in _VALUE_CHARS for c in cell)


def wide_rows_warning(rows: list[int], where: str = "", unit: str = "Row") -> str:
    """One sentence naming the rows (CSV: lines) wider than their header, five at most."""
    shown = ", ".join(str(n) for n in rows[:5]) + (f" and {len(rows) - 5} more" if len(rows) > 5 else "")
    label = unit if len(rows) == 1 else f"{unit}s"
    verb = "has" if len(rows) == 1 else "have"
    return (f"{where}{label} {shown} {verb} more cells than the header row; the extra cells were "
            "kept without a column name — name those columns and upload the file again for "
            "clearer answers.")


def _shortened(text: str) -> str:
    """`text` cut at a word to at most ROW_KEY_CHARS characters ("…" marking the cut)."""
    if len(text) <= ROW_KEY_CHARS:
        return text
    cut = text[:ROW_KEY_CHARS - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ;:,") + "…"


def _trimmed(cells: list[str]) -> list[str]:
    end = len(cells)
    while end and not cells[end - 1]:
        end -= 1
    return cells[:end]


class CsvParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        path = Path(path)
        data = path.read_bytes()
        _refuse_nul(data)
        text = decode_text(data)
        sheet = shape(read_rows(text))
        if not sheet.header:
            raise IngestError(NO_CELLS)
        if sheet.header_only:
            raise IngestError(HEADER_ONLY)
        warnings = [wide_rows_warning(sheet.wide_rows, unit="Line")] if sheet.wide_rows else []
        title = sheet.titles[0] if sheet.titles else path.stem
        return finish(sheet.blocks(), pages=None, title=title, warnings=warnings)


class _OpenQuote(Exception):
    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


def read_rows(text: str) -> list[tuple[int, list[str]]]:
    """Every record of a CSV/TSV text with the line it starts on; cells as text."""
    delimiter = sniff_delimiter(text)
    try:
        return _records(text, delimiter, strict=True)
    except _OpenQuote as exc:
        raise IngestError(
            f"A quote opened on line {exc.line} is never closed, so the rest of the file would "
            "read as one cell; close it (or export the sheet again) and upload it again."
        ) from None
    except csv.Error:  # a stray quote inside a cell ("12" wide"): read it as Excel does
        return _records(text, delimiter, strict=False)


def _records(text: str, delimiter: str, *, strict: bool) -> list[tuple[int, list[str]]]:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter, strict=strict)
    out: list[tuple[int, list[str]]] = []
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return out
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise IngestError(_long_cell(line)) from None
            if "unexpected end of data" in str(exc):  # only strict mode says so
                raise _OpenQuote(line) from None
            raise
        if any(len(cell) > MAX_CELL_CHARS for cell in cells):
            raise IngestError(_long_cell(line))
        out.append((line, cells))
        line = reader.line_num + 1


def _long_cell(line: int) -> str:
    return (f"Line {line} holds a cell of more than {MAX_CELL_CHARS:,} characters (the most a "
            "spreadsheet cell holds; a quote left open?); move long text into a document of its "
            "own, or close the quote, and upload it again.")


def sniff_delimiter(text: str) -> str:
    """csv.Sniffer's choice among `DELIMITERS`, else the delimiter that splits the first
    lines into the same number (>1) of cells most often, else a comma."""
    sample = text[:_SNIFF_CHARS]
    if len(text) > _SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]  # a cut last line would break the counts
    try:
        sniffed = csv.Sniffer().sniff(sample, delimiters=DELIMITERS).delimiter
    except csv.Error:
        sniffed = ""
    scores = {d: _steady_lines(sample, d) for d in DELIMITERS}
    lines = sum(1 for r in csv.reader(io.StringIO(sample)) if r)
    # Excel saves ";" where the comma is the decimal mark ("120,50"): both split every line
    # evenly then, and the Sniffer, preferring commas, would cut each number in two
    if sniffed == "," and scores[";"] == min(lines, 50):
        return ";"
    if sniffed:
        return sniffed
    best = max(DELIMITERS, key=lambda d: scores[d])  # ties: the earlier, a comma first
    return best if scores[best] else ","


def _steady_lines(sample: str, delimiter: str) -> int:
    """How many of the first 50 records split into the most common number (>1) of cells."""
    widths = [len(r) for r in csv.reader(io.StringIO(sample), delimiter=delimiter) if r][:50]
    common = Counter(w for w in widths if w > 1).most_common(1)
    return common[0][1] if common else 0


def _refuse_nul(data: bytes) -> None:
    """A NUL byte in a CSV that is not UTF-16 is binary in a cell: say on which line."""
    at = data.find(b"\x00")
    if at < 0:
        return
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or utf16_without_bom(data):
        return  # NULs are UTF-16's high bytes there; decode_text checks the decoded text
    line = data.count(b"\n", 0, at) + 1
    raise IngestError(
        f"Line {line} holds a NUL character, which no spreadsheet cell holds; export the "
        "sheet again as CSV (UTF-8) and upload it again."
    )
