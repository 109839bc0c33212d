"""XLSX: each sheet a section holding its table, cached values only, and bounded reading."""

from __future__ import annotations

import datetime as dt
import io
import time
from pathlib import Path

import docx
import openpyxl
import pytest
from ingest_helpers import rewritten

from core.answer.units import units
from core.ingest import IngestError, chunk_document, detect_format, parse_file
from core.ingest import xlsx as xlsx_parser
from core.ingest.xlsx import formatted_number


def _save(book: openpyxl.Workbook, path: Path) -> Path:
    book.save(path)
    return path


@pytest.fixture
def rates_xlsx(tmp_path: Path) -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Rates"
    ws.append(["Rate table 2024"])
    ws.append([])
    ws.append(["Service", "Rate", "Discount", "Valid from"])
    ws.append(["Express", 12.5, 0.05, dt.date(2024, 3, 1)])
    ws.append(["Economy", 4.9, 0.125, dt.datetime(2024, 4, 1, 9, 30)])
    ws["B4"].number_format = '"$"#,##0.00'
    ws["B5"].number_format = "#,##0.00 [$€-407]"
    ws["C4"].number_format = "0%"
    ws["C5"].number_format = "0.0%"
    staff = book.create_sheet("Staff")
    staff.append([None, None, "Name", "Role"])  # a table that starts in column C
    staff.append([None, None, "Ann", "Lead", "on call"])
    book.create_sheet("Empty")
    template = book.create_sheet("Template")
    template.append(["Name", "Role"])
    return _save(book, tmp_path / "rates.xlsx")


def test_each_sheet_is_a_section_holding_its_table(rates_xlsx):
    assert detect_format(rates_xlsx) == "xlsx"
    parsed = parse_file(rates_xlsx)
    assert [(b.kind, b.text, b.section_path) for b in parsed.blocks if b.kind != "table"] == [
        ("heading", "Rates", ["Rates"]),
        ("heading", "Rate table 2024", ["Rates", "Rate table 2024"]),
        ("heading", "Staff", ["Staff"]),
    ]
    tables = [b.rows for b in parsed.blocks if b.kind == "table"]
    assert tables == [
        [["Service", "Rate", "Discount", "Valid from"],
         ["Express", "$12.50", "5%", "2024-03-01"],
         ["Economy", "4.90 €", "12.5%", "2024-04-01 09:30"]],
        [["Name", "Role", ""], ["Ann", "Lead", "on call"]],
    ]
    assert parsed.title == "rates"
    assert parsed.warnings == [
        "Sheet 'Staff': Row 2 has more cells than the header row; the extra cells were kept without a column "
        "name — name those columns and upload the file again for clearer answers.",
        "Sheet 'Template': it has a header row but no rows under it, so it was not indexed.",
    ]
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=rates_xlsx.name)
    assert [c.section for c in chunks] == ["Rates > Rate table 2024", "Staff"]
    rows = [u.text for c in chunks for u in units(c.text, c.section.split(" > ")[-1]) if u.kind == "row"]
    assert rows[0] == "Service: Express; Rate: $12.50; Discount: 5%; Valid from: 2024-03-01"


def test_formulas_give_their_cached_value_and_are_never_evaluated(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Item", "Total", "Link", "Fresh"])
    ws.append(["Gold", "=1+1", '=HYPERLINK("http://evil.test","site")', "=2*3"])
    path = _save(book, tmp_path / "formulas.xlsx")
    # as Excel saves them: the last computed value beside each formula (3, deliberately not
    # 1+1, shows the formula was not run here); "=2*3" was never calculated, so has none
    rewritten(path, "xl/worksheets/sheet1.xml", lambda xml: xml
               .replace("<f>1+1</f><v></v>", "<f>1+1</f><v>3</v>")
               .replace('<c r="C2">', '<c r="C2" t="str">')
               .replace('</f><v></v></c><c r="D2">', '</f><v>site</v></c><c r="D2">'))
    parsed = parse_file(path)
    rows = next(b.rows for b in parsed.blocks if b.kind == "table")
    assert rows == [["Item", "Total", "Link", "Fresh"], ["Gold", "3", "site", ""]]
    # the one never calculated is said, not silently indexed empty (the QA pass: a price list's
    # whole "Gross price" column, written by a script, read as empty and nobody was told)
    assert [n for n in parsed.warnings if "formula" in n] == [
        "Sheet 'Sheet': 1 formula cell holds no saved value and read as empty (the program that wrote the "
        "file never calculated it); open the workbook in Excel or LibreOffice, save it, and upload it again."]


@pytest.mark.parametrize("piece", [3, 7, 1 << 20])
def test_unsaved_formulas_are_counted_in_the_xml_read_in_pieces(piece):
    xml = (b'<row><c r="A1"><f>B1*2</f><v></v></c><c r="B1"><f>C1</f><v>4</v></c><c r="C1"><f>1+1</f></c>'
           b'<c r="D1"><f t="shared" si="0"/><v/></c><c r="E1" t="s"><v>7</v></c></row>')
    assert xlsx_parser.unsaved_formulas(io.BytesIO(xml), read=piece) == 3


def test_a_workbook_of_values_has_no_formula_note(rates_xlsx):
    assert not [n for n in parse_file(rates_xlsx).warnings if "formula" in n]


def test_a_declared_million_rows_and_a_stray_far_cell_read_fast(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Plan", "Premium"])
    ws.append(["Gold", 120])
    ws["XFD1048576"] = "stray"  # the file now declares the dimension A1:XFD1048576
    path = _save(book, tmp_path / "far.xlsx")
    start = time.perf_counter()
    parsed = parse_file(path)
    assert time.perf_counter() - start < 10
    assert parsed.blocks[1].rows == [["Plan", "Premium", ""], ["Gold", "120", ""], ["", "", "stray"]]


def test_zip_bomb_and_cell_bomb_are_refused(rates_xlsx, monkeypatch):
    monkeypatch.setattr(xlsx_parser, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(IngestError, match=r"^The XLSX unpacks to 0 MB \(a zip bomb\?\); it was not processed\.$"):
        parse_file(rates_xlsx)
    monkeypatch.undo()
    monkeypatch.setattr(xlsx_parser, "MAX_CELLS", 10)
    with pytest.raises(IngestError, match=r"^The workbook holds more than 10 cells \(a zip bomb\?\); it was not "
                                          r"processed — split it into smaller workbooks if it is genuine\.$"):
        parse_file(rates_xlsx)


def test_xlsx_and_docx_are_told_apart_by_content(rates_xlsx, tmp_path):
    document = docx.Document()
    document.add_paragraph("A Word document.")
    word = tmp_path / "letter.docx"
    document.save(str(word))
    assert detect_format(word) == "docx"
    named_docx = tmp_path / "sheet.docx"
    named_docx.write_bytes(rates_xlsx.read_bytes())
    assert detect_format(named_docx) == "xlsx"
    assert parse_file(named_docx).warnings[0] == "The file is named '.docx' but holds XLSX; it was read as XLSX."
    named_csv = tmp_path / "rates.csv"  # a workbook saved under a CSV's name
    named_csv.write_bytes(rates_xlsx.read_bytes())
    assert parse_file(named_csv).warnings[0] == "The file is named '.csv' but holds XLSX; it was read as XLSX."
    named_xlsx = tmp_path / "letter.xlsx"
    named_xlsx.write_bytes(word.read_bytes())
    assert detect_format(named_xlsx) == "docx"
    other = tmp_path / "export.bin"  # openpyxl alone would refuse the name; the bytes decide
    other.write_bytes(rates_xlsx.read_bytes())
    assert parse_file(other).blocks[0].text == "Rates"


def test_an_overlong_cell_is_refused(tmp_path):
    book = openpyxl.Workbook()
    book.active.append(["Plan", "Notes"])
    book.active.append(["Gold", "placeholder"])
    path = rewritten(_save(book, tmp_path / "long.xlsx"), "xl/worksheets/sheet1.xml",
                      lambda xml: xml.replace("placeholder", "x" * 40_000))
    with pytest.raises(IngestError, match=r"^Cell B2 of sheet 'Sheet' holds more than 32,767 characters"):
        parse_file(path)


def _encrypted(path: Path) -> None:  # what Office writes for a password-protected workbook: an OLE2 file
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 1024)


BAD = [
    ("encrypted.xlsx", _encrypted, r"^This is a legacy Excel file \(\.xls\) or a password-protected workbook; "
                                   r"save it as an unprotected XLSX \(or CSV\) and upload it again\.$"),
    ("truncated.xlsx", lambda p: p.write_bytes(p.read_bytes()[:600]), r"^The file is not a valid Excel workbook"),
    ("noise.xlsx", lambda p: p.write_bytes(bytes(range(256)) * 16), r"^The file is not a valid Excel workbook"),
    ("no-workbook.xlsx", lambda p: rewritten(p, "xl/workbook.xml", lambda xml: "<broken"),
     r"^The file is not a valid Excel workbook \(XLSX\); it may be damaged, so open it in Excel"),
    ("empty.xlsx", lambda p: _save(openpyxl.Workbook(), p), r"^The spreadsheet has no filled cells"),
]


@pytest.mark.parametrize(("name", "spoil", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_workbooks_get_one_sentence(rates_xlsx, tmp_path, name, spoil, message):
    path = tmp_path / name
    path.write_bytes(rates_xlsx.read_bytes())
    spoil(path)
    with pytest.raises(IngestError, match=message) as info:
        parse_file(path)
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text


@pytest.mark.parametrize(("value", "fmt", "shown"), [
    (120, "General", "120"), (120.0, "General", "120"), (0.1 + 0.2, "General", "0.3"),
    (1234.5, "#,##0.00", "1234.50"), (0.075, "0.0%", "7.5%"), (9.99, '"$"#,##0.00', "$9.99"),
    (5, '#,##0 "EUR"', "5 EUR"), (12, "[$£-809]#,##0", "£12"), (-3, "0;(0)", "-3"),
])
def test_numbers_read_as_their_format_shows_them(value, fmt, shown):
    assert formatted_number(value, fmt) == shown


def test_hidden_sheets_are_skipped_and_named_in_a_warning(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Rates"
    ws.append(["Service", "Rate"])
    ws.append(["Express", "12.50"])
    old = book.create_sheet("Old rates")  # an old version, kept out of sight
    old.append(["Service", "Rate"])
    old.append(["Express", "9.99"])
    old.sheet_state = "hidden"
    lookup = book.create_sheet("Lookup")  # only a macro or the file's XML can unhide it
    lookup.append(["Code", "Meaning"])
    lookup.append(["X7", "internal"])
    lookup.sheet_state = "veryHidden"
    book.create_sheet("Spare").sheet_state = "hidden"  # hidden and empty: nothing to say
    parsed = parse_file(_save(book, tmp_path / "rates.xlsx"))
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == ["Rates"]
    assert "9.99" not in parsed.text and "X7" not in parsed.text
    assert parsed.warnings == ["Skipped 2 hidden sheets ('Old rates', 'Lookup'); unhide them in Excel to have "
                               "them indexed."]


def test_hidden_rows_and_columns_are_left_out_and_counted(tmp_path):
    """An old price kept in a hidden row, a cost in a hidden column: nobody reading the sheet
    in Excel sees them, and an answer quoting them would contradict what they see."""
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Prices"
    ws.append(["Plan", "Price", "Internal cost"])
    ws.append(["Basic", "10 EUR", "3 EUR"])
    ws.append(["Gold", "99 EUR", "40 EUR"])  # last year's, hidden
    ws.append(["Gold", "120 EUR", "50 EUR"])
    ws.append([])
    ws.row_dimensions[3].hidden = True
    ws.row_dimensions[5].hidden = True  # hidden but empty: nothing to say
    ws.column_dimensions["C"].hidden = True
    parsed = parse_file(_save(book, tmp_path / "prices.xlsx"))
    assert "| Plan | Price |" in parsed.text and "| Gold | 120 EUR |" in parsed.text
    assert "99 EUR" not in parsed.text and "Internal cost" not in parsed.text and "50 EUR" not in parsed.text
    assert parsed.warnings == ["Sheet 'Prices': 1 hidden row and 1 hidden column holding cells were left out; "
                               "unhide them in Excel to have them indexed."]


@pytest.mark.parametrize("piece", [5, 64, 1 << 20])
def test_hidden_lines_are_found_in_the_xml_read_in_pieces(piece):
    xml = (b'<x:worksheet xmlns:x="urn:s"><x:cols><x:col min="2" max="4" hidden="true"/>'
           b'<x:col min="6" max="6" width="9"/></x:cols><x:sheetData>'
           b'<x:row r="1"><x:c r="A1"><x:is><x:t>hidden="1"</x:t></x:is></x:c></x:row>'
           b'<x:row r="7" spans="1:3" hidden="1" x14ac:dyDescent="0.25"/><x:row r="8" hidden="0"/>'
           b'</x:sheetData></x:worksheet>')
    assert xlsx_parser.hidden_lines(io.BytesIO(xml), piece) == ({7}, {1, 2, 3})


def test_a_workbook_whose_filled_sheets_are_all_hidden_is_refused(tmp_path):
    book = openpyxl.Workbook()
    book.active.title = "Cover"  # visible, empty
    data = book.create_sheet("Data")
    data.append(["Plan", "Premium"])
    data.append(["Gold", 120])
    data.sheet_state = "hidden"
    with pytest.raises(IngestError, match=r"^The workbook has nothing to index outside its hidden sheets "
                                          r"\('Data'\); unhide the ones meant to be read in Excel and upload "
                                          r"it again\.$"):
        parse_file(_save(book, tmp_path / "hidden.xlsx"))


def test_a_merged_header_names_every_column_it_spans(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Price list 2024"])
    ws.append(["Plan", "Price", None, "Cover", None])
    ws.append(["Gold", "10 EUR", "100 EUR", "Full", None])
    ws.append(["Silver", "8 EUR", "80 EUR", "Partial", None])
    ws.merge_cells("A1:E1")  # a title centred over the table stays a title
    ws.merge_cells("B2:C2")  # "Price" over two columns of values
    ws.merge_cells("D2:E2")  # "Cover" widened over a column that holds nothing: no column is added
    ws.merge_cells("D3:E3")
    parsed = parse_file(_save(book, tmp_path / "prices.xlsx"))
    assert [(b.kind, b.text) for b in parsed.blocks if b.kind == "heading"] == [
        ("heading", "Sheet"), ("heading", "Price list 2024")]
    table = next(b.rows for b in parsed.blocks if b.kind == "table")
    assert table == [["Plan", "Price", "Price (2)", "Cover"],
                     ["Gold", "10 EUR", "100 EUR", "Full"],
                     ["Silver", "8 EUR", "80 EUR", "Partial"]]
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source="prices.xlsx")
    rows = [u.text for c in chunks for u in units(c.text) if u.kind == "row"]
    assert rows[0] == "Plan: Gold; Price: 10 EUR; Price (2): 100 EUR; Cover: Full"


def test_a_label_merged_down_the_rows_is_read_in_each_row(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Region", "Plan", "Price"])
    ws.append(["North", "Gold", 10])
    ws.append([None, "Silver", 8])
    ws.append(["Summary of the southern offices, " * 5, "Gold", 12])  # long text: stays in its own row
    ws.append([None, "Silver", 9])
    ws.append(["Islands", None, None])  # a label merged across the row: a row of its own, not repeated
    ws.append(["Ferry", "Gold", 15])
    ws.merge_cells("A2:A3")
    ws.merge_cells("A4:A5")
    ws.merge_cells("A6:C6")
    rows = next(b.rows for b in parse_file(_save(book, tmp_path / "regions.xlsx")).blocks if b.kind == "table")
    assert [r[:2] for r in rows[1:3]] == [["North", "Gold"], ["North", "Silver"]]
    assert rows[4][:2] == ["", "Silver"]
    assert rows[5] == ["Islands", "", ""]


def test_merged_ranges_are_read_from_the_xml_in_pieces():
    xml = (b'<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData>'
           b'<x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>mergeCells &lt;mergeCells</x:t></x:is></x:c>'
           b'</x:row></x:sheetData><x:mergeCells count="3"><x:mergeCell ref="B1:C1"/><x:mergeCell ref="A2:A9"/>'
           b'<x:mergeCell ref="junk"/></x:mergeCells><x:hyperlinks><x:hyperlink ref="D1"/></x:hyperlinks>'
           b'</x:worksheet>')
    for size in (7, 64, 1 << 20):  # the start tag cut at every place a piece can end
        assert xlsx_parser.merged_ranges(io.BytesIO(xml), read=size) == [(1, 1, 1, 2), (2, 0, 9, 0)]
    assert xlsx_parser.merged_ranges(io.BytesIO(xml.replace(b"x:", b"").replace(b"xmlns:x", b"xmlns"))) == [
        (1, 1, 1, 2), (2, 0, 9, 0)]
    assert xlsx_parser.merged_ranges(io.BytesIO(b"<worksheet><sheetData/></worksheet>")) == []
    assert xlsx_parser.merged_ranges(io.BytesIO(b'<worksheet><mergeCells><mergeCell ref="A1:B1"')) == []


def test_a_merge_over_the_whole_sheet_fills_only_what_is_there(tmp_path):
    book = openpyxl.Workbook()
    ws = book.active
    ws.append(["Plan", "Price"])
    ws.append(["Gold", 10])
    ws.append([None, 8])
    ws.merge_cells("A2:A3")
    path = rewritten(_save(book, tmp_path / "far.xlsx"), "xl/worksheets/sheet1.xml",
                      lambda xml: xml.replace('ref="A2:A3"/>', 'ref="A2:A1048576"/><mergeCell ref="A1:XFD1"/>'))
    start = time.perf_counter()
    rows = next(b.rows for b in parse_file(path).blocks if b.kind == "table")
    assert time.perf_counter() - start < 5
    assert rows == [["Plan", "Price"], ["Gold", "10"], ["Gold", "8"]]
