"""Where a quote sits on a PDF page: rectangles for the console's highlight."""

from __future__ import annotations

from pathlib import Path


def quote_rects(pdf_path: Path, pages: list[int], quote: str) -> tuple[int | None, list[list[float]]]:
    """(page, [x0, y0, x1, y1] per line) of the quote on the first of `pages` that holds it.

    Table rows are quoted as "| a | b |": we search for the longest cell instead, since the
    pipes are not on the page.
    """
    import pymupdf

    needles = [quote.strip()]
    if quote.strip().startswith("|"):
        cells = sorted((c.strip() for c in quote.strip("|").split("|") if c.strip()), key=len, reverse=True)
        needles = cells[:2]
    elif len(quote) > 120:
        needles.append(quote[:120])
    try:
        doc = pymupdf.open(pdf_path)
    except Exception:  # noqa: BLE001 - highlighting is best effort, never fatal
        return None, []
    try:
        for page_no in pages:
            if not 1 <= page_no <= doc.page_count:
                continue
            page = doc[page_no - 1]
            for needle in needles:
                hits = page.search_for(needle)
                if hits:
                    return page_no, [[round(v, 1) for v in (r.x0, r.y0, r.x1, r.y1)] for r in hits]
    finally:
        doc.close()
    return None, []
