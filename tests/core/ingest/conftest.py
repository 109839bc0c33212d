"""Small real documents for the ingest tests, built in tmp_path with the real libraries."""

from __future__ import annotations

from pathlib import Path

import docx
import pymupdf
import pytest
from ingest_helpers import TABLE_ROWS, draw_table


def _running_text(page: pymupdf.Page, number: int) -> None:
    page.insert_text((72, 40), "ACME Customer Handbook", fontsize=8, fontname="helv")
    page.insert_text((290, 810), f"Page {number}", fontsize=8, fontname="helv")


@pytest.fixture
def handbook_pdf(tmp_path: Path) -> Path:
    """3 pages: headings in bigger bold fonts, prose with a hyphenated line break,
    bullets, a bold numbered paragraph, a ruled table with decimals, running header and
    footer on every page."""
    doc = pymupdf.open()
    page = doc.new_page()
    _running_text(page, 1)
    page.insert_text((72, 90), "Customer Handbook", fontsize=20, fontname="hebo")
    page.insert_text((72, 130), "Refund policy", fontsize=15, fontname="hebo")
    lines = [
        "Monthly plans can be refunded within 14 days of purchase. Refunds are pro-",
        "cessed within 5 business days, e.g. by bank transfer.",
    ]
    for i, line in enumerate(lines):
        page.insert_text((72, 155 + i * 13), line, fontsize=10, fontname="helv")
    page.insert_text((72, 200), "• Annual plans are refunded pro rata.", fontsize=10)
    page.insert_text((72, 214), "• Gift cards are not refundable.", fontsize=10)
    page.insert_text((72, 250), "7-2 The customer may cancel at any time.", fontsize=10,
                     fontname="hebo")
    page = doc.new_page()
    _running_text(page, 2)
    page.insert_text((72, 90), "Plans and prices", fontsize=15, fontname="hebo")
    page.insert_text((72, 115), "The table lists every plan with its rating.", fontsize=10)
    draw_table(page, 130, TABLE_ROWS)
    page.insert_text((72, 240), "Prices include VAT.", fontsize=10)
    page = doc.new_page()
    _running_text(page, 3)
    page.insert_text((72, 90), "Contact", fontsize=15, fontname="hebo")
    page.insert_text((72, 115), "Write to support@acme.test for help.", fontsize=10)
    path = tmp_path / "handbook.pdf"
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def handbook_docx(tmp_path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Customer Handbook", 0)
    document.add_heading("Refund policy", 1)
    document.add_paragraph("Monthly plans can be refunded within 14 days of purchase.")
    document.add_paragraph("Annual plans are refunded pro rata.", style="List Bullet")
    document.add_paragraph("Gift cards are not refundable.", style="List Bullet")
    document.add_heading("Plans and prices", 2)
    table = document.add_table(rows=len(TABLE_ROWS), cols=3)
    for r, row in enumerate(TABLE_ROWS):
        for c, cell in enumerate(row):
            table.cell(r, c).text = cell
    document.add_paragraph("Prices include VAT.")
    document.add_heading("Contact", 1)
    document.add_paragraph("Write to support@acme.test for help.")
    path = tmp_path / "handbook.docx"
    document.save(str(path))
    return path
