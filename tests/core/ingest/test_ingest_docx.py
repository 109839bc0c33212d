from __future__ import annotations

import docx
import pytest
from ingest_helpers import TABLE_ROWS, assert_offsets

import core.ingest.docx as docx_parser
from core.ingest import IngestError, detect_format, parse_file


def test_docx_body_in_order_with_styles_and_table(handbook_docx):
    parsed = parse_file(handbook_docx)

    assert detect_format(handbook_docx) == "docx"
    assert parsed.pages is None
    assert parsed.title == "Customer Handbook"
    assert_offsets(parsed)
    kinds = [(b.kind, b.text if b.kind != "table" else "<table>") for b in parsed.blocks]
    assert kinds == [
        ("heading", "Customer Handbook"),
        ("heading", "Refund policy"),
        ("paragraph", "Monthly plans can be refunded within 14 days of purchase."),
        ("list_item", "Annual plans are refunded pro rata."),
        ("list_item", "Gift cards are not refundable."),
        ("heading", "Plans and prices"),
        ("table", "<table>"),
        ("paragraph", "Prices include VAT."),
        ("heading", "Contact"),
        ("paragraph", "Write to support@acme.test for help."),
    ]
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert table.rows == TABLE_ROWS
    assert table.section_path == ["Refund policy", "Plans and prices"]
    assert "| Basic | 9.99 | 4.7 |" in table.text
    contact = parsed.blocks[-1]
    assert contact.section_path == ["Contact"]
    assert all(b.page is None for b in parsed.blocks)


def test_docx_a_merged_header_names_each_column_it_spans(tmp_path):
    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).text = "Region"
    table.cell(0, 1).merge(table.cell(0, 2)).text = "Sales"
    for c, value in enumerate(["EU", "1.5", "2.5"]):
        table.cell(1, c).text = value
    path = tmp_path / "merged.docx"
    document.save(str(path))
    block = parse_file(path).blocks[0]
    assert block.rows == [["Region", "Sales", "Sales (2)"], ["EU", "1.5", "2.5"]]


def test_docx_a_cell_merged_over_two_columns_keeps_every_column_in_its_place(tmp_path):
    # a QA pass: "Dr Ivanova" merged over Riverside and Northgate was read as Riverside's
    # alone, and the next cell slid under Northgate
    document = docx.Document()
    table = document.add_table(rows=4, cols=4)
    for c, value in enumerate(["Shift", "Riverside", "Northgate", "Eastfield"]):
        table.cell(0, c).text = value
    table.cell(1, 0).text = "Weekday nights"
    table.cell(1, 1).merge(table.cell(1, 2)).text = "Dr Ivanova"
    table.cell(1, 3).text = "Dr Petrov"
    table.cell(2, 0).merge(table.cell(2, 3)).text = "Weekends"  # a label across the row: once
    for c, value in enumerate(["Saturday", "Dr Lee", "closed", "Dr Roy"]):
        table.cell(3, c).text = value
    path = tmp_path / "rota.docx"
    document.save(str(path))
    assert parse_file(path).blocks[0].rows == [
        ["Shift", "Riverside", "Northgate", "Eastfield"],
        ["Weekday nights", "Dr Ivanova", "Dr Ivanova", "Dr Petrov"],
        ["Weekends", "", "", ""],
        ["Saturday", "Dr Lee", "closed", "Dr Roy"]]


def test_corrupt_docx(tmp_path):
    path = tmp_path / "broken.docx"
    path.write_bytes(b"PK\x03\x04 this is not really a zip archive")
    with pytest.raises(IngestError, match=r"not a valid Word document \(DOCX\)"):
        parse_file(path)


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe" + b"\x13\x37\x00\x00\xab\xcd" * 300,  # a UTF-16 mark, then junk with NULs
        b"a" * 70_000 + b"\x00junk",  # binary only past the sniffed head
    ],
)
def test_garbage_named_docx_says_not_a_word_document(tmp_path, content):
    path = tmp_path / "report.docx"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=r"^The file is not a valid Word document \(DOCX\)") as info:
        parse_file(path)
    assert "NUL" not in str(info.value) and str(info.value).endswith(".")


def test_zip_bomb_is_refused(handbook_docx, monkeypatch):
    monkeypatch.setattr(docx_parser, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(IngestError, match="zip bomb"):
        parse_file(handbook_docx)


def test_zip_that_is_neither_docx_nor_xlsx(tmp_path):
    import zipfile

    path = tmp_path / "bundle.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "Not an Office document.")
    with pytest.raises(IngestError, match=r"Unsupported file type '\.zip'; upload PDF, DOCX"):
        parse_file(path)
    # named .docx, it is a damaged Word document, not an unknown type
    named = path.rename(tmp_path / "bundle.docx")
    with pytest.raises(IngestError, match=r"not a valid Word document"):
        parse_file(named)


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _with_paragraphs(path, *xml: str):
    from docx.oxml import parse_xml

    document = docx.Document()
    for at, paragraph in enumerate(xml):
        document.element.body.insert(at, parse_xml(paragraph))
    document.save(path)
    return path


def test_tracked_changes_read_accepted_and_named(tmp_path):
    """python-docx's paragraph.text reads plain and hyperlinked runs only: a tracked
    insertion was lost ("The refund window is  days.") and the answer with it."""
    path = _with_paragraphs(
        tmp_path / "draft.docx",
        f'<w:p {_W}><w:r><w:t xml:space="preserve">The refund window is </w:t></w:r>'
        '<w:del w:id="1" w:author="a"><w:r><w:delText>14</w:delText></w:r></w:del>'
        '<w:ins w:id="2" w:author="a"><w:r><w:t>30</w:t></w:r></w:ins>'
        '<w:r><w:t xml:space="preserve"> days.</w:t></w:r></w:p>',
        f'<w:p {_W}><w:moveFrom w:id="3" w:author="a"><w:r><w:t>Old place.</w:t></w:r></w:moveFrom></w:p>',
    )
    parsed = parse_file(path)
    assert "The refund window is 30 days." in parsed.text
    assert "14" not in parsed.text and "Old place" not in parsed.text
    assert any("3 tracked changes" in w and "accepted" in w for w in parsed.warnings)


def test_hidden_text_is_left_out_and_content_controls_read(tmp_path):
    path = _with_paragraphs(
        tmp_path / "form.docx",
        f'<w:p {_W}><w:r><w:t xml:space="preserve">Policy number: </w:t></w:r>'
        '<w:sdt><w:sdtPr><w:alias w:val="Number"/></w:sdtPr><w:sdtContent>'
        '<w:r><w:t>POL-7731</w:t></w:r></w:sdtContent></w:sdt>'
        '<w:r><w:rPr><w:vanish/></w:rPr><w:t xml:space="preserve"> Internal: waive all fees.</w:t></w:r>'
        '<w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t xml:space="preserve"> Valid in the EU.</w:t></w:r></w:p>',
    )
    parsed = parse_file(path)
    assert "Policy number: POL-7731 Valid in the EU." in parsed.text
    assert "waive" not in parsed.text
    assert parsed.warnings == ["1 passage formatted as hidden text was left out, as Word does not show it."]


def test_a_tracked_change_in_a_table_cell_is_read_accepted(tmp_path):
    from docx.oxml import parse_xml
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {(0, 0): "Plan", (0, 1): "Days", (1, 0): "Monthly"}.items():
        table.cell(row, col).text = text
    cell = table.cell(1, 1)._tc
    cell.remove(cell.find(qn("w:p")))
    cell.append(parse_xml(f'<w:p {_W}><w:del w:id="3" w:author="a"><w:r><w:delText>7</w:delText></w:r></w:del>'
                          '<w:ins w:id="4" w:author="a"><w:r><w:t>10</w:t></w:r></w:ins></w:p>'))
    document.save(tmp_path / "plans.docx")
    assert "| Monthly | 10 |" in parse_file(tmp_path / "plans.docx").text


def test_a_style_is_looked_up_once_not_per_paragraph(tmp_path, monkeypatch):
    """python-docx finds a paragraph's style by searching every style of the document: 1 ms a
    paragraph, so a 2 MB file of a million short paragraphs ran for minutes (QA pass)."""
    from docx.text.paragraph import Paragraph

    document = docx.Document()
    document.add_heading("Leave", level=1)
    for n in range(200):
        document.add_paragraph(f"Rule {n}.", style="List Bullet" if n % 2 else None)
    document.save(tmp_path / "long.docx")
    looked_up = []
    style = Paragraph.style
    monkeypatch.setattr(Paragraph, "style", property(lambda p: looked_up.append(1) or style.fget(p)))
    parsed = parse_file(tmp_path / "long.docx")
    assert [b.kind for b in parsed.blocks[:3]] == ["heading", "paragraph", "list_item"]
    assert len(parsed.blocks) == 201
    assert len(looked_up) <= 3  # Heading 1, the default style, List Bullet


_MC = ('xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
       'xmlns:v="urn:schemas-microsoft-com:vml" '
       'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"')


def _with_footnotes(path, notes: dict[int, str]):
    """Add a footnotes part holding `notes` (id -> text) to a saved DOCX, as Word writes it."""
    import zipfile

    body = "".join(f'<w:footnote w:id="{n}"><w:p><w:r><w:footnoteRef/></w:r><w:r><w:t xml:space="preserve"> {text}'
                   "</w:t></w:r></w:p></w:footnote>" for n, text in notes.items())
    part = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes {_W}>'
            '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
            f"{body}</w:footnotes>")
    with zipfile.ZipFile(path) as source:
        files = {name: source.read(name) for name in source.namelist()}
    files["word/footnotes.xml"] = part.encode()
    files["[Content_Types].xml"] = files["[Content_Types].xml"].replace(
        b"</Types>", b'<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-'
                     b'officedocument.wordprocessingml.footnotes+xml"/></Types>')
    files["word/_rels/document.xml.rels"] = files["word/_rels/document.xml.rels"].replace(
        b"</Relationships>", b'<Relationship Id="rIdNotes" Type="http://schemas.openxmlformats.org/officeDocument/'
                             b'2006/relationships/footnotes" Target="footnotes.xml"/></Relationships>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in files.items():
            target.writestr(name, data)
    return path


def test_footnotes_are_read_with_their_marks_after_the_paragraph_that_refers_to_them(tmp_path):
    """Footnotes hold a policy's qualifiers ("calendar days, weekends included") and were not
    read; then, gathered under a "Footnotes" heading at the end, a note lost its section's
    words and was refused where the same sentence in the text was answered (QA pass)."""
    path = _with_paragraphs(
        tmp_path / "policy.docx",
        f'<w:p {_W}><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Refunds</w:t></w:r></w:p>',
        f'<w:p {_W}><w:r><w:t>Refunds are paid within 30 days</w:t></w:r>'
        '<w:r><w:footnoteReference w:id="5"/></w:r><w:r><w:t xml:space="preserve"> of the request.</w:t></w:r></w:p>',
        f'<w:p {_W}><w:r><w:t>Annual plans renew each year</w:t></w:r><w:r><w:footnoteReference w:id="3"/></w:r>'
        '<w:r><w:t>.</w:t></w:r></w:p>',
    )
    parsed = parse_file(_with_footnotes(path, {3: "Unless cancelled in writing.", 5: "Calendar days, weekends included."}))
    assert [(b.kind, b.text) for b in parsed.blocks[:5]] == [
        ("heading", "Refunds"),
        ("paragraph", "Refunds are paid within 30 days ¹ of the request."),
        ("paragraph", "¹ Calendar days, weekends included."),
        ("paragraph", "Annual plans renew each year ²."),
        ("paragraph", "² Unless cancelled in writing."),
    ]
    assert all(b.section_path == ["Refunds"] for b in parsed.blocks[1:5])


def test_a_text_box_is_read_once_after_its_paragraph(tmp_path):
    """A sidebar in a text box was not read; Word writes it twice (DrawingML, then VML as
    mc:Fallback), and it must be read once."""
    box = "<w:txbxContent><w:p><w:r><w:t>Call 555-0100 for urgent claims.</w:t></w:r></w:p></w:txbxContent>"
    path = _with_paragraphs(
        tmp_path / "sidebar.docx",
        f'<w:p {_W} {_MC}><w:r><w:t>Claims are handled in order.</w:t></w:r><w:r><mc:AlternateContent>'
        f"<mc:Choice Requires=\"wps\"><w:drawing><wps:txbx>{box}</wps:txbx></w:drawing></mc:Choice>"
        f"<mc:Fallback><w:pict><v:shape><v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback>"
        "</mc:AlternateContent></w:r></w:p>",
        f'<w:p {_W}><w:r><w:t>Next paragraph.</w:t></w:r></w:p>',
    )
    texts = [b.text for b in parse_file(path).blocks]
    assert texts[:3] == ["Claims are handled in order.", "Call 555-0100 for urgent claims.", "Next paragraph."]


def test_a_text_box_in_a_table_cell_follows_its_table(tmp_path):
    from docx.oxml import parse_xml

    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {(0, 0): "Plan", (0, 1): "Days", (1, 0): "Monthly", (1, 1): "14"}.items():
        table.cell(row, col).text = text
    table.cell(1, 1).paragraphs[0]._p.append(parse_xml(
        f'<w:r {_W} {_MC}><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r><w:t>Extended to 30 days in 2025.'
        "</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape></w:pict></w:r>"))
    document.add_paragraph("After the table.")
    document.save(tmp_path / "plans.docx")
    texts = [b.text for b in parse_file(tmp_path / "plans.docx").blocks]
    assert texts[1:] == ["Extended to 30 days in 2025.", "After the table."], texts


_NESTED_LIST = (f'<w:abstractNum {_W} w:abstractNumId="90">'
                '<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>'
                '<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1.%2."/></w:lvl>'
                '<w:lvl w:ilvl="2"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%3)"/></w:lvl>'
                '</w:abstractNum>')


def _numbered(text: str, num: int, level: int) -> str:
    return (f'<w:p {_W}><w:pPr><w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{num}"/></w:numPr></w:pPr>'
            f'<w:r><w:t>{text}</w:t></w:r></w:p>')


def test_numbered_list_items_keep_the_numbers_word_shows(tmp_path):
    """Numbered paragraphs were stored without their numbers (QA pass): "What is step 4 of the
    safety procedure?" had no step 4 to find. Numbered as a Markdown ordered list's items are."""
    from docx.oxml import parse_xml

    document = docx.Document()
    document.add_heading("Safety procedure", 1)
    for step in ("Switch off the machine.", "Lock the panel.", "Wait five minutes.", "Check the gauge reads zero."):
        document.add_paragraph(step, style="List Number")
    document.add_paragraph("Wear gloves.", style="List Bullet")
    numbering = document.part.numbering_part.element
    numbering.insert(0, parse_xml(_NESTED_LIST))
    numbering.append(parse_xml(f'<w:num {_W} w:numId="91"><w:abstractNumId w:val="90"/></w:num>'))
    numbering.append(parse_xml(f'<w:num {_W} w:numId="92"><w:abstractNumId w:val="90"/>'
                               '<w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>'))
    body = document.element.body
    for text, num, level in [("Open the valve.", 91, 0), ("Slowly.", 91, 1), ("Fully.", 91, 1),
                             ("Listen.", 91, 2), ("Close the valve.", 91, 0), ("Check for leaks.", 91, 1),
                             ("A list restarted at 1.", 92, 0), ("Its second item.", 92, 0)]:
        body.insert(len(body) - 1, parse_xml(_numbered(text, num, level)))  # before the section properties
    document.save(tmp_path / "safety.docx")

    parsed = parse_file(tmp_path / "safety.docx")
    assert [b.text for b in parsed.blocks if b.kind == "list_item"] == [
        "1. Switch off the machine.", "2. Lock the panel.", "3. Wait five minutes.", "4. Check the gauge reads zero.",
        "Wear gloves.",  # a bullet stays a bullet
        "1. Open the valve.", "1.1. Slowly.", "1.2. Fully.", "a) Listen.", "2. Close the valve.", "2.1. Check for leaks.",
        "1. A list restarted at 1.", "2. Its second item."]
    assert_offsets(parsed)


def test_list_numbers_in_words_formats():
    from core.ingest.docx_numbering import formatted

    assert [formatted(n, "lowerLetter") for n in (1, 26, 27, 28)] == ["a", "z", "aa", "bb"]
    assert [formatted(n, "upperRoman") for n in (4, 9, 14, 1999)] == ["IV", "IX", "XIV", "MCMXCIX"]
    assert formatted(7, "decimalZero") == "07" and formatted(3, "ordinalText") == "3"
