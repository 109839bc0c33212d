"""Reads page images by OCR in a process of its own: `python -I core/ingest/ocr_worker.py
LANGUAGES TESSDATA [PARENT_PID]` reads page images (PNG) from stdin and answers each with the one-page PDF
MuPDF's OCR makes of it, its text only: the page image it also holds (uncompressed, 25-120 MB
a page) is dropped, since the reader has the image. Every message, both ways, is its length
(4 bytes, big-endian) then its bytes; a length of 0 from the reader ends the worker, and from
the worker says the page could not be read.

Why a process: Tesseract holds the interpreter lock for the seconds a page takes, which froze
every other session of the console during an upload; and run by its path, not as a module,
so it imports nothing of Groundwork (a multiprocessing worker re-ran its parent's main
script, the console's app.py, and died). One worker reads a document's pages: started
afresh for each page, it cost about 0.8 s a page.
"""

import sys


def _take(stream, n: int) -> bytes:
    data = stream.read(n)
    return data if len(data) == n else b""


def _text_only(pdf: bytes) -> bytes:
    """The OCR page without its image (about 8 KB for 12 MB; 5 ms): the image made every
    page's answer tens of megabytes through the pipe and in the reader's memory."""
    import pymupdf

    with pymupdf.open("pdf", pdf) as doc:
        page = doc[0]
        for image in page.get_images():
            page.delete_image(image[0])
        return doc.tobytes(garbage=3, deflate=True)


def _die_with(parent: int) -> None:
    """Be killed when the reader's process dies: an ingest killed with SIGKILL left its
    worker reading a page of noise for minutes at full CPU (QA pass). Linux's parent-death
    signal; a parent already gone before it was set is seen by its pid."""
    import ctypes
    import os
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the worker ends when it next reads its closed input
    if parent and os.getppid() != parent:
        os._exit(0)


def main() -> int:
    import pymupdf

    languages, tessdata = sys.argv[1], sys.argv[2]
    _die_with(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while True:
        size = int.from_bytes(_take(source, 4) or b"\0\0\0\0", "big")
        if size == 0:
            return 0
        png = _take(source, size)
        try:
            # MuPDF's OCR reads colour pixmaps (a grey one came back empty)
            image = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.Pixmap(png))
            pdf = _text_only(image.pdfocr_tobytes(compress=False, language=languages, tessdata=tessdata))
        except Exception:  # noqa: BLE001 - one bad image is one unread page, not a dead worker
            pdf = b""
        sink.write(len(pdf).to_bytes(4, "big") + pdf)
        sink.flush()


if __name__ == "__main__":
    sys.exit(main())
