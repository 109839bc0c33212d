"""core/index.py: the Chroma client is one per data folder, also when threads race for it."""

import os

import numpy as np
import pytest

from core import index
from core.tenants import collection_name
from evals.bench_vectors import synthetic_chunks, unreachable
from tests.threads import run_at_once


def test_threads_opening_a_fresh_store_at_once_share_one_working_client(settings):
    # the console's warm-up thread and the first question open the store together
    def open_store():
        client = index.chroma_client(settings)
        client.list_collections()
        return client

    clients, errors = run_at_once(open_store, 6)
    assert errors == []
    assert len(clients) == 6 and all(c is clients[0] for c in clients)


def _open_files_under(folder) -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith(f"{folder}/")
        except OSError:
            pass
    return count


def test_a_process_that_opened_many_data_folders_keeps_only_the_recent_ones_open(settings, tmp_path):
    # each embedded client holds its SQLite file and four files per collection open; the
    # suite's process opened one per test, ran past 1,024 files and OCR's select() failed
    from dataclasses import replace

    folders = [tmp_path / f"data{i}" for i in range(index.MAX_OPEN_CLIENTS + 4)]
    rng = np.random.default_rng(1)
    for folder in folders:
        one = replace(settings, data_dir=folder)
        vectors = rng.normal(size=(3, 384))
        index.add_vectors(one, "t", synthetic_chunks("t", 0, 3), vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        assert index.collection(one, "t").count() == 3
    assert [_open_files_under(f) for f in folders[:4]] == [0, 0, 0, 0]
    assert all(_open_files_under(f) > 0 for f in folders[-2:])
    # a folder whose client was closed opens again and finds its vectors
    assert index.collection(replace(settings, data_dir=folders[0]), "t").count() == 3


def test_deleted_collections_do_not_stay_open_with_the_disk_they_fill(settings):
    # Chroma kept each dropped collection's four index files open in its client's cache: 30
    # deletes held 120 deleted files (and their disk) in one process
    rng = np.random.default_rng(2)
    for d in range(14):
        vectors = rng.normal(size=(3, 384))
        index.add_vectors(settings, "t", synthetic_chunks("t", d, 3), vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    for d in range(12):
        assert index.delete_vectors(settings, "t", f"doc{d}") == 3
    held = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        held += target.startswith(f"{settings.data_dir}/") and target.endswith("(deleted)")
    assert held <= 4, held  # at most the last one's, until the next collection
    assert index.collection(settings, "t").count() == 6


@pytest.mark.slow
def test_every_vector_stays_searchable_after_documents_are_deleted_and_indexed_again(settings):
    # Chroma's HNSW graph, deleted from in place, stops returning some remaining vectors
    # (1 to 76 of 244 in measured rounds); deleting by rebuilding keeps all of them
    rng = np.random.default_rng(7)
    docs = {d: (synthetic_chunks("t", d, 16), rng.normal(size=(16, 384))) for d in range(16)}
    for chunks, vectors in docs.values():
        index.add_vectors(settings, "t", chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    for _ in range(4):  # as an eval run empties its tenant and indexes the corpus again
        for d in docs:
            assert index.delete_vectors(settings, "t", f"doc{d}") == 16
        for chunks, vectors in docs.values():
            index.add_vectors(settings, "t", chunks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
        assert index.collection(settings, "t").count() == 256
        assert unreachable(settings, "t") == 0
    assert index.delete_vectors(settings, "t", "doc0") == 16
    assert index.delete_vectors(settings, "t", "doc0") == 0
    assert index.vector_doc_ids(settings, "t") == {f"doc{d}" for d in range(1, 16)}
    names = [c.name for c in index.chroma_client(settings).list_collections()]
    assert names == [collection_name("t")]  # no copy left behind


def _segment_folders(settings) -> set[str]:
    root = settings.data_dir / "chroma"
    return {p.name for p in root.iterdir() if p.is_dir()}


def test_deletes_leave_no_vector_index_folder_behind(settings):
    # Chroma drops a collection's rows but not its HNSW folder, and every delete drops the
    # tenant's collection for a fresh copy: three deletes left three dead copies on disk
    rng = np.random.default_rng(3)
    for tenant in ("t", "other"):
        for d in range(4):
            vectors = rng.normal(size=(5, 384))
            index.add_vectors(settings, tenant, synthetic_chunks(tenant, d, 5),
                              vectors / np.linalg.norm(vectors, axis=1, keepdims=True))
    before = _segment_folders(settings)
    for d in range(3):
        assert index.delete_vectors(settings, "t", f"doc{d}") == 5
    assert len(_segment_folders(settings)) == len(before) == 2  # one vector index per tenant
    assert _segment_folders(settings) & before  # the other tenant's folder was kept
    assert index.collection(settings, "t").count() == 5 and index.collection(settings, "other").count() == 20
    assert unreachable(settings, "t") == 0 and unreachable(settings, "other") == 0


def test_a_rebuild_a_crash_interrupted_is_settled_by_the_next_delete(settings):
    client = index.chroma_client(settings)
    name = collection_name("t")
    for d in range(2):
        index.add_vectors(settings, "t", synthetic_chunks("t", d, 3), np.eye(3, 8, k=3 * d))
    # crashed after dropping the original: the complete copy serves reads, then takes the name
    original = index.collection(settings, "t")
    copy = client.create_collection(name + index.REBUILD_SUFFIX, embedding_function=None)
    got = original.get(include=["embeddings", "metadatas", "documents"])
    copy.add(ids=got["ids"], embeddings=got["embeddings"], metadatas=got["metadatas"], documents=got["documents"])
    client.delete_collection(name)
    assert index.collection(settings, "t").count() == 6
    assert index.delete_vectors(settings, "t", "doc1") == 3
    assert [c.name for c in client.list_collections()] == [name]
    # crashed while copying: the original is whole, the partial copy is dropped
    client.create_collection(name + index.REBUILD_SUFFIX, embedding_function=None)
    assert index.delete_vectors(settings, "t", "doc0") == 3
    assert [c.name for c in client.list_collections()] == [name]
    assert index.collection(settings, "t").count() == 0


_OTHER_PROCESS = """
import sys
import numpy as np
from core import index
from core.config import load_settings
from evals.bench_vectors import synthetic_chunks
settings = load_settings()
if sys.argv[1] == "add":
    index.add_vectors(settings, "t", synthetic_chunks("t", 2, 3), np.eye(3, 8, k=5))
else:
    index.delete_vectors(settings, "t", "doc0")
"""


def test_a_running_process_sees_what_another_process_indexed_or_deleted(settings):
    # the console keeps its Chroma client open while a CLI ingest writes the same store:
    # its cached view failed every search ("Error finding id") or searched a dropped collection
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for d in range(2):
        index.add_vectors(settings, "t", synthetic_chunks("t", d, 3), np.eye(3, 8, k=3 * d))

    def ids() -> set[str]:
        return {cid.split(":")[0] for cid, _ in index.dense_search(settings, "t", np.ones(8) / 8 ** 0.5, 20)}

    assert ids() == {"doc0", "doc1"}
    for step, expected in (("add", {"doc0", "doc1", "doc2"}), ("delete", {"doc1", "doc2"})):
        subprocess.run([sys.executable, "-c", _OTHER_PROCESS, step], cwd=root, check=True,
                       env={**os.environ, "GROUNDWORK_DATA": str(settings.data_dir)})
        assert ids() == expected


def test_collections_search_wide_also_those_made_before(settings):
    # a new tenant's collection is made with EF_SEARCH
    chunks = synthetic_chunks("new", 0, 4)
    index.add_vectors(settings, "new", chunks, np.eye(4, 384))
    assert index.collection(settings, "new").configuration_json["hnsw"]["ef_search"] == index.EF_SEARCH
    # one made with Chroma's default (an older data folder) is raised when opened, vectors kept
    client = index.chroma_client(settings)
    old = client.create_collection(collection_name("old"), embedding_function=None,
                                   configuration={"hnsw": {"space": "cosine"}})
    old.add(ids=["a", "b"], embeddings=[[1.0] + [0.0] * 383, [0.0, 1.0] + [0.0] * 382])
    assert old.configuration_json["hnsw"]["ef_search"] < index.EF_SEARCH
    opened = index.collection(settings, "old")
    assert opened.configuration_json["hnsw"]["ef_search"] == index.EF_SEARCH
    assert index.collection(settings, "old").configuration_json["hnsw"]["ef_search"] == index.EF_SEARCH
    assert opened.count() == 2
    assert [cid for cid, _ in index.dense_search(settings, "old", np.asarray([0.0, 1.0] + [0.0] * 382), 1)] == ["b"]


def test_a_chroma_server_that_accepts_and_never_answers_is_unreachable_in_seconds(settings, monkeypatch):
    # Chroma's HttpClient waits forever (its httpx session has timeout=None): with such a
    # server `ingest` and `ask` hung for good
    import socket
    import time
    from dataclasses import replace

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)  # connections are accepted by the kernel, and nothing is ever answered
    try:
        monkeypatch.setattr(index, "CHROMA_PROBE_TIMEOUT_S", 0.5)
        remote = replace(settings, chroma_url=f"http://127.0.0.1:{server.getsockname()[1]}")
        started = time.monotonic()
        with pytest.raises(index.VectorStoreUnavailable, match="is not reachable"):
            index.chroma_client(remote)
        with pytest.raises(index.VectorStoreUnavailable):
            index.ensure_reachable(remote)
        assert time.monotonic() - started < 5
    finally:
        server.close()


def test_an_unreachable_server_is_not_searched_again(settings, monkeypatch):
    # each search probes the server for seconds; the retries are for local writers' races
    calls = []

    def gone(*args, **kwargs):
        calls.append(1)
        raise index.VectorStoreUnavailable("http://127.0.0.1:1")

    monkeypatch.setattr(index, "_dense_search", gone)
    with pytest.raises(index.VectorStoreUnavailable):
        index.dense_search(settings, "acme", np.zeros(4, dtype=np.float32), 5)
    assert len(calls) == 1
