"""Parsing the next file while the current one embeds (core/ingest/ahead.py)."""

import threading

import pytest

from core import documents, store
from core.documents import ingest_file, ingest_files
from core.ingest import IngestError
from core.ingest.ahead import Parsed


def test_the_next_file_is_parsed_while_the_current_one_embeds(settings, write_file, monkeypatch) -> None:
    first = write_file("a.md", "# Leave\n\nStaff earn 25 days of annual leave.\n")
    second = write_file("b.md", "# Expenses\n\nExpense reports are due within 30 days.\n")
    second_parsed = threading.Event()
    parsed_in: dict[str, str] = {}
    real_parse, real_embed = documents.parse_file, documents._embed

    def parse(path, *args, **kwargs):
        parsed_in[path.name] = threading.current_thread().name
        return real_parse(path, *args, **kwargs)

    def recording_parse(path, *args, **kwargs):  # the background thread's parse
        done = parse(path, *args, **kwargs)
        if path.name == "b.md":
            second_parsed.set()
        return done

    embedded_while_parsed: list[bool] = []

    def embed(settings_, tenant, texts, report):
        if "Staff earn" in texts[0]:  # the first file embeds: the second is parsed meanwhile
            embedded_while_parsed.append(second_parsed.wait(timeout=30))
        return real_embed(settings_, tenant, texts, report)

    monkeypatch.setattr("core.ingest.ahead.parse_file", recording_parse)
    monkeypatch.setattr(documents, "parse_file", parse)
    monkeypatch.setattr(documents, "_embed", embed)
    results = [r for _, r in ingest_files(settings, "acme", [first, second])]
    assert [r.status for r in results] == ["ready", "ready"]
    assert embedded_while_parsed == [True]
    assert parsed_in["b.md"].startswith("parse-ahead")  # not parsed again on its turn
    assert {r["doc_id"] for r in store.chunk_rows(settings, "acme")} == {r.doc_id for r in results}


def test_files_ingested_ahead_give_what_one_at_a_time_gives(settings, write_file, tmp_path) -> None:
    files = [write_file("a.md", "# Leave\n\nStaff earn 25 days of annual leave.\n"),
             write_file("broken.pdf", b"%PDF-1.7 not really a pdf"),
             write_file("b.txt", "Expense reports are due within 30 days.")]
    ahead = [(p.name, r.status, r.chunks, r.error) for p, r in ingest_files(settings, "ahead", files)]
    one_by_one = [(p.name, r.status, r.chunks, r.error) for p, r in
                  ((p, ingest_file(settings, "one", p)) for p in files)]
    assert ahead == one_by_one
    assert [s for _, s, _, _ in ahead] == ["ready", "failed", "ready"]
    again = [r.status for _, r in ingest_files(settings, "ahead", files)]
    assert again == ["unchanged", "failed", "unchanged"]


def test_an_unchanged_file_is_not_parsed_ahead(settings, write_file, monkeypatch) -> None:
    first = write_file("a.md", "# Leave\n\nStaff earn 25 days of annual leave.\n")
    second = write_file("b.md", "# Expenses\n\nExpense reports are due within 30 days.\n")
    ingest_file(settings, "acme", second)
    seen: list[str] = []
    monkeypatch.setattr("core.ingest.ahead.parse_file", lambda path, *a, **k: seen.append(path.name))
    statuses = [r.status for _, r in ingest_files(settings, "acme", [first, second])]
    assert statuses == ["ready", "unchanged"] and "b.md" not in seen


def test_a_parse_is_used_only_for_the_bytes_it_read() -> None:
    error = IngestError("The PDF is encrypted; upload a copy without a password.")
    assert Parsed("aa", error=error).document_of("bb") is None  # the file changed since: parse again
    with pytest.raises(IngestError, match="encrypted"):
        Parsed("aa", error=error).document_of("aa")
