"""Helpers shared by the ingest tests (imported by name; pytest puts this folder on sys.path)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pymupdf

from core import doctor, store
from core.documents import ingest_file
from core.schema import ParsedDocument

TABLE_ROWS = [
    ["Plan", "Price", "Rating"],
    ["Basic", "9.99", "4.7"],
    ["Pro", "19.50", "4.25"],
    ["Team", "49.00", "3.9"],
]


def assert_offsets(parsed: ParsedDocument) -> None:
    """Every block's offsets point at its own text in the document text."""
    assert parsed.blocks
    for block in parsed.blocks:
        assert parsed.text[block.char_start:block.char_end] == block.text, block


def draw_table(page: pymupdf.Page, top: float, rows: list[list[str]]) -> float:
    """A ruled table (real lines, so find_tables sees it); returns its bottom y."""
    cols = [72, 200, 320, 440]
    row_h = 20
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((cols[c] + 4, top + r * row_h + 14), cell, fontsize=10,
                             fontname="hebo" if r == 0 else "helv")
    bottom = top + len(rows) * row_h
    for r in range(len(rows) + 1):
        page.draw_line((cols[0], top + r * row_h), (cols[-1], top + r * row_h))
    for x in cols:
        page.draw_line((x, top), (x, bottom))
    return bottom


def rewritten(path: Path, part: str, change: Callable[[str], str]) -> Path:
    """The Office file (a zip) with one part's XML changed by `change(text)`: what Office
    writes and the Python libraries that build test files do not."""
    src = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item in src.infolist():
            data = src.read(item.filename)
            out.writestr(item.filename, change(data.decode()).encode() if item.filename == part else data)
    return path


def assert_bad_files_fail_cleanly(settings: Any, tenant: str, folder: Path,
                                  bad: list[tuple[str, Any, str]]) -> list[dict[str, Any]]:
    """Each (name, bytes or writer(path), first words of its sentence) fails in one
    sentence and leaves the tenant's passages as they were; returns the tenant's documents."""
    kept = [r["text"] for r in store.chunk_rows(settings, tenant)]
    for name, data, sentence in bad:
        path = folder / "upload" / name
        path.parent.mkdir(exist_ok=True)
        data(path) if callable(data) else path.write_bytes(data)
        result = ingest_file(settings, tenant, path)
        assert result.status == "failed", name
        assert result.error.startswith(sentence), (name, result.error)
        assert result.error.endswith(".") and "\n" not in result.error and "Traceback" not in result.error
        assert [r["text"] for r in store.chunk_rows(settings, tenant)] == kept, name
    docs = store.list_documents(settings, tenant)
    assert sorted(d["file_name"] for d in docs if d["status"] == "failed") == sorted(b[0] for b in bad)
    assert doctor.check(settings, tenant).consistent
    return docs

# a plan table whose header is two rows: a group over three columns, two cells spanning both rows
TWO_ROW_HEADER = ("<table><tr><th rowspan='2'>Plan</th><th rowspan='2'>Monthly fee</th>"
                  "<th colspan='3'>Included allowances</th><th rowspan='2'>EU roaming data</th></tr>"
                  "<tr><th>Data</th><th>Minutes</th><th>SMS</th></tr>"
                  "<tr><td>Start</td><td>12.99</td><td>10 GB</td><td>300</td><td>100</td><td>5 GB</td></tr>"
                  "<tr><td>Max</td><td>29.99</td><td>120 GB</td><td>Unlimited</td><td>Unlimited</td><td>30 GB</td></tr>"
                  "</table>")
