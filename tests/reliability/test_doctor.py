"""`core.cli doctor`: compares the four stores and, with --repair, makes them agree."""

from __future__ import annotations

import pytest

from core import index, journal, scan_words, store
from core.cli import main
from core.config import Settings
from core.documents import ingest_file
from core.lexical import LexicalIndex
from core.tenants import tenant_dir


def test_doctor_reports_and_repairs_what_disagrees(settings: Settings, write_file,
                                                   capsys: pytest.CaptureFixture) -> None:
    assert ingest_file(settings, "t", write_file("a.md", "# A\n\nThe depot opens at 06:00.\n")).status == "ready"
    assert ingest_file(settings, "t", write_file("b.md", "# B\n\nThe depot closes at 22:00.\n")).status == "ready"
    assert main(["doctor", "--tenant", "t"]) == 0
    assert "agree" in capsys.readouterr().out

    # damage three stores behind the registry's back
    files = tenant_dir(settings, "t") / "files"
    (files / "dstray000000000.md").write_text("left by a crash", encoding="utf-8")
    scan_words.save(settings, "t", "dgone0000000000", {1: [(72, 90, 120, 102, "Receipts", 0, 0)]})  # of no document
    b = next(d for d in store.list_documents(settings, "t") if d["file_name"] == "b.md")
    with index.tenant_lock(settings, "t"):
        index.delete_vectors(settings, "t", b["doc_id"])
        rows = [r for r in store.chunk_rows(settings, "t") if r["doc_id"] != b["doc_id"]]
        # BM25 written without b's chunks
        LexicalIndex.build([(r["chunk_id"], r["text"]) for r in rows]).save(index.lexical_dir(settings, "t"))

    assert main(["doctor", "--tenant", "t"]) == 1
    out = capsys.readouterr().out
    assert "dstray000000000.md belongs to no document" in out
    assert f"chunk(s) of document {b['doc_id']} have no vector" in out
    assert "the BM25 index lacks 1 chunk(s)" in out
    assert "OCR words of document dgone0000000000, which the registry does not hold" in out
    assert out.splitlines()[-1] == ("fix: `python -m core.cli doctor --tenant t --repair` makes the vectors, "
                                    "BM25 index and kept files follow the registry.")
    # a write a crash left half-done (a reliability pass killed a delete) is named, with what finishes it
    journal.begin(settings, "t", "delete", [b["doc_id"]])
    assert main(["doctor", "--tenant", "t"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == (
        "fix: an interrupted delete left these; the next ask or upload finishes it, "
        "or `python -m core.cli doctor --tenant t --repair` now.")

    assert main(["doctor", "--tenant", "t", "--repair"]) == 0
    assert "repaired:" in capsys.readouterr().out
    assert not (files / "dstray000000000.md").exists()
    assert scan_words.kept_for(settings, "t") == []
    assert index.vector_count(settings, "t", b["doc_id"]) == 1
    assert main(["doctor", "--tenant", "t"]) == 0
    assert journal.pending(settings, "t") is None


def test_doctor_of_an_unknown_tenant_is_one_sentence(settings: Settings, capsys: pytest.CaptureFixture) -> None:
    assert main(["doctor", "--tenant", "nobody"]) == 2
    assert capsys.readouterr().err.startswith("error: There is no tenant 'nobody'")


def test_doctor_finds_and_repairs_a_damaged_bm25_file(settings: Settings, write_file,
                                                     capsys: pytest.CaptureFixture) -> None:
    # a QA pass: garbage written over a BM25 segment went unreported by doctor and --repair
    assert ingest_file(settings, "t", write_file("a.md", "# A\n\nThe depot opens at 06:00.\n")).status == "ready"
    segments = sorted(index.lexical_dir(settings, "t").resolve().glob("seg-*.npz"))
    assert segments
    segments[0].write_bytes(b"garbage")
    assert main(["doctor", "--tenant", "t"]) == 1
    assert "a file of the BM25 index cannot be read" in capsys.readouterr().out
    assert main(["doctor", "--tenant", "t", "--repair"]) == 0
    capsys.readouterr()
    assert main(["doctor", "--tenant", "t"]) == 0
    assert index.lexical_index(settings, "t").search("depot", 1)
