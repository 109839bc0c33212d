"""Spreadsheets through the real ingest and ask: a row quoted as the answer, bad files
refused in one sentence with the tenant's stores left whole, folders picking them up."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import openpyxl
import pytest
from ingest_helpers import assert_bad_files_fail_cleanly

from core import doctor, store
from core.config import Settings
from core.documents import ingest_file, iter_files
from core.ingest import xlsx as xlsx_parser
from core.pipeline import ask
from tests.conftest import ANSWERING_THRESHOLD

PLANS = ("Plan,Monthly premium,Deductible,Visits covered\nBronze,80 EUR,1000 EUR,4\nSilver,100 EUR,500 EUR,8\n"
         "Gold,120 EUR,250 EUR,12\nPlatinum,150 EUR,0 EUR,unlimited\n")


def _rates(path: Path) -> Path:
    book = openpyxl.Workbook()
    ws = book.active
    ws.title = "Courier rates"
    ws.append(["Service", "Price per parcel", "Delivery time"])
    ws.append(["Express", 12.5, "1 business day"])
    ws.append(["Economy", 4.9, "5 business days"])
    ws["B2"].number_format = ws["B3"].number_format = '"$"#,##0.00'
    book.save(path)
    return path


def _hidden_only(path: Path) -> Path:
    """A workbook whose only filled sheet is hidden (a visible cover sheet left empty)."""
    book = openpyxl.Workbook()
    book.active.title = "Cover"
    data = book.create_sheet("Old rates")
    data.append(["Service", "Price per parcel"])
    data.append(["Express", 9.5])
    data.sheet_state = "hidden"
    book.save(path)
    return path


@pytest.fixture
def answering(settings: Settings) -> Settings:
    # whether the shipped threshold answers these is the eval sets' business (tests/conftest.py)
    return replace(settings, gate_threshold=ANSWERING_THRESHOLD)


def test_a_spreadsheet_row_is_quoted_as_the_answer(answering, tmp_path):
    plans = tmp_path / "plans.csv"
    plans.write_text(PLANS, encoding="utf-8")
    for path in (plans, _rates(tmp_path / "courier.xlsx")):
        result = ingest_file(answering, "t", path)
        assert result.status == "ready" and not result.warnings, result.error

    answer = ask(answering, "t", "What is the monthly premium of the Gold plan?")
    assert answer.status == "answered", answer.answer
    assert "Gold" in answer.answer and "120 EUR" in answer.answer
    cited = answer.citations[0]
    assert cited.source == "plans.csv" and cited.quote == "| Gold | 120 EUR | 250 EUR | 12 |"

    answer = ask(answering, "t", "What does an Express parcel cost?")
    assert answer.status == "answered", answer.answer
    assert "$12.50" in answer.answer and answer.citations[0].source == "courier.xlsx"
    assert answer.citations[0].section == "Courier rates"
    assert answer.citations[0].quote == "| Express | $12.50 | 1 business day |"

    assert ask(answering, "t", "What is the monthly premium of the Diamond plan?").status == "refused"


# (file, bytes or a maker, the sentence's opening)
BAD = [
    ("empty.csv", b"", "The file is empty (0 bytes)"),
    ("header-only.csv", b"Plan,Monthly premium\n", "The spreadsheet has a header row but no rows under it"),
    ("binary.csv", bytes(range(256)) * 16, "The file is named '.csv' but contains binary data"),
    ("huge-cell.csv", b"Plan,Notes\nGold," + b"x" * (2 * 1024 * 1024) + b"\n", "Line 2 holds a cell of more than 32,767"),
    ("nul.csv", b"Plan,Premium\nGold,12\x000\n", "Line 2 holds a NUL character"),
    ("encrypted.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2048,
     "This is a legacy Excel file (.xls) or a password-protected workbook"),
    ("corrupt.xlsx", b"PK\x03\x04" + b"\x00" * 300, "The file is not a valid Excel workbook (XLSX)"),
    ("bomb.xlsx", _rates, "The XLSX unpacks to"),
]


def test_bad_spreadsheets_fail_in_one_sentence_and_the_tenant_loses_nothing(answering, tmp_path, monkeypatch):
    plans = tmp_path / "plans.csv"
    plans.write_text(PLANS, encoding="utf-8")
    assert ingest_file(answering, "t", plans).status == "ready"
    monkeypatch.setattr(xlsx_parser, "MAX_UNPACKED_BYTES", 1000)  # a real workbook, over a lowered bound
    docs = assert_bad_files_fail_cleanly(answering, "t", tmp_path, BAD)
    assert [d["file_name"] for d in docs if d["status"] == "ready"] == ["plans.csv"]
    assert ask(answering, "t", "What is the monthly premium of the Gold plan?").status == "answered"


def test_a_ragged_sheet_and_formulas_are_indexed_with_a_warning(settings, tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text('Plan,Premium\nGold,120,"=HYPERLINK(""http://x.test"",""x"")"\nSilver,100\n', encoding="utf-8")
    result = ingest_file(settings, "t", path)
    assert result.status == "ready"
    assert result.warnings == ["Line 2 has more cells than the header row; the extra cells were kept without a "
                               "column name — name those columns and upload the file again for clearer answers."]
    text = " ".join(r["text"] for r in store.chunk_rows(settings, "t"))
    assert '=HYPERLINK("http://x.test","x")' in text  # kept as the text it is
    assert store.list_documents(settings, "t")[0]["format"] == "csv"
    assert doctor.check(settings, "t").consistent


def test_a_hidden_sheet_is_not_indexed_and_the_upload_says_so(settings, tmp_path):
    path = _rates(tmp_path / "courier.xlsx")
    book = openpyxl.load_workbook(path)
    old = book.create_sheet("Old rates")
    old.append(["Service", "Price per parcel"])
    old.append(["Express", "9.99 USD"])
    old.sheet_state = "hidden"
    book.save(path)
    result = ingest_file(settings, "t", path)
    assert result.status == "ready"
    assert result.warnings == ["Skipped 1 hidden sheet ('Old rates'); unhide it in Excel to have it indexed."]
    kept = [r["text"] for r in store.chunk_rows(settings, "t")]
    assert "$12.50" in " ".join(kept) and "9.99" not in " ".join(kept) and "Old rates" not in " ".join(kept)

    result = ingest_file(settings, "t", _hidden_only(tmp_path / "hidden.xlsx"))
    assert result.status == "failed"
    assert result.error == ("The workbook has nothing to index outside its hidden sheets ('Old rates'); unhide the "
                            "ones meant to be read in Excel and upload it again.")
    assert [r["text"] for r in store.chunk_rows(settings, "t")] == kept
    assert doctor.check(settings, "t").consistent


def test_a_folder_ingest_picks_up_spreadsheets(tmp_path):
    folder = tmp_path / "tree"
    for name in ("plans.csv", "rates.TSV", "book.xlsx", "macro.xlsm", "notes.md", "clip.mp4", "old.xls"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"x")
    # an old .xls too, to be refused in a sentence saying to save it as XLSX or CSV
    assert sorted(p.name for p in iter_files([folder])) == ["book.xlsx", "macro.xlsm", "notes.md", "old.xls",
                                                            "plans.csv", "rates.TSV"]
