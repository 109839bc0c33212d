"""A PDF page rendered to PNG with the quoted lines highlighted (PyMuPDF, in memory)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HIGHLIGHT_RGB = (1.0, 0.78, 0.2)  # amber, readable over black text
OUTLINE_RGB = (0.9, 0.35, 0.0)


def render_page_png(path: Path | str, page: int, rects: list[list[float]] | None = None,
                    dpi: int = 110, zoom_to_quote: bool = False, context_pt: float = 70,
                    min_width_pt: float = 320, turn: int = 0) -> bytes:
    """PNG bytes of `page` (1-based) with a highlight over each rect and a box around them all.

    `zoom_to_quote` renders only the part of the page around the quote (`context_pt` points
    on every side, at least `min_width_pt` wide), so the quote is readable at a glance.
    `turn` (degrees clockwise) shows a scan fed upside down or sideways upright, as it was read.
    The document is opened read-only in memory; annotations are never saved to the kept file.
    Raises ValueError for a page the file does not have.
    """
    import pymupdf

    with _as_pdf(pymupdf.open(path)) as doc:
        if not 1 <= page <= doc.page_count:
            raise ValueError(f"The file has {doc.page_count} pages; page {page} does not exist.")
        pdf_page = doc[page - 1]
        boxes = [pymupdf.Rect(*r) for r in (rects or []) if len(r) == 4]
        for box in boxes:
            annot = pdf_page.add_highlight_annot(box)
            annot.set_colors(stroke=HIGHLIGHT_RGB)
            annot.update(opacity=0.55)
        if boxes:
            union = pymupdf.Rect(boxes[0])
            for box in boxes[1:]:
                union |= box
            frame = pdf_page.add_rect_annot(union + (-4, -3, 4, 3))
            frame.set_colors(stroke=OUTLINE_RGB)
            frame.set_border(width=1.5)
            frame.update()
        if turn % 360:
            pdf_page.set_rotation((pdf_page.rotation + turn) % 360)
        clip = None
        if zoom_to_quote and boxes:
            # the band around the quote on the page as it is shown (turned), not as it is stored
            clip = _zoom_clip(pdf_page, union * pdf_page.rotation_matrix, context_pt, min_width_pt)
        return pdf_page.get_pixmap(dpi=dpi, annots=True, clip=clip).tobytes("png")


def _zoom_clip(pdf_page: Any, union: Any, context_pt: float, min_width_pt: float) -> Any:
    """The band of the page around the quote, `context_pt` above and below, as wide as the
    text that stands in that band: whole lines, so a quote in mid-line or one cell of a
    table row is read with the start of its line and the rest of its row."""
    import pymupdf

    area = pdf_page.rect
    band = pymupdf.Rect(area.x0, union.y0 - context_pt, area.x1, union.y1 + context_pt) & area
    x0, x1 = union.x0, union.x1
    blocks = [b for b in pdf_page.get_text("blocks") if pymupdf.Rect(b[:4]).intersects(band)]
    for block in blocks:
        x0, x1 = min(x0, block[0]), max(x1, block[2])
    if not blocks:  # a scan or a photo: no text to widen to, so to the ink in the band
        x0, x1 = _ink_span(pdf_page, band, x0, x1)
    pad = max(12.0, (min_width_pt - (x1 - x0)) / 2)
    return pymupdf.Rect(x0 - pad, band.y0, x1 + pad, band.y1) & area


def _ink_span(pdf_page: Any, band: Any, x0: float, x1: float, dpi: int = 36) -> tuple[float, float]:
    """The leftmost and rightmost ink in the band (at least x0..x1), from a coarse grey copy:
    a quote in a scanned table's first cell was shown without the row's last columns."""
    import numpy as np
    import pymupdf

    from core.ingest.ocr import INK  # the grey level OCR takes for print

    pix = pdf_page.get_pixmap(dpi=dpi, clip=band, colorspace=pymupdf.csGRAY, annots=False)
    if not pix.width or not pix.height:
        return x0, x1
    gray = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[..., 0]
    columns = np.flatnonzero((gray < INK).any(axis=0))
    if not columns.size:
        return x0, x1
    scale = band.width / pix.width
    return min(x0, band.x0 + columns[0] * scale), max(x1, band.x0 + (columns[-1] + 1) * scale)


def page_count(path: Path | str) -> int:
    import pymupdf

    with pymupdf.open(path) as doc:
        return doc.page_count


def _as_pdf(doc: Any) -> Any:
    """A PDF of the document: an image (a photo or scan of a page) opens as a document that
    takes no annotations, so it is converted first, every frame a page of its own size."""
    import pymupdf

    if doc.is_pdf:
        return doc
    with doc:
        return pymupdf.open("pdf", doc.convert_to_pdf())
