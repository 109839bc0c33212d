"""Answer units: the sentences and table rows of a passage, the smallest things an answer
quotes, each with its offsets into the passage text and the context it is read with."""

from __future__ import annotations

from dataclasses import dataclass

from core.ingest.sentences import split_sentences


@dataclass
class Unit:
    """A sentence or table row inside a chunk: the smallest thing an answer quotes."""

    text: str  # what the answer shows
    quote: str  # exact substring of the chunk text
    start: int
    end: int
    context: str  # text used for coverage: heading + table header + the unit
    kind: str  # sentence | row | heading
    header: tuple[str, ...] = ()  # a row's table header, one name a cell (core/answer/columns.py)


def row_cells(line: str) -> list[str]:
    """A Markdown table row's cells. A pipe inside a cell is written `\\|` by the parsers
    (blocks.markdown_table): it stays in its cell, shown as a plain pipe."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells, cell, i = [], [], 0
    while i < len(body):
        if body.startswith("\\|", i):
            cell.append("|")
            i += 2
            continue
        if body[i] == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(body[i])
        i += 1
    cells.append("".join(cell).strip())
    return cells


def row_text(header: list[str] | tuple[str, ...], cells: list[str], order: list[int] | None = None) -> str:
    """A row as an answer shows it, "Header: value; ...", its cells in `order` (default: the
    table's); an empty cell is left out, a cell under no header stands alone."""
    order = list(range(len(cells))) if order is None else order
    return "; ".join(f"{header[i]}: {cells[i]}" if header[i] else cells[i] for i in order if cells[i])


def units(chunk_text: str, heading: str = "") -> list[Unit]:
    """Split a chunk into sentence and table-row units with offsets into the chunk text."""
    out: list[Unit] = []
    header: list[str] | None = None
    pos = 0
    for line in chunk_text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        stripped = line.strip()
        if not stripped:
            header = None
            continue
        lead = line_start + (len(line) - len(line.lstrip()))
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = row_cells(stripped)
            if all(set(c) <= set(":-") and c.count("-") >= 2 for c in cells if c):
                continue
            if header is None:
                header = cells
                continue
            shown = row_text(header, cells)
            ctx = f"{heading}\n{' '.join(header)}\n{' '.join(cells)}"
            out.append(Unit(shown, stripped, lead, lead + len(stripped), ctx, "row", tuple(header)))
            continue
        header = None
        if heading and stripped == heading.strip():
            out.append(Unit(stripped, stripped, lead, lead + len(stripped), stripped, "heading"))
            continue
        body = line[lead - line_start :].rstrip()
        for s, e in split_sentences(body):
            sent = body[s:e]
            out.append(Unit(sent, sent, lead + s, lead + e, f"{heading}\n{sent}", "sentence"))
    return out
