"""Helpers shared by the ingest tests (imported by name; pytest puts this folder on sys.path)."""

from __future__ import annotations

import pymupdf

from core.schema import ParsedDocument

TABLE_ROWS = [
    ["Plan", "Price", "Rating"],
    ["Basic", "9.99", "4.7"],
    ["Pro", "19.50", "4.25"],
    ["Team", "49.00", "3.9"],
]


def assert_offsets(parsed: ParsedDocument) -> None:
    """Every block's offsets point at its own text in the document text."""
    assert parsed.blocks
    for block in parsed.blocks:
        assert parsed.text[block.char_start:block.char_end] == block.text, block


def draw_table(page: pymupdf.Page, top: float, rows: list[list[str]]) -> float:
    """A ruled table (real lines, so find_tables sees it); returns its bottom y."""
    cols = [72, 200, 320, 440]
    row_h = 20
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((cols[c] + 4, top + r * row_h + 14), cell, fontsize=10,
                             fontname="hebo" if r == 0 else "helv")
    bottom = top + len(rows) * row_h
    for r in range(len(rows) + 1):
        page.draw_line((cols[0], top + r * row_h), (cols[-1], top + r * row_h))
    for x in cols:
        page.draw_line((x, top), (x, bottom))
    return bottom
