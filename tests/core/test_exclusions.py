"""A passage kept out of answers stays out after a re-index or a new version of its document,
found again by its text; one whose text changed is let back in, and the result says so."""

from core import doctor, documents, store
from core.documents import exclusions_note, ingest_file, reindex_document, text_fingerprint
from core.retrieve import retrieve

GUIDE = """# Service guide

## Oil

The engine oil capacity is 4.5 litres. Change the oil every 10,000 km.

## Tyres

Front tyres are inflated to 2.4 bar and rear tyres to 2.2 bar.

## Refunds

Monthly plans can be refunded within 14 days of purchase.
"""


def _chunks(settings, tenant="acme"):
    return store.chunk_rows(settings, tenant)


def _passage(settings, words, tenant="acme"):
    return next(c for c in _chunks(settings, tenant) if words in c["text"])


def _retrieved_ids(settings, question, tenant="acme"):
    got = retrieve(settings, tenant, question)
    return {c.chunk_id for c in got.candidates} | {c.chunk_id for c in got.top}


def test_fingerprint_ignores_wrapping_not_words():
    assert text_fingerprint("Oil  capacity\nis 4.5 litres.") == text_fingerprint(" Oil capacity is 4.5 litres. ")
    assert text_fingerprint("Oil capacity is 4.5 litres.") != text_fingerprint("Oil capacity is 5 litres.")


def test_an_exclusion_survives_a_re_index_and_retrieval_still_skips_it(settings, write_file):
    path = write_file("guide.md", GUIDE)
    first = ingest_file(settings, "acme", path)
    assert first.status == "ready" and first.chunks >= 2, first
    oil = _passage(settings, "oil capacity")
    assert oil["chunk_id"] in _retrieved_ids(settings, "What is the engine oil capacity?")
    documents.exclude_chunk(settings, "acme", oil["chunk_id"])

    again = reindex_document(settings, "acme", first.doc_id)
    assert again.status == "ready" and again.exclusions_kept == 1 and again.exclusions_dropped == []
    assert "1 passage was kept out of answers: 1 still is" in exclusions_note(again.exclusions_kept,
                                                                           again.exclusions_dropped)
    assert [c["chunk_id"] for c in _chunks(settings) if c["disabled"]] == [_passage(settings, "oil capacity")["chunk_id"]]
    assert not any(c["disabled"] for c in _chunks(settings) if "oil capacity" not in c["text"])
    assert _passage(settings, "oil capacity")["chunk_id"] not in _retrieved_ids(settings, "What is the engine oil capacity?")
    assert doctor.check(settings, "acme").consistent


def test_a_new_version_keeps_unchanged_exclusions_and_drops_changed_ones(settings, write_file):
    path = write_file("guide.md", GUIDE)
    first = ingest_file(settings, "acme", path)
    for words in ("oil capacity", "tyres are inflated"):
        documents.exclude_chunk(settings, "acme", _passage(settings, words)["chunk_id"])

    path.write_text(GUIDE.replace("2.4 bar", "2.5 bar"), encoding="utf-8")  # the tyre passage changes
    second = ingest_file(settings, "acme", path)
    assert second.status == "ready" and second.replaced == first.doc_id and second.doc_id != first.doc_id
    assert second.exclusions_kept == 1
    assert len(second.exclusions_dropped) == 1 and "2.4 bar" in second.exclusions_dropped[0]
    note = exclusions_note(second.exclusions_kept, second.exclusions_dropped)
    assert note.startswith("2 passages were kept out of answers: 1 still is")
    assert "1 changed and is used in answers again (“" in note and "exclude it again if needed" in note

    oil, tyres = _passage(settings, "oil capacity"), _passage(settings, "tyres are inflated")
    assert oil["doc_id"] == second.doc_id and oil["disabled"]  # a new chunk id, still kept out
    assert "2.5 bar" in tyres["text"] and not tyres["disabled"]
    assert oil["chunk_id"] not in _retrieved_ids(settings, "What is the engine oil capacity?")
    assert tyres["chunk_id"] in _retrieved_ids(settings, "What pressure for the front tyres?")
    assert doctor.check(settings, "acme").consistent


def test_a_failed_re_index_keeps_the_exclusion_as_it_was(settings, write_file, monkeypatch):
    path = write_file("guide.md", GUIDE)
    first = ingest_file(settings, "acme", path)
    oil = _passage(settings, "oil capacity")["chunk_id"]
    documents.exclude_chunk(settings, "acme", oil)
    real, calls = documents.index.rebuild_lexical, []

    def fail_once(*args, **kwargs):  # the step after the registry commit: the undo must put the flag back
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("disk full")
        return real(*args, **kwargs)

    monkeypatch.setattr(documents.index, "rebuild_lexical", fail_once)
    assert reindex_document(settings, "acme", first.doc_id).status == "failed"
    assert [c["chunk_id"] for c in _chunks(settings) if c["disabled"]] == [oil]


def test_other_documents_and_tenants_lend_no_exclusion(settings, write_file):
    """The same text in another document, or another tenant, is not excluded by proxy."""
    ingest_file(settings, "acme", write_file("guide.md", GUIDE))
    documents.exclude_chunk(settings, "acme", _passage(settings, "oil capacity")["chunk_id"])
    copy = ingest_file(settings, "acme", write_file("copy.md", GUIDE + "\nSee also the dealer.\n"))
    beta = ingest_file(settings, "beta", write_file("guide2.md", GUIDE))
    assert copy.exclusions_kept == 0 and beta.exclusions_kept == 0
    assert sum(c["disabled"] for c in _chunks(settings)) == 1
    assert not any(c["disabled"] for c in _chunks(settings, "beta"))


def test_the_cli_says_what_became_of_the_exclusions(settings, write_file, capsys):
    from core.cli import main

    path = write_file("guide.md", GUIDE)
    assert main(["ingest", "--tenant", "acme", str(path)]) == 0
    documents.exclude_chunk(settings, "acme", _passage(settings, "tyres are inflated")["chunk_id"])
    path.write_text(GUIDE.replace("2.4 bar", "2.5 bar"), encoding="utf-8")
    capsys.readouterr()
    assert main(["ingest", "--tenant", "acme", str(path)]) == 0
    out = capsys.readouterr()
    assert len(out.out.strip().splitlines()) == 1  # stdout stays one line a file
    assert "guide.md: 1 passage was kept out of answers: 1 changed and is used in answers again" in out.err
