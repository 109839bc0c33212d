"""Reads one page image by OCR in a process of its own: `python core/ingest/ocr_worker.py
LANGUAGES TESSDATA` takes the page image (PNG) on stdin and writes the one-page PDF MuPDF's
OCR makes of it (the image with its text) on stdout.

Why a process: Tesseract holds the interpreter lock for the seconds a page takes, which froze
every other session of the console during an upload; and run by its path, not as a module,
so it imports nothing of Groundwork (a multiprocessing worker re-ran the console's app.py,
its parent's main script, and died).
"""

import sys


def main() -> int:
    import pymupdf

    languages, tessdata = sys.argv[1], sys.argv[2]
    # MuPDF's OCR reads colour pixmaps (a grey one came back empty)
    image = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.Pixmap(sys.stdin.buffer.read()))
    sys.stdout.buffer.write(image.pdfocr_tobytes(compress=False, language=languages, tessdata=tessdata))
    return 0


if __name__ == "__main__":
    sys.exit(main())
