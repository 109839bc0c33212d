"""Ingest lifecycle: all-or-nothing, re-upload, replace, delete, tenant isolation."""

import threading

import pytest

from core import documents, index, store
from core.documents import delete_document, ingest_file, list_documents
from core.lexical import TOKENIZER_VERSION, LexicalIndex
from core.models import get_embedder

REFUNDS = """# Refund policy

Monthly plans can be refunded within 14 days of purchase. Annual plans are non-refundable.

## Contact

Write to billing@example.com for refund requests.
"""
OIL = """# Maintenance

7-2 The engine oil capacity is 5 quarts with filter change.
"""


def _everywhere(settings, tenant, doc_id):
    """How many traces of a document exist in each store."""
    return {
        "registry": store.get_document(settings, tenant, doc_id) is not None,
        "chunks": len(store.chunk_rows(settings, tenant, doc_id)),
        "vectors": index.vector_count(settings, tenant, doc_id),
        "bm25": sum(1 for cid in index.lexical_index(settings, tenant).chunk_ids if cid.startswith(doc_id)),
    }


def test_ingest_registers_everywhere(settings, write_file):
    result = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    assert result.status == "ready" and result.chunks >= 1 and result.error is None
    where = _everywhere(settings, "acme", result.doc_id)
    assert where == {"registry": True, "chunks": result.chunks, "vectors": result.chunks, "bm25": result.chunks}
    doc = list_documents(settings, "acme")[0]
    assert doc["file_name"] == "refunds.md" and doc["chunks"] == result.chunks and doc["status"] == "ready"
    assert set(result.timings) >= {"parse", "chunk", "embed", "index"}


@pytest.mark.parametrize("step", ["add_vectors", "rebuild_lexical", "register"])
def test_failure_mid_document_leaves_nothing(settings, write_file, monkeypatch, step):
    ingest_file(settings, "acme", write_file("oil.md", OIL))
    before = store.chunk_rows(settings, "acme")

    def boom(*args, **kwargs):
        raise RuntimeError("injected failure")

    if step == "register":
        monkeypatch.setattr(documents, "_register", boom)
    elif step == "add_vectors":
        real = index.add_vectors

        def half_then_boom(settings_, tenant, chunks, vectors):  # some vectors land, then failure
            real(settings_, tenant, chunks[:1], vectors[:1])
            raise RuntimeError("injected failure")

        monkeypatch.setattr(index, "add_vectors", half_then_boom)
    else:
        calls = {"n": 0}
        real_rebuild = index.rebuild_lexical

        def fail_first(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("injected failure")
            return real_rebuild(*args, **kwargs)

        monkeypatch.setattr(index, "rebuild_lexical", fail_first)

    result = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    assert result.status == "failed" and "injected failure" in result.error
    new_id = documents._doc_id("acme", __import__("hashlib").sha256(REFUNDS.encode()).hexdigest())
    assert index.vector_count(settings, "acme", new_id) == 0
    assert store.chunk_rows(settings, "acme") == before
    assert all(not cid.startswith(new_id) for cid in index.lexical_index(settings, "acme").chunk_ids)
    failed = [d for d in list_documents(settings, "acme") if d["status"] == "failed"]
    assert failed and failed[0]["file_name"] == "refunds.md" and failed[0]["error"]
    # the earlier document is untouched and still searchable both ways
    assert index.lexical_search(settings, "acme", "oil capacity", 3)
    assert index.vector_count(settings, "acme") == len(before)


def test_same_bytes_are_a_no_op_and_new_version_replaces(settings, write_file):
    first = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    again = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    assert again.status == "unchanged" and again.doc_id == first.doc_id
    assert len(list_documents(settings, "acme")) == 1

    newer = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS.replace("14 days", "21 days")))
    assert newer.status == "ready" and newer.replaced == first.doc_id
    docs = list_documents(settings, "acme")
    assert [d["doc_id"] for d in docs] == [newer.doc_id]
    assert _everywhere(settings, "acme", first.doc_id) == {"registry": False, "chunks": 0, "vectors": 0, "bm25": 0}
    texts = " ".join(r["text"] for r in store.chunk_rows(settings, "acme"))
    assert "21 days" in texts and "14 days" not in texts


def test_delete_removes_everything(settings, write_file):
    result = ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    kept = documents.original_path(settings, "acme", result.doc_id)
    assert kept is not None and kept.read_text(encoding="utf-8") == REFUNDS
    assert delete_document(settings, "acme", result.doc_id) is True
    assert _everywhere(settings, "acme", result.doc_id) == {"registry": False, "chunks": 0, "vectors": 0, "bm25": 0}
    assert not kept.exists()
    assert delete_document(settings, "acme", result.doc_id) is False


def test_bad_file_fails_clearly_and_keeps_index(settings, write_file):
    ok = ingest_file(settings, "acme", write_file("oil.md", OIL))
    bad = ingest_file(settings, "acme", write_file("broken.pdf", b"%PDF-1.7\n garbage \x00\x01\x02"))
    empty = ingest_file(settings, "acme", write_file("empty.txt", b""))
    for r in (bad, empty):
        assert r.status == "failed" and r.error and r.error.endswith(".") and "\n" not in r.error
    assert _everywhere(settings, "acme", ok.doc_id)["vectors"] == ok.chunks


def test_tenants_never_see_each_other(settings, write_file):
    ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    ingest_file(settings, "globex", write_file("oil.md", OIL))
    q = get_embedder().embed_query("engine oil capacity quarts")
    acme_dense = index.dense_search(settings, "acme", q, 10)
    acme_ids = {r["chunk_id"] for r in store.chunk_rows(settings, "acme")}
    assert acme_dense and {cid for cid, _ in acme_dense} <= acme_ids
    assert all(cid in acme_ids for cid, _ in index.lexical_search(settings, "acme", "oil capacity quarts", 10))
    assert index.lexical_search(settings, "acme", "engine oil quarts", 10) == []
    globex_ids = {r["chunk_id"] for r in store.chunk_rows(settings, "globex")}
    assert {cid for cid, _ in index.dense_search(settings, "globex", q, 10)} <= globex_ids
    assert store.chunk_rows(settings, "nobody") == []


def test_concurrent_uploads_keep_index_consistent(settings, write_file):
    paths = [write_file(f"doc{i}.md", f"# Doc {i}\n\nFact number {i} is {i * 11} units.\n") for i in range(4)]
    results = []
    threads = [threading.Thread(target=lambda p=p: results.append(ingest_file(settings, "acme", p))) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.status for r in results) == ["ready"] * 4
    rows = store.chunk_rows(settings, "acme")
    assert len(index.lexical_index(settings, "acme").chunk_ids) == len(rows) == index.vector_count(settings, "acme")


def test_a_bm25_index_without_document_shares_is_rebuilt_on_first_use(settings, write_file):
    ingest_file(settings, "acme", write_file("refunds.md", REFUNDS))
    ingest_file(settings, "acme", write_file("oil.md", OIL))
    folder = index.lexical_dir(settings, "acme")
    (folder / "doc_df.json").unlink()  # as written before document shares were kept
    lexicon = index.lexical_index(settings, "acme")
    assert (folder / "doc_df.json").exists()
    assert lexicon.documents == 2 and lexicon.document_share("refund") == 0.5


def test_a_bm25_index_from_an_older_tokenizer_is_rebuilt_on_first_use(settings, write_file):
    ingest_file(settings, "acme", write_file("care.md", "# Уход\n\nПодготовьте контейнер и слейте воду.\n"))
    folder = index.lexical_dir(settings, "acme")
    (folder / "tokenizer.txt").unlink()  # as written before the tokenizer had versions
    assert LexicalIndex.load(folder).tokenizer_version == 1
    lexicon = index.lexical_index(settings, "acme")
    assert lexicon.tokenizer_version == TOKENIZER_VERSION
    assert (folder / "tokenizer.txt").read_text() == str(TOKENIZER_VERSION)
    assert lexicon.search("что подготовить", 1)  # the imperative is indexed as the infinitive
