"""`python -m evals.bench ocr`: how fast and how well scanned PDFs are read.

1. Source: digital PDFs (default: the demo corpus's, English and Russian). Each page is
   rendered as an office copier scans it (grey, JPEG quality 80, `--scan-dpi` 200) into a
   new PDF of images only: no text layer.
2. Each scan is parsed as an upload is (`core.ingest.parse_file`, OCR at the settings'
   `ocr_dpi`), timed per page; its digital original is parsed too.
3. Per document: seconds a page; the longest pause of another thread while the scan was
   read (a thread waking every 10 ms: what the console's other sessions wait, since OCR
   runs in a worker process and the parse here holds the interpreter lock only between
   pages); and how close the scan's text is to the original's:
   the share of the original's words (lowercased, in order) that the scan's text keeps
   (difflib's matching blocks over the two word lists), and its tables (blocks of kind
   "table") and their rows against the original's.
"""

from __future__ import annotations

import contextlib
import difflib
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO_PDFS = sorted((ROOT / "data" / "demo").glob("*.pdf"))


def copier_scan(source: Path, target: Path, dpi: int = 200, turned: dict[int, int] | None = None) -> Path:
    """Every page of `source` as a grey JPEG image on a page of the same size; a page numbered
    in `turned` (1-based) fed turned that many degrees (180: upside down; 90, 270: sideways,
    on a landscape sheet), as a copier given it the wrong way round makes it."""
    import pymupdf

    original = pymupdf.open(source)
    scan = pymupdf.open()
    for page in original:
        pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
        turn = (turned or {}).get(page.number + 1, 0)
        width, height = (page.rect.height, page.rect.width) if turn in (90, 270) else (page.rect.width, page.rect.height)
        sheet = scan.new_page(width=width, height=height)
        sheet.insert_image(sheet.rect, stream=pix.tobytes("jpeg", jpg_quality=80), rotate=turn)
    scan.save(target, deflate=True)
    return target


def words_kept(original: str, scanned: str) -> float:
    """Share of the original's words the scanned text has, in the same order."""
    a, b = original.lower().split(), scanned.lower().split()
    if not a:
        return 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / len(a)


def _table_rows(parsed: object) -> int:
    return sum(max(b.text.count("\n") - 1, 0) for b in parsed.blocks if b.kind == "table")  # type: ignore[attr-defined]


@contextlib.contextmanager
def _pauses() -> Iterator[list[float]]:
    """The gaps a thread that wakes every 10 ms sees while the block runs."""
    gaps: list[float] = []
    done = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not done.wait(0.01):
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield gaps
    finally:
        done.set()
        thread.join()


def bench_ocr(paths: list[Path], scan_dpi: int, turn: int = 0) -> list[dict[str, float | str | int]]:
    from core.config import load_settings
    from core.ingest import parse_file
    from core.ingest.ocr import page_reader

    settings = load_settings()
    if page_reader(settings) is None:
        raise RuntimeError("OCR is not available here: install tesseract-ocr-eng and tesseract-ocr-rus.")
    rows = []
    with tempfile.TemporaryDirectory(prefix="groundwork-bench-ocr-") as folder:
        for path in paths:
            pages = _page_count(path)
            scan = copier_scan(path, Path(folder) / f"scan-{path.name}", scan_dpi,
                               dict.fromkeys(range(1, pages + 1), turn) if turn else None)
            started = time.perf_counter()
            with _pauses() as pauses:
                scanned = parse_file(scan, settings)
            seconds = time.perf_counter() - started
            digital = parse_file(path, settings)
            pages = scanned.pages or 1
            rows.append({"document": path.name, "pages": pages, "s_per_page": round(seconds / pages, 2),
                         "longest_pause_s": round(max(pauses, default=0.0), 2),
                         "words_kept": round(words_kept(digital.text, scanned.text), 3),
                         "tables": f"{sum(b.kind == 'table' for b in scanned.blocks)} of "
                                   f"{sum(b.kind == 'table' for b in digital.blocks)}",
                         "table_rows": f"{_table_rows(scanned)} of {_table_rows(digital)}"})
    return rows


def _page_count(path: Path) -> int:
    import pymupdf

    with pymupdf.open(path) as doc:
        return doc.page_count


def print_ocr(rows: list[dict[str, float | str | int]], scan_dpi: int, turn: int = 0) -> None:
    fed = f", every page fed turned {turn} degrees" if turn else ""
    print(f"scans: grey JPEG at {scan_dpi} dpi{fed}, read by OCR as an upload is")
    print(f"{'document':45} {'pages':>5} {'s/page':>7} {'pause s':>8} {'words kept':>11} {'tables':>8} "
          f"{'table rows':>11}")
    for r in rows:
        print(f"{r['document']:45} {r['pages']:>5} {r['s_per_page']:>7} {r['longest_pause_s']:>8} "
              f"{r['words_kept']:>11} {r['tables']:>8} {r['table_rows']:>11}")
