from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from ingest_helpers import TABLE_ROWS, TWO_ROW_HEADER, assert_offsets, draw_table

from core.ingest import IngestError, parse_file
from core.ingest.pdf import looks_tabular


def test_pdf_blocks_sections_pages_and_offsets(handbook_pdf):
    parsed = parse_file(handbook_pdf)

    assert parsed.pages == 3
    assert parsed.title == "Customer Handbook"
    assert_offsets(parsed)
    headings = [(b.text, b.level) for b in parsed.blocks if b.kind == "heading"]
    assert headings == [("Customer Handbook", 1), ("Refund policy", 2),
                        ("Plans and prices", 2), ("Contact", 2)]
    by_text = {b.text: b for b in parsed.blocks}
    prose = by_text["Monthly plans can be refunded within 14 days of purchase. Refunds are "
                    "processed within 5 business days, e.g. by bank transfer."]
    assert prose.kind == "paragraph"
    assert prose.page == 1
    assert prose.section_path == ["Customer Handbook", "Refund policy"]
    assert prose.bbox is not None and prose.bbox[0] == pytest.approx(72, abs=1)
    items = [b.text for b in parsed.blocks if b.kind == "list_item"]
    assert items == ["Annual plans are refunded pro rata.", "Gift cards are not refundable."]
    numbered = by_text["7-2 The customer may cancel at any time."]
    assert numbered.kind == "paragraph"  # bold, but a numbered paragraph is not a heading
    assert by_text["Write to support@acme.test for help."].page == 3
    assert by_text["Write to support@acme.test for help."].section_path[-1] == "Contact"


def test_pdf_drops_running_headers_and_page_numbers(handbook_pdf):
    parsed = parse_file(handbook_pdf)
    assert "ACME Customer Handbook" not in parsed.text
    assert "Page 2" not in parsed.text


def test_pdf_table_is_whole_with_exact_decimals_and_not_duplicated(handbook_pdf):
    parsed = parse_file(handbook_pdf)
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert len(tables) == 1
    table = tables[0]
    assert table.rows == TABLE_ROWS
    assert table.page == 2
    assert table.text.splitlines()[:3] == [
        "| Plan | Price | Rating |", "|---|---|---|", "| Basic | 9.99 | 4.7 |"]
    # the cells are not repeated as loose text blocks
    assert parsed.text.count("19.50") == 1
    # reading order: intro, table, text below it
    order = [b.text for b in parsed.blocks if b.page == 2]
    assert order.index("The table lists every plan with its rating.") < order.index(table.text)
    assert order.index(table.text) < order.index("Prices include VAT.")


def test_table_probe_only_on_ruled_pages():
    doc = pymupdf.open()
    plain = doc.new_page()
    plain.insert_text((72, 72), "Just prose.", fontsize=10)
    plain.draw_line((72, 80), (500, 80))  # one decorative rule is not a table
    boxed = doc.new_page()  # a framed code box drawn as many short segments
    for y in range(100, 200, 10):
        boxed.draw_line((100, y), (100, y + 10))
        boxed.draw_line((500, y), (500, y + 10))
    boxed.draw_line((100, 100), (500, 100))
    boxed.draw_line((100, 200), (500, 200))
    ruled = doc.new_page()
    draw_table(ruled, 100, TABLE_ROWS)
    assert not looks_tabular(plain)
    assert not looks_tabular(boxed)
    assert looks_tabular(ruled)


def test_encrypted_pdf_is_rejected(tmp_path):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Secret refund terms.")
    path = tmp_path / "secret.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="pw", owner_pw="owner")
    with pytest.raises(IngestError, match="password-protected; remove the password"):
        parse_file(path)


def test_image_only_pdf_says_no_text_layer(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(128)
    page.insert_image(pymupdf.Rect(72, 72, 300, 300), pixmap=pix)
    path = tmp_path / "scan.pdf"
    doc.save(path)
    with pytest.raises(IngestError, match=r"^This PDF's pages hold no text and no scan of text to read \(they "
                       r"are blank, or hold only pictures or drawings\); there is nothing in it to index\.$"):
        parse_file(path)


def test_blank_pages_are_not_called_scanned(tmp_path):
    """2,000 blank pages were told "no text layer (scanned?); run OCR on it first", and OCR is
    built in (QA pass)."""
    doc = pymupdf.open()
    for _ in range(3):
        doc.new_page()
    doc.save(tmp_path / "blank.pdf")
    with pytest.raises(IngestError, match=r"they are blank"):
        parse_file(tmp_path / "blank.pdf")


def _three_page_pdf() -> bytes:
    doc = pymupdf.open()
    for n in range(3):
        doc.new_page().insert_textbox(pymupdf.Rect(72, 200, 520, 600),
                                      f"Section {n}. Monthly plans can be refunded within 14 days. " * 20)
    return doc.tobytes()


def test_truncated_pdf_says_damaged_not_scanned(tmp_path):
    data = _three_page_pdf()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: data.find(b"stream") + 16])  # cut inside the first page's text
    with pytest.raises(IngestError, match=r"^This PDF is damaged \(truncated or corrupt\)") as info:
        parse_file(path)
    assert "scanned" not in str(info.value) and str(info.value).endswith(".")


def test_truncated_pdf_with_some_text_warns_that_text_may_be_missing(tmp_path):
    data = _three_page_pdf()
    path = tmp_path / "cut.pdf"
    path.write_bytes(data[: data.find(b"endstream") + 19])  # the first page survives
    parsed = parse_file(path)
    assert "Section 0." in parsed.text and "Section 2." not in parsed.text
    assert any("damaged" in w for w in parsed.warnings)


def test_corrupt_pdf_bytes(tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n garbage \x00\x01\x02 not an object")
    with pytest.raises(IngestError, match="not a valid PDF"):
        parse_file(path)


def test_tables_found_only_on_tabular_pages_of_a_long_pdf(tmp_path):
    doc = pymupdf.open()
    for n in range(20):
        page = doc.new_page()
        page.insert_text((72, 72), f"Section {n}", fontsize=15, fontname="hebo")
        page.insert_textbox(pymupdf.Rect(72, 90, 520, 400), "Plain prose sentence. " * 60,
                            fontsize=10)
        if n % 5 == 0:
            draw_table(page, 450, TABLE_ROWS)
    path = tmp_path / "long.pdf"
    doc.save(path)
    parsed = parse_file(path)
    assert parsed.pages == 20
    assert sum(b.kind == "table" for b in parsed.blocks) == 4
    assert {b.page for b in parsed.blocks if b.kind == "table"} == {1, 6, 11, 16}


def test_chapter_running_heads_are_dropped_even_when_their_text_changes(tmp_path):
    doc = pymupdf.open()
    for n in range(6):
        page = doc.new_page()
        chapter = "Chapter 1: Setup" if n < 2 else ("Chapter 2: Usage" if n < 4 else "Chapter 3: FAQ")
        page.insert_text((72, 40), f"{chapter}    {n + 1}", fontsize=8)
        page.insert_text((72, 90), f"Body text of page {n + 1} stays.", fontsize=10)
    path = tmp_path / "book.pdf"
    doc.save(path)
    parsed = parse_file(path)
    assert "Chapter" not in parsed.text
    assert all(f"Body text of page {n + 1} stays." in parsed.text for n in range(6))


def test_a_large_heading_atop_every_page_is_kept_though_only_its_number_changes(tmp_path):
    doc = pymupdf.open()
    for n in range(1, 6):
        page = doc.new_page()
        page.insert_text((72, 50), f"Chapter {n}. Service procedure {n}", fontsize=16)
        page.insert_text((72, 100), f"Procedure {n} replaces part {n} of the pump.", fontsize=10)
        page.insert_text((72, 800), f"Page {n} of 5", fontsize=8)  # the running foot still goes
    path = tmp_path / "manual.pdf"
    doc.save(path)
    parsed = parse_file(path)
    headings = [b.text for b in parsed.blocks if b.kind == "heading"]
    assert headings == [f"Chapter {n}. Service procedure {n}" for n in range(1, 6)]
    body = next(b for b in parsed.blocks if b.text.startswith("Procedure 3"))
    assert body.section_path[-1] == "Chapter 3. Service procedure 3"
    assert "Page 3 of 5" not in parsed.text


def test_table_keeps_its_section_when_the_running_head_is_drawn_last(tmp_path):
    """PyMuPDF lists text in drawing order; a running head drawn after the body is "above"
    every table, and must not drag the tables behind the page's later headings."""
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page()
        page.insert_text((72, 80), f"{number}. Programmes" if number == 1 else "3. Care", fontsize=16,
                         fontname="hebo")
        page.insert_text((72, 110), "The table lists every plan with its rating.", fontsize=10)
        bottom = draw_table(page, 130, TABLE_ROWS)
        page.insert_text((72, bottom + 40), f"{number + 1}. Connection data", fontsize=16, fontname="hebo")
        page.insert_text((72, bottom + 70), "The hose is 1.5 m long.", fontsize=10)
        page.insert_text((72, 40), "Technical Specifications", fontsize=8)  # running head, drawn last
    path = tmp_path / "specs.pdf"
    doc.save(path)

    parsed = parse_file(path)
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert [t.section_path[-1] for t in tables] == ["1. Programmes", "3. Care"]
    order = [b.text for b in parsed.blocks if b.page == 1]
    assert order.index("The table lists every plan with its rating.") < order.index(tables[0].text) \
        < order.index("2. Connection data")


def _bold_numbered_headings_pdf(path, label_beside: bool = False):
    doc = pymupdf.open()
    page = doc.new_page()
    y = 72.0

    def put(text, font="helv", size=11.0, x=72.0, advance=True):
        nonlocal y
        page.insert_text((x, y), text, fontname=font, fontsize=size)
        if advance:
            y += size * 1.4

    put("Scooter care guide", "hebo", 16)
    for n, (head, lines) in enumerate([("Battery", ["Charge the battery to 80 percent before storing it.",
                                                     "A full charge takes four hours."]),
                                        ("Tyres", ["Check the tyre pressure every week."])], start=1):
        if label_beside:  # a bold label in a column beside its regular text, on one baseline
            put(f"{n}-1.", "hebo", 11, advance=False)
            put(" ".join(lines), x=110)
        else:
            put(f"{n}. {head}", "hebo", 11)  # bold at body size, glued to the text below
            for line in lines:
                put(line)
        y += 8
    doc.save(path)
    return path


def test_a_bold_numbered_heading_at_body_size_heads_its_section(tmp_path):
    parsed = parse_file(_bold_numbered_headings_pdf(tmp_path / "care.pdf"))
    headings = [b.text for b in parsed.blocks if b.kind == "heading"]
    assert headings == ["Scooter care guide", "1. Battery", "2. Tyres"]
    assert not [b for b in parsed.blocks if b.kind == "list_item"]
    text = next(b for b in parsed.blocks if b.text.startswith("Charge the battery"))
    assert text.kind == "paragraph" and text.section_path[-1] == "1. Battery"
    assert "A full charge takes four hours." in text.text


def test_a_bold_label_beside_its_text_stays_with_it(tmp_path):
    parsed = parse_file(_bold_numbered_headings_pdf(tmp_path / "labels.pdf", label_beside=True))
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == ["Scooter care guide"]
    assert any(b.text.startswith("1-1.") and "Charge the battery" in b.text for b in parsed.blocks)


def _filled_form(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    for y, label in ((100, "Policy number:"), (130, "Insured person:"), (160, "Smoker:"), (190, "Cover:")):
        page.insert_text((72, y), label, fontsize=11)
    page.insert_text((72, 230), "Date of birth", fontsize=11)  # a label over its box

    def add(kind: int, name: str, rect: tuple, value, on: str | None = None) -> None:
        widget = pymupdf.Widget()
        widget.field_type, widget.field_name, widget.rect = kind, name, pymupdf.Rect(rect)
        if on:
            widget.button_caption = on
        widget.field_value = value
        page.add_widget(widget)

    add(pymupdf.PDF_WIDGET_TYPE_TEXT, "policy", (170, 88, 400, 104), "POL-7731")
    add(pymupdf.PDF_WIDGET_TYPE_TEXT, "insured", (170, 118, 400, 134), "Anna Petrova")
    add(pymupdf.PDF_WIDGET_TYPE_CHECKBOX, "smoker", (170, 148, 184, 162), False)
    add(pymupdf.PDF_WIDGET_TYPE_COMBOBOX, "cover", (170, 178, 300, 194), "Family")
    add(pymupdf.PDF_WIDGET_TYPE_TEXT, "born", (72, 236, 200, 252), "1984-03-12")
    add(pymupdf.PDF_WIDGET_TYPE_TEXT, "note", (72, 400, 400, 416), "Referred by the Riga office")
    doc.save(path)
    return path


def test_a_filled_form_keeps_each_value_with_its_label(tmp_path):
    """MuPDF gives a field's value as a text block of its own after the page's text:
    "Policy number:" and "POL-7731" stood paragraphs apart, and a checkbox read as "3"."""
    text = parse_file(_filled_form(tmp_path / "claim.pdf")).text
    for line in ("Policy number: POL-7731", "Insured person: Anna Petrova", "Smoker: No", "Cover: Family",
                 "Date of birth 1984-03-12", "Referred by the Riga office"):
        assert line in text.split("\n\n"), (line, text)


def test_a_footnote_is_read_as_one_and_follows_the_sentence_that_refers_to_it(tmp_path):
    # the QA pass: "per kilometre 1." read the raised mark as a number of the sentence, and the
    # note at the page's foot ("1 Rate valid from ...") landed in the next section
    doc = pymupdf.open()
    page = doc.new_page()  # 595 x 842
    page.insert_text((50, 80), "3. Expenses", fontsize=14)
    sentence = "Staff using their own car get EUR 0.42 per kilometre"
    page.insert_text((50, 110), sentence, fontsize=10.5)
    width = pymupdf.get_text_length(sentence, fontname="helv", fontsize=10.5)
    page.insert_text((50 + width + 1, 105), "1", fontsize=6.5)  # raised and small
    page.insert_text((50 + width + 6, 110), ".", fontsize=10.5)
    page.insert_text((50, 200), "4. Tools and equipment", fontsize=14)
    page.insert_text((50, 230), "Every mechanic receives a personal tool kit on the first day.", fontsize=10.5)
    page.insert_text((50, 775), "1", fontsize=6.5)
    page.insert_text((56, 778), "Rate valid from 1 January 2024; short trips are not reimbursed.", fontsize=8)
    path = tmp_path / "handbook.pdf"
    doc.save(path)
    blocks = [(b.section_path[-1], b.text) for b in parse_file(path).blocks if b.kind != "heading"]
    assert blocks == [
        ("3. Expenses", "Staff using their own car get EUR 0.42 per kilometre ¹."),
        ("3. Expenses", "¹ Rate valid from 1 January 2024; short trips are not reimbursed."),
        ("4. Tools and equipment", "Every mechanic receives a personal tool kit on the first day."),
    ]


def _lines_pdf(path, lines: list[str], left: float, size: float):
    """A one-page PDF of these lines, 13 points apart, as a typesetter wraps them."""
    doc = pymupdf.open()
    page = doc.new_page()
    for i, line in enumerate(lines):
        page.insert_text((left, 100 + i * 13), line, fontsize=size, fontname="helv")
    doc.save(path)
    return path


def test_an_address_broken_at_its_own_hyphen_keeps_it(tmp_path):
    """The hyphen rule made "members@aquapark-" over "nordhafen.example" the address
    members@aquaparknordhafen.example (QA pass); a word broken at a line end is still joined."""
    lines = ["Season tickets are renewed by writing to members@aquapark-",
             "nordhafen.example before March; the form is at https://aquapark-",
             "nordhafen.example/renew and at www.aquapark-",
             "nordhafen.example, and renewals are pro-",
             "cessed within 5 days by the aquapark-",
             "nordhafen.example office."]
    text = parse_file(_lines_pdf(tmp_path / "renewals.pdf", lines, left=72, size=10)).text
    assert "members@aquapark-nordhafen.example before March" in text
    assert "https://aquapark-nordhafen.example/renew" in text and "www.aquapark-nordhafen.example," in text
    assert "the aquapark-nordhafen.example office" in text
    assert "renewals are processed within 5 days" in text


def test_a_number_written_twice_across_a_line_break_stays_in_its_sentence(tmp_path):
    """Legal drafting's "within fourteen" over "(14) days of the notice." was cut into two
    paragraphs, the second read as a list item, so the quote stopped at "fourteen"; and
    "sub-" over "processor" lost the hyphen the document writes everywhere else (QA pass).
    A real list after a colon stays a list, and a typesetter's hyphen is still dropped."""
    lines = ["4.1 The Firm shall give the Client at least thirty (30) days' written notice before a new sub-",
             "processor is appointed by the Firm for the services.",
             "4.2 The Client may object to a new sub-processor on reasonable data protection grounds within fourteen",
             "(14) days of the notice, and the objection is answered in writing by the Firm without any delay.",
             "4.3 The notice names the following:",
             "(1) the name of the new sub-processor;",
             "(2) the country where it processes the data.",
             "Fees are charged monthly and all invoices are pro-",
             "cessed within 5 days by the accounts team of the Firm in London."]
    blocks = [(b.kind, b.text) for b in parse_file(_lines_pdf(tmp_path / "dpa.pdf", lines, left=50, size=9)).blocks]
    texts = [t for _, t in blocks]
    assert ("4.2 The Client may object to a new sub-processor on reasonable data protection grounds within "
            "fourteen (14) days of the notice, and the objection is answered in writing by the Firm without any "
            "delay.") in " ".join(texts)
    assert not any(t.startswith("14") or t.startswith("(14)") for t in texts)
    assert "before a new sub-processor is appointed" in " ".join(texts)
    assert ("list_item", "the name of the new sub-processor;") in blocks or \
        any(k == "list_item" and "the name of the new sub-processor;" in t for k, t in blocks)
    assert "invoices are processed within 5 days" in " ".join(texts)


def test_numbered_clauses_set_with_no_space_between_stay_paragraphs_of_their_own(tmp_path):
    """Clauses typed one under another with no paragraph space ran into one paragraph, so
    "clause 5.3" started no line and could not be read out (QA pass). A clause starts a
    paragraph under a line that ended its sentence or stopped short; a decimal at the start
    of a wrapped line ("3.2 bar" under "... laden van, and") goes on its sentence."""
    lines = ["5. Removal of locks",
             "5.1 Each lock is removed only by the person who applied it.",
             "5.2 If a lock owner has left site and cannot be reached, the lock may be removed only by the",
             "Maintenance Manager, after the procedure in 5.3.",
             "5.3 Abandoned-lock procedure: make at least three phone attempts to contact the lock owner",
             "over 60 minutes, and record the removal on the form.",
             "Check the pressures once a week. The pressures are 3.6 bar front and 4.0 bar rear for a laden van, and",
             "3.2 bar front and 3.4 bar rear for an unladen van."]
    texts = [b.text for b in parse_file(_lines_pdf(tmp_path / "loto.pdf", lines, left=50, size=9)).blocks]
    assert "5.1 Each lock is removed only by the person who applied it." in texts
    assert any(t.startswith("5.3 Abandoned-lock procedure") for t in texts)
    assert any(t.startswith("5.2 If a lock owner") and t.endswith("after the procedure in 5.3.") for t in texts)
    assert any(t.endswith("for a laden van, and 3.2 bar front and 3.4 bar rear for an unladen van.") for t in texts)


def test_a_title_over_a_table_and_a_table_over_a_page_break_keep_their_header(tmp_path):
    """A QA pass's housekeeping PDF: "5. Periodic and deep cleaning" drawn just above its
    grid was read as the table's header ("| 5. Periodic and deep cleaning |  |"), the true
    header "Task | Frequency" as a data row, and the rows after a page break were named by
    their own first row ("Carpet shampoo | every 4 months")."""
    doc = pymupdf.open()
    first = doc.new_page()
    first.insert_text((72, 80), "4. Minibar", fontsize=14, fontname="hebo")
    first.insert_text((72, 100), "Minibars are checked daily.", fontsize=10)
    first.insert_text((72, 700), "5. Periodic cleaning", fontsize=10)
    draw_table(first, 704, [["Task", "Frequency", "Who"], ["Deep clean", "every 60 days", "team A"],
                            ["Mattress flip", "every 3 months", "team B"]])
    second = doc.new_page()
    draw_table(second, 100, [["Carpet shampoo", "every 4 months", "contractor"],
                            ["Curtains", "every 6 months", "laundry"], ["Windows", "every 2 months", "contractor"],
                            ["Vents", "every 90 days", "team A"]])
    second.insert_text((72, 240), "6. Colour coding", fontsize=14, fontname="hebo")
    second.insert_text((72, 260), "Red cloths are for toilets only.", fontsize=10)
    path = tmp_path / "housekeeping.pdf"
    doc.save(path)

    tables = [b for b in parse_file(path).blocks if b.kind == "table"]
    assert [t.rows[0] for t in tables] == [["Task", "Frequency", "Who"]] * 2
    assert [t.page for t in tables] == [1, 2]  # each part cited on its own page
    assert tables[0].rows[1] == ["Deep clean", "every 60 days", "team A"]
    assert tables[1].rows[1] == ["Carpet shampoo", "every 4 months", "contractor"]
    assert not any("Periodic" in cell for t in tables for row in t.rows for cell in row)


def test_two_tables_on_following_pages_each_with_a_header_stay_apart(tmp_path):
    doc = pymupdf.open()
    draw_table(doc.new_page(), 600, TABLE_ROWS)
    draw_table(doc.new_page(), 100, [["Region", "Office", "Staff"], ["North", "Leeds", "12"], ["South", "Bath", "9"],
                                     ["East", "Ely", "4"]])
    path = tmp_path / "two.pdf"
    doc.save(path)
    tables = [b for b in parse_file(path).blocks if b.kind == "table"]
    assert [t.rows[0] for t in tables] == [TABLE_ROWS[0], ["Region", "Office", "Staff"]]


def test_a_pdf_header_of_two_rows_with_spanned_cells_is_read_as_one(tmp_path):
    # a QA pass: PyMuPDF gave no box to "EU roaming data" (spanning both header rows) nor
    # to "Data" under its group: the columns read "Included allowances | | |" and the
    # allowances had no names in any answer
    doc = pymupdf.open()
    doc.new_page(width=842, height=595).insert_htmlbox(
        pymupdf.Rect(36, 36, 806, 330), TWO_ROW_HEADER,
        css="td, th {border: 1px solid black; padding: 3px;} table {border-collapse: collapse;}")
    path = tmp_path / "plans.pdf"
    doc.save(path)
    table = next(b for b in parse_file(path).blocks if b.kind == "table")
    assert table.rows[0] == ["Plan", "Monthly fee", "Included allowances / Data", "Included allowances / Minutes",
                             "Included allowances / SMS", "EU roaming data"]
    assert table.rows[2] == ["Max", "29.99", "120 GB", "Unlimited", "Unlimited", "30 GB"]
