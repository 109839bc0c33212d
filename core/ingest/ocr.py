"""OCR of scanned PDF pages: the Tesseract engine built into MuPDF reads a page that has no
text layer, so a scanned contract or a photographed procedure answers like a digital one.

MuPDF carries the engine; only Tesseract's language data must be on the machine (Debian's
`tesseract-ocr-eng` and `tesseract-ocr-rus`, which `scripts/test.sh` installs, or a folder
named by GROUNDWORK_TESSDATA / TESSDATA_PREFIX). Nothing is downloaded.

1. A page needs OCR when it has no extractable text and images cover at least a fifth of
   it (a blank page, or a chart without words, costs nothing), or when an image covers
   nearly all of it and its only text is a stamp of a line or two (a Bates number, "Page 3
   of 40"): the page is read whole, the stamp with it.
2. The page is rendered in grey at `ocr_dpi`, turned straight when it was scanned askew
   (`skew_angle`; the words' boxes are turned back for the highlight), its ruled lines are
   found and whitened
   (core/ingest/scan_rules.py: Tesseract drops ruled table cells otherwise), and the image
   is read whole, in every registered language whose data is installed
   (`Language.ocr_code`: "eng+rus"). The text page MuPDF returns holds words with positions
   and sizes in the page's own coordinates, so the PDF parser reads it as a digital page
   (headings by size, lists, paragraphs), and the rules give its tables' cells.
3. A document's first scanned page is read in all those languages; the rest of it (and
   that page again, if they narrowed) only in those whose letters make a tenth of that
   page's: one language's glyphs read as another's are worst in short cells ("kg" as
   "кг"). A document that changes language after its first scanned page is read in the
   first one's.
4. At most `ocr_max_pages` pages of one file are read (seconds a page on 2 cores); the
   rest are named in a warning, as are the pages read, because recognised text can hold
   errors a reader should check against the page.
"""

from __future__ import annotations

import glob
import math
import os
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from core.config import Settings
from core.ingest.scan_rules import find_rules, table_grids
from core.lang import LANGUAGES

# an A4 page at 300 dpi is 8.7 million pixels; a larger page is read at a lower resolution
MAX_PIXELS = 40_000_000
MIN_DPI = 30
# an uploaded image's stated resolution is believed in this range (pixels per inch)
MIN_TRUSTED_PPI, MAX_TRUSTED_PPI = 100, 1200
ASSUMED_PAGE_INCHES = 11.0  # an image not believed is taken for a page this long (A4, Letter)
WORKER = Path(__file__).with_name("ocr_worker.py")
WORKER_TIMEOUT_S = 300  # a page the engine has not read in five minutes is given up
# all the reads of one page (its turns, its languages) together: a page of text takes 3-8 s
# a read, a page of noise or a photograph minutes a read, four ways round (QA pass: 8 min+)
PAGE_BUDGET_S = 90
MAX_SKEW = 3.0  # degrees a scan is looked at straightened by, either way
MIN_SKEW = 0.15
SKEW_DPI = 75  # resolution the skew is looked for at: coarser finds turns that are not there
SIDEWAYS_RATIO = 2.0  # see turns_to_try
MIN_WORDS_TO_JUDGE = 8
MIN_LEGIBLE_SHARE = 0.4  # of a page's words known to general text, for OCR to have read words
INK = 128  # grey level under which a pixel is ink, for how bold a line is
MIN_LANGUAGE_SHARE = 0.1  # of a first scanned page's letters, for its language to be read in
MIN_LETTERS_TO_TELL = 200
MIN_IMAGE_SHARE = 0.2  # of the page's area covered by images before a page without text is a scan
# a page with a little text is a scan when an image covers nearly all of it
MAX_STAMP_CHARS = 80
MIN_DRAWN_GLYPHS = 30  # small filled shapes on a page without text before it is read as drawn text
GLYPH_HEIGHT_SHARE = 20  # a drawn letter is at most this share (1/n) of the page's height tall
MIN_STAMPED_IMAGE_SHARE = 0.8
# where Debian (tesseract-ocr-*) and a hand-built Tesseract put the language data
_STANDARD_DIRS = ("/usr/share/tesseract-ocr/*/tessdata", "/usr/share/tessdata", "/usr/local/share/tessdata")
NO_OCR_DATA = ("OCR is not installed on this server: install Tesseract's language data "
               "(Debian: apt install tesseract-ocr-eng tesseract-ocr-rus)")
# what Tesseract reads a list bullet as, seen on rendered pages: ". Item", "¢ Item", "e Item"
OCR_BULLET_MISREADS = frozenset(".¢°«©®eo*+")
OCR_OFF = "OCR is turned off on this server (GROUNDWORK_OCR=0)"


@dataclass(frozen=True)
class PageReader:
    """Reads scanned pages: where the language data is, which languages, how finely."""

    tessdata: str
    languages: str  # Tesseract's form: "eng+rus"
    dpi: int = 300
    max_pages: int = 200
    # one worker per set of languages, for the pages of the document being read (`close` ends them)
    workers: dict[str, OcrWorker] = field(default_factory=dict, compare=False, repr=False)

    def recognise(self, png: bytes, languages: str, timeout: float = WORKER_TIMEOUT_S) -> bytes:
        """The one-page PDF OCR made of a page image; a worker that failed or ran out of time
        is not used again (one still reading is killed)."""
        worker = self.workers.get(languages) or self.workers.setdefault(languages, OcrWorker(languages, self.tessdata))
        try:
            return worker.read(png, timeout)
        except Exception as exc:
            self.workers.pop(languages, None)
            worker.close(busy=isinstance(exc, OcrTimeout))
            raise

    def close(self) -> None:
        """Stop the workers (the next page read starts one again)."""
        while self.workers:
            self.workers.popitem()[1].close()

    def languages_of(self, text: str) -> str:
        """The languages to read the rest of a document in, from what its first scanned page
        read in all of them: those whose letters make at least MIN_LANGUAGE_SHARE of the
        page's, the most used first, with the data they need besides (`Language.ocr_with`:
        Russian keeps English, for codes and names). "eng" alone for English: read with
        Russian too, a unit in a short table cell came out in Cyrillic look-alikes. All of them while the page
        holds too few letters to tell."""
        mine = self.languages.split("+")
        langs = [lang for lang in LANGUAGES.values() if lang.ocr_code in mine]
        counts = {lang.ocr_code: sum(ch in lang.letters for ch in text.lower()) for lang in langs}
        total = sum(counts.values())
        if total < MIN_LETTERS_TO_TELL:
            return self.languages
        kept = sorted((lang for lang in langs if counts[lang.ocr_code] >= MIN_LANGUAGE_SHARE * total),
                      key=lambda lang: -counts[lang.ocr_code])
        codes = [lang.ocr_code for lang in kept]
        codes += [c for lang in kept for c in lang.ocr_with if c in mine and c not in codes]  # its companions
        return "+".join(codes)

    def turns(self, page: Any, image: bool = False) -> tuple[int, ...]:
        """`turns_to_try` of the page, looked at coarsely (SKEW_DPI: a few milliseconds)."""
        import pymupdf

        rendered, paper = self.resolution(page, image)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(rendered * SKEW_DPI / paper / 72.0, rendered * SKEW_DPI / paper / 72.0),
                              colorspace=pymupdf.csGRAY)
        return turns_to_try(np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.width))

    def read(self, page: Any, flags: int = 0, languages: str | None = None,
             timeout: float = WORKER_TIMEOUT_S, image: bool = False) -> ScannedPage:
        """The page's text as MuPDF's OCR recognised it (in `languages`, else all the
        reader's), and the grids of its ruled tables; OcrTimeout past `timeout` seconds.
        `image`: the page is an uploaded image's frame (see `resolution`)."""
        import weakref

        import pymupdf

        dpi, paper = self.resolution(page, image)
        pix = page.get_pixmap(matrix=pymupdf.Matrix(dpi / 72.0, dpi / 72.0), colorspace=pymupdf.csGRAY)
        gray = np.frombuffer(pix.samples_mv, dtype=np.uint8).reshape(pix.height, pix.width)
        skew = skew_angle(gray, paper)
        if skew:
            gray = np.asarray(Image.fromarray(gray).rotate(skew, resample=Image.BICUBIC, fillcolor=255))
        rules, mask = find_rules(gray, paper, rendered=dpi)
        clean = gray.copy()
        clean[mask] = 255
        image = pymupdf.Pixmap(pymupdf.csGRAY, pix.width, pix.height, clean.tobytes(), False)
        # as PyMuPDF's own get_textpage_ocr(full=True) does, on the image without its rules
        pdf = self.recognise(image.tobytes("png"), languages or self.languages, timeout)
        recognised = pymupdf.Document(stream=pdf).load_page(0)
        unzoom = page.rect.width / recognised.rect.width
        textpage = recognised.get_textpage(flags=flags, matrix=pymupdf.Matrix(unzoom, unzoom) * page.derotation_matrix)
        textpage.parent = weakref.proxy(page)
        # the rules are in the rendered page's units: a turned page's tables are not built
        return ScannedPage(textpage, table_grids(rules) if page.rotation == 0 else [], recognised,
                           ink=clean if page.rotation == 0 else None, dpi=dpi, skew=skew,
                           centre=(page.rect.x0 + page.rect.width / 2, page.rect.y0 + page.rect.height / 2))


    def resolution(self, page: Any, image: bool = False) -> tuple[float, int]:
        """(dots per page inch to render the page at, dots per inch of paper that gives). For a
        PDF page both are `dpi_for` its size. An image's page is as large as its stated
        resolution says, and that is often wrong: phones and screenshots say 72 or 96, a
        scan's header may say nothing or 1 (QA pass: a page 24 m wide, its letters rendered 3.5
        times too large, read as "va ve"; at 10,000 a page 5 mm wide, rendered to 50 pixels).
        Outside MIN_TRUSTED_PPI-MAX_TRUSTED_PPI the image is taken for a page ASSUMED_PAGE_INCHES
        long and rendered as `dpi` of that paper."""
        size = _one_image(page) if image else None
        if size is not None:
            long_side = max(size)
            stated = long_side / (max(page.rect.width, page.rect.height) / 72.0)
            if not MIN_TRUSTED_PPI <= stated <= MAX_TRUSTED_PPI:
                paper = min(max(long_side / ASSUMED_PAGE_INCHES, MIN_DPI), MAX_TRUSTED_PPI)
                return stated * self.dpi / paper, self.dpi
        dpi = self.dpi_for(page.rect.width, page.rect.height)
        return dpi, dpi

    def dpi_for(self, width: float, height: float) -> int:
        """The resolution a page of this size (page units) is read at: `dpi`, lower for a page
        so large that its image would pass MAX_PIXELS (a PDF may declare a page of 200 by
        200 inches: 3.6 billion pixels at 300 dpi)."""
        inches = max(width, 1.0) * max(height, 1.0) / (72.0 * 72.0)
        return max(MIN_DPI, min(self.dpi, int((MAX_PIXELS / inches) ** 0.5)))


@dataclass(frozen=True)
class ScannedPage:
    """What OCR made of a page: its text page, and (column edges, row edges) of each
    ruled table on it, in page units."""

    textpage: Any
    grids: list[tuple[list[float], list[float]]]
    source: Any = None  # the recognised page the text page was read from, kept alive with it
    ink: np.ndarray | None = None  # the grey image OCR read (rules whitened), for how bold a line is
    dpi: int = 300
    skew: float = 0.0  # degrees the scan was turned (counter-clockwise) to stand straight before OCR
    centre: tuple[float, float] = (0.0, 0.0)  # of the page, what it was turned about

    def words_on_page(self, page: Any) -> list[tuple]:
        """The OCR words (x0, y0, x1, y1, word, block, line) where they stand on the page as it
        was scanned: read on the straightened image, each box turned back by the skew (for the
        console's highlight on the kept original)."""
        words = [(*w[:4], latin_codes(w[4]), *w[5:7]) for w in page.get_text("words", textpage=self.textpage, sort=False)]
        if not self.skew:
            return words
        t = math.radians(self.skew)
        cos, sin = math.cos(t), math.sin(t)
        cx, cy = self.centre

        def back(x: float, y: float) -> tuple[float, float]:
            dx, dy = x - cx, y - cy
            return cx + dx * cos - dy * sin, cy + dx * sin + dy * cos

        out = []
        for x0, y0, x1, y1, *rest in words:
            corners = [back(x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1))]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            out.append((min(xs), min(ys), max(xs), max(ys), *rest))
        return out

    def darkness(self, bbox: tuple[float, float, float, float]) -> float | None:
        """The share of ink in a box (page units) of the image: bold type holds about a
        third more than regular type of the same size; None when the image is not kept."""
        if self.ink is None:
            return None
        scale = self.dpi / 72.0
        x0, y0, x1, y1 = (max(int(v * scale), 0) for v in bbox)
        box = self.ink[y0:y1, x0:x1]
        return float((box < INK).mean()) if box.size else None


def _one_image(page: Any) -> tuple[int, int] | None:
    """(width, height) in pixels of the one image that makes the page, or None."""
    infos = page.get_image_info()
    return (int(infos[0]["width"]), int(infos[0]["height"])) if len(infos) == 1 else None


class OcrTimeout(TimeoutError):
    """OCR gave no page in the time it was allowed."""


class OcrWorker:
    """A process of its own that reads page images by OCR, one after another
    (core/ingest/ocr_worker.py, run by its path with `python -I`: not the script's folder first
    on the path, where core/ingest/html.py would stand for `html`). Tesseract holds the
    interpreter lock for the seconds a page takes (2.8 s measured), which froze every other
    session of the console during an upload; the engine's chatter on stderr stays there."""

    def __init__(self, languages: str, tessdata: str) -> None:
        self.process = subprocess.Popen([sys.executable, "-I", str(WORKER), languages, tessdata, str(os.getpid())],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        # poll, not select: select() refuses a descriptor numbered past 1,023, which a long-lived
        # process (a console, the test suite) reaches
        self._ready = select.poll()
        self._ready.register(self.process.stdout, select.POLLIN)

    def read(self, png: bytes, timeout: float = WORKER_TIMEOUT_S) -> bytes:
        """The one-page PDF OCR made of the image; an error when the worker fails or dies,
        OcrTimeout when it takes longer than `timeout` seconds."""
        assert self.process.stdin is not None
        deadline = time.monotonic() + timeout
        self.process.stdin.write(len(png).to_bytes(4, "big") + png)
        self.process.stdin.flush()
        size = int.from_bytes(self._take(4, deadline), "big")
        if size == 0:
            raise RuntimeError("the OCR worker could not read the page")
        return self._take(size, deadline)

    def _take(self, n: int, deadline: float) -> bytes:
        assert self.process.stdout is not None
        # a bytearray: adding the pipe's 64 KB reads to bytes copied the whole answer each
        # time, 107 s for one 120 MB page (QA pass: a photo tagged 72 dpi)
        out = bytearray()
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0 or not self._ready.poll(left * 1000):
                raise OcrTimeout("the OCR worker gave no page in time")
            chunk = os.read(self.process.stdout.fileno(), n - len(out))
            if not chunk:
                raise RuntimeError("the OCR worker exited")
            out += chunk
        return bytes(out)

    def close(self, busy: bool = False) -> None:
        """Ask the worker to stop; a `busy` one (still reading a page) is killed at once."""
        if busy:
            self.process.kill()
            self.process.wait()
            return
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(b"\0\0\0\0")
            self.process.stdin.close()
            self.process.wait(timeout=5)
        except Exception:  # noqa: BLE001 - a worker that will not stop is stopped
            self.process.kill()
            self.process.wait()


def recognise_elsewhere(png: bytes, languages: str, tessdata: str) -> tuple[int, bytes]:
    """(the worker's process id, the one-page PDF OCR made of a page image), in a worker
    started for this page alone."""
    worker = OcrWorker(languages, tessdata)
    try:
        return worker.process.pid, worker.read(png)
    finally:
        worker.close()


def skew_angle(gray: np.ndarray, dpi: int = 300) -> float:
    """Degrees to turn a scan (counter-clockwise) for its lines to run level, 0.0 when it is
    level already. A sheet fed a little askew (0.5-1.5 degrees, QA pass) broke OCR's tables
    and sentences: cells ran into each other and a heading swallowed its paragraph, and a
    confident wrong answer followed. The angle whose horizontal ink profile is sharpest
    (rows of text and the gaps between them) wins, tried every MAX_SKEW/15 degrees on a copy
    at about SKEW_DPI (40 ms a page); turns under MIN_SKEW are left alone."""
    step = max(dpi // SKEW_DPI, 1)
    small = Image.fromarray(((gray[::step, ::step] < INK) * 255).astype(np.uint8))
    best, best_score = 0.0, -1.0
    for angle in np.linspace(-MAX_SKEW, MAX_SKEW, 31):
        profile = np.asarray(small.rotate(float(angle), resample=Image.NEAREST, fillcolor=0), dtype=np.float32).sum(axis=1)
        score = float(np.square(np.diff(profile)).sum())
        if score > best_score:
            best, best_score = float(angle), score
    return round(best, 2) if abs(best) >= MIN_SKEW else 0.0


def turns_to_try(gray: np.ndarray, dpi: int = SKEW_DPI) -> tuple[int, ...]:
    """The quarter turns (degrees clockwise) to read a scanned page in, most likely first: a
    sheet fed upside down, a landscape page scanned upright, a phone photo taken sideways.
    Lines of text across the page make the ink summed along its rows rise and fall sharply
    (line, gap, line) and along its columns change smoothly; on a sideways page it is the
    other way round. On the demo corpus's 31 pages the columns' profile was at most 0.19
    times as sharp as the rows' upright and at least 5.4 times turned a quarter, so a factor
    of SIDEWAYS_RATIO either way decides the axis; in between all four turns are tried.
    Which way along the axis is left to OCR: read the wrong way, a page is noise."""
    step = max(dpi // SKEW_DPI, 1)
    ink = (gray[::step, ::step] < INK).astype(np.float32)

    def sharpness(profile: np.ndarray) -> float:
        return float(np.square(np.diff(profile)).sum())

    across, down = sharpness(ink.sum(axis=1)), sharpness(ink.sum(axis=0))
    if down > SIDEWAYS_RATIO * across:
        return (90, 270)
    if across > SIDEWAYS_RATIO * down or not ink.any():
        return (0, 180)
    return (0, 180, 90, 270)


def page_reader(settings: Settings) -> PageReader | None:
    """The reader the settings ask for, or None when OCR is off or no language data is installed."""
    if not settings.ocr:
        return None
    folder = tessdata_folder(settings.tessdata)
    if folder is None:
        return None
    codes = [lang.ocr_code for lang in LANGUAGES.values()
             if lang.ocr_code and (folder / f"{lang.ocr_code}.traineddata").is_file()]
    if not codes:
        return None
    return PageReader(tessdata=str(folder), languages="+".join(codes), dpi=settings.ocr_dpi,
                      max_pages=settings.ocr_max_pages)


def why_no_reader(settings: Settings) -> str:
    """Why `page_reader` gives None, said so an admin can act on it."""
    return OCR_OFF if not settings.ocr else NO_OCR_DATA


def tessdata_folder(explicit: str | None) -> Path | None:
    """The first folder holding `*.traineddata`: the configured one, else the standard places."""
    candidates = [explicit] if explicit else sorted(
        (d for pattern in _STANDARD_DIRS for d in glob.glob(pattern)), reverse=True)  # the newest version first
    for candidate in candidates:
        folder = Path(candidate)
        if folder.is_dir() and any(name.endswith(".traineddata") for name in os.listdir(folder)):
            return folder
    return None


def needs_ocr(page: Any) -> bool:
    """No text to extract and images covering enough of the page to hold some; or a page
    that is nearly all image under a line of text stamped on it (a Bates number, "Page 3 of
    40", CONFIDENTIAL: what legal and records systems print over a scan); or a page without
    text whose letters are drawn as shapes (`drawn_text`)."""
    text = len(page.get_text("text").strip())
    if text > MAX_STAMP_CHARS:
        return False
    area = abs(page.rect) or 1.0
    covered = 0.0
    for info in page.get_image_info():
        box = page.rect & info["bbox"]  # the part of the image on the page
        covered += abs(box) if not box.is_empty else 0.0
    return covered >= (MIN_STAMPED_IMAGE_SHARE if text else MIN_IMAGE_SHARE) * area or (not text and drawn_text(page))


def drawn_text(page: Any) -> bool:
    """Letters drawn as filled outlines, no text layer: what design tools export ("convert
    text to outlines") and some printers' PDFs. Read as nothing before, the whole file was
    refused with "run OCR on it first"; such a page holds many small filled shapes, where a
    blank form's frame or a chart's bars are few or large."""
    tall = page.rect.height / GLYPH_HEIGHT_SHARE
    glyphs = 0
    for path in page.get_cdrawings():
        rect = path["rect"]
        if "f" in path["type"] and rect[3] - rect[1] <= tall and rect[2] - rect[0] <= 2 * tall:
            glyphs += 1
            if glyphs >= MIN_DRAWN_GLYPHS:
                return True
    return False


def latin_codes(text: str) -> str:
    """Codes OCR spelled with another script's look-alike capitals, in Latin again: a word
    holding a digit whose other letters are all Latin capitals or registered look-alikes
    (`Language.ocr_lookalikes`): "АЗ7" -> "A37", "Х10" -> "X10"; words are left alone."""
    lookalikes = {k: v for lang in LANGUAGES.values() for k, v in lang.ocr_lookalikes.items()}
    if not lookalikes or not any(ch in lookalikes for ch in text):
        return text
    out = []
    for word in text.split(" "):
        core = word.strip(".,;:()[]«»\"'")
        if (any(ch.isdigit() for ch in core) and any(ch in lookalikes for ch in core)
                and all(ch.isdigit() or ch in lookalikes or ("A" <= ch <= "Z") or ch in "-–—/." for ch in core)):
            word = "".join(lookalikes.get(ch, ch) for ch in word)
        out.append(word)
    return " ".join(out)


def legible(text: str) -> bool:
    """Whether OCR read words, not noise: an upside-down or sideways page, white type on
    black, or a photo with no text reads as strings like "*spua dij ay} aye sAep" (QA pass:
    indexed as passages and offered as closest passages). Words of at least three letters
    are looked up in the general-text stems of the registered languages (core/lang/
    frequency.py): a page of text has 65-100% of them (a technical guide with code names
    the least), OCR noise 10-20%. A page of fewer such words is not judged."""
    from core.lang.frequency import stem_frequencies
    from core.lexical import tokenize

    known = stem_frequencies()
    stems = [s for word in text.split() if sum(c.isalpha() for c in word) >= 3 for s in tokenize(word)[:1]]
    if len(stems) < MIN_WORDS_TO_JUDGE or not known:
        return True
    return sum(s in known for s in stems) >= MIN_LEGIBLE_SHARE * len(stems)


def page_list(numbers: list[int]) -> str:
    """1-based page numbers as a reader writes them: "3", "1-4, 7"."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)
