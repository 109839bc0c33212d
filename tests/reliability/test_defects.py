"""The defects a hostile-input sweep found (issue 29), each asserted as the behaviour a user
gets now."""

from __future__ import annotations

import shutil
import signal
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from core import doctor, index, store
from core.cli import main
from core.config import Settings, load_settings
from core.documents import ingest_file, original_path, reindex_document
from core.ingest.text import join_lines
from core.pipeline import ask
from core.tenants import collection_name


@contextmanager
def hang_guard(seconds: int):
    """Fail instead of hanging: the quadratic join took 188 s on 20 MB; linear takes ~2 s."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_joining_wrapped_lines_is_linear_and_keeps_hyphenated_words() -> None:
    assert join_lines(["The hand-", "book says", "", "the re-", "Quest"]) == "The handbook says the re- Quest"
    assert join_lines(["the docu-", "ment is short"]) == "the document is short"
    with hang_guard(60):
        text = join_lines(["one line of a very long paragraph"] * 400_000)
    assert len(text) == 400_000 * 34 - 1


def test_a_20_mb_text_file_is_refused_early_with_progress(settings: Settings, write_file) -> None:
    path = write_file("huge.txt", "\n".join(f"Line {i} of a long log with a few words." for i in range(480_000)))
    assert path.stat().st_size > 20_000_000
    stages: list[str] = []
    with hang_guard(120):
        result = ingest_file(settings, "t", path, progress=lambda stage, frac: stages.append(stage))
    assert result.status == "failed"
    assert "too long to index" in result.error and "split it" in result.error
    assert "parse" in stages and "embed" not in stages  # refused before any embedding


def test_kept_files_are_found_in_a_copied_or_moved_data_folder(tmp_path: Path, write_file) -> None:
    first = load_settings({"GROUNDWORK_DATA": str(tmp_path / "one")})
    assert ingest_file(first, "t", write_file("a.md", "# A\n\nThe first version of the note.\n")).status == "ready"
    original = original_path(first, "t", store.list_documents(first, "t")[0]["doc_id"])
    copy = load_settings({"GROUNDWORK_DATA": str(tmp_path / "two")})
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    index.fresh_client(copy)
    # replacing the document in the copy removes the copy's kept file, never the original's
    result = ingest_file(copy, "t", write_file("new/a.md", "# A\n\nThe second version of the note.\n"))
    assert result.status == "ready" and result.replaced
    assert original.exists()
    assert doctor.check(first, "t").consistent and doctor.check(copy, "t").consistent
    # a moved folder re-indexes from its own kept files
    shutil.move(str(tmp_path / "two"), str(tmp_path / "three"))
    moved = load_settings({"GROUNDWORK_DATA": str(tmp_path / "three")})
    index.fresh_client(moved)
    doc_id = store.list_documents(moved, "t")[0]["doc_id"]
    assert reindex_document(moved, "t", doc_id).status == "ready"


def test_a_sentence_with_a_bracketed_number_is_quoted(settings: Settings, write_file) -> None:
    ingest_file(settings, "t", write_file("terms.md", "# Terms\n\nThe warranty lasts 24 months as stated in clause [12] "
                                                      "of the contract.\n\nColour codes like :red[1200] mark urgent tickets.\n"))
    low = replace(settings, gate_threshold=0.3)
    answer = ask(low, "t", "How long does the warranty last?")
    assert answer.status == "answered", answer.refusal_reason
    assert "24 months" in answer.answer and "12" in answer.answer
    assert [c.index for c in answer.citations] == [1]
    assert "[12]" in answer.citations[0].quote  # the quote stays verbatim
    answer = ask(low, "t", "What marks urgent tickets?")
    assert answer.status == "answered" and "1200" in answer.answer


def test_a_pdf_with_one_line_per_page_is_indexed(settings: Settings, tmp_path: Path) -> None:
    doc = pymupdf.open()
    for n in range(1, 5):
        doc.new_page().insert_text((72, 60), f"Step {n}: close valve V{n} before the pump starts.")
    path = tmp_path / "steps.pdf"
    doc.save(path)
    result = ingest_file(settings, "t", path)
    assert result.status == "ready", result.error
    text = " ".join(r["text"] for r in store.chunk_rows(settings, "t"))
    assert all(f"valve V{n}" in text for n in range(1, 5))


def test_deeply_nested_html_is_refused_in_a_plain_sentence(settings: Settings, write_file) -> None:
    path = write_file("deep.html", "<html><body>" + "<div>" * 3000 + "Deep text." + "</div>" * 3000 + "</body></html>")
    result = ingest_file(settings, "t", path)
    assert result.status == "failed"
    assert "nests its elements too deeply" in result.error and "Recursion" not in result.error


def test_the_same_bytes_under_a_second_name_name_the_document_holding_them(
        settings: Settings, write_file, capsys: pytest.CaptureFixture) -> None:
    text = "# Rota\n\nShifts start at 07:00.\n"
    assert main(["ingest", "--tenant", "t", str(write_file("rota.md", text))]) == 0
    capsys.readouterr()
    assert main(["ingest", "--tenant", "t", str(write_file("rota-copy.md", text))]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("unchanged") and "rota-copy.md" in line and "same content as rota.md" in line


def test_an_argument_that_is_not_utf8_is_one_sentence(settings: Settings, capsys: pytest.CaptureFixture) -> None:
    garbled = b"caf\xe9".decode("utf-8", "surrogateescape")  # what Python makes of Latin-1 bytes in argv
    assert main(["ask", "--tenant", garbled, "What is it?"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the tenant argument is not valid UTF-8 text") and err.count("\n") == 1


def test_asking_a_tenant_that_does_not_exist_leaves_nothing_behind(settings: Settings, write_file) -> None:
    ingest_file(settings, "real", write_file("a.md", "# A\n\nSomething is written here.\n"))
    answer = ask(settings, "reel", "What is written?")
    assert answer.status == "refused" and answer.refusal_code == "unknown_tenant" and answer.refusal_subject == "reel"
    assert "no tenant" in answer.refusal_reason
    assert store.list_traces(settings, "reel") == []
    names = {c.name for c in index.chroma_client(settings).list_collections()}
    assert collection_name("reel") not in names and collection_name("real") in names
    assert not store.tenant_exists(settings, "reel")
