"""A full data disk: a write is refused up front in one sentence, and an error a full disk
caused is said as such, not as a traceback. (On a 40 MB tmpfs filled to 150 KB, Chroma's
embedded store failed three adds with its own errors, then hung inside the fourth for good,
holding the tenant's lock; `doctor` and `docs list` printed sqlite3 tracebacks.)"""

import sqlite3

import pytest

from core import disk, doctor, documents, index, journal, store
from core.cli import main
from core.documents import delete_document, ingest_file, list_documents

TEXT = "# Refunds\n\nMonthly plans can be refunded within 14 days of purchase.\n"
OTHER = "# Oil\n\nThe engine oil capacity is 5 quarts with filter change.\n"


def _free(monkeypatch, mb: int) -> None:
    monkeypatch.setattr(disk, "free_bytes", lambda settings: mb * 1024 * 1024)


def test_an_ingest_with_no_room_is_refused_before_anything_is_written(settings, write_file, monkeypatch):
    _free(monkeypatch, 5)
    embedded = []
    monkeypatch.setattr(documents, "_embed", lambda *a, **k: embedded.append(1))
    result = ingest_file(settings, "acme", write_file("refunds.md", TEXT))
    assert result.status == "failed"
    assert result.error.startswith("The disk holding the data folder") and "has 5 MB free" in result.error
    assert "free some space on it and try again" in result.error
    assert not embedded, "the embedding's minutes come after the check"
    assert index.collection(settings, "acme").count() == 0
    assert not store.chunk_rows(settings, "acme")


def test_a_delete_with_no_room_for_the_rebuild_is_refused_and_changes_nothing(settings, write_file, monkeypatch):
    keep = ingest_file(settings, "acme", write_file("oil.md", OTHER))
    gone = ingest_file(settings, "acme", write_file("refunds.md", TEXT))
    _free(monkeypatch, 1)  # less than the copy of the other vectors and its headroom
    try:
        delete_document(settings, "acme", gone.doc_id)
        raise AssertionError("a delete on a full disk must be refused")
    except disk.DiskFull as exc:
        assert "deleting needs about" in str(exc)
    assert {d["doc_id"] for d in list_documents(settings, "acme")} == {keep.doc_id, gone.doc_id}
    assert index.collection(settings, "acme").count() == keep.chunks + gone.chunks


def test_a_delete_on_a_nearly_full_disk_goes_ahead(settings, write_file, monkeypatch):
    # too full for an ingest, but a delete is how the admin frees it: it needs room only
    # for the copy of the vectors it keeps
    keep = ingest_file(settings, "acme", write_file("oil.md", OTHER))
    gone = ingest_file(settings, "acme", write_file("refunds.md", TEXT))
    _free(monkeypatch, 5)
    assert ingest_file(settings, "acme", write_file("more.md", "# More\n\nAnother line.\n")).status == "failed"
    assert delete_document(settings, "acme", gone.doc_id)
    assert [d["doc_id"] for d in list_documents(settings, "acme") if d["status"] == "ready"] == [keep.doc_id]
    assert index.collection(settings, "acme").count() == keep.chunks
    assert journal.pending(settings, "acme") is None
    assert doctor.check(settings, "acme").consistent
    # the tenant's last document: nothing to copy
    _free(monkeypatch, 3)
    assert delete_document(settings, "acme", keep.doc_id)
    assert index.collection(settings, "acme").count() == 0 and doctor.check(settings, "acme").consistent


CHROMA_FULL = ("Query error: Database error: error returned from database: (code: 13) database or disk is full",
               "Error in compaction: Failed to apply logs to the metadata segment")


@pytest.mark.parametrize("message", CHROMA_FULL)
def test_a_failure_that_filled_the_disk_is_said_as_such(settings, write_file, monkeypatch, message):
    # the disk filled up during the write (the estimate was short): Chroma's error texts
    def full(*args, **kwargs):
        raise RuntimeError(message)

    monkeypatch.setattr(index, "add_vectors", full)
    _free(monkeypatch, 0)
    monkeypatch.setattr(disk, "ensure_room", lambda *a: None)
    result = ingest_file(settings, "acme", write_file("refunds.md", TEXT))
    assert result.status == "failed"
    assert result.error.startswith("The disk holding the data folder") and "is full (0 MB free)" in result.error


def test_the_failed_row_is_skipped_when_the_disk_cannot_hold_it(settings, monkeypatch):
    def full(settings):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "connect", full)
    assert documents._record_failure(settings, "acme", "a.md", "0" * 64, 1, "cli", "why") is None


def test_the_cli_says_a_full_disk_in_one_sentence(settings, monkeypatch, capsys):
    def full(settings):
        raise sqlite3.OperationalError("disk I/O error")

    _free(monkeypatch, 0)
    monkeypatch.setattr(store, "connect", full)
    assert main(["docs", "list", "--tenant", "acme"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: The disk holding the data folder") and "free some space" in err
    assert "Traceback" not in err


def test_a_disk_error_with_room_left_does_not_blame_the_space(settings, monkeypatch):
    _free(monkeypatch, 500)
    assert "check that its disk is healthy and writable" in disk.full_sentence(settings)


def test_the_cli_says_a_chroma_compaction_failure_on_a_full_disk_in_one_sentence(settings, write_file,
                                                                                 monkeypatch, capsys):
    # seen on a full tmpfs: settling an earlier failed delete inside `docs list` hit it
    ingest_file(settings, "acme", write_file("refunds.md", TEXT))

    def full(*args, **kwargs):
        raise RuntimeError(CHROMA_FULL[1])

    _free(monkeypatch, 0)
    monkeypatch.setattr(documents, "list_documents", full)
    assert main(["docs", "list", "--tenant", "acme"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: The disk holding the data folder") and "Traceback" not in err
