"""Where a quote sits on a PDF page: rectangles for the console's highlight.

1. Needles: the quote itself (and its first 120 characters when long); a table row
   ("| a | b |") is searched cell by cell, since the pipes are not on the page.
2. Every hit on the passage's pages is a candidate. When the same words stand in several
   places (a step repeated under two headings), the one right after the text that
   precedes the quote in its passage (`before`) wins: a passage spanning two pages was
   boxed on the first page that happened to hold the words.
3. A table row is boxed whole: the cells found on the same line as the longest cell are
   joined into one rectangle (boxing only the longest cell marked one cell of the row).
4. A scanned page has no text to search: its OCR words, kept at ingest (core/scan_words.py),
   are searched instead, the same way (case and spacing ignored, a rectangle a line).
5. A page's ligatures ("ﬁ" in "ﬁle") are searched as their letters, as the parser stores
   them (core/ingest/pdf.py): PyMuPDF's default search keeps them, and a quote from a
   typeset PDF "could not be located on the page image" (a QA pass).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.answer.units import row_cells
from core.ingest.blocks import SUPERSCRIPT_DIGITS

Rect = list[float]


_MARKS = str.maketrans(dict.fromkeys(SUPERSCRIPT_DIGITS, "\n"))


def _needles(quote: str) -> tuple[list[str], bool]:
    text = quote.strip()
    if text.startswith("|"):
        cells = sorted((c for c in row_cells(text) if c), key=len, reverse=True)
        return cells, True
    needles = [text, text[:120]] if len(text) > 120 else [text]
    # a footnote's number, written "¹" by the parsers, is a small "1" on the page: the
    # longest stretch of the quote between such marks is searched too
    pieces = [piece.strip() for piece in text.translate(_MARKS).split("\n")]
    longest = max(pieces, key=len)
    if len(pieces) > 1 and len(longest) >= 10:
        needles.append(longest[:120])
    return needles, False


def _round(r: Any) -> Rect:
    return [round(v, 1) for v in (r.x0, r.y0, r.x1, r.y1)]


def _row(page: Any, cells: list[str]) -> list[Rect]:
    """One rectangle over the row the longest cell stands in, or nothing. Of the lines the
    longest cell stands on, the one with the most of the other cells beside it: two rows
    opening "Fuel surcharge" (Road 14%, Air 0.95 EUR) boxed the first for the Air row."""
    if not cells:
        return []
    others = [page.search_for(cell) for cell in cells[1:]]
    best: tuple[int, list[Any]] | None = None
    for anchor in page.search_for(cells[0]):
        mid = (anchor.y0 + anchor.y1) / 2
        beside = [[h for h in hits if h.y0 <= mid <= h.y1] for hits in others]
        found = sum(1 for hits in beside if hits)
        if best is None or found > best[0]:
            best = (found, [anchor] + [h for hits in beside for h in hits])
    if best is None:
        return []
    anchor, same_line = best[1][0], best[1]
    x0, x1 = min(h.x0 for h in same_line), max(h.x1 for h in same_line)
    return [[round(x0, 1), round(anchor.y0, 1), round(x1, 1), round(anchor.y1, 1)]]


def _after(hits: list[tuple[int, Any]], context: list[tuple[int, Any]]) -> tuple[int, Any]:
    """The hit that comes first after the last context hit, in reading order (page, then top)."""
    if not context:
        return hits[0]
    page, where = context[-1]
    later = [h for h in hits if (h[0], h[1].y0) >= (page, where.y0 - 1)]
    return later[0] if later else hits[0]


def quote_rects(pdf_path: Path, pages: list[int], quote: str, before: str = "",
                scanned: Callable[[], dict[int, list[Any]]] | None = None,
                turned: Callable[[], dict[int, int]] | None = None) -> tuple[int | None, list[Rect]]:
    """(page, [x0, y0, x1, y1] per line) of the quote among `pages`; `before` is the text
    that precedes it in its passage (its last words locate the right occurrence);
    `scanned()` gives the OCR words of the document's scanned pages, asked only when one of
    `pages` has no text of its own, and `turned()` the degrees a scan fed the wrong way was
    turned to be read (its lines are found in the frame it was read in)."""
    import pymupdf

    needles, is_row = _needles(quote)
    try:
        doc = pymupdf.open(pdf_path)
    except Exception:  # noqa: BLE001 - highlighting is best effort, never fatal
        return None, []
    try:
        valid = [p for p in pages if 1 <= p <= doc.page_count]
        searched = _searchable(doc, valid, scanned, turned)
        if is_row:
            for page_no in valid:
                rects = _row(searched[page_no], needles)
                if rects:
                    return page_no, _placed(searched[page_no], rects)
            return None, []
        lead = " ".join(before.split()[-6:])
        context = [(p, r) for p in valid for r in searched[p].search_for(lead)] if lead else []
        for needle in needles:
            hits = [(p, r) for p in valid for r in searched[p].search_for(needle)]
            if not hits:
                continue
            page_no, first = _after(hits, context)
            # a quote over several lines gives one rectangle per line, all on that page
            lines = [r for p, r in hits if p == page_no and r.y0 >= first.y0 - 1]
            return page_no, _placed(searched[page_no], [_round(r) for r in _lines_of(lines, first)])
    finally:
        doc.close()
    return None, []


def _searchable(doc: Any, pages: list[int], scanned: Callable[[], dict[int, list[Any]]] | None,
                turned: Callable[[], dict[int, int]] | None = None) -> dict[int, Any]:
    """Each page as something to `search_for` in: the PDF page, or its OCR words when it has
    no text (a scan) and they were kept."""
    out: dict[int, Any] = {p: PageText(doc[p - 1]) for p in pages}
    bare = [p for p in pages if not out[p].page.get_text("text").strip()]
    words = scanned() if bare and scanned else {}
    turns = turned() if words and turned else {}
    for p in bare:
        if words.get(p):
            # read upright (core/ingest/pdf.py `_upright`): the words stand where the page is shown
            page = out[p].page
            out[p] = ScannedWords(words[p], page.derotation_matrix if page.rotation else None,
                                  turn=turns.get(p, 0), shown=page.rect)
    return out


def _placed(page: Any, rects: list[Rect]) -> list[Rect]:
    """Rectangles found on `page` in the page's own coordinates (a scan's were found as it was read)."""
    if not isinstance(page, ScannedWords):
        return rects
    return [_round(page.placed(r)) for r in rects]


def turn_matrix(width: float, height: float, turn: int) -> Any:
    """The matrix that turns a page of this size `turn` degrees clockwise (as PyMuPDF's
    `set_rotation` shows it): from the page as it stands to the page as it was read."""
    import pymupdf

    return {90: pymupdf.Matrix(0, 1, -1, 0, height, 0), 180: pymupdf.Matrix(-1, 0, 0, -1, width, height),
            270: pymupdf.Matrix(0, -1, 1, 0, 0, width)}.get(turn % 360, pymupdf.Identity)


class PageText:
    """A PDF page searched with its ligatures read as letters (step 5)."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def search_for(self, needle: str) -> list[Any]:
        import pymupdf

        return self.page.search_for(needle, flags=pymupdf.TEXTFLAGS_SEARCH & ~pymupdf.TEXT_PRESERVE_LIGATURES)


class ScannedWords:
    """A scanned page's OCR words (x0, y0, x1, y1, word, block, line), searched as PyMuPDF's
    `Page.search_for` searches a page's text: case and spacing ignored, one rectangle per
    line a match runs over, every match."""

    def __init__(self, words: list[Any], to_page: Any = None, turn: int = 0, shown: Any = None) -> None:
        import pymupdf

        # the words are searched, and a quote's lines told apart top to bottom, on the page as it
        # was read: a scan fed sideways or upside down has its lines side by side, or bottom up,
        # where it stands, and only a quote's first line was boxed (QA pass)
        up = turn_matrix(shown.width, shown.height, turn) if turn and shown is not None else None
        self.words = [(*(pymupdf.Rect(w[:4]) * up).normalize(), *w[4:]) for w in words] if up else words
        back = ~up if up else None
        if to_page is not None:  # shown -> the page's own coordinates, for a page turned by /Rotate
            back = back * to_page if back is not None else to_page
        self.back = back
        self.starts: list[int] = []
        at = 0
        for word in words:
            self.starts.append(at)
            at += len(word[4]) + 1
        self.text = " ".join(w[4] for w in words).lower()

    def search_for(self, needle: str) -> list[Any]:
        import pymupdf

        needle = " ".join(needle.lower().split())
        found: list[Any] = []
        at = self.text.find(needle) if needle else -1
        while at >= 0:
            end = at + len(needle)
            lines: dict[tuple[int, int], Any] = {}
            for word, start in zip(self.words, self.starts, strict=True):
                if start < end and start + len(word[4]) > at:
                    key = (word[5], word[6])
                    box = pymupdf.Rect(word[:4])
                    lines[key] = lines[key] | box if key in lines else box
            found.extend(lines.values())
            at = self.text.find(needle, end)
        return found

    def placed(self, rect: Any) -> Any:
        """A rectangle found here, on the page in its own coordinates."""
        import pymupdf

        return (pymupdf.Rect(rect) * self.back).normalize() if self.back is not None else pymupdf.Rect(rect)


def _lines_of(hits: list[Any], first: Any) -> list[Any]:
    """The rectangles of one occurrence: `search_for` gives a rectangle per line a match runs
    over, all occurrences in one list; an occurrence is its first line and the lines right
    below it."""
    out = [first]
    for r in sorted(hits, key=lambda h: h.y0):
        if r.y0 > out[-1].y0 + 0.5 and r.y0 - out[-1].y1 < (out[-1].y1 - out[-1].y0) * 1.5:
            out.append(r)
    return out
