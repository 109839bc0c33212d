"""Document lifecycle for a tenant: ingest (all-or-nothing), list, delete, re-index.

Ingest steps: read + hash -> parse -> chunk -> embed -> add vectors -> register chunks
(one SQLite transaction) -> rebuild BM25. Any failure undoes every step already taken,
so no chunk of a failed document stays in Chroma, BM25 or the registry.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core import index, store
from core.config import Settings
from core.ingest import IngestError, parse_file
from core.ingest.chunk import chunk_document
from core.models import get_embedder
from core.tenants import collection_name, tenant_dir, tenant_key, validate_tenant

Progress = Callable[[str, float], None]  # (stage, fraction 0..1)

SUPPORTED_SUFFIXES = (".pdf", ".docx", ".md", ".markdown", ".html", ".htm", ".txt", ".text")


@dataclass
class IngestResult:
    file_name: str
    status: str  # ready | unchanged | failed
    doc_id: str | None = None
    pages: int | None = None
    chunks: int = 0
    seconds: float = 0.0
    error: str | None = None
    replaced: str | None = None  # doc_id of the previous version, if any
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def ensure_tenant(settings: Settings, tenant: str) -> None:
    validate_tenant(tenant)
    store.upsert_tenant(settings, tenant, collection_name(tenant))


def _doc_id(tenant: str, sha: str) -> str:
    return "d" + hashlib.sha256(f"{tenant_key(tenant)}:{sha}".encode()).hexdigest()[:15]


def ingest_file(
    settings: Settings, tenant: str, path: Path, *, file_name: str | None = None,
    uploaded_by: str = "cli", progress: Progress | None = None,
) -> IngestResult:
    """Index one file for a tenant. Never raises for a bad file: the result says why."""
    started = time.perf_counter()
    path = Path(path)
    file_name = file_name or path.name
    report = progress or (lambda stage, frac: None)
    ensure_tenant(settings, tenant)
    try:
        data = path.read_bytes()
    except OSError as exc:
        return IngestResult(file_name, "failed", error=f"Cannot read the file ({exc.strerror}).")
    sha = hashlib.sha256(data).hexdigest()
    doc_id = _doc_id(tenant, sha)

    with index.tenant_lock(settings, tenant):
        same = [d for d in store.find_documents(settings, tenant, sha256=sha) if d["status"] == "ready"]
        if same:
            doc = same[0]
            return IngestResult(file_name, "unchanged", doc["doc_id"], doc["pages"], doc["chunks"],
                                time.perf_counter() - started)
        try:
            result = _index_new(settings, tenant, path, data, sha, doc_id, file_name, uploaded_by, report)
        except IngestError as exc:
            _record_failure(settings, tenant, doc_id, file_name, sha, len(data), uploaded_by, str(exc))
            return IngestResult(file_name, "failed", doc_id, error=str(exc),
                                seconds=time.perf_counter() - started)
        except Exception as exc:  # noqa: BLE001 - anything else is our bug; keep the index whole
            msg = f"Indexing failed unexpectedly ({type(exc).__name__}: {exc}); nothing was kept, try again."
            _record_failure(settings, tenant, doc_id, file_name, sha, len(data), uploaded_by, msg)
            return IngestResult(file_name, "failed", doc_id, error=msg,
                                seconds=time.perf_counter() - started)
    result.seconds = time.perf_counter() - started
    report("done", 1.0)
    return result


def _index_new(
    settings: Settings, tenant: str, path: Path, data: bytes, sha: str, doc_id: str,
    file_name: str, uploaded_by: str, report: Progress,
) -> IngestResult:
    timings: dict[str, float] = {}
    if len(data) > settings.max_file_mb * 1024 * 1024:
        raise IngestError(
            f"File is {len(data) / 1048576:.0f} MB; the limit is {settings.max_file_mb} MB — split it and upload the parts."
        )
    report("parse", 0.05)
    t = time.perf_counter()
    parsed = parse_file(path, settings)
    timings["parse"] = time.perf_counter() - t

    report("chunk", 0.2)
    t = time.perf_counter()
    chunks = chunk_document(parsed, doc_id=doc_id, tenant=tenant, source=file_name, settings=settings)
    timings["chunk"] = time.perf_counter() - t
    if not chunks:
        raise IngestError("The file holds no text to index; check that it is the document you meant.")

    t = time.perf_counter()
    embedder = get_embedder(num_threads=settings.embed_threads)
    vectors = []
    batch = 16
    for start in range(0, len(chunks), batch):
        vectors.append(embedder.embed_passages([c.text for c in chunks[start : start + batch]]))
        report("embed", 0.25 + 0.65 * min(1.0, (start + batch) / len(chunks)))
    import numpy as np

    matrix = np.vstack(vectors)
    timings["embed"] = time.perf_counter() - t

    report("index", 0.92)
    t = time.perf_counter()
    previous = [d for d in store.find_documents(settings, tenant, file_name=file_name) if d["doc_id"] != doc_id]
    kept = _keep_original(settings, tenant, path, doc_id)
    try:
        index.delete_vectors(settings, tenant, doc_id)  # leftovers of a crashed attempt
        index.add_vectors(settings, tenant, chunks, matrix)
        _register(settings, tenant, doc_id, file_name, sha, len(data), uploaded_by, parsed.pages,
                  chunks, kept, timings, previous)
        index.rebuild_lexical(settings, tenant)
    except BaseException:
        _undo(settings, tenant, doc_id, kept, previous)
        raise
    for old in previous:  # the new version is live; now drop the old one's vectors and file
        index.delete_vectors(settings, tenant, old["doc_id"])
        if old.get("path"):
            Path(old["path"]).unlink(missing_ok=True)
    timings["index"] = time.perf_counter() - t
    replaced = next((d["doc_id"] for d in previous if d["status"] == "ready"), None)
    return IngestResult(file_name, "ready", doc_id, parsed.pages, len(chunks), timings=timings,
                        replaced=replaced)


def _keep_original(settings: Settings, tenant: str, path: Path, doc_id: str) -> Path:
    folder = tenant_dir(settings, tenant) / "files"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{doc_id}{path.suffix.lower()[:10]}"
    tmp = target.with_name(target.name + ".tmp")
    shutil.copyfile(path, tmp)
    tmp.replace(target)
    return target


def _register(
    settings: Settings, tenant: str, doc_id: str, file_name: str, sha: str, size: int,
    uploaded_by: str, pages: int | None, chunks: list, kept: Path, timings: dict,
    previous: list[dict],
) -> None:
    langs = [c.lang for c in chunks]
    lang = max(set(langs), key=langs.count) if langs else "other"
    with store.connect(settings) as conn:
        for old in previous:
            conn.execute("DELETE FROM chunks WHERE doc_id=?", (old["doc_id"],))
            conn.execute("DELETE FROM documents WHERE doc_id=?", (old["doc_id"],))
        conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
        conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
        conn.execute(
            "INSERT INTO documents (doc_id, tenant, file_name, sha256, size, pages, chunks, status,"
            " error, uploaded_at, uploaded_by, format, lang, path, timings)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (doc_id, tenant, file_name, sha, size, pages, len(chunks), "ready", None, time.time(),
             uploaded_by, kept.suffix.lstrip("."), lang, str(kept), json.dumps(timings)),
        )
        conn.executemany(
            "INSERT INTO chunks (chunk_id, doc_id, tenant, ordinal, text, meta) VALUES (?,?,?,?,?,?)",
            [(c.chunk_id, doc_id, tenant, c.ordinal, c.text, json.dumps(_meta(c))) for c in chunks],
        )


def _meta(chunk: Any) -> dict[str, Any]:
    meta = asdict(chunk)
    meta.pop("text", None)
    return meta


def _undo(settings: Settings, tenant: str, doc_id: str, kept: Path, previous: list[dict]) -> None:
    """Remove every trace of a half-indexed document; the previous version stays live."""
    try:
        index.delete_vectors(settings, tenant, doc_id)
    finally:
        with store.connect(settings) as conn:
            conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
            conn.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
        if not any(str(kept) == d.get("path") for d in previous):
            kept.unlink(missing_ok=True)
        index.rebuild_lexical(settings, tenant)


def _record_failure(
    settings: Settings, tenant: str, doc_id: str, file_name: str, sha: str, size: int,
    uploaded_by: str, error: str,
) -> None:
    """A failed file is listed with its reason; it never replaces a working version."""
    with store.connect(settings) as conn:
        conn.execute(
            "DELETE FROM documents WHERE tenant=? AND file_name=? AND status='failed'", (tenant, file_name)
        )
        conn.execute(
            "INSERT OR REPLACE INTO documents (doc_id, tenant, file_name, sha256, size, pages, chunks,"
            " status, error, uploaded_at, uploaded_by) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            ("f" + doc_id[1:], tenant, file_name, sha, size, None, 0, "failed", error, time.time(),
             uploaded_by),
        )


def iter_files(paths: list[Path]) -> list[Path]:
    """Files named directly, plus supported files found in folders (sorted, recursive)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUPPORTED_SUFFIXES
                              and not f.name.startswith(".")))
        else:
            out.append(p)
    return out


def list_documents(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    validate_tenant(tenant)
    return store.list_documents(settings, tenant)


def delete_document(settings: Settings, tenant: str, doc_id: str) -> bool:
    """Remove a document from Chroma, BM25, the registry and the kept files. False if unknown."""
    doc = store.get_document(settings, tenant, doc_id)
    if doc is None:
        return False
    with index.tenant_lock(settings, tenant):
        index.delete_vectors(settings, tenant, doc_id)
        with store.connect(settings) as conn:
            conn.execute("DELETE FROM chunks WHERE doc_id=? AND tenant=?", (doc_id, tenant))
            conn.execute("DELETE FROM documents WHERE doc_id=? AND tenant=?", (doc_id, tenant))
        index.rebuild_lexical(settings, tenant)
        if doc.get("path"):
            Path(doc["path"]).unlink(missing_ok=True)
    return True


def reindex_document(settings: Settings, tenant: str, doc_id: str, progress: Progress | None = None) -> IngestResult:
    """Parse, chunk and embed a kept original again (e.g. after a chunker change)."""
    doc = store.get_document(settings, tenant, doc_id)
    if doc is None or not doc.get("path") or not Path(doc["path"]).exists():
        return IngestResult(doc["file_name"] if doc else doc_id, "failed",
                            error="The original file is not kept; upload it again.")
    original = Path(doc["path"])
    tmp = original.with_name(original.name + ".reindex" + original.suffix)
    shutil.copyfile(original, tmp)
    try:
        with index.tenant_lock(settings, tenant):
            with store.connect(settings) as conn:  # same bytes: clear so ingest does not skip it
                conn.execute("UPDATE documents SET status='reindexing' WHERE doc_id=?", (doc_id,))
        result = ingest_file(settings, tenant, tmp, file_name=doc["file_name"],
                             uploaded_by=doc.get("uploaded_by") or "reindex", progress=progress)
    finally:
        tmp.unlink(missing_ok=True)
    if result.status == "failed":
        with store.connect(settings) as conn:
            conn.execute("UPDATE documents SET status='ready' WHERE doc_id=?", (doc_id,))
    return result


def original_path(settings: Settings, tenant: str, doc_id: str) -> Path | None:
    doc = store.get_document(settings, tenant, doc_id)
    if doc and doc.get("path") and Path(doc["path"]).exists():
        return Path(doc["path"])
    return None
