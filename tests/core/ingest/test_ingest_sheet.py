"""CSV and TSV as tables: delimiter, encoding, header, title lines, chunking, and the one
sentence each bad file gets."""

from __future__ import annotations

import csv
import os

import pytest

from core.answer.signals import paragraph_of
from core.answer.units import units
from core.config import Settings
from core.ingest import IngestError, chunk_document, detect_format, parse_file
from core.ingest.sheet import MAX_CELL_CHARS, sniff_delimiter
from core.ingest.tokens import MAX_CHUNK_TOKENS

PRICES = "Plan,Monthly premium,Deductible\nBronze,80 EUR,1000 EUR\nSilver,100 EUR,500 EUR\nGold,120 EUR,250 EUR\n"


def _rows(path) -> list[str]:
    """The answer step's row units of every chunk, in order."""
    parsed = parse_file(path)
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=path.name)
    return [u.text for c in chunks for u in units(c.text, c.section.split(" > ")[-1]) if u.kind == "row"]


def test_a_price_list_becomes_one_table_read_row_by_row(write_file):
    path = write_file("plans.csv", PRICES)
    assert detect_format(path) == "csv"
    parsed = parse_file(path)
    assert [b.kind for b in parsed.blocks] == ["table"]
    assert parsed.blocks[0].rows[0] == ["Plan", "Monthly premium", "Deductible"]
    assert parsed.title == "plans" and not parsed.warnings
    assert _rows(path) == [
        "Plan: Bronze; Monthly premium: 80 EUR; Deductible: 1000 EUR",
        "Plan: Silver; Monthly premium: 100 EUR; Deductible: 500 EUR",
        "Plan: Gold; Monthly premium: 120 EUR; Deductible: 250 EUR",
    ]


@pytest.mark.parametrize(("name", "data", "row"), [
    ("semicolons.csv", "Тариф;Цена, руб.\nЗолото;120,50\nСеребро;99,90\n".encode("cp1251"),
     "Тариф: Золото; Цена, руб.: 120,50"),
    ("tabs.tsv", b"Plan\tPrice, monthly\nGold\t1,200\nSilver\t900\n", "Plan: Gold; Price, monthly: 1,200"),
    ("pipes.csv", b"Code|Meaning\nA1|Open\nB2|Closed\n", "Code: A1; Meaning: Open"),
    ("bom.csv", "\ufeffName,Rate\nExpress,12.50\n".encode(), "Name: Express; Rate: 12.50"),
    ("utf16.csv", "name,rate\r\nExpress,12.50\r\nЭконом,4.90\r\n".encode("utf-16-le"), "name: Эконом; rate: 4.90"),
    ("quoted.csv", b'Term,Definition\n"Notice, written","Sent by post\nor e-mail"\nFee,10\n',
     "Term: Notice, written; Definition: Sent by post or e-mail"),
])
def test_delimiter_and_encoding_are_found(write_file, name, data, row):
    path = write_file(name, data)
    assert detect_format(path) == "csv"
    assert row in _rows(path)


def test_the_delimiter_falls_back_when_the_sniffer_gives_up(write_file, monkeypatch):
    def gives_up(self, sample, delimiters=None):
        raise csv.Error("Could not determine delimiter")

    monkeypatch.setattr(csv.Sniffer, "sniff", gives_up)
    assert sniff_delimiter("a;b;c\n1;2;3\n4;5;6\n") == ";"
    assert sniff_delimiter("a\tb\n1,5\t2\n") == "\t"
    assert sniff_delimiter("one column\nno delimiter at all\n") == ","
    assert "Code: A1; Meaning: Open" in _rows(write_file("codes.csv", b"Code;Meaning\nA1;Open\nB2;Closed\n"))


def test_title_lines_above_and_notes_under_the_table(write_file):
    path = write_file("prices.csv", "Price list 2024,,\nValid from 1 March,,\n,,\nPlan,Premium,Cover\n"
                                    "Gold,120,Full\nSilver,100,Partial\nAll prices include tax in every country.,,\n")
    parsed = parse_file(path)
    assert [(b.kind, b.text) for b in parsed.blocks if b.kind != "table"] == [
        ("heading", "Price list 2024"), ("paragraph", "Valid from 1 March"),
        ("paragraph", "All prices include tax in every country.")]
    assert parsed.title == "Price list 2024"
    assert parsed.blocks[2].rows == [["Plan", "Premium", "Cover"], ["Gold", "120", "Full"], ["Silver", "100", "Partial"]]
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=path.name)
    assert all(c.section == "Price list 2024" for c in chunks)


def test_a_first_row_of_values_is_no_header(write_file):
    parsed = parse_file(write_file("readings.csv", "2024-03-01,12.5,7\n2024-03-02,13.0,8\n"))
    assert parsed.blocks[0].rows[0] == ["Column 1", "Column 2", "Column 3"]
    assert parsed.blocks[0].rows[1] == ["2024-03-01", "12.5", "7"]
    # a word among the values: the row names the columns (years, as finance sheets have them)
    assert _rows(write_file("budget.csv", "Line,2023,2024\nTravel,1200,1350\n")) == ["Line: Travel; 2023: 1200; 2024: 1350"]


def test_empty_columns_go_and_a_table_may_start_anywhere(write_file):
    parsed = parse_file(write_file("sparse.csv", ",,Plan,,Premium,\n,,Gold,,120,\n,,Silver,,100,\n"))
    assert parsed.blocks[0].rows == [["Plan", "Premium"], ["Gold", "120"], ["Silver", "100"]]


def test_a_large_sheet_is_chunked_by_rows_each_chunk_with_the_header(write_file):
    lines = ["Invoice,Customer,Amount,Due date"] + [f"INV-{i:05d},Customer {i},{i * 3}.50,2024-05-{i % 28 + 1:02d}"
                                                    for i in range(2000)]
    path = write_file("invoices.csv", "\n".join(lines) + "\n")
    settings = Settings()
    parsed = parse_file(path)
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=path.name, settings=settings)
    assert len(chunks) > 20
    assert all(c.kind == "table" and c.text.startswith("| Invoice | Customer | Amount | Due date |\n|---|")
               for c in chunks)
    assert all(c.tokens <= min(settings.chunk_tokens, MAX_CHUNK_TOKENS) for c in chunks)
    found = [u.text.split(";")[0] for c in chunks for u in units(c.text) if u.kind == "row"]
    assert found == [f"Invoice: INV-{i:05d}" for i in range(2000)]  # every row once, in order


def test_a_row_too_long_for_a_passage_is_read_as_a_paragraph(write_file):
    summary = "The court held that the clause was void for uncertainty. " * 60
    path = write_file("cases.csv", f"Case,Summary\nA-1,{summary}\nA-2,Settled.\n")
    parsed = parse_file(path)
    assert [b.kind for b in parsed.blocks] == ["paragraph", "table"]
    assert parsed.blocks[0].text.startswith("Case: A-1; Summary: The court held")
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=path.name)
    assert all(c.tokens <= MAX_CHUNK_TOKENS for c in chunks)
    assert "Case: A-2; Summary: Settled." in _rows(path)


def test_formulas_stay_text_and_are_never_run(write_file):
    path = write_file("links.csv", b'Plan,Link,Total\nGold,"=HYPERLINK(""http://evil.test"",""click"")",=1+1\n'
                                   b'Silver,@SUM(A1:A2),+cmd|calc\n')
    rows = parse_file(path).blocks[0].rows
    assert rows[1] == ["Gold", '=HYPERLINK("http://evil.test","click")', "=1+1"]
    assert rows[2] == ["Silver", "@SUM(A1:A2)", "+cmd|calc"]


def test_a_ragged_file_loses_nothing_and_says_which_lines(write_file):
    parsed = parse_file(write_file("ragged.csv", "Plan,Premium\nGold,120,extra,more\nSilver\nBronze,80,x\n"))
    assert parsed.blocks[0].rows == [["Plan", "Premium", "", ""], ["Gold", "120", "extra", "more"],
                                     ["Silver", "", "", ""], ["Bronze", "80", "x", ""]]
    assert parsed.warnings == ["Lines 2, 4 have more cells than the header row; the extra cells were kept without "
                               "a column name — name those columns and upload the file again for clearer answers."]


def test_a_stray_quote_inside_a_cell_is_read_leniently(write_file):
    rows = parse_file(write_file("sizes.csv", b'Item,Size\nScreen,"12" wide\nDesk,3\n')).blocks[0].rows
    assert rows[1][0] == "Screen" and "12" in rows[1][1] and rows[2] == ["Desk", "3"]


# each bad file: one sentence a person can act on
BAD = [
    ("empty.csv", b"", r"^The file is empty \(0 bytes\); check that you picked the right file"),
    ("blank.csv", b" \n\n\t\n", r"^The file contains no text; check that it is the document you meant"),
    ("commas.csv", b",,,\n, ,\n,\n", r"^The spreadsheet has no filled cells; check that it is the file you meant"),
    ("header.csv", b"Plan,Premium,Deductible\n", r"^The spreadsheet has a header row but no rows under it; add the rows"),
    ("binary.csv", os.urandom(4096) + b"\x00\x01",
     r"^The file is named '\.csv' but contains binary data; upload PDF, DOCX, RTF, PPTX, Markdown, HTML, text, CSV, TSV, XLSX or a PNG, JPEG or TIFF image\.$"),
    ("binary.tsv", bytes(range(256)) * 8, r"^The file is named '\.tsv' but contains binary data"),
    ("huge-cell.csv", b"Plan,Notes\nGold," + b"x" * (3 * 1024 * 1024) + b"\n",
     rf"^Line 2 holds a cell of more than {MAX_CELL_CHARS:,} characters .*; move long text into a document"),
    ("long-cell.csv", b"Plan,Notes\nGold,1\nSilver," + b"word " * 8000 + b"\n", r"^Line 3 holds a cell of more than"),
    ("nul.csv", b"Plan,Premium\nGold,120\nSilver,10\x000\n",
     r"^Line 3 holds a NUL character, which no spreadsheet cell holds; export the sheet again as CSV \(UTF-8\)"),
    ("open-quote.csv", b'Plan,Premium\nGold,"120\nSilver,100\nBronze,80\n',
     r"^A quote opened on line 2 is never closed, so the rest of the file would read as one cell"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_files_get_one_sentence(write_file, name, data, message):
    with pytest.raises(IngestError, match=message) as info:
        parse_file(write_file(name, data))
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text and len(text) < 300


def test_a_header_name_given_twice_is_numbered(write_file):
    assert _rows(write_file("contacts.csv", "Name,Phone,Phone\nAnn,555 0101,555 0102\n")) == [
        "Name: Ann; Phone: 555 0101; Phone (2): 555 0102"]


@pytest.mark.parametrize("chunk_tokens", [60, 220, 480])
def test_each_piece_of_a_long_row_starts_with_the_row_key(write_file, chunk_tokens):
    findings = " ".join(f"Finding {i} of the court was that clause {i} was void for uncertainty." for i in range(60))
    path = write_file("cases.csv", f"Case register,,\nCase,Summary,Outcome\nA-1,{findings},Appeal dismissed\n"
                                   "A-2,Settled.,Closed\n")
    parsed = parse_file(path)
    assert parsed.blocks[1].row_key == "Case: A-1"
    settings = Settings(chunk_tokens=chunk_tokens)
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source=path.name, settings=settings)
    pieces = [c for c in chunks if "Finding" in c.text or "Appeal dismissed" in c.text]
    assert len(pieces) >= 2
    for chunk in pieces:
        assert chunk.text.startswith("Case register\n\nCase: A-1; "), chunk.text[:80]
        assert chunk.tokens <= min(chunk_tokens, MAX_CHUNK_TOKENS)
        # the answer step reads a sentence with its line: every sentence of a later piece
        # is read with the row's key
        sentences = [u for u in units(chunk.text, "Case register") if u.kind == "sentence"]
        assert sentences[0].text.startswith("Case: A-1; ")
        assert all("Case: A-1" in paragraph_of(chunk.text, u) for u in sentences)
    assert all(any(f"Finding {i} of" in c.text for c in pieces) for i in range(60))  # nothing lost
    assert sum(c.text.count("Case: A-1; Summary: Finding 0 ") for c in chunks) == 1  # the row itself once
    assert "Case: A-2; Summary: Settled.; Outcome: Closed" in _rows(path)


def test_a_long_key_cell_is_shortened_before_it_is_repeated(write_file):
    key = "Whether a clause that names no period " * 8
    parsed = parse_file(write_file("questions.csv", f"Question,Answer\n{key},{'It is void. ' * 150}\n"))
    row_key = parsed.blocks[0].row_key
    assert row_key.startswith("Question: Whether a clause") and row_key.endswith("…") and len(row_key) <= 151
