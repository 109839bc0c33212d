"""Where a quote sits on a PDF page: rectangles for the console's highlight.

1. Needles: the quote itself (and its first 120 characters when long); a table row
   ("| a | b |") is searched cell by cell, since the pipes are not on the page.
2. Every hit on the passage's pages is a candidate. When the same words stand in several
   places (a step repeated under two headings), the one right after the text that
   precedes the quote in its passage (`before`) wins: a passage spanning two pages was
   boxed on the first page that happened to hold the words.
3. A table row is boxed whole: the cells found on the same line as the longest cell are
   joined into one rectangle (boxing only the longest cell marked one cell of the row).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.answer.units import row_cells

Rect = list[float]


def _needles(quote: str) -> tuple[list[str], bool]:
    text = quote.strip()
    if text.startswith("|"):
        cells = sorted((c for c in row_cells(text) if c), key=len, reverse=True)
        return cells, True
    return ([text, text[:120]] if len(text) > 120 else [text]), False


def _round(r: Any) -> Rect:
    return [round(v, 1) for v in (r.x0, r.y0, r.x1, r.y1)]


def _row(page: Any, cells: list[str]) -> list[Rect]:
    """One rectangle over the row the longest cell stands in, or nothing."""
    for anchor in page.search_for(cells[0]) if cells else []:
        mid = (anchor.y0 + anchor.y1) / 2
        same_line = [anchor] + [h for cell in cells[1:] for h in page.search_for(cell) if h.y0 <= mid <= h.y1]
        x0, x1 = min(h.x0 for h in same_line), max(h.x1 for h in same_line)
        return [[round(x0, 1), round(anchor.y0, 1), round(x1, 1), round(anchor.y1, 1)]]
    return []


def _after(hits: list[tuple[int, Any]], context: list[tuple[int, Any]]) -> tuple[int, Any]:
    """The hit that comes first after the last context hit, in reading order (page, then top)."""
    if not context:
        return hits[0]
    page, where = context[-1]
    later = [h for h in hits if (h[0], h[1].y0) >= (page, where.y0 - 1)]
    return later[0] if later else hits[0]


def quote_rects(pdf_path: Path, pages: list[int], quote: str, before: str = "") -> tuple[int | None, list[Rect]]:
    """(page, [x0, y0, x1, y1] per line) of the quote among `pages`; `before` is the text
    that precedes it in its passage (its last words locate the right occurrence)."""
    import pymupdf

    needles, is_row = _needles(quote)
    try:
        doc = pymupdf.open(pdf_path)
    except Exception:  # noqa: BLE001 - highlighting is best effort, never fatal
        return None, []
    try:
        valid = [p for p in pages if 1 <= p <= doc.page_count]
        if is_row:
            for page_no in valid:
                rects = _row(doc[page_no - 1], needles)
                if rects:
                    return page_no, rects
            return None, []
        lead = " ".join(before.split()[-6:])
        context = [(p, r) for p in valid for r in doc[p - 1].search_for(lead)] if lead else []
        for needle in needles:
            hits = [(p, r) for p in valid for r in doc[p - 1].search_for(needle)]
            if not hits:
                continue
            page_no, first = _after(hits, context)
            # a quote over several lines gives one rectangle per line, all on that page
            lines = [r for p, r in hits if p == page_no and r.y0 >= first.y0 - 1]
            return page_no, [_round(r) for r in _lines_of(lines, first)]
    finally:
        doc.close()
    return None, []


def _lines_of(hits: list[Any], first: Any) -> list[Any]:
    """The rectangles of one occurrence: `search_for` gives a rectangle per line a match runs
    over, all occurrences in one list; an occurrence is its first line and the lines right
    below it."""
    out = [first]
    for r in sorted(hits, key=lambda h: h.y0):
        if r.y0 > out[-1].y0 + 0.5 and r.y0 - out[-1].y1 < (out[-1].y1 - out[-1].y0) * 1.5:
            out.append(r)
    return out
