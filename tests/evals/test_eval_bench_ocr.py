"""evals.bench ocr: how much of a digital page's text its scan keeps, and a copier scan has no text layer."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from evals.bench_ocr import copier_scan, words_kept


def test_words_kept_counts_the_originals_words_in_order():
    assert words_kept("Receipts within 30 days", "receipts within 30 days") == 1.0
    assert words_kept("Receipts within 30 days", "Receipts within 3O days") == 0.75  # one word misread
    assert words_kept("a b c d", "d c b a") == 0.25  # out of order counts once
    assert words_kept("", "anything") == 1.0


def test_a_copier_scan_is_images_only_at_the_same_page_size(tmp_path: Path):
    doc = pymupdf.open()
    doc.new_page(width=400, height=300).insert_text((40, 60), "A digital line of text.", fontsize=12)
    doc.save(tmp_path / "digital.pdf")
    scan = pymupdf.open(copier_scan(tmp_path / "digital.pdf", tmp_path / "scan.pdf", dpi=100))
    assert scan.page_count == 1 and scan[0].rect == pymupdf.Rect(0, 0, 400, 300)
    assert scan[0].get_text().strip() == "" and len(scan[0].get_images()) == 1


def test_a_page_fed_sideways_is_a_landscape_sheet_with_the_text_turned(tmp_path: Path):
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page(width=300, height=400).insert_text((40, 60), "A digital line of text.", fontsize=12)
    doc.save(tmp_path / "digital.pdf")
    scan = pymupdf.open(copier_scan(tmp_path / "digital.pdf", tmp_path / "scan.pdf", dpi=100, turned={2: 90}))
    assert scan[0].rect == pymupdf.Rect(0, 0, 300, 400) and scan[1].rect == pymupdf.Rect(0, 0, 400, 300)
    ink = scan[1].get_pixmap(dpi=50, colorspace=pymupdf.csGRAY)
    dark = [(i % ink.width, i // ink.width) for i, v in enumerate(ink.samples) if v < 128]
    xs, ys = [x for x, _ in dark], [y for _, y in dark]
    assert max(ys) - min(ys) > 3 * (max(xs) - min(xs))  # the line runs down the sheet
