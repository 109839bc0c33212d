"""PDF via PyMuPDF: text blocks with coordinates, headings by font, tables where ruled.

1. Every page's text blocks come from `page.get_text("dict")` (ligatures expanded, images
   skipped); lines of a block are joined with spaces and words hyphenated at a line end
   are re-joined. Vertical/rotated lines are ignored.
2. Tables: `find_tables()` costs ~0.5 s a page, so it runs only on pages whose vector
   drawings look like a grid (several horizontal and vertical rules, or cell boxes).
   Cell text is the page's words whose centre lies in the cell (`Table.extract()`
   garbles decimals; `get_textbox` per cell is correct but ~15 ms a cell),
   and text blocks inside a table are skipped so the table is not duplicated. A table goes
   where the fewest text blocks end up out of place around it: PyMuPDF lists blocks in
   drawing order, and a running head drawn last must not drag a table into the next
   section.
3. Text in the top/bottom 10% of pages that repeats on half the pages or on 3 pages
   (digits ignored, so "Page 3" repeats; or one short line at the same height) is a running
   header/footer and is dropped, as are bare page numbers there.
4. The body font size is the most common size (weighted by characters). Short blocks in a
   clearly bigger font are headings (levels by size rank); short all-bold blocks at body
   size are the lowest heading level. Numbered paragraphs ("7-2 ...") stay paragraphs.
   Lines starting with a bullet or a number ("•", "-", "1.", "a)") are list items.
5. A scanned page (no text layer, mostly image) is read by OCR when a `PageReader` is given
   (core/ingest/ocr.py) and then goes through steps 1-4 like any page; the pages read, and
   those that could not be, are named in the document's warnings.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import pymupdf

from core.ingest import ocr
from core.ingest.base import NOT_PDF, IngestError, PageProgress
from core.ingest.blocks import (
    SUPERSCRIPT,
    SUPERSCRIPT_DIGITS,
    clean_inline,
    finish,
    first_heading,
    normalize_rows,
    table_block,
)
from core.ingest.ocr import (
    NO_OCR_DATA,
    OCR_BULLET_MISREADS,
    OcrTimeout,
    PageReader,
    ScannedPage,
    latin_codes,
    legible,
    needs_ocr,
    page_list,
)
from core.ingest.text import LIST_MARKER, continues_sentence, hyphenated_words, join_lines
from core.schema import Block, ParsedDocument

_TEXT_FLAGS = (
    pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
)
MARGIN = 0.10  # share of the page height at the top and bottom that may hold headers
HEADING_SIZE_RATIO = 1.15
BOLD_INK = 1.35  # a scanned line this much darker than the document's usual line is bold
MAX_INK = 0.6  # a scanned line darker than this is light type on a dark band
MAX_TABLE_PROBE_DRAWINGS = 5000  # a page with more vector paths is a chart, not a table
MAX_SLOW_PAGES = 3  # scanned pages OCR reads nothing of in time before the rest of the file is not tried
_NUMBERED_PARAGRAPH = re.compile(r"^\d+(?:[-.]\d+)+\.?\s")
_PAGE_NUMBER = re.compile(
    r"^(?:[-–—]\s*)?(?:page|p\.|стр\.?|страница)?\s*\d+(?:\s*(?:of|/|из)\s*\d+)?(?:\s*[-–—])?$",
    re.IGNORECASE,
)
_BULLET_ONLY = re.compile(r"^[•·▪‣◦●○■□►▶➢✓✔\-–—*]$")
_BULLET_GLYPH = re.compile(r"^\s*[•·▪‣◦●○■□►▶➢✓✔\-–—*]\s+")
_FILE_NAME_TITLE = re.compile(r"\.(?:docx?|pdf|indd|pptx?|xlsx?|txt|rtf|odt|tex)$", re.I)


@dataclass
class _Line:
    text: str
    bbox: tuple[float, float, float, float]
    size: float
    chars: int
    bold_chars: int
    ink: float | None = None  # share of ink in its box, on a scanned page (for bold)


@dataclass
class _Item:
    """A text block or a table on one page, before classification."""

    page: int
    bbox: tuple[float, float, float, float]
    lines: list[_Line] = field(default_factory=list)
    rows: list[list[str]] | None = None
    scanned: bool = False  # read by OCR: sizes are estimates, bold unknown

    @property
    def text(self) -> str:
        return join_lines([ln.text for ln in self.lines])


class PdfParser:
    def __init__(self, reader: PageReader | None = None, unavailable: str = NO_OCR_DATA,
                 images: bool = False) -> None:
        self.reader = reader  # reads scanned pages; None: they are named as unread,
        self.unavailable = unavailable  # for this reason
        self.images = images  # a PDF made of an uploaded image's frames: every page is one, said so

    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        path = Path(path)
        doc = _open(path)
        warnings: list[str] = []
        scans = _Scans()
        try:
            items: list[_Item] = []
            heights: dict[int, float] = {}
            skipped = 0
            for index in range(doc.page_count):
                try:
                    page = doc.load_page(index)
                    _upright(page)
                    scanned = self._scanned_text(page, index + 1, scans)  # may turn a page fed the wrong way
                    heights[index + 1] = page.rect.height
                    items.extend(_page_items(page, index + 1, warnings, scanned))
                except Exception:  # noqa: BLE001 - one broken page must not lose the rest
                    skipped += 1
                    warnings.append(f"Page {index + 1} could not be read and was skipped.")
                if on_page:
                    on_page(index + 1, doc.page_count)
            pages = doc.page_count
            meta_title = (doc.metadata or {}).get("title") or ""
            # MuPDF repairs a truncated or corrupt file on open and then finds little or
            # no text in it: that is damage, not a scan, and OCR would not help
            damaged = doc.is_repaired or skipped == pages
        finally:
            doc.close()
            if self.reader is not None:
                self.reader.close()  # its OCR workers
        if not any(item.rows or item.lines for item in items):
            raise _no_text(damaged, scans, self.unavailable, self.images)
        _bold_scans(items)
        items = _headed_continuations(_drop_running_text(_steady_scans(items), heights, pages))
        blocks = _classify(items, hyphenated_words(line.text for item in items for line in item.lines))
        if not blocks:
            raise _no_text(damaged, scans, self.unavailable, self.images)
        if damaged:
            # said to the user beside "indexed": what happened and what to do, no library names
            warnings.append("This PDF is damaged and was repaired to read it; some of its text may be missing, "
                            "so upload an intact copy if you have one.")
        warnings.extend(scans.warnings(self.reader, self.unavailable, self.images, pages))
        title = _meta_title(meta_title) or first_heading(blocks) or path.stem
        parsed = finish(blocks, pages=pages, title=title, warnings=warnings)
        parsed.scanned_words = scans.words
        parsed.scanned_turns = scans.turns
        parsed.pages_left_out = skipped + scans.left_out()
        return parsed

    def _scanned_text(self, page: pymupdf.Page, number: int, scans: _Scans) -> ScannedPage | None:
        """What OCR read of a scanned page, or None (a digital page, or one not read)."""
        if not needs_ocr(page):
            return None
        if self.reader is None:
            scans.unread.append(number)
            return None
        if len(scans.read) >= self.reader.max_pages:
            scans.over.append(number)
            return None
        if len(scans.slow) >= MAX_SLOW_PAGES:
            scans.given_up.append(number)
            return None
        try:
            scanned, turn = self._read_upright(page, scans)
        except OcrTimeout:
            scans.slow.append(number)
            return None
        except Exception:  # noqa: BLE001 - the engine fails on odd images; the page is named, the rest kept
            scans.failed.append(number)
            return None
        if scanned is None:
            scans.illegible.append(number)
            return None
        scans.read.append(number)
        if not page.get_image_info():
            scans.drawn.append(number)
        words = scanned.words_on_page(page)
        if turn:
            scans.turns[number] = turn[0]
            words = [(*(pymupdf.Rect(w[:4]) * turn[1]).normalize(), *w[4:]) for w in words]
        scans.words[number] = words
        return scanned

    def _read_upright(self, page: pymupdf.Page, scans: _Scans
                      ) -> tuple[ScannedPage | None, tuple[int, pymupdf.Matrix] | None]:
        """What OCR read of the page turned the first of `turns_to_try`'s ways that reads as
        words (the page is turned in this open copy only), and (the degrees it was turned, the
        matrix from the turned page back to the page as it stands), None when not turned, for
        the boxes on the kept original. (None, None) when no way reads: a mirrored, faint or
        noisy page. OcrTimeout when all its reads together pass ocr.PAGE_BUDGET_S."""
        assert self.reader is not None
        deadline = time.monotonic() + ocr.PAGE_BUDGET_S
        for turn in self.reader.turns(page, image=self.images):
            back = _turn(page, turn) if turn else None
            scanned, ok = self._read(page, scans, deadline)
            if ok:
                return scanned, (turn, back) if back is not None else None
            if turn:
                _turn(page, 360 - turn)
        return None, None

    def _read(self, page: pymupdf.Page, scans: _Scans, deadline: float) -> tuple[ScannedPage, bool]:
        """(what OCR read of the page, whether it reads as words). The document's first
        legible scanned page decides the languages the rest is read in."""
        assert self.reader is not None

        def left() -> float:
            if (seconds := deadline - time.monotonic()) <= 0:
                raise OcrTimeout("the page's time for OCR is up")
            return seconds

        scanned = self.reader.read(page, flags=_TEXT_FLAGS, languages=scans.languages, timeout=left(),
                                   image=self.images)
        text = page.get_text("text", textpage=scanned.textpage)
        if not legible(text):
            return scanned, False
        if scans.languages is None:
            scans.languages = self.reader.languages_of(text)
            if scans.languages != self.reader.languages:
                scanned = self.reader.read(page, flags=_TEXT_FLAGS, languages=scans.languages, timeout=left(),
                                           image=self.images)
        return scanned, True


def _turn(page: pymupdf.Page, degrees: int) -> pymupdf.Matrix:
    """Turn this open copy's page `degrees` clockwise, content and all (the kept original does
    not change); the matrix from the turned page's coordinates back to the page's before."""
    page.set_rotation(degrees % 360)
    back = page.derotation_matrix
    page.remove_rotation()
    return back


def _upright(page: pymupdf.Page) -> None:
    """A page turned by /Rotate (a scan fed sideways, a landscape table) is read as it is
    shown: its text otherwise runs vertically in the page's own coordinates, and vertical
    lines are dropped as margin notes, which lost every turned page (QA pass). Only this
    open copy changes; the kept original keeps its rotation."""
    if page.rotation:
        try:
            page.remove_rotation()
        except Exception:  # noqa: BLE001 - a page MuPDF cannot turn is read as it is
            pass


@dataclass
class _Scans:
    """Page numbers of the scanned pages: read by OCR, not read (no OCR here, over the
    limit), or failed."""

    read: list[int] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)
    over: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    illegible: list[int] = field(default_factory=list)  # OCR read noise, not words
    slow: list[int] = field(default_factory=list)  # OCR read nothing in ocr.PAGE_BUDGET_S
    given_up: list[int] = field(default_factory=list)  # not tried: MAX_SLOW_PAGES pages were slow
    drawn: list[int] = field(default_factory=list)  # of those read, pages whose letters are drawn shapes
    turns: dict[int, int] = field(default_factory=dict)  # page -> degrees it was turned to be read upright
    words: dict[int, list[tuple]] = field(default_factory=dict)  # of the pages read
    languages: str | None = None  # what the document is read in, once its first scan is read

    def left_out(self) -> int:
        """How many scanned pages' text is not in the document (each page is in one list)."""
        return len(self.unread) + len(self.over) + len(self.failed) + len(self.illegible) + len(self.slow) \
            + len(self.given_up)

    def warnings(self, reader: PageReader | None, unavailable: str, images: bool = False,
                 pages: int = 0) -> list[str]:
        """What an admin should know, what to act on first: pages left out or not read, then
        pages turned, then that OCR read the rest (the Documents page's column shows the first)."""
        out = []
        if self.illegible:
            out.append(f"{_pages(self.illegible)} {_were(self.illegible)} left out: OCR read no legible text on "
                       f"{_it(self.illegible)} either way up (too faint, mirrored, or no text?); rescan "
                       f"{_it(self.illegible)} and upload the file again.")
        if self.slow:
            out.append(f"{_pages(self.slow)} {_were(self.slow)} left out: OCR found no text on {_it(self.slow)} "
                       f"in {ocr.PAGE_BUDGET_S} seconds (a photo, a pattern or noise rather than text?).")
        if self.given_up:
            out.append(f"{_pages(self.given_up)} {_were(self.given_up)} not read: OCR gave up on the file after "
                       f"{MAX_SLOW_PAGES} pages it could not read in time; upload the pages that hold text alone.")
        if self.failed:
            out.append(f"OCR could not read {_pages(self.failed).lower()}; rescan {_it(self.failed)} "
                       "and upload the file again.")
        if self.over and reader:
            out.append(f"{_pages(self.over)} {_were(self.over)} not read: OCR reads at most {reader.max_pages} "
                       "scanned pages of one file, so split it and upload the rest.")
        if self.unread:
            out.append(f"{_pages(self.unread)} {_were(self.unread)} scanned and not read: {unavailable}; once it "
                       "is, re-index the document (the same file uploaded again is left as it is).")
        if self.turns:
            turned = sorted(self.turns)
            what = "The image was taken" if images and pages == 1 else \
                f"{_pages(turned)} {_were(turned)} scanned"
            out.append(f"{what} upside down or sideways and {_were(turned)} turned upright to be read.")
        scanned = [n for n in self.read if n not in self.drawn]
        if scanned:
            # an image's frames are scans by nature: only that they were read is news
            what = ("The image" if pages == 1 else _pages(scanned)) if images else \
                f"{_pages(scanned)} {_were(scanned, 'are scans', 'is a scan')} and"
            out.append(f"{what} {_were(scanned)} read by OCR; recognised "
                       f"text can hold errors, so check quotes from {_it(scanned)} against the page.")
        if self.drawn:
            out.append(f"{_pages(self.drawn)} {_were(self.drawn, 'have', 'has')} no text, only letters drawn as "
                       f"shapes, and {_were(self.drawn)} read by OCR; check quotes from {_it(self.drawn)} "
                       "against the page.")
        return out


def _pages(numbers: list[int]) -> str:
    return f"Page{'s' if len(numbers) > 1 else ''} {page_list(numbers)}"


def _were(numbers: list[int], many: str = "were", one: str = "was") -> str:
    return many if len(numbers) > 1 else one


def _it(numbers: list[int]) -> str:
    return "them" if len(numbers) > 1 else "it"


def _no_text(damaged: bool, scans: _Scans, unavailable: str, images: bool = False) -> IngestError:
    scan = "This image is a scan" if images else "This PDF is scanned"
    if damaged:
        return IngestError(
            "This PDF is damaged (truncated or corrupt) and no text could be read from it; "
            "get an intact copy of the file and upload it again."
        )
    if scans.unread:
        return IngestError(f"This PDF is scanned (it has no text layer) and {unavailable}, "
                           "or run OCR on it first and upload the result.")
    if scans.illegible and not scans.read:
        return IngestError(f"{scan} and OCR read no legible text in it either way up (too faint, "
                           "mirrored, or no text?); scan it again and upload it.")
    if scans.slow and not scans.read:
        return IngestError(f"{scan} and OCR found no text in it in {ocr.PAGE_BUDGET_S} seconds a page (a photo, "
                           "a pattern or noise rather than text?); upload a scan of a page of text.")
    if scans.read or scans.failed:
        return IngestError(f"{scan} and OCR found no text in it (a blank or faint scan?); "
                           "scan it again at a higher resolution and upload it.")
    return IngestError(
        "This PDF's pages hold no text and no scan of text to read (they are blank, or hold only "
        "pictures or drawings); there is nothing in it to index."
    )


def _open(path: Path) -> pymupdf.Document:
    try:
        doc = pymupdf.open(str(path), filetype="pdf")
    except Exception:  # noqa: BLE001 - MuPDF raises FileDataError, RuntimeError, ...
        raise IngestError(NOT_PDF) from None
    if doc.needs_pass and not doc.authenticate(""):
        doc.close()
        raise IngestError(
            "This PDF is password-protected; remove the password and upload it again."
        )
    if doc.page_count == 0:
        doc.close()
        raise IngestError("The file is not a valid PDF (it has no pages).")
    return doc


# --- one page -------------------------------------------------------------------------


def _page_items(page: pymupdf.Page, number: int, warnings: list[str],
                scanned: ScannedPage | None = None) -> list[_Item]:
    """A page's text blocks and tables in reading order; `scanned`: what OCR read of it."""
    if scanned is not None:
        tables = _scanned_tables(page, number, scanned)
    else:
        tables = _tables(page, number, warnings) if looks_tabular(page) else []
    table_zones = [_inflate(t.bbox, 2.0) for t in tables]
    texts: list[_Item] = []
    blocks = [[ln for ln in (_line(raw_line) for raw_line in raw["lines"]) if ln
               and not any(_center_inside(ln.bbox, zone) for zone in table_zones)]
              for raw in page.get_text("dict", flags=_TEXT_FLAGS,
                                       textpage=scanned.textpage if scanned else None)["blocks"]
              if raw.get("type") == 0]
    if scanned is not None:
        _steady_scan_lines(blocks)
        for lines in blocks:
            for line in lines:
                line.ink = scanned.darkness(line.bbox)
    else:
        blocks = _filled_in(blocks, _form_values(page))
    for lines in blocks:
        texts.extend(_Item(page=number, bbox=_union(run), lines=run, scanned=scanned is not None)
                     for run in _split_on_style(lines))
    # Put each table where it sits: at the place in reading order with the fewest blocks
    # out of place (above it but after, or below it but before). PyMuPDF lists text in
    # drawing order, and a running head or footer drawn first or last must not drag a
    # table past the page's later headings into the wrong section.
    for table in sorted(tables, key=lambda t: t.bbox[1]):
        above = [t.bbox[3] <= table.bbox[1] + 2 for t in texts]
        below = [t.bbox[1] >= table.bbox[3] - 2 for t in texts]
        misplaced = [sum(below[:i]) + sum(above[i:]) for i in range(len(texts) + 1)]
        texts.insert(misplaced.index(min(misplaced)), table)
    return _notes_after_their_marks(texts, page.rect.height)


def _form_values(page: pymupdf.Page) -> list[tuple[pymupdf.Rect, str]]:
    """(box, what it says) of each form field on the page: a text, a choice, "Yes" or "No"
    for a checkbox, "(selected)" for the chosen radio button; signatures and buttons none."""
    out = []
    for widget in page.widgets() or ():
        kind, value = widget.field_type, widget.field_value
        on = value not in (False, None, "", "Off")
        if kind == pymupdf.PDF_WIDGET_TYPE_CHECKBOX:
            text = "Yes" if on else "No"
        elif kind == pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON:
            text = "(selected)" if on else ""
        elif kind in (pymupdf.PDF_WIDGET_TYPE_TEXT, pymupdf.PDF_WIDGET_TYPE_COMBOBOX, pymupdf.PDF_WIDGET_TYPE_LISTBOX):
            text = clean_inline(", ".join(value) if isinstance(value, (list, tuple)) else str(value or ""))
        else:
            continue
        out.append((pymupdf.Rect(widget.rect), text))
    return out


def _filled_in(blocks: list[list[_Line]], fields: list[tuple[pymupdf.Rect, str]]) -> list[list[_Line]]:
    """A filled form's values put after their labels. MuPDF gives a field's value as a text
    block of its own, drawn after the page's text, so "Policy number:" and "POL-7731" stood
    paragraphs apart and no passage held both; a checkbox read as its glyph ("3"). Each value
    goes on the line that labels it: on its left in the same row, else just above it."""
    if not fields:
        return blocks
    boxes = [box + (-2, -2, 2, 2) for box, _ in fields]
    blocks = [[ln for ln in lines if not any(_center_inside(ln.bbox, box) for box in boxes)] for lines in blocks]
    lines = [ln for block in blocks for ln in block]
    for box, text in fields:
        if not text:
            continue
        middle = (box.y0 + box.y1) / 2
        left = [ln for ln in lines if ln.bbox[1] - 3 <= middle <= ln.bbox[3] + 3 and ln.bbox[2] <= box.x0 + 4]
        above = [ln for ln in lines if box.y0 - 30 <= ln.bbox[3] <= box.y0 + 2
                 and ln.bbox[0] < box.x1 and ln.bbox[2] > box.x0]
        label = max(left, key=lambda ln: ln.bbox[2], default=None) or max(above, key=lambda ln: ln.bbox[3], default=None)
        if label is not None:
            label.text = f"{label.text} {text}"
        else:  # no label on the page: the value alone, where it stands
            size = sorted(ln.size for ln in lines)[len(lines) // 2] if lines else 10.0
            line = _Line(text=text, bbox=tuple(box), size=size, chars=len(text), bold_chars=0)
            blocks.append([line])
            lines.append(line)
    return [lines for lines in blocks if lines]


def _steady_scan_lines(blocks: list[list[_Line]]) -> None:
    """OCR guesses a line's font size from its height in pixels, which ascenders, descenders
    and the scan move by 10-20%: a paragraph would split where its lines' sizes differ. Every
    block of a scanned page takes its lines' median size (`_steady_scans` then evens out the
    blocks across the document). A bullet read as another mark (". Item", "¢ Item") is a
    bullet again, and a code spelled with look-alike capitals of another script is Latin."""
    for lines in blocks:
        if lines:
            size = sorted(line.size for line in lines)[len(lines) // 2]
            for line in lines:
                line.size = size
                line.text = latin_codes(line.text)
                if line.text in OCR_BULLET_MISREADS:  # a bullet on its own, left of its item
                    line.text = "•"
                elif line.text[:1] in OCR_BULLET_MISREADS and line.text[1:2] == " " and line.text[2:3].isupper():
                    line.text = "• " + line.text[2:]


def _bold_scans(items: list[_Item]) -> None:
    """OCR says nothing of bold, which marks the headings set at body size ("4.1 Scope",
    say): a scanned line whose box holds BOLD_INK times the document's usual share of ink
    (its lines' char-weighted median) is bold. Measured on a four-page policy scanned at 300
    dpi: body lines 0.23-0.25, bold headings 0.31-0.39, a line of capitals or digits up to
    0.29; a line over MAX_INK is light type on a dark band, not bold."""
    lines = [line for item in items if item.scanned for line in item.lines
             if line.ink is not None and line.ink <= MAX_INK]
    if not lines:
        return
    weighed = sorted((line.ink, line.chars) for line in lines)
    half, seen, usual = sum(c for _, c in weighed) / 2, 0, weighed[-1][0]
    for ink, chars in weighed:
        seen += chars
        if seen >= half:
            usual = ink
            break
    for line in lines:
        if usual > 0 and line.ink >= BOLD_INK * usual:
            line.bold_chars = line.chars


def _steady_scans(items: list[_Item]) -> list[_Item]:
    """Scanned pages' blocks as a reader sees them: a block within a fifth of the
    scanned body size takes it (noise, not a bigger font: else body text passes for
    headings), larger sizes within 15% of each other are one (one heading level), and a
    block that goes on a sentence the block above left open (no final stop above, a
    lowercase start) joins it, as OCR cuts paragraphs where the layout does not."""
    sizes: Counter[float] = Counter()
    for item in items:
        if item.scanned:
            for line in item.lines:
                sizes[round(line.size)] += line.chars
    if not sizes:
        return items
    body = sizes.most_common(1)[0][0]
    # sizes of one heading level come out 10-20% apart too: each size larger than the body
    # takes the largest one within 15% above it, so one level stays one level
    larger = sorted({item.lines[0].size for item in items if item.scanned and item.lines
                     and item.lines[0].size > 1.2 * body}, reverse=True)
    level_of: dict[float, float] = {}
    for size in larger:
        level_of[size] = next((head for head in level_of.values() if size >= head / 1.15), size)
    out: list[_Item] = []
    for item in items:
        if item.scanned and item.lines:
            size = item.lines[0].size
            size = body if abs(size - body) <= 0.2 * body else level_of.get(size, size)
            for line in item.lines:
                line.size = size
        last = out[-1] if out else None
        if (last is not None and item.scanned and last.scanned and last.page == item.page
                and last.rows is None and item.rows is None and item.lines and last.lines
                and last.lines[-1].size == item.lines[0].size
                and not last.text.rstrip().endswith((".", "!", "?", ":", ";"))
                and _goes_on(item.text)):
            last.lines.extend(item.lines)
            last.bbox = _union(last.lines)
            continue
        out.append(item)
    return out


def _goes_on(text: str) -> bool:
    """Does a block's text read as the rest of a sentence: a lowercase start, or a quantity
    ("2.5 kg. The rest...", QA pass: OCR cut the value from "...must not exceed"); a section
    or item number ("3-1. Scope", "4.2 Terms") is followed by a capital."""
    if text[:1].islower():
        return True
    number, _, rest = text.partition(" ")
    return number[:1].isdigit() and number.replace(".", "").replace(",", "").isdigit() and rest[:1].islower()


def _line(raw_line: dict) -> _Line | None:
    dx, dy = raw_line.get("dir", (1, 0))
    if abs(dy) > 0.1 or dx < 0:
        return None  # vertical or upside-down text: margin notes, stamps
    parts: list[str] = []
    last_x1 = None
    sizes: Counter[float] = Counter()
    chars = bold = 0
    spans = [span for span in raw_line["spans"] if span["text"]]
    for i, span in enumerate(spans):
        text = _note_mark(span, spans[i + 1] if i + 1 < len(spans) else None, first=not parts)
        x0 = span["bbox"][0]
        if (last_x1 is not None and parts and not parts[-1].endswith(" ")
                and not text.startswith(" ") and x0 - last_x1 > 0.25 * span["size"]):
            parts.append(" ")  # visible gap between spans without a space character
        parts.append(text)
        last_x1 = span["bbox"][2]
        n = len(text.strip())
        chars += n
        sizes[round(span["size"] * 2) / 2] += n
        if span["flags"] & 16 or _bold_font(span.get("font", "")):
            bold += n
    text = clean_inline("".join(parts))
    if not text or chars == 0:
        return None
    return _Line(text=text, bbox=tuple(raw_line["bbox"]), size=sizes.most_common(1)[0][0],
                 chars=chars, bold_chars=bold)


NOTE_MARK_SIZE = 0.85  # a line's leading number this much smaller than its text is a note's number


def _note_mark(span: dict, following: dict | None, first: bool) -> str:
    """A span's text, a footnote's number written as superscript digits, as the DOCX parser
    writes it: a raised number ("per kilometre ¹", "m²"; PyMuPDF flags it superscript) and
    a line's first number set smaller than the text after it ("¹ Rate valid from ...", the
    note at the page's foot). Read as plain digits, "per kilometre 1." and "1 Rate valid"
    were a number of the sentence."""
    text = span["text"]
    digits = text.strip()
    if not (digits.isdigit() and len(digits) <= 3):
        return text
    raised = bool(span["flags"] & 1)
    leading = first and following is not None and following["text"].strip() \
        and span["size"] <= NOTE_MARK_SIZE * following["size"]
    return text.translate(SUPERSCRIPT) if raised or leading else text


def _notes_after_their_marks(items: list[_Item], page_height: float) -> list[_Item]:
    """Each footnote of a page (a block in its lowest quarter that starts with a superscript
    number) moved to follow the block that refers to it: at the page's foot it followed the
    next section's heading, and was read as part of that section."""
    for note in [i for i in items if i.rows is None and i.bbox[1] >= 0.75 * page_height and _note_number(i.text)]:
        mark = _note_number(note.text)
        refers = [i for i in items if i is not note and i.rows is None and mark in i.text[1:]
                  and not _note_number(i.text)]
        if refers:
            items.remove(note)
            items.insert(items.index(refers[-1]) + 1, note)
    return items


def _note_number(text: str) -> str:
    """The superscript number a footnote starts with ("¹²"), or ""."""
    mark = text[:len(text) - len(text.lstrip(SUPERSCRIPT_DIGITS))]
    return mark if mark and text[len(mark):len(mark) + 1] == " " else ""


def _bold_font(font: str) -> bool:
    name = font.lower()
    return any(w in name for w in ("bold", "black", "heavy", "semibold", "demi"))


def _split_on_style(lines: list[_Line]) -> list[list[_Line]]:
    """Split a block where the font size changes, or where an all-bold run of lines is
    followed by regular text below it: a heading glued to its paragraph ("1. Scope" in
    bold at body size, then the text under it) is not the first line of a list item. A bold
    label beside its text (a "1-1." column, a key/value row) stays with it."""
    runs: list[list[_Line]] = []
    for line in lines:
        if (runs and _similar_size(runs[-1][-1].size, line.size)
                and not (all(_all_bold(ln) for ln in runs[-1]) and not _all_bold(line)
                         and line.bbox[1] >= runs[-1][-1].bbox[3] - 1.0)):  # below, not beside it
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def _all_bold(line: _Line) -> bool:
    return line.bold_chars >= 0.9 * line.chars


def _similar_size(a: float, b: float) -> bool:
    return max(a, b) / max(min(a, b), 0.1) < 1.08


def looks_tabular(page: pymupdf.Page) -> bool:
    """Cheap test before the costly `find_tables`: do vector rules form a grid?

    A grid needs rules at 3+ distinct heights and 3+ distinct x positions (two columns,
    two rows at least); a framed box or a few underlines are not a table.
    """
    try:
        paths = page.get_cdrawings()
    except Exception:  # noqa: BLE001
        return False
    if len(paths) > MAX_TABLE_PROBE_DRAWINGS:
        return False
    ys: set[int] = set()
    xs: set[int] = set()
    for path in paths:
        for item in path.get("items", ()):
            op = item[0]
            if op == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
                if abs(y1 - y0) < 1 and abs(x1 - x0) > 5:
                    ys.add(round(y0))
                elif abs(x1 - x0) < 1 and abs(y1 - y0) > 5:
                    xs.add(round(x0))
            elif op in ("re", "qu"):
                r = pymupdf.Rect(item[1]) if op == "re" else pymupdf.Quad(item[1]).rect
                if r.width > 5:
                    ys.update((round(r.y0), round(r.y1)))
                if r.height > 5:
                    xs.update((round(r.x0), round(r.x1)))
        if len(ys) >= 3 and len(xs) >= 3:
            return True
    return False


def _tables(page: pymupdf.Page, number: int, warnings: list[str]) -> list[_Item]:
    try:
        found = page.find_tables()
    except Exception:  # noqa: BLE001
        warnings.append(f"Tables on page {number} could not be read; kept as text.")
        return []
    if not found.tables:
        return []
    # Words of the page, placed into cells by their centre: one extraction per page
    # (get_textbox per cell costs ~15 ms each) and decimals stay intact.
    words = page.get_text("words", flags=_TEXT_FLAGS, sort=False)
    items = []
    for table in found.tables:
        rows = [[_cell_text(words, cell) for cell in row.cells] for row in table.rows]
        filled = _header_spans_filled(table, words, rows)
        if len(normalize_rows(filled)) < len(normalize_rows(rows)):  # a header of two rows, read as one
            rows = filled
        bbox = tuple(table.bbox)
        header = table.header
        # a line above the grid that fills one cell of several is the table's title, not its
        # column names ("5. Periodic and deep cleaning" over "Task | Frequency": a QA pass saw
        # the heading lost into the table and the true header read as a data row); it stays text
        titled = header is not None and len(header.names) >= 2 and sum(1 for n in header.names if n) == 1
        if header is not None and header.external and any(header.names) and not titled:
            rows.insert(0, [name or "" for name in header.names])
            bbox = _union_boxes(bbox, tuple(header.bbox))
        rows = normalize_rows(rows)
        if len(rows) >= 2 and len(rows[0]) >= 2:
            items.append(_Item(page=number, bbox=bbox, rows=rows))
    return items


def _scanned_tables(page: pymupdf.Page, number: int, scanned: ScannedPage) -> list[_Item]:
    """The ruled tables of a scanned page: the grid its rules draw, each cell holding the
    OCR words whose centre lies in it."""
    if not scanned.grids:
        return []
    words = page.get_text("words", textpage=scanned.textpage, sort=False)
    items = []
    for columns, rows in scanned.grids:
        cells = [[latin_codes(_cell_text(words, (x0, y0, x1, y1))) for x0, x1 in zip(columns, columns[1:])]
                 for y0, y1 in zip(rows, rows[1:])]
        cells = normalize_rows(cells)
        if len(cells) >= 2 and len(cells[0]) >= 2:
            items.append(_Item(page=number, bbox=(columns[0], rows[0], columns[-1], rows[-1]), rows=cells,
                               scanned=True))
    return items


def _header_spans_filled(table, words: list[tuple], rows: list[list[str]]) -> list[list[str]]:
    """`rows` with the cells PyMuPDF gives no box in a table's two top rows filled. A cell
    under a wider one of its row (a group name over three columns) repeats that name, as the
    other parsers write a spanned cell (blocks.merged_header then reads the two rows as one
    header); a cell under the one above it (spanning both rows) stays blank; any other
    holds the words in its column and row that no cell holds (a QA pass: "EU roaming data
    (GB)", spanning both header rows, and "Data (GB)" under its group were lost, their
    columns left nameless). The parser keeps them only when the two rows then read as one."""
    full = next((r for r in reversed(table.rows) if all(r.cells)), None)
    if len(table.rows) < 3 or full is None or len(full.cells) != len(rows[0]):
        return rows
    rows = [list(r) for r in rows]
    columns = [(c[0], c[2]) for c in full.cells]
    boxes = [c for r in table.rows for c in r.cells if c]
    free = [w for w in words if not any(_inside(w, c) for c in boxes)]
    for i in (0, 1):
        cells, (_, y0, _, y1) = table.rows[i].cells, table.rows[i].bbox
        for j, cell in enumerate(cells):
            if cell or rows[i][j]:
                continue
            middle = (columns[j][0] + columns[j][1]) / 2
            wider = next((k for k, c in enumerate(cells) if c and c[0] <= middle <= c[2]), None)
            above = table.rows[0].cells[j] if i == 1 else None
            if wider is not None:
                rows[i][j] = rows[i][wider]
            elif above is None or above[3] < (y0 + y1) / 2:
                below = table.rows[1].cells[j] is None and i == 0
                bottom = table.rows[1].bbox[3] if below else y1
                rows[i][j] = _cell_text(free, (columns[j][0], y0, columns[j][1], bottom))
    return rows


def _inside(word: tuple, cell: tuple) -> bool:
    return cell[0] <= (word[0] + word[2]) / 2 <= cell[2] and cell[1] <= (word[1] + word[3]) / 2 <= cell[3]


def _cell_text(words: list[tuple], cell: tuple | None) -> str:
    if not cell:
        return ""
    x0, y0, x1, y1 = cell
    inside = [w for w in words
              if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    inside.sort(key=lambda w: (w[5], w[6], w[7]))  # block, line, word: reading order
    return " ".join(w[4] for w in inside)


# --- across pages ---------------------------------------------------------------------


def _headed_continuations(items: list[_Item]) -> list[_Item]:
    """A table that goes on over a page break is read by PyMuPDF as two, the second with its
    first data row for a header ("Carpet shampoo | every 4 months" named the columns of every
    row after it). A table that opens its page right after one that ends the page before, with
    as many columns, whose first row holds a number where the earlier header holds none, is
    that table's continuation: it gets the earlier header (each part keeps its own page)."""
    out: list[_Item] = []
    for item in items:
        before = out[-1] if out else None
        if (item.rows and before is not None and before.rows and item.page == before.page + 1
                and len(item.rows[0]) == len(before.rows[0]) and item.rows[0] != before.rows[0]
                and not any(ch.isdigit() for cell in before.rows[0] for ch in cell)
                and any(ch.isdigit() for cell in item.rows[0] for ch in cell)):
            item = replace(item, rows=[before.rows[0], *item.rows])
        out.append(item)
    return out


def _drop_running_text(items: list[_Item], heights: dict[int, float], pages: int) -> list[_Item]:
    """Drop page numbers and headers/footers repeated on many pages.

    Repeated means the same text (digits ignored) or, for one short line, the same height
    on the page (chapter-wise running heads: "Chapter 2: Setup 14", "Chapter 3: Usage 21").
    Text set larger than the body (a heading at the top of each page, "Chapter 7. Annual
    leave") counts as repeated only with the very same words: a running head is
    small print, a heading whose number changes page by page is the document's structure.
    """
    sizes: Counter[float] = Counter()
    for item in items:
        for line in item.lines:
            sizes[line.size] += line.chars
    body = sizes.most_common(1)[0][0] if sizes else 10.0

    def in_margin(item: _Item) -> bool:
        height = heights.get(item.page) or 842.0
        return item.bbox[3] <= MARGIN * height or item.bbox[1] >= (1 - MARGIN) * height

    def keys(item: _Item) -> list[object]:
        if item.rows is None and _item_size(item) >= body * HEADING_SIZE_RATIO:
            return [item.text.lower()]
        found: list[object] = [re.sub(r"\d+", "#", item.text.lower())]
        line_height = max(ln.bbox[3] - ln.bbox[1] for ln in item.lines)
        one_row = item.bbox[3] - item.bbox[1] <= 1.6 * line_height
        if one_row and len(item.text.split()) <= 15:
            found.append(("row", round(item.bbox[1]), round(item.bbox[3])))
        return found

    # a page whose only text lies in the margin (one line per page, a slide's caption)
    # has no body for that text to run above: it is the page's content
    with_body = {item.page for item in items if item.rows is not None or not in_margin(item)}

    def running(item: _Item) -> bool:
        return item.rows is None and in_margin(item) and item.page in with_body

    seen: dict[object, set[int]] = {}
    for item in items:
        if running(item):
            for key in keys(item):
                seen.setdefault(key, set()).add(item.page)
    # Half the pages, but 3 pages are enough: chapter-wise running heads change per chapter.
    threshold = max(2, min(math.ceil(0.5 * pages), 3))
    kept = []
    for item in items:
        if _PAGE_NUMBER.match(item.text) and item.rows is None and in_margin(item):
            continue
        if running(item):
            if any(
                len(seen[key]) >= threshold for key in keys(item)
            ):
                continue
        kept.append(item)
    return kept


def _classify(items: list[_Item], hyphenated: frozenset[str] = frozenset()) -> list[Block]:
    sizes: Counter[float] = Counter()
    for item in items:
        for line in item.lines:
            sizes[line.size] += line.chars
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    heading_sizes = sorted({_item_size(i) for i in items if i.rows is None
                            and len(i.lines) <= 3 and len(i.text) <= 150
                            and _item_size(i) >= body * HEADING_SIZE_RATIO}, reverse=True)
    blocks: list[Block] = []
    for item in items:
        bbox = tuple(round(v, 2) for v in item.bbox)
        if item.rows is not None:
            blocks.append(table_block(item.rows, page=item.page, bbox=bbox))
            continue
        level = _heading_level(item, body, heading_sizes)
        if level and item.scanned:
            level = _numbered_level(item.text) or level
        if level:
            blocks.append(Block(kind="heading", text=item.text, page=item.page, bbox=bbox,
                                level=level))
        else:
            blocks.extend(_body_blocks(item, hyphenated))
    return blocks


def _numbered_level(text: str) -> int:
    """The level a section number gives a heading ("4." 2, "4.2" 3: under the title), 0 for
    none. On a scan the font sizes OCR guesses put one level's headings 20% apart, while
    their numbers do not change."""
    parts = text.split()[0].rstrip(".").split(".") if text.split() else []
    return min(len(parts) + 1, 6) if parts and all(p.isdigit() and len(p) <= 3 for p in parts) else 0


def _item_size(item: _Item) -> float:
    sizes: Counter[float] = Counter()
    for line in item.lines:
        sizes[line.size] += line.chars
    return sizes.most_common(1)[0][0]


def _heading_level(item: _Item, body: float, heading_sizes: list[float]) -> int:
    text = item.text
    if len(item.lines) > 3 or len(text) > 150 or not any(c.isalpha() for c in text):
        return 0
    if text.endswith((".", ",", ";")) and not re.fullmatch(r"\d+(\.\d+)*\.", text.split()[0]):
        return 0
    size = _item_size(item)
    if size >= body * HEADING_SIZE_RATIO:
        return min(heading_sizes.index(size) + 1, 6) if size in heading_sizes else 1
    if (_NUMBERED_PARAGRAPH.match(text) and not (item.scanned and _numbered_level(text))) or _BULLET_GLYPH.match(text):
        return 0  # a numbered paragraph; on a scan, bold "4.1 Scope" is the heading it looks like
    chars = sum(ln.chars for ln in item.lines)
    bold = sum(ln.bold_chars for ln in item.lines)
    if bold >= 0.9 * chars and size >= body * 0.95 and len(text) <= 100:
        return min(len(heading_sizes) + 1, 6)
    return 0


FULL_LINE_SLACK = 0.15  # of the block's width: a line ending this near its right edge was full
SENTENCE_ENDS = (".", ":", ";", "!", "?")


def _body_blocks(item: _Item, hyphenated: frozenset[str] = frozenset()) -> list[Block]:
    """A text block as paragraphs and list items (a block may hold several items)."""
    groups: list[tuple[str, list[_Line]]] = []
    pending_bullet = False
    left, right = item.bbox[0], item.bbox[2]
    for line in item.lines:
        if _BULLET_ONLY.match(line.text):
            pending_bullet = True  # a bullet glyph on its own line: the item follows
            continue
        above = groups[-1][1][-1] if groups else None
        # "(14) days of the notice." under a full line ending "within fourteen": wrapped, no item
        wrapped = above is not None and above.bbox[2] >= right - FULL_LINE_SLACK * (right - left) \
            and continues_sentence(above.text, line.text)
        numbered = bool(_NUMBERED_PARAGRAPH.match(line.text))
        is_item = pending_bullet or (LIST_MARKER.match(line.text) and not wrapped and not numbered)
        pending_bullet = False
        if is_item:
            groups.append(("list_item", [line]))
        elif numbered and above is not None and (above.text.rstrip().endswith(SENTENCE_ENDS)
                                                 or above.bbox[2] < right - FULL_LINE_SLACK * (right - left)):
            # "5.3 Abandoned-lock procedure: ..." under a clause that ended (its sentence or its
            # line did): a paragraph of its own, though the PDF set no space between (a QA pass:
            # clauses 5.2 and 5.3 ran into one paragraph, so "clause 5.3" was no line to read);
            # "3.2 kg" under a full line "... for the first crate, and" goes on that sentence
            groups.append(("paragraph", [line]))
        elif groups:
            groups[-1][1].append(line)
        else:
            groups.append(("paragraph", [line]))
    blocks = []
    for kind, lines in groups:
        text = join_lines([ln.text for ln in lines], hyphenated)
        if kind == "list_item":
            text = _BULLET_GLYPH.sub("", text, count=1)
        blocks.append(Block(kind=kind, text=text, page=item.page,
                            bbox=tuple(round(v, 2) for v in _union(lines))))
    return blocks


# --- small geometry helpers -----------------------------------------------------------


def _union(lines: list[_Line]) -> tuple[float, float, float, float]:
    return (min(ln.bbox[0] for ln in lines), min(ln.bbox[1] for ln in lines),
            max(ln.bbox[2] for ln in lines), max(ln.bbox[3] for ln in lines))


def _union_boxes(a: tuple, b: tuple) -> tuple[float, float, float, float]:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _inflate(b: tuple, d: float) -> tuple[float, float, float, float]:
    return (b[0] - d, b[1] - d, b[2] + d, b[3] + d)


def _center_inside(b: tuple, zone: tuple) -> bool:
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return zone[0] <= cx <= zone[2] and zone[1] <= cy <= zone[3]


def _meta_title(title: str) -> str:
    title = clean_inline(title)
    if title.lower().startswith("microsoft word - "):
        title = title[len("microsoft word - "):]
    if not title or len(title) > 200 or _FILE_NAME_TITLE.search(title):
        return ""
    if title.lower() in {"untitled", "title", "document", "slide 1"}:
        return ""
    return title
