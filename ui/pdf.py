"""A PDF page rendered to PNG with the quoted lines highlighted (PyMuPDF, in memory)."""

from __future__ import annotations

from pathlib import Path

HIGHLIGHT_RGB = (1.0, 0.78, 0.2)  # amber, readable over black text
OUTLINE_RGB = (0.9, 0.35, 0.0)


def render_page_png(path: Path | str, page: int, rects: list[list[float]] | None = None,
                    dpi: int = 110) -> bytes:
    """PNG bytes of `page` (1-based) with a highlight over each rect and a box around them all.

    The document is opened read-only in memory; annotations are never saved to the kept file.
    Raises ValueError for a page the file does not have.
    """
    import pymupdf

    with pymupdf.open(path) as doc:
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
        return pdf_page.get_pixmap(dpi=dpi, annots=True).tobytes("png")


def page_count(path: Path | str) -> int:
    import pymupdf

    with pymupdf.open(path) as doc:
        return doc.page_count
