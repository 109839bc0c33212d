"""Photos and scans of documents (PNG, JPEG, TIFF, multi-page TIFF too): each image a page,
read by OCR exactly as a scanned PDF page is (core/ingest/ocr.py, core/ingest/pdf.py).

1. The image's header is read first (Pillow, lazily: no pixel decoded), so an image that
   would decode to an absurd size (a decompression bomb) or a TIFF of more pages than OCR
   reads is refused before anything is decoded.
2. PyMuPDF opens the image as a document of one page per frame, sized as the image says
   (its resolution, else 72 pixels an inch), and converts it to a PDF in memory; the PDF
   parser reads that, every page a scan. The page sizes are the image's own, so the OCR
   words' boxes fall on the kept image where the console draws it (core/highlight.py).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from core.ingest.base import IngestError, PageProgress
from core.ingest.ocr import NO_OCR_DATA, PageReader
from core.schema import ParsedDocument

# an A4 page scanned at 600 dpi is 35 million pixels; a photo from a phone 12-50 million
MAX_IMAGE_PIXELS = 100_000_000
NOT_IMAGE = "The file is not a readable image (it may be damaged); open it, save it again and upload it."


class ImageParser:
    def __init__(self, reader: PageReader | None = None, unavailable: str = NO_OCR_DATA) -> None:
        self.reader = reader
        self.unavailable = unavailable

    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        import pymupdf

        from core.ingest.pdf import PdfParser

        path = Path(path)
        check_image(path, self.reader.max_pages if self.reader else None)
        if self.reader is None:
            raise IngestError(f"This image of a document can only be read by OCR, and {self.unavailable}.")
        try:
            with pymupdf.open(path) as image:
                pdf = image.convert_to_pdf()
        except Exception:  # noqa: BLE001 - MuPDF raises several kinds on a bad image
            raise IngestError(NOT_IMAGE) from None
        with tempfile.TemporaryDirectory(prefix="groundwork-image-") as folder:
            as_pdf = Path(folder) / f"{path.stem}.pdf"
            as_pdf.write_bytes(pdf)
            parsed = PdfParser(self.reader, self.unavailable, images=True).parse(as_pdf, on_page)
        return parsed


def check_image(path: Path, max_frames: int | None) -> int:
    """The image's frames (pages), from its header alone; refuses what would decode to an
    absurd size and a TIFF of more pages than OCR would read."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            frames = getattr(image, "n_frames", 1)
            sizes = [image.size]
            for index in range(1, frames):
                image.seek(index)
                sizes.append(image.size)
    except Image.DecompressionBombError:
        raise IngestError(_too_large()) from None
    except Exception:  # noqa: BLE001 - Pillow raises many kinds on a bad header
        raise IngestError(NOT_IMAGE) from None
    if any(w * h > MAX_IMAGE_PIXELS for w, h in sizes):
        raise IngestError(_too_large())
    _check_whole(path)
    if max_frames is not None and frames > max_frames:
        raise IngestError(f"The image holds {frames} pages; OCR reads at most {max_frames} pages of one file, "
                          "so split it and upload the parts.")
    return frames


def _check_whole(path: Path) -> None:
    """Decode the image once, now that its size is known to be sane: a JPEG cut off halfway
    decodes to its top half and was indexed as the page (QA pass)."""
    from PIL import Image

    try:
        with Image.open(path) as image:
            for index in range(getattr(image, "n_frames", 1)):
                image.seek(index)
                image.load()
    except Exception:  # noqa: BLE001 - "image file is truncated", and every other decoding error
        raise IngestError(NOT_IMAGE) from None


def _too_large() -> str:
    return (f"The image is larger than {MAX_IMAGE_PIXELS // 1_000_000} million pixels (a scan at more than "
            "600 dpi, or a damaged file); scan it at 300 dpi and upload it again.")
