"""core.highlight: the quote's rectangles on the right page and place, a table row whole."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from core.highlight import quote_rects

STEP = "Clean the drain filter and restart the programme."


def _two_codes(tmp_path: Path) -> Path:
    """The same step under two error codes, the second on the next page."""
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_text((72, 100), "E10 - water inlet problem.", fontsize=11)
    first.insert_text((72, 130), STEP, fontsize=11)
    second = doc.new_page()
    second.insert_text((72, 100), "E20 - drain problem.", fontsize=11)
    second.insert_text((72, 130), STEP, fontsize=11)
    path = tmp_path / "codes.pdf"
    doc.save(path)
    return path


def test_the_occurrence_after_the_passages_own_text_is_boxed(tmp_path: Path) -> None:
    path = _two_codes(tmp_path)
    page, rects = quote_rects(path, [1, 2], STEP, before="E20 - drain problem.\n")
    assert page == 2 and len(rects) == 1 and 125 < rects[0][3] < 140
    # without the passage's text the first page holding the words is all there is to go on
    assert quote_rects(path, [1, 2], STEP)[0] == 1


def test_a_table_row_is_boxed_across_all_its_cells(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    for x, text in ((72, "Zurich"), (200, "EUR 240"), (320, "breakfast included")):
        page.insert_text((x, 100), text, fontsize=11)
    page.insert_text((72, 130), "Berlin", fontsize=11)
    path = tmp_path / "rates.pdf"
    doc.save(path)
    found, rects = quote_rects(path, [1], "| Zurich | EUR 240 | breakfast included |")
    assert found == 1 and len(rects) == 1
    x0, y0, x1, y1 = rects[0]
    assert x0 < 80 and x1 > 400 and y1 < 120  # from the first cell to the last, one line


def test_of_two_rows_opening_alike_the_one_holding_the_other_cells_is_boxed(tmp_path: Path) -> None:
    # the QA pass: "Fuel surcharge" opens the Road row and the Air row; the Air row's quote
    # boxed the Road row's first cell
    doc = pymupdf.open()
    page = doc.new_page()
    for y, mode, value in ((100, "Road", "14%"), (130, "Air", "0.95 EUR")):
        for x, text in ((72, "Fuel surcharge"), (220, mode), (320, value)):
            page.insert_text((x, y), text, fontsize=11)
    path = tmp_path / "surcharges.pdf"
    doc.save(path)
    found, rects = quote_rects(path, [1], "| Fuel surcharge | Air | 0.95 EUR |")
    assert found == 1 and len(rects) == 1
    x0, y0, x1, y1 = rects[0]
    assert 115 < y0 < y1 < 140 and x1 > 360  # the second line, across all its cells


def test_a_quote_over_two_lines_gets_a_rectangle_per_line(tmp_path: Path) -> None:
    doc = pymupdf.open()
    text = "The warranty covers manufacturing defects for twenty-four months from the date of delivery to the customer."
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 300, 200), text, fontsize=11)
    path = tmp_path / "w.pdf"
    doc.save(path)
    found, rects = quote_rects(path, [1], "manufacturing defects for twenty-four months from the date of delivery")
    assert found == 1 and len(rects) >= 2 and rects[1][1] > rects[0][1]


def _blank_pdf(tmp_path: Path, pages: int = 1) -> Path:
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()  # no text: a scan, as far as searching goes
    doc.save(tmp_path / "scan.pdf")
    return tmp_path / "scan.pdf"


# OCR words of a scanned page: (x0, y0, x1, y1, word, block, line)
SCANNED = [(72, 100, 110, 112, "Receipts", 0, 0), (112, 100, 140, 112, "must", 0, 0), (142, 100, 160, 112, "be", 0, 0),
           (72, 114, 120, 126, "submitted", 0, 1), (122, 114, 160, 126, "within", 0, 1), (162, 114, 175, 126, "30", 0, 1),
           (177, 114, 200, 126, "days.", 0, 1),
           (72, 200, 110, 212, "Occasion", 1, 0), (300, 200, 360, 212, "Paid", 2, 0),
           (72, 220, 110, 232, "Moving", 3, 0), (112, 220, 140, 232, "house", 3, 0), (300, 220, 310, 232, "1", 4, 0),
           (312, 220, 330, 232, "day", 4, 0)]


def test_a_quote_on_a_scanned_page_is_boxed_from_its_ocr_words(tmp_path: Path) -> None:
    path = _blank_pdf(tmp_path, pages=2)

    def words() -> dict:
        return {2: SCANNED}

    found, rects = quote_rects(path, [1, 2], "Receipts must be  SUBMITTED within 30 days.", scanned=words)
    assert found == 2 and rects == [[72, 100, 160, 112], [72, 114, 200, 126]]  # a rectangle a line
    found, rects = quote_rects(path, [2], "| Moving house | 1 day |", scanned=words)
    assert found == 2 and rects == [[72.0, 220.0, 330.0, 232.0]]  # the row whole, across its cells
    assert quote_rects(path, [2], "Receipts are never refunded.", scanned=words) == (None, [])
    assert quote_rects(path, [2], "Receipts must be submitted")[1] == []  # no words kept: no box


def test_the_scanned_words_are_not_read_for_a_digital_page(tmp_path: Path) -> None:
    path = _two_codes(tmp_path)
    asked: list[int] = []
    quote_rects(path, [1, 2], STEP, scanned=lambda: asked.append(1) or {})
    assert asked == []


def test_a_quote_with_a_footnote_mark_is_boxed_where_its_words_stand(tmp_path: Path) -> None:
    # the parsers write a note's number "¹"; the page holds a small "1", so the quote itself
    # is never found: its words beside the mark are
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 110), "Staff using their own car get EUR 0.42 per kilometre", fontsize=10.5)
    page.insert_text((50, 775), "1", fontsize=6.5)
    page.insert_text((56, 778), "Rate valid from 1 January 2024.", fontsize=8)
    path = tmp_path / "notes.pdf"
    doc.save(path)
    page_no, rects = quote_rects(path, [1], "¹ Rate valid from 1 January 2024.")
    assert page_no == 1 and len(rects) == 1 and 765 < rects[0][3] < 785 and rects[0][2] > 150
    page_no, rects = quote_rects(path, [1], "Staff using their own car get EUR 0.42 per kilometre ¹.")
    assert page_no == 1 and len(rects) == 1 and 100 < rects[0][3] < 120


def test_a_quote_is_found_where_the_page_sets_ligatures(tmp_path: Path) -> None:
    # typeset text draws "fi" and "fl" as one glyph each; the parser stores the letters
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_htmlbox(pymupdf.Rect(72, 72, 500, 300), "<p>Intro line.</p><p>The maximum file size stays at 4 GB.</p>")
    assert "ﬁ" in page.get_text()
    path = tmp_path / "typeset.pdf"
    doc.save(path)
    found, rects = quote_rects(path, [1], "The maximum file size stays at 4 GB.")
    assert found == 1 and len(rects) == 1 and rects[0][1] > 80
