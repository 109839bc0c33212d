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


def test_a_quote_over_two_lines_gets_a_rectangle_per_line(tmp_path: Path) -> None:
    doc = pymupdf.open()
    text = "The warranty covers manufacturing defects for twenty-four months from the date of delivery to the customer."
    doc.new_page().insert_textbox(pymupdf.Rect(72, 72, 300, 200), text, fontsize=11)
    path = tmp_path / "w.pdf"
    doc.save(path)
    found, rects = quote_rects(path, [1], "manufacturing defects for twenty-four months from the date of delivery")
    assert found == 1 and len(rects) >= 2 and rects[1][1] > rects[0][1]
