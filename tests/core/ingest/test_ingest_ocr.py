"""Scanned PDFs: pages without a text layer read by the OCR built into MuPDF, with
Tesseract's language data from Debian (scripts/test.sh installs it); pages that cannot be
read are named, and a scan with no OCR here is refused in one sentence that says what to do."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from core import scan_words
from core.config import Settings
from core.documents import delete_document, ingest_file
from core.ingest import IngestError, parse_file
from core.ingest.ocr import OCR_OFF, PageReader, page_list, page_reader, tessdata_folder
from core.pipeline import ask
from tests.conftest import ANSWERING_THRESHOLD

FONT = next((p for p in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",) if Path(p).exists()), None)
needs_ocr_data = pytest.mark.skipif(page_reader(Settings()) is None,
                                    reason="Tesseract language data is not installed (scripts/test.sh installs it)")


def _page_image(lines: list[tuple[str, float]]) -> pymupdf.Pixmap:
    """A page of text (line, font size) rendered to an image, as a scanner would give it."""
    doc = pymupdf.open()
    page = doc.new_page()
    font = "dv" if FONT else "helv"
    if FONT:
        page.insert_font(fontname="dv", fontfile=FONT)
    y = 90.0
    for text, size in lines:
        page.insert_text((72, y), text, fontsize=size, fontname=font)
        y += size * 2
    return page.get_pixmap(dpi=150)


def _scan(path: Path, pages: list[list[tuple[str, float]] | str]) -> Path:
    """A PDF whose pages are images of text; a str page is a digital page of that text."""
    doc = pymupdf.open()
    for content in pages:
        page = doc.new_page()
        if isinstance(content, str):
            page.insert_text((72, 90), content, fontsize=11, fontname="helv")
        else:
            page.insert_image(page.rect, pixmap=_page_image(content))
    doc.save(path)
    return path


def _copier_scan(path: Path, page: int = 3) -> Path:
    """A page of the demo handbook as an office copier scans it: grey, JPEG, 200 dpi."""
    original = pymupdf.open(Path(__file__).parents[3] / "data" / "demo" / "employee-handbook.pdf")
    scan = pymupdf.open()
    pix = original[page - 1].get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    rect = original[page - 1].rect
    scan.new_page(width=rect.width, height=rect.height).insert_image(rect, stream=pix.tobytes("jpeg", jpg_quality=80))
    scan.save(path)
    return path


POLICY = [("Travel expenses", 20), ("Employees may claim a daily allowance of 45 EUR for each full day away.", 11),
          ("Receipts must be submitted within 30 days after the trip ends.", 11)]


@needs_ocr_data
def test_a_scanned_page_is_read_like_a_digital_one(tmp_path):
    parsed = parse_file(_scan(tmp_path / "scan.pdf", [POLICY]), Settings())
    kinds = [(b.kind, b.text, b.page) for b in parsed.blocks]
    assert kinds[0] == ("heading", "Travel expenses", 1)  # its size made it a heading, as on a digital page
    assert ("paragraph", "Receipts must be submitted within 30 days after the trip ends.", 1) in kinds
    assert parsed.title == "Travel expenses"
    assert parsed.warnings == ["Page 1 is a scan and was read by OCR; recognised text can hold errors, "
                               "so check quotes from it against the page."]


@needs_ocr_data
def test_russian_scans_are_read_in_russian(tmp_path):
    if FONT is None:
        pytest.skip("no Cyrillic font to draw the scan with")
    text = "Сотрудник может взять до 5 дней отпуска без сохранения зарплаты."
    parsed = parse_file(_scan(tmp_path / "ru.pdf", [[(text, 11)]]), Settings())
    assert [b.text for b in parsed.blocks] == [text]


@needs_ocr_data
def test_only_pages_without_text_are_read_by_ocr(tmp_path):
    path = _scan(tmp_path / "mixed.pdf", ["Digital page: the office opens at 8:00.", POLICY, ""])
    parsed = parse_file(path, Settings())
    pages = {b.page for b in parsed.blocks}
    assert pages == {1, 2}  # the blank third page holds no image, so nothing is read there
    assert any(b.text == "Digital page: the office opens at 8:00." for b in parsed.blocks)
    assert parsed.warnings[0].startswith("Page 2 is a scan and was read by OCR")


@needs_ocr_data
def test_pages_past_the_limit_are_named_not_read(tmp_path):
    path = _scan(tmp_path / "long.pdf", [POLICY, [("Second page of the scan.", 11)], [("Third page.", 11)]])
    parsed = parse_file(path, replace(Settings(), ocr_max_pages=1))
    assert {b.page for b in parsed.blocks} == {1}
    assert "Pages 2-3 were not read: OCR reads at most 1 scanned pages of one file, so split it and upload " \
           "the rest." in parsed.warnings


def test_a_scan_without_ocr_is_refused_with_what_to_do(tmp_path):
    path = _scan(tmp_path / "scan.pdf", [POLICY, POLICY])
    with pytest.raises(IngestError) as err:
        parse_file(path, replace(Settings(), ocr=False))
    assert str(err.value) == (f"This PDF is scanned (it has no text layer) and {OCR_OFF}, "
                              "or run OCR on it first and upload the result.")
    with pytest.raises(IngestError) as err:
        parse_file(path, replace(Settings(), tessdata=str(tmp_path)))  # a folder without language data
    assert "install Tesseract's language data (Debian: apt install tesseract-ocr-eng" in str(err.value)


def test_a_partly_scanned_pdf_without_ocr_keeps_its_text_and_names_the_rest(tmp_path):
    path = _scan(tmp_path / "mixed.pdf", ["The office opens at 8:00.", POLICY, POLICY])
    parsed = parse_file(path, replace(Settings(), ocr=False))
    assert [b.text for b in parsed.blocks] == ["The office opens at 8:00."]
    assert parsed.warnings == [f"Pages 2-3 were scanned and not read: {OCR_OFF}; once it is, re-index the document "
                               "(the same file uploaded again is left as it is)."]


def test_the_language_data_is_found_only_where_it_is(tmp_path):
    assert tessdata_folder(str(tmp_path)) is None
    (tmp_path / "eng.traineddata").write_bytes(b"x")
    assert tessdata_folder(str(tmp_path)) == tmp_path
    reader = page_reader(replace(Settings(), tessdata=str(tmp_path)))
    assert reader is not None and reader.languages == "eng"  # Russian data is not in this folder
    assert page_reader(replace(Settings(), tessdata=str(tmp_path), ocr=False)) is None


def test_page_lists_read_as_a_person_writes_them():
    assert page_list([3]) == "3"
    assert page_list([7, 1, 2, 3, 4, 9, 10]) == "1-4, 7, 9-10"


@needs_ocr_data
def test_a_scanned_policy_answers_with_a_quote_from_the_scan(settings, tmp_path):
    answering = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    result = ingest_file(answering, "t", _scan(tmp_path / "travel-scan.pdf", [POLICY]))
    assert result.status == "ready", result.error
    assert result.warnings and "read by OCR" in result.warnings[0]
    answer = ask(answering, "t", "Within how many days must receipts be submitted after a trip?")
    assert answer.status == "answered", answer.answer
    cited = answer.citations[0]
    assert cited.source == "travel-scan.pdf" and cited.page == 1
    assert cited.quote == "Receipts must be submitted within 30 days after the trip ends."
    # boxed on the page image from the words OCR read there, as a digital page's quote is
    assert len(cited.rects) == 1 and 60 < cited.rects[0][0] < 90 and cited.rects[0][2] > 300

    assert delete_document(answering, "t", result.doc_id)
    assert scan_words.load(answering, "t", result.doc_id) == {}  # the words go with the document


@needs_ocr_data
def test_a_blank_scan_is_refused_as_one(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 80), False)
    pix.clear_with(235)  # a grey sheet: an image over the whole page, no letters on it
    page.insert_image(page.rect, pixmap=pix)
    doc.save(tmp_path / "blank.pdf")
    with pytest.raises(IngestError) as err:
        parse_file(tmp_path / "blank.pdf", Settings())
    assert str(err.value) == ("This PDF is scanned and OCR found no text in it (a blank or faint scan?); "
                              "scan it again at a higher resolution and upload it.")


@needs_ocr_data
def test_a_sentence_ocr_cuts_into_two_blocks_is_one_paragraph(tmp_path):
    page = [("Benefits", 18), ("Northwind adds 20% to every euro that an employee converts from salary, up to a", 10),
            ("limit of 4% of the salary, and pays it into the pension fund.", 10),
            ("• A training budget of 1,200 EUR per calendar year.", 10),
            ("• Bicycle leasing for up to 2 bicycles per employee.", 10)]
    parsed = parse_file(_scan(tmp_path / "benefits.pdf", [page]), Settings())
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "Benefits"),
        ("paragraph", "Northwind adds 20% to every euro that an employee converts from salary, up to a limit of 4% "
                      "of the salary, and pays it into the pension fund."),
        ("list_item", "A training budget of 1,200 EUR per calendar year."),
        ("list_item", "Bicycle leasing for up to 2 bicycles per employee."),
    ]


@needs_ocr_data
def test_a_value_cut_from_its_sentence_onto_the_next_line_joins_it(tmp_path):
    # QA pass: "...with an electrode gap of" / "0.8 mm. Replace them..." were two passages,
    # and the answer quoted the first without its value; a numbered item stays apart
    page = [("Spark plugs", 18), ("The engine uses four iridium spark plugs with an electrode gap of", 10),
            ("0.8 mm. Replace them every 60,000 km.", 10), ("8-2. Fuel tanks are filled with unleaded petrol.", 10)]
    blocks = [b.text for b in parse_file(_scan(tmp_path / "plugs.pdf", [page]), Settings()).blocks]
    assert "The engine uses four iridium spark plugs with an electrode gap of 0.8 mm. Replace them every 60,000 km." \
        in blocks, blocks
    assert "8-2. Fuel tanks are filled with unleaded petrol." in blocks


def test_a_block_goes_on_a_sentence_when_it_starts_lowercase_or_with_a_quantity():
    from core.ingest.pdf import _goes_on

    assert _goes_on("limit of 4% of the salary") and _goes_on("0.8 mm. Replace them") and _goes_on("30 days after")
    assert not _goes_on("8-2. Fuel") and not _goes_on("4.2 Special leave") and not _goes_on("Receipts are due")
    assert not _goes_on("2024 Annual report")


@needs_ocr_data
def test_a_photocopied_handbook_page_keeps_its_headings_and_list(tmp_path):
    """Page 3 of the demo handbook as an office copier scans it: grey, JPEG, 200 dpi. OCR reads
    its bullets as ". " or "¢ ", guesses font sizes 10-20% apart line by line, and its ruled
    table is read cell by cell from the rules in the image."""
    blocks = parse_file(_copier_scan(tmp_path / "copy.pdf"), Settings()).blocks
    # its ruled table, whose header and right column Tesseract dropped while the rules were on the image
    tables = [b.text for b in blocks if b.kind == "table"]
    assert len(tables) == 1
    assert tables[0].splitlines()[:3] == ["| Occasion | Paid days off |", "|---|---|",
                                          "| Own wedding or registered partnership | 2 days |"]
    assert "| Moving house (once per calendar year) | 1 day |" in tables[0].splitlines()
    # the six benefits, then the one-page scan's footer ("- HR-HB-001 Rev 6 - Page 3 of 4"): no
    # running text is told on one page
    items = [b.text for b in blocks if b.kind == "list_item"][:6]
    assert items[0] == "Salaries are paid on the last business day of each month."
    assert items[3] == "Bicycle leasing through salary conversion for up to 2 bicycles per employee."
    assert items[5] == "A public-transport job ticket, subsidised with €30 per month."
    # the digital page's headings: body text at a size OCR misjudged is no heading, bold ones at
    # body size are told by their ink, and the section numbers give the levels the sizes OCR
    # guessed (12.5 to 16.5 points for two levels) cannot
    assert [(b.level, b.text) for b in blocks if b.kind == "heading"] == [
        (3, "4.2 Special leave"), (3, "4.3 Sickness"), (3, "4.4 Parental leave"), (2, "5. Probation and notice"),
        (2, "6. Pay and benefits")]


@needs_ocr_data
def test_a_row_of_a_scanned_table_is_quoted_as_the_answer(settings, tmp_path):
    answering = replace(settings, gate_threshold=ANSWERING_THRESHOLD)
    assert ingest_file(answering, "t", _copier_scan(tmp_path / "leave-scan.pdf")).status == "ready"
    answer = ask(answering, "t", "How many paid days off do I get when I move house?")
    assert answer.status == "answered", answer.answer
    assert answer.citations[0].quote == "| Moving house (once per calendar year) | 1 day |"
    (x0, _, x1, _), = answer.citations[0].rects  # the row boxed whole, from its first cell to its last
    assert x0 < 100 and x1 > 400


def test_a_page_of_absurd_size_is_read_at_a_bounded_resolution():
    reader = PageReader(tessdata="", languages="eng")
    assert reader.dpi_for(595, 842) == 300  # A4 as asked
    dpi = reader.dpi_for(14400, 14400)  # 200 x 200 inches, the largest page PDF allows
    assert (200 * dpi) ** 2 <= 40_000_000 and dpi >= 30


@needs_ocr_data
def test_a_scan_with_a_number_stamped_on_it_is_still_read(tmp_path):
    """Legal and records systems print a Bates number or "Page 3 of 40" over each scanned
    page: that line of text must not pass the page off as digital."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_image(page.rect, pixmap=_page_image(POLICY))
    page.insert_text((400, 820), "ACME-000123", fontsize=9, fontname="helv")
    caption = doc.new_page()  # a digital page: a photo under a caption stays as it is
    caption.insert_image(caption.rect, pixmap=_page_image([("Team photo", 11)]))
    caption.insert_text((72, 820), "Our team at the 2024 summer meeting in the head office, with guests from "
                                   "the regional branches.", fontsize=9, fontname="helv")
    doc.save(tmp_path / "stamped.pdf")
    parsed = parse_file(tmp_path / "stamped.pdf", Settings())
    texts = [b.text for b in parsed.blocks]
    assert "Receipts must be submitted within 30 days after the trip ends." in texts
    assert parsed.warnings[0].startswith("Page 1 is a scan and was read by OCR")
    assert not any("Team photo" in t for t in texts)  # page 2 was not read by OCR


def test_a_document_is_read_in_the_languages_its_first_scan_shows():
    reader = PageReader(tessdata="", languages="eng+rus")
    english = "Tighten the oil drain plug to 30 N-m. " * 8 + "ЗВ"  # a glyph or two misread as Cyrillic
    assert reader.languages_of(english) == "eng"
    russian = "Код E10 появляется, если машина не начала набирать воду в течение 4 минут; см. Wi-Fi. " * 4
    assert reader.languages_of(russian) == "rus+eng"  # Russian keeps Latin, for its codes and names
    assert PageReader(tessdata="", languages="rus").languages_of(russian) == "rus"  # no English data here
    assert reader.languages_of("Page 1") == "eng+rus"  # too few letters to tell: all of them


@needs_ocr_data
def test_ocr_runs_in_a_worker_process_so_the_console_keeps_serving(tmp_path):
    """Tesseract holds the interpreter lock for the seconds a page takes: in the console's
    process it froze every other session during an upload (2.8 s pauses measured)."""
    import os

    from core.ingest.ocr import recognise_elsewhere

    reader = page_reader(Settings())
    png = _page_image(POLICY).tobytes("png")
    pid, pdf = recognise_elsewhere(png, "eng", reader.tessdata)
    assert pid != os.getpid()
    assert "Receipts must be submitted within 30 days" in pymupdf.open(stream=pdf)[0].get_text()


@needs_ocr_data
def test_the_ocr_worker_dies_with_the_process_that_started_it(tmp_path):
    """An ingest killed with SIGKILL left its worker reading a page of noise for minutes at
    full CPU, reparented to init (QA pass)."""
    import signal
    import subprocess
    import sys
    import time

    reader = page_reader(Settings())
    noise = tmp_path / "noise.png"  # OCR reads a page of noise for minutes
    rng = np.random.default_rng(0)
    pixels = rng.integers(0, 256, (3300, 2500), dtype=np.uint8)
    pymupdf.Pixmap(pymupdf.csGRAY, 2500, 3300, pixels.tobytes(), False).save(noise)
    parent = subprocess.Popen(
        [sys.executable, "-c", "import time; from pathlib import Path; from core.ingest.ocr import OcrWorker; "
         f"w = OcrWorker('eng', {reader.tessdata!r}); png = Path({str(noise)!r}).read_bytes(); "
         "w.process.stdin.write(len(png).to_bytes(4, 'big') + png); w.process.stdin.flush(); "
         "print(w.process.pid, flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[3])
    worker = int(parent.stdout.readline())
    time.sleep(1)  # the worker is reading the page
    assert _state(worker) in ("R", "S", "D")
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    try:
        for _ in range(100):  # the kernel signals it at once; allow a loaded machine 10 s
            if _state(worker) in ("gone", "Z"):
                break
            time.sleep(0.1)
        assert _state(worker) in ("gone", "Z")
    finally:
        if _state(worker) not in ("gone", "Z"):
            os.kill(worker, signal.SIGKILL)  # a failed run leaves no worker behind


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


@needs_ocr_data
def test_the_ocr_worker_answers_with_the_text_not_the_image():
    """The OCR page came back holding its image uncompressed (three bytes a pixel): 120 MB for a
    phone photo, read off the pipe in 64 KB pieces each copying all before it, 107 s a page."""
    from core.ingest.ocr import recognise_elsewhere

    reader = page_reader(Settings())
    image = _page_image(POLICY)
    _, pdf = recognise_elsewhere(image.tobytes("png"), "eng", reader.tessdata)
    page = pymupdf.open(stream=pdf)[0]
    assert "Receipts must be submitted within 30 days" in page.get_text()
    assert all(width * height <= 4 for _, _, width, height, *_ in page.get_images())  # MuPDF leaves a dot
    assert len(pdf) < image.width * image.height // 10


@needs_ocr_data
def test_ocr_still_reads_in_a_process_with_over_a_thousand_files_open(tmp_path):
    """select() refuses a descriptor numbered past 1,023: in CI the suite's process had that
    many open and every OCR test failed with "filedescriptor out of range"."""
    import resource

    from core.ingest.ocr import recognise_elsewhere

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip("this machine allows fewer than 1,200 open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = []
    try:
        while not held or held[-1] < 1100:
            held.append(os.open(os.devnull, os.O_RDONLY))
        reader = page_reader(Settings())
        _, pdf = recognise_elsewhere(_page_image(POLICY).tobytes("png"), "eng", reader.tessdata)
        assert "Receipts must be submitted within 30 days" in pymupdf.open(stream=pdf)[0].get_text()
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@needs_ocr_data
def test_a_scan_turned_by_rotate_is_read_as_shown_and_boxed_on_it(settings, tmp_path):
    """A page fed sideways and turned upright by /Rotate 90 (or 180, 270): its text ran
    vertically in the page's own coordinates and every such page was lost (QA pass)."""
    from core.highlight import quote_rects

    for turn in (90, 180, 270):
        doc = pymupdf.open()
        page = doc.new_page()
        page.insert_image(page.rect, pixmap=_page_image(POLICY), rotate=turn)  # drawn turned, shown upright
        page.set_rotation(turn)
        doc.save(tmp_path / f"turned{turn}.pdf")
        parsed = parse_file(tmp_path / f"turned{turn}.pdf", Settings())
        assert "Receipts must be submitted within 30 days after the trip ends." in [b.text for b in parsed.blocks], turn
        found, rects = quote_rects(tmp_path / f"turned{turn}.pdf", [1], "Receipts must be submitted within 30 days",
                                   scanned=lambda p=parsed: p.scanned_words)
        original = pymupdf.open(tmp_path / f"turned{turn}.pdf")[0]
        assert found == 1 and len(rects) == 1, turn
        # in the page's own (unturned) coordinates, where the console draws it
        assert pymupdf.Rect(rects[0]) in original.mediabox, (turn, rects)


@needs_ocr_data
def test_a_page_fed_upside_down_or_sideways_is_turned_read_and_boxed_where_it_stands(tmp_path):
    """A sheet fed the wrong way round, or a landscape page scanned upright, read as noise and
    was left out (QA pass); it is turned until OCR reads words, and the quote is boxed on
    the kept original, where the text stands on it."""
    from core.highlight import quote_rects

    quote = "Receipts must be submitted within 30 days"
    for turn in (180, 90):
        doc = pymupdf.open()
        right_way = doc.new_page()
        right_way.insert_image(right_way.rect, pixmap=_page_image(POLICY))
        fed = doc.new_page()
        fed.insert_image(fed.rect, pixmap=_page_image(POLICY), rotate=turn)  # no /Rotate: shown the wrong way
        path = tmp_path / f"fed{turn}.pdf"
        width, height = doc[0].rect.width, doc[0].rect.height
        doc.save(path)
        parsed = parse_file(path, Settings())
        on_page_2 = [b.text for b in parsed.blocks if b.page == 2]
        assert "Receipts must be submitted within 30 days after the trip ends." in on_page_2, turn
        assert "Page 2 was scanned upside down or sideways and was turned upright to be read." in parsed.warnings
        assert set(parsed.scanned_turns) == {2} and parsed.scanned_turns[2] in ((180,) if turn == 180 else (90, 270))
        assert not any("left out" in w for w in parsed.warnings)
        found, rects = quote_rects(path, [2], quote, scanned=lambda p=parsed: p.scanned_words,
                                   turned=lambda p=parsed: p.scanned_turns)
        assert found == 2 and len(rects) == 1, turn
        box = pymupdf.Rect(rects[0])
        # a quote over two lines is boxed on both (QA pass: only its first line was, the lines
        # of a turned page standing side by side or bottom up on the page as fed)
        two = "Travel expenses Employees may claim a daily allowance"
        found, both = quote_rects(path, [2], two, scanned=lambda p=parsed: p.scanned_words,
                                  turned=lambda p=parsed: p.scanned_turns)
        assert found == 2 and len(both) == 2, (turn, both)
        # the upright page has the line near its top left; on the page as fed it stands
        # near the bottom right (turned half round) or runs down a side (a quarter)
        upright = pymupdf.Rect(quote_rects(path, [1], quote, scanned=lambda p=parsed: p.scanned_words)[1][0])
        if turn == 180:
            assert abs(box.x1 - (width - upright.x0)) < 6 and abs(box.y1 - (height - upright.y0)) < 6, (box, upright)
        else:
            assert box.height > 5 * box.width, box


@needs_ocr_data
def test_a_page_with_no_text_either_way_up_is_left_out_and_named(tmp_path):
    """A mirror image reads as noise whichever way up it is turned: named, not indexed."""
    from PIL import Image, ImageOps

    image = _page_image(POLICY)
    mirrored = ImageOps.mirror(Image.frombytes("RGB", (image.width, image.height), image.samples))
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_image(first.rect, pixmap=image)
    second = doc.new_page()
    second.insert_image(second.rect, pixmap=pymupdf.Pixmap(pymupdf.csRGB, image.width, image.height,
                                                           mirrored.tobytes(), False))
    doc.save(tmp_path / "mirrored.pdf")
    parsed = parse_file(tmp_path / "mirrored.pdf", Settings())
    assert {b.page for b in parsed.blocks} == {1}
    assert (parsed.pages, parsed.pages_left_out) == (2, 1)  # "indexed 1 of 2 pages", not "2 pages"
    assert "Page 2 was left out: OCR read no legible text on it either way up (too faint, mirrored, or no text?); " \
           "rescan it and upload the file again." in parsed.warnings


def test_the_axis_of_the_lines_says_which_turns_to_read_a_page_in():
    from core.ingest.ocr import turns_to_try

    lines = [(f"Line {n}: {' '.join(POLICY[1 + n % 2][0].split()[n % 5:])} and {n * 7} more words here.", 11)
             for n in range(24)]  # lines of their own: copies of one line align their letters down the page
    image = _page_image(lines)
    gray = np.frombuffer(image.samples, dtype=np.uint8).reshape(image.height, image.width, 3)[:, :, 0]
    assert turns_to_try(gray, dpi=150) == (0, 180)
    assert turns_to_try(np.rot90(gray), dpi=150) == (90, 270)
    assert turns_to_try(np.rot90(gray, 2), dpi=150) == (0, 180)  # which way along the axis: OCR tells
    assert turns_to_try(np.full((400, 300), 255, dtype=np.uint8), dpi=150) == (0, 180)  # blank: as it stands


def test_legible_tells_words_from_ocr_noise():
    from core.ingest.ocr import legible

    assert legible("Receipts must be submitted within 30 days after the trip ends, and claims are paid monthly.")
    assert legible("Код E10 появляется, если машина не начала набирать воду в течение 4 минут после запуска.")
    assert not legible('*spua dij ay} aye sAep O€ UUM payiwans aq 35пщ sjdiaday "Аеме Aep ||п;} ч)еэ 40; YN')
    assert legible("ЕЗ1 $$ ®")  # too few words to judge: kept


def _tilted_copy(path: Path, degrees: float, page: int = 3) -> Path:
    """A page of the demo handbook as a sheet fed askew: grey, JPEG, turned `degrees`
    counter-clockwise about its centre."""
    import io

    from PIL import Image

    original = pymupdf.open(Path(__file__).parents[3] / "data" / "demo" / "employee-handbook.pdf")[page - 1]
    pix = original.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pix.width, pix.height), pix.samples).rotate(degrees, resample=Image.BICUBIC,
                                                                             fillcolor=255)
    jpeg = io.BytesIO()
    image.save(jpeg, "JPEG", quality=80)
    scan = pymupdf.open()
    scan.new_page(width=original.rect.width, height=original.rect.height).insert_image(original.rect,
                                                                                     stream=jpeg.getvalue())
    scan.save(path)
    return path


def test_the_skew_of_a_scan_is_found():
    from PIL import Image

    from core.ingest.ocr import skew_angle

    pix = pymupdf.open(Path(__file__).parents[3] / "data" / "demo" / "employee-handbook.pdf")[2].get_pixmap(
        dpi=150, colorspace=pymupdf.csGRAY)
    page = Image.frombytes("L", (pix.width, pix.height), pix.samples)
    assert skew_angle(np.asarray(page), 150) == 0.0
    for tilt in (1.5, -0.8, 2.6):
        found = skew_angle(np.asarray(page.rotate(tilt, resample=Image.BICUBIC, fillcolor=255)), 150)
        assert abs(found + tilt) <= 0.2, (tilt, found)  # turning it back by as much straightens it


@needs_ocr_data
def test_a_scan_fed_askew_is_read_straight_and_boxed_where_it_stands(tmp_path):
    """Tilted 0.5-1.5 degrees, the leave table ran its cells together and a heading swallowed
    its paragraph (QA pass); read straightened, it is the digital page's table."""
    digital = pymupdf.open(Path(__file__).parents[3] / "data" / "demo" / "employee-handbook.pdf")[2]
    for tilt in (1.5, -0.8):
        parsed = parse_file(_tilted_copy(tmp_path / f"askew{tilt}.pdf", tilt), Settings())
        tables = [b.text for b in parsed.blocks if b.kind == "table"]
        assert len(tables) == 1 and tables[0].splitlines()[0] == "| Occasion | Paid days off |", (tilt, tables)
        assert "| Moving house (once per calendar year) | 1 day |" in tables[0].splitlines()
        assert ("heading", "4.3 Sickness") in [(b.kind, b.text) for b in parsed.blocks]
        # the word "Moving" where the tilted sheet shows it: its place on the straight page, turned
        (x0, y0, x1, y1), = [w[:4] for w in digital.get_text("words") if w[4] == "Moving"]
        cx, cy = digital.rect.width / 2, digital.rect.height / 2
        t = np.radians(tilt)
        dx, dy = (x0 + x1) / 2 - cx, (y0 + y1) / 2 - cy
        shown = (cx + dx * np.cos(t) + dy * np.sin(t), cy - dx * np.sin(t) + dy * np.cos(t))
        (bx0, by0, bx1, by1), = [w[:4] for w in parsed.scanned_words[1] if w[4] == "Moving"]
        assert abs((bx0 + bx1) / 2 - shown[0]) < 4 and abs((by0 + by1) / 2 - shown[1]) < 4, (tilt, shown)


def test_codes_ocr_spelled_in_cyrillic_are_latin_again():
    """A Russian scan's "E31" came out "ЕЗ1" (Cyrillic Е and З), which no question matches."""
    from core.ingest.ocr import latin_codes

    assert latin_codes("Код ЕЗ1 означает перелив.") == "Код E31 означает перелив."
    assert latin_codes("коды Е10—Е60 (см. Е12).") == "коды E10—E60 (см. E12)."
    # words stay words: a capitalised Russian word, a preposition before a year, a mixed model name
    assert latin_codes("СЕРВИС В 2024 году, модель WM-820") == "СЕРВИС В 2024 году, модель WM-820"


def _noise_scan(path: Path, pages: int, text_first: str = "") -> Path:
    """A PDF of pages of noise (OCR reads one for minutes), after a digital page of text."""
    rng = np.random.default_rng(0)
    doc = pymupdf.open()
    if text_first:
        doc.new_page().insert_text((72, 90), text_first, fontsize=11, fontname="helv")
    for _ in range(pages):
        pixels = rng.integers(0, 256, (600, 450), dtype=np.uint8)
        page = doc.new_page()
        page.insert_image(page.rect, pixmap=pymupdf.Pixmap(pymupdf.csGRAY, 450, 600, pixels.tobytes(), False))
    doc.save(path)
    return path


@needs_ocr_data
def test_a_page_ocr_reads_nothing_of_in_time_is_left_out_and_the_file_given_up_after_three(tmp_path, monkeypatch):
    """A page of noise kept OCR busy past 8 minutes, four ways round, with no result (QA pass):
    a page's reads now share one budget, and after three such pages the rest is not tried."""
    from core.ingest import ocr

    monkeypatch.setattr(ocr, "PAGE_BUDGET_S", 1)
    path = _noise_scan(tmp_path / "noise.pdf", 4, text_first="Receipts must be submitted within 30 days.")
    parsed = parse_file(path)
    assert "Receipts must be submitted within 30 days." in parsed.text
    assert (parsed.pages, parsed.pages_left_out) == (5, 4)  # three too slow, one not tried
    assert parsed.warnings[:2] == [
        "Pages 2-4 were left out: OCR found no text on them in 1 seconds (a photo, a pattern or noise rather "
        "than text?).",
        "Page 5 was not read: OCR gave up on the file after 3 pages it could not read in time; upload the pages "
        "that hold text alone.",
    ]
    with pytest.raises(IngestError, match="found no text in it in 1 seconds a page"):
        parse_file(_noise_scan(tmp_path / "all-noise.pdf", 1))


@needs_ocr_data
def test_letters_drawn_as_shapes_are_read_by_ocr_and_said_so(tmp_path):
    """A PDF whose text was converted to outlines (design tools do) has no text layer and no
    image: it was refused as "no text layer (scanned?); run OCR on it first"."""
    source = pymupdf.open()
    page = source.new_page()
    for n, (text, size) in enumerate(POLICY):
        page.insert_text((72, 90 + 30 * n), text, fontsize=size)
    drawn = pymupdf.open("pdf", pymupdf.open("svg", page.get_svg_image(text_as_path=True).encode()).convert_to_pdf())
    drawn.save(tmp_path / "outlined.pdf")
    assert drawn[0].get_text().strip() == ""
    parsed = parse_file(tmp_path / "outlined.pdf")
    assert "Receipts must be submitted within 30 days" in parsed.text
    assert parsed.warnings == ["Page 1 has no text, only letters drawn as shapes, and was read by OCR; check quotes "
                               "from it against the page."]


def test_a_blank_form_or_a_chart_is_not_taken_for_drawn_text():
    from core.ingest.ocr import drawn_text

    doc = pymupdf.open()
    form = doc.new_page()
    for row in range(12):  # a blank form's boxes: stroked, not filled
        form.draw_rect(pymupdf.Rect(72, 100 + 40 * row, 520, 130 + 40 * row), color=(0, 0, 0))
    chart = doc.new_page()
    for bar in range(10):  # a chart's bars: filled, but tall
        chart.draw_rect(pymupdf.Rect(72 + 40 * bar, 200, 100 + 40 * bar, 700), color=None, fill=(0.2, 0.4, 0.8))
    assert not drawn_text(doc[0]) and not drawn_text(doc[1])
