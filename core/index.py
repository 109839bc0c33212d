"""Per-tenant indexes: dense vectors in the tenant's Chroma collection, BM25 beside it.

SQLite's `chunks` table is the source of truth for chunk text and metadata; Chroma holds
the vectors and the BM25 index is rebuilt from SQLite whenever a document changes.
Every read takes a tenant; there is no "all tenants" variant.
"""

from __future__ import annotations

import gc
import json
import math
import shutil
import sqlite3
import threading
import time
import uuid
import zipfile
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from core import locks, store
from core.answer_vectors import AnswerVectors
from core.config import Settings
from core.lexical import TOKENIZER_VERSION, LexicalIndex, fingerprint
from core.schema import Chunk
from core.tenants import collection_name, tenant_dir

_lexical_cache: dict[str, tuple[str, LexicalIndex]] = {}
_cache_lock = threading.Lock()


# Open clients by (path or URL, remote), least recently used first. An embedded client holds
# its SQLite file, four files per collection and a runtime's threads open until it is closed:
# a process that opened many data folders (the test suite: one a test) ran past 1,024 open
# files, and select() in the OCR worker then failed. So a client pushed out is closed.
_clients: OrderedDict[tuple[str, bool], Any] = OrderedDict()
MAX_OPEN_CLIENTS = 8


def _client(path_or_url: str, remote: bool) -> Any:
    """The client of a path or URL, opened once (callers hold _client_lock)."""
    key = (path_or_url, remote)
    if key in _clients:
        _clients.move_to_end(key)
        return _clients[key]
    client = _open_client(path_or_url, remote)
    _clients[key] = client
    while len(_clients) > MAX_OPEN_CLIENTS:
        _, old = _clients.popitem(last=False)
        _close(old)
    return client


def _close(client: Any) -> None:
    try:
        client.close()
    except Exception:  # noqa: BLE001 - a client that fails to close is dropped all the same
        pass


def _open_client(path_or_url: str, remote: bool) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    chroma_settings = ChromaSettings(anonymized_telemetry=False)
    if remote:
        from urllib.parse import urlparse

        url = urlparse(path_or_url)
        _probe(path_or_url)  # the client's first request (made while it is built) has no timeout
        client = chromadb.HttpClient(
            host=url.hostname or "127.0.0.1", port=url.port or 8000,
            ssl=url.scheme == "https", settings=chroma_settings,
        )
        _bound_requests(client)
        return client
    Path(path_or_url).mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=path_or_url, settings=chroma_settings)


# Chroma's HttpClient waits forever for an answer (its httpx session has timeout=None): a
# server that accepted connections and never answered held `ingest` and every ask for good
CHROMA_PROBE_TIMEOUT_S = 5.0  # the heartbeat that decides "not reachable"
CHROMA_TIMEOUT_S = 120.0  # one request: a query or an add of a batch on a large tenant


def _probe(url: str) -> None:
    """Raise unless the server at `url` answers an HTTP request within the probe timeout (any
    status counts: it is alive; the client's own calls say what is wrong with it)."""
    import httpx

    httpx.get(url.rstrip("/") + "/api/v2/heartbeat", timeout=CHROMA_PROBE_TIMEOUT_S)


def _bound_requests(client: Any) -> None:
    """Give the client's HTTP session a timeout (Chroma offers no setting for it)."""
    import httpx

    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(CHROMA_TIMEOUT_S, connect=CHROMA_PROBE_TIMEOUT_S)


_client_lock = threading.Lock()


class VectorStoreUnavailable(RuntimeError):
    """The Chroma server of GROUNDWORK_CHROMA_URL does not answer; said in one sentence."""

    def __init__(self, url: str) -> None:
        super().__init__(f"The vector store at {url} is not reachable; start it (chroma run) or check "
                         "GROUNDWORK_CHROMA_URL, then try again.")


def chroma_client(settings: Settings) -> Any:
    """Chroma server when GROUNDWORK_CHROMA_URL is set, else the embedded persistent store.

    One client per path or URL, created under a lock: lru_cache alone lets two threads (the
    console's warm-up and the first question) build two clients of one path at once, and
    Chroma's shared system then fails one of them ("Could not connect to tenant
    default_tenant"). The embedded client caches what it read; when another process has
    written to the store since (a CLI ingest beside the running console), it is opened
    afresh, or it fails every search ("Error finding id") or searches a dropped collection."""
    with _client_lock:
        if settings.chroma_url:
            try:
                return _client(settings.chroma_url, True)
            except Exception as exc:  # noqa: BLE001 - chromadb says ValueError, httpx ConnectError...
                raise VectorStoreUnavailable(settings.chroma_url) from exc
        if _written_elsewhere(settings):
            _forget_clients()
        return _client(str(Path(settings.data_dir) / "chroma"), False)


def _forget_clients() -> None:
    """Drop every cached embedded client and Chroma's shared system (callers hold _client_lock)."""
    from chromadb.api.shared_system_client import SharedSystemClient

    _clients.clear()  # not closed: another thread may be searching with one; dropped, they close when freed
    SharedSystemClient.clear_system_cache()


# ---- writes by other processes -------------------------------------------------------------
# Every write to the embedded store leaves a new token in this file; a process that finds a
# token it did not write (or see) knows its client is stale.
_WRITE_TOKEN = "chroma.written"
_seen_tokens: dict[str, str] = {}


def _read_token(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii")
    except (FileNotFoundError, UnicodeDecodeError):
        return ""


def _written_elsewhere(settings: Settings) -> bool:
    path = Path(settings.data_dir) / _WRITE_TOKEN
    token = _read_token(path)
    seen = _seen_tokens.get(str(path), token)  # the first look sets what this process has seen
    _seen_tokens[str(path)] = token
    return seen != token


def note_write(settings: Settings) -> None:
    """Record a write to the embedded store (callers hold the tenant lock)."""
    if settings.chroma_url:
        return  # a server is the one owner of its state: no client goes stale
    path = Path(settings.data_dir) / _WRITE_TOKEN
    token = uuid.uuid4().hex
    tmp = path.with_suffix(f".{token}.tmp")
    tmp.write_text(token, encoding="ascii")
    tmp.replace(path)
    with _client_lock:
        _seen_tokens[str(path)] = token


# Chroma's default ef_search (100) missed 1 of the true 20 nearest passages in about 1
# question of 30 on the 2.6k-chunk handbook tenant, and not the same ones from process to
# process (the same question ranked differently in the CLI and the console); 400 found
# 99.9% of them, identically in every process, at no measurable cost per search there
EF_SEARCH = 400
HNSW = {"hnsw": {"space": "cosine", "ef_search": EF_SEARCH}}
# a collection being rebuilt without a deleted document's vectors (see delete_vectors)
REBUILD_SUFFIX = ".rebuild"
# Chroma caps one add at a few thousand records
COPY_BATCH = 1000


def _existing(client: Any, name: str) -> Any | None:
    from chromadb.errors import NotFoundError

    try:
        return client.get_collection(name, embedding_function=None)
    except (NotFoundError, ValueError):
        return None


def _searching_wide(found: Any) -> Any:
    """A collection made before EF_SEARCH was set searches with it from now on (ef_search is
    one of the few settings Chroma lets an existing collection change)."""
    hnsw = (getattr(found, "configuration_json", None) or {}).get("hnsw") or {}
    if hnsw.get("ef_search", 0) < EF_SEARCH:
        found.modify(configuration={"hnsw": {"ef_search": EF_SEARCH}})
    return found


def collection(settings: Settings, tenant: str) -> Any:
    """The tenant's collection, created when missing. Between dropping the old collection
    and renaming its rebuilt copy (delete_vectors), readers use the copy: it is complete."""
    client = chroma_client(settings)
    name = collection_name(tenant)
    found = _existing(client, name)
    if found is None:
        found = _existing(client, name + REBUILD_SUFFIX)
    if found is not None:
        return _searching_wide(found)
    # embedding_function=None: we always supply vectors; Chroma's default would download.
    return client.get_or_create_collection(name, embedding_function=None, configuration=HNSW,
                                           metadata={"tenant_key": name})


def _finish_rebuild(settings: Settings, client: Any, name: str) -> None:
    """Settle a rebuild a crash interrupted (callers hold the tenant lock): a copy whose
    original still exists may be incomplete and goes; a copy whose original was already
    dropped is complete and takes its name."""
    copy = _existing(client, name + REBUILD_SUFFIX)
    if copy is None:
        return
    if _existing(client, name) is not None:
        client.delete_collection(name + REBUILD_SUFFIX)
        sweep_segment_folders(settings)
    else:
        copy.modify(name=name)
        note_write(settings)


def finish_rebuild(settings: Settings, tenant: str) -> None:
    """Settle a vector rebuild a crash interrupted (callers hold the tenant lock)."""
    _finish_rebuild(settings, chroma_client(settings), collection_name(tenant))


def rebuild_pending(settings: Settings, tenant: str) -> bool:
    """Is a vector rebuild of the tenant's collection left unfinished?"""
    return _existing(chroma_client(settings), collection_name(tenant) + REBUILD_SUFFIX) is not None


def vector_store(settings: Settings, tenant: str) -> Any:
    """The tenant's collection as a LlamaIndex `ChromaVectorStore`: chunks go in as
    `TextNode`s with our own vectors, and come back with their similarity."""
    from llama_index.vector_stores.chroma import ChromaVectorStore

    return ChromaVectorStore(chroma_collection=collection(settings, tenant))


def add_vectors(settings: Settings, tenant: str, chunks: list[Chunk], vectors: np.ndarray) -> None:
    if not chunks:
        return
    from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

    nodes = [
        TextNode(id_=c.chunk_id, text=c.text, embedding=v.tolist(), metadata={"tenant": tenant},
                 relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=c.doc_id)})
        for c, v in zip(chunks, vectors)
    ]
    # the node's source document becomes the "doc_id" metadata that delete filters on
    vector_store(settings, tenant).add(nodes)
    note_write(settings)


def delete_vectors(settings: Settings, tenant: str, *doc_ids: str, keep_answer_vectors: bool = False) -> int:
    """Remove the vectors of the given documents in one rebuild; returns how many.

    Chroma's HNSW graph loses vectors after deletes: on the demo tenant re-indexed in place,
    4 of 244 chunks were never returned again, not even when asking for all 244 (`python -m
    evals.bench vectors` measures it); the loss shows after later adds reuse the deleted
    slots, so no check at delete time finds it. So documents are removed by copying every
    other vector into a fresh collection (adds only), which then takes the tenant's
    collection name. Callers hold the tenant lock. A document indexed again keeps its answer
    vectors (`keep_answer_vectors`): its preparation drops the ones it no longer uses."""
    if not doc_ids:
        return 0
    if not keep_answer_vectors:
        AnswerVectors.of(settings, tenant).forget(doc_ids)  # their sentences' vectors go with them
    client = chroma_client(settings)
    name = collection_name(tenant)
    _finish_rebuild(settings, client, name)
    old = collection(settings, tenant)
    where = {"doc_id": doc_ids[0]} if len(doc_ids) == 1 else {"doc_id": {"$in": list(doc_ids)}}
    doomed = set(old.get(where=where, include=[])["ids"])
    if not doomed:
        return 0
    copy = client.create_collection(name + REBUILD_SUFFIX, embedding_function=None, configuration=HNSW,
                                    metadata=old.metadata or {"tenant_key": name})
    try:
        total = old.count()
        for offset in range(0, total, COPY_BATCH):
            got = old.get(include=["embeddings", "metadatas", "documents"], limit=COPY_BATCH, offset=offset)
            keep = [i for i, cid in enumerate(got["ids"]) if cid not in doomed]
            if keep:
                copy.add(ids=[got["ids"][i] for i in keep],
                         embeddings=[got["embeddings"][i] for i in keep],
                         metadatas=[got["metadatas"][i] for i in keep],
                         documents=[got["documents"][i] for i in keep])
        if copy.count() != total - len(doomed):
            raise RuntimeError(f"Rebuilding the vector index of tenant {tenant!r} copied {copy.count()} of "
                               f"{total - len(doomed)} vectors; the index was left as it was.")
    except BaseException:
        client.delete_collection(name + REBUILD_SUFFIX)
        sweep_segment_folders(settings)
        raise
    client.delete_collection(name)
    copy.modify(name=name)
    note_write(settings)
    sweep_segment_folders(settings)
    # Chroma keeps a dropped collection's index files open in its client's cache, and with
    # them the disk they fill: 30 deletes held 120 deleted files open in one process (a
    # console deleting for days would run out of descriptors). Its client is dropped, not
    # closed (another thread may be searching with it), and collected now: the client and
    # Chroma's system refer to each other, so only the cycle collector frees them.
    fresh_client(settings)
    gc.collect()
    return len(doomed)


def has_collection(settings: Settings, tenant: str) -> bool:
    """Whether the tenant's collection (or a rebuild copy of it) exists, without creating it."""
    client = chroma_client(settings)
    name = collection_name(tenant)
    return any(_existing(client, found) is not None for found in (name, name + REBUILD_SUFFIX))


def drop_collection(settings: Settings, tenant: str) -> bool:
    """Drop the tenant's collection and any rebuild copy of it (a deleted tenant); False when
    there was none. Callers hold the tenant lock."""
    client = chroma_client(settings)
    name = collection_name(tenant)
    dropped = False
    for found in (name, name + REBUILD_SUFFIX):
        if _existing(client, found) is not None:
            client.delete_collection(found)
            dropped = True
    if dropped:
        note_write(settings)
        sweep_segment_folders(settings)
        # as after a rebuild (delete_vectors): the cached client holds the dropped files open
        fresh_client(settings)
        gc.collect()
    return dropped


def sweep_segment_folders(settings: Settings) -> int:
    """Remove the embedded store's vector-segment folders that no collection uses; how many.

    Chroma (1.5) drops a collection's rows but leaves its HNSW folder on disk, and a delete
    drops the tenant's collection for a fresh copy, so every delete left a whole copy of the
    tenant's vector index behind (three deletes in a clinic tenant: four folders for one
    collection). The folders are listed before the live segments are read: a collection
    created meanwhile, by any process, has its segment row before its folder, so its folder
    is never taken for a leftover. Reading Chroma's own table is best effort: if its layout
    changes, nothing is removed."""
    if settings.chroma_url:
        return 0  # a server keeps its own disk
    root = Path(settings.data_dir) / "chroma"
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and _is_uuid(p.name)]
        if not folders:
            return 0
        with sqlite3.connect(f"file:{root / 'chroma.sqlite3'}?mode=ro", uri=True) as conn:
            live = {str(row[0]) for row in conn.execute("SELECT id FROM segments")}
    except (OSError, sqlite3.Error):
        return 0
    if not live:
        return 0  # no segment at all reads as a layout we do not know: leave everything
    gone = [p for p in folders if p.name not in live]
    for folder in gone:
        shutil.rmtree(folder, ignore_errors=True)
    return len(gone)


def _is_uuid(name: str) -> bool:
    try:
        return str(uuid.UUID(name)) == name
    except ValueError:
        return False


def vectors_of_texts(settings: Settings, tenant: str, texts: list[str]) -> dict[str, np.ndarray]:
    """text -> the stored vector of a ready chunk of the tenant with exactly that text."""
    wanted = list(dict.fromkeys(texts))
    found: dict[str, str] = {}
    with store.connect(settings) as conn:
        for start in range(0, len(wanted), 500):
            part = wanted[start:start + 500]
            rows = conn.execute(
                f"SELECT c.chunk_id, c.text FROM chunks c JOIN documents d ON d.doc_id = c.doc_id "
                f"WHERE c.tenant=? AND d.status='ready' AND c.text IN ({','.join('?' * len(part))})",
                (tenant, *part)).fetchall()
            found.update((r["text"], r["chunk_id"]) for r in rows)
    if not found:
        return {}
    got = collection(settings, tenant).get(ids=list(found.values()), include=["embeddings"])
    by_id = dict(zip(got["ids"], got["embeddings"]))
    return {text: np.asarray(by_id[cid], dtype=np.float32) for text, cid in found.items() if cid in by_id}


def vector_doc_ids(settings: Settings, tenant: str) -> set[str]:
    got = collection(settings, tenant).get(include=["metadatas"])
    return {m["doc_id"] for m in got["metadatas"] or []}


def vector_count(settings: Settings, tenant: str, doc_id: str | None = None) -> int:
    col = collection(settings, tenant)
    if doc_id is None:
        return col.count()
    return len(col.get(where={"doc_id": doc_id}, include=[])["ids"])


def dense_search(settings: Settings, tenant: str, query_vec: np.ndarray, k: int,
                 doc_ids: list[str] | None = None) -> list[tuple[str, float]]:
    """(chunk_id, cosine similarity) best first, from the tenant's collection only (of the
    given documents only, when `doc_ids` is set).

    A search racing a write of another process can find the collection swapped or its
    segment changed under the client ("Error finding id", a dropped collection): it is
    asked again on a fresh client, a few times, and sees the committed state."""
    for attempt in range(READ_ATTEMPTS):
        try:
            return _dense_search(settings, tenant, query_vec, k, doc_ids)
        except Exception as exc:  # noqa: BLE001 - chromadb raises several kinds mid-write; the last try re-raises
            if isinstance(exc, VectorStoreUnavailable):
                raise  # a server that did not answer its probe: no race to wait out, and each probe costs seconds
            if attempt == READ_ATTEMPTS - 1:
                if settings.chroma_url and not isinstance(exc, VectorStoreUnavailable) and _unreachable(settings):
                    raise VectorStoreUnavailable(settings.chroma_url) from exc
                raise
            fresh_client(settings)
            time.sleep(0.05 * 2 ** attempt)
    return []


READ_ATTEMPTS = 5


def ensure_reachable(settings: Settings) -> None:
    """Raise VectorStoreUnavailable now when a configured Chroma server does not answer, so a
    long upload fails before minutes of parsing and embedding, not after them."""
    if settings.chroma_url and _unreachable(settings):
        raise VectorStoreUnavailable(settings.chroma_url)


def _unreachable(settings: Settings) -> bool:
    """Does the Chroma server fail its heartbeat (it went away after the client was made)?
    Asked with the probe's short timeout: a server that hangs is as unreachable as one gone."""
    try:
        _probe(str(settings.chroma_url))
        chroma_client(settings).heartbeat()
        return False
    except Exception:  # noqa: BLE001 - any failure to answer is "unreachable"
        return True


def fresh_client(settings: Settings) -> None:
    """Forget this process's embedded client, so the next call reads the store afresh."""
    if settings.chroma_url:
        return
    with _client_lock:
        _forget_clients()


def _dense_search(settings: Settings, tenant: str, query_vec: np.ndarray, k: int,
                  doc_ids: list[str] | None = None) -> list[tuple[str, float]]:
    from llama_index.core.vector_stores.types import VectorStoreQuery

    store_ = vector_store(settings, tenant)
    n = store_.client.count()
    if n == 0:
        return []
    # the collection is the tenant's own, and retrieval checks each hit's tenant in the
    # registry; a metadata filter on every search made Chroma pre-filter all the tenant's
    # vectors (235 ms a question at 100k chunks, against a few ms for the index alone)
    where = {"doc_id": {"$in": list(doc_ids)}} if doc_ids else None
    res = store_.query(VectorStoreQuery(query_embedding=[float(x) for x in query_vec], similarity_top_k=min(k, n)),
                       where=where)
    # ChromaVectorStore reports exp(-distance); the gate is calibrated on cosine = 1 - distance
    return [(cid, 1.0 + math.log(sim)) for cid, sim in zip(res.ids or [], res.similarities or [])]


# ---- lexical -----------------------------------------------------------------------------


# what reading a damaged BM25 version raises (a segment cut short, garbage, a file gone)
DAMAGED = (OSError, ValueError, KeyError, zipfile.BadZipFile)


def lexical_dir(settings: Settings, tenant: str) -> Path:
    return tenant_dir(settings, tenant) / "bm25"


def rebuild_lexical(settings: Settings, tenant: str, changed: Iterable[str] = ()) -> None:
    """Bring the tenant's BM25 index in line with the registry (atomic swap, see
    LexicalIndex.save): documents the registry no longer holds, or holds with other chunks,
    leave it; new ones are tokenized into a new segment; the rest stays as written. An
    index of another tokenizer version is built again whole. `changed` names documents
    to index again even when their chunks kept their ids and lengths (a re-index). A
    damaged current version (a file missing or unreadable) is built again whole too."""
    folder = lexical_dir(settings, tenant)
    try:  # writers hold the tenant's lock: no other writer removes this version meanwhile
        current = LexicalIndex.load(folder) if folder.exists() else LexicalIndex()
    except DAMAGED:
        current = LexicalIndex()
    if current.legacy or current.tokenizer_version != TOKENIZER_VERSION:
        current = LexicalIndex()
    want = {d: fingerprint(chunks) for d, chunks in store.chunk_lengths(settings, tenant).items()}
    changed = set(changed)
    removed = {d for d, fp in current.docs.items() if want.get(d) != fp or d in changed}
    added = sorted(d for d, fp in want.items() if current.docs.get(d) != fp or d in changed)
    if not removed and not added and folder.exists():
        return
    rows = store.chunk_rows_of(settings, tenant, added)
    current.updated(removed, [(r["chunk_id"], r["text"]) for r in rows],
                    {d: want[d] for d in added}).save(folder)


def lexical_ids(settings: Settings, tenant: str) -> list[str]:
    """The chunk ids the tenant's BM25 index holds (without loading the index)."""
    ids_file = lexical_dir(settings, tenant) / "ids.json"
    try:
        return list(json.loads(ids_file.read_text(encoding="utf-8")))
    except (FileNotFoundError, ValueError):
        return []


def lexical_index(settings: Settings, tenant: str) -> LexicalIndex:
    """The tenant's BM25 index, cached per process until a writer swaps in a new version.
    The folder is a link to the current version; a version is read whole or, when a
    writer removed it mid-read (two swaps during one read), read again at the new one."""
    folder = lexical_dir(settings, tenant)
    for attempt in range(READ_ATTEMPTS):
        try:
            return _lexical_index(settings, tenant, folder)
        except (FileNotFoundError, NotADirectoryError, ValueError):
            if attempt == READ_ATTEMPTS - 1:
                raise
            time.sleep(0.02 * 2 ** attempt)
    raise AssertionError("unreachable")


def _lexical_index(settings: Settings, tenant: str, folder: Path) -> LexicalIndex:
    current = folder.resolve() if folder.exists() else folder
    ids_file = current / "ids.json"
    stamp = f"{current}:{ids_file.stat().st_mtime_ns}" if ids_file.exists() else ""
    key = str(folder)
    with _cache_lock:
        cached = _lexical_cache.get(key)
        if cached and cached[0] == stamp:
            return cached[1]
    try:
        index = LexicalIndex.load(current)
    except (FileNotFoundError, NotADirectoryError):
        if folder.resolve() != current or not current.is_dir():
            raise  # a writer removed this version mid-read: read again (lexical_index)
        index = None  # the version is current and whole but a file of it is gone: damaged
    except DAMAGED:
        index = None  # a damaged file (the disk, a hand): built again from the registry
    if index is None or index.chunk_ids and _outdated(index, current):
        # damaged, written by an older tokenizer, or by bm25s before segments: built again
        # once, as a writer would, so the query's tokens and the index's agree
        with tenant_lock(settings, tenant):
            if _unusable(folder):
                rebuild_lexical(settings, tenant)
        return lexical_index(settings, tenant)
    with _cache_lock:
        _lexical_cache[key] = (stamp, index)
    return index


def lexical_damaged(settings: Settings, tenant: str) -> bool:
    """Can a file of the tenant's BM25 index not be read? (A reader builds it again at its
    next ask; `doctor` says so, and `--repair` builds it now.)"""
    folder = lexical_dir(settings, tenant)
    if not folder.exists():
        return False
    try:
        LexicalIndex.load(folder.resolve())
    except (FileNotFoundError, NotADirectoryError):
        return False  # no index yet (or a writer's swap): nothing damaged
    except DAMAGED:
        return True
    return False


def _unusable(folder: Path) -> bool:
    try:
        return _outdated(LexicalIndex.load(folder.resolve()), folder.resolve())
    except DAMAGED:
        return True


def _outdated(index: LexicalIndex, folder: Path) -> bool:
    return bool(index.chunk_ids) and (index.legacy or index.tokenizer_version != TOKENIZER_VERSION)


def lexical_search(settings: Settings, tenant: str, query: str, k: int) -> list[tuple[str, float]]:
    return lexical_index(settings, tenant).search(query, k)


# ---- locking -----------------------------------------------------------------------------


@contextmanager
def try_tenant_lock(settings: Settings, tenant: str) -> Iterator[bool]:
    """The tenant's writer lock if nobody holds it now: yields True when taken, else False."""
    folder = tenant_dir(settings, tenant)
    if not folder.is_dir():
        yield False
        return
    with locks.held_if_free(folder / ".lock") as taken:
        yield taken


@contextmanager
def tenant_lock(settings: Settings, tenant: str) -> Iterator[None]:
    """Serialise writers of one tenant across threads and processes (concurrent uploads)."""
    folder = tenant_dir(settings, tenant)
    folder.mkdir(parents=True, exist_ok=True)
    with locks.held(folder / ".lock"):
        yield
