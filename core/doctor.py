"""Do a tenant's four stores agree, and make them agree.

The registry (SQLite: documents and chunks, committed in one transaction per write) is
the truth; the other three stores follow it:

1. Vectors (Chroma): every chunk of a ready document has its vector; no vector belongs to
   a document the registry does not hold as ready. Orphans are deleted; missing vectors
   are embedded again from the registry's chunk text.
2. BM25: its chunk ids are exactly the registry's; otherwise it is rebuilt.
3. Kept originals (`tenants/<key>/files/`): a file no registry row names is deleted; a
   ready document whose original is gone is reported (only a new upload brings it back).
4. Leftovers of interrupted writes: BM25 temp folders, half-copied files, an
   interrupted vector rebuild; removed or finished.

`check` only looks; `repair` fixes and returns what it found. `doc_ids` narrows the vector
comparison to the documents a write-ahead record names (core/journal.py), which keeps the
settling of one crashed write cheap on a large tenant; the other checks are always whole.

`unfinished_deletions` looks past the tenant asked about: a tenant deletion left half-done
(core/tenant_deletion.py) is invisible to every listing, so the doctor names what is left of it.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core import index, scan_words, store
from core.config import Settings
from core.lexical import stale_versions
from core.models import EMBED_BATCH
from core.processes import process_alive
from core.tenants import collection_name, tenant_dir


@dataclass
class Findings:
    orphan_vectors: dict[str, int] = field(default_factory=dict)  # doc_id -> vectors of no ready document
    missing_vectors: dict[str, int] = field(default_factory=dict)  # doc_id -> registry chunks with no vector
    bm25_missing: int = 0  # registry chunks BM25 does not hold
    bm25_extra: int = 0  # BM25 entries the registry does not hold
    bm25_damaged: bool = False  # a file of the BM25 index cannot be read
    orphan_files: list[str] = field(default_factory=list)
    orphan_scans: list[str] = field(default_factory=list)  # doc_ids whose kept OCR words outlived them
    missing_files: list[str] = field(default_factory=list)  # file names of ready documents
    leftovers: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        """The stores agree (a missing original is reported but is no disagreement of indexes)."""
        return not (self.orphan_vectors or self.missing_vectors or self.bm25_missing or self.bm25_extra
                    or self.bm25_damaged or self.orphan_files or self.orphan_scans or self.leftovers)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "consistent": self.consistent}

    def lines(self) -> list[str]:
        """One sentence per disagreement (each one `repair` fixes), for the CLI."""
        out = [f"{n} vector(s) of document {d}, which the registry does not hold" for d, n in self.orphan_vectors.items()]
        out += [f"{n} chunk(s) of document {d} have no vector" for d, n in self.missing_vectors.items()]
        if self.bm25_damaged:
            out.append("a file of the BM25 index cannot be read (the next ask builds it again; --repair does now)")
        elif self.bm25_missing or self.bm25_extra:
            out.append(f"the BM25 index lacks {self.bm25_missing} chunk(s) and holds {self.bm25_extra} it should not")
        out += [f"kept file {name} belongs to no document" for name in self.orphan_files]
        out += [f"OCR words of document {d}, which the registry does not hold" for d in self.orphan_scans]
        out += [f"leftover of an interrupted write: {name}" for name in self.leftovers]
        return out

    def notes(self) -> list[str]:
        """What no repair brings back."""
        return [f"the original of {name} is missing (upload it again to view or re-index it)"
                for name in self.missing_files]


def _registry(settings: Settings, tenant: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
    """Ready documents, and chunk id -> {doc_id, text} of every registered chunk."""
    docs = [d for d in store.find_documents(settings, tenant) if d["status"] == "ready"]
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT chunk_id, doc_id, text FROM chunks WHERE tenant=? ORDER BY doc_id, ordinal",
                            (tenant,)).fetchall()
    return docs, {r["chunk_id"]: {"doc_id": r["doc_id"], "text": r["text"]} for r in rows}


def _vectors(settings: Settings, tenant: str, doc_ids: list[str] | None) -> dict[str, set[str]]:
    """doc_id -> chunk ids holding a vector (of the named documents, or all)."""
    col = index.collection(settings, tenant)
    if doc_ids is not None and not doc_ids:
        return {}
    where = None if doc_ids is None else {"doc_id": {"$in": list(doc_ids)}} if len(doc_ids) > 1 \
        else {"doc_id": doc_ids[0]}
    got = col.get(where=where, include=["metadatas"])
    out: dict[str, set[str]] = {}
    for cid, meta in zip(got["ids"], got["metadatas"] or []):
        out.setdefault((meta or {}).get("doc_id", ""), set()).add(cid)
    return out


def check(settings: Settings, tenant: str, doc_ids: list[str] | None = None) -> Findings:
    docs, chunks = _registry(settings, tenant)
    ready = {d["doc_id"] for d in docs}
    found = Findings()
    vectors = _vectors(settings, tenant, doc_ids)
    wanted: dict[str, set[str]] = {}
    for cid, row in chunks.items():
        if row["doc_id"] in ready and (doc_ids is None or row["doc_id"] in doc_ids):
            wanted.setdefault(row["doc_id"], set()).add(cid)
    for doc_id, have in vectors.items():
        extra = have - wanted.get(doc_id, set())
        if extra:
            found.orphan_vectors[doc_id] = len(extra)
    for doc_id, want in wanted.items():
        lacking = want - vectors.get(doc_id, set())
        if lacking:
            found.missing_vectors[doc_id] = len(lacking)

    found.bm25_damaged = index.lexical_damaged(settings, tenant)
    lexical = set(index.lexical_ids(settings, tenant))
    registered = {cid for cid, row in chunks.items() if row["doc_id"] in ready}
    found.bm25_missing, found.bm25_extra = len(registered - lexical), len(lexical - registered)

    folder = tenant_dir(settings, tenant)
    kept = {Path(d["path"]).name for d in docs if d.get("path")}
    files = folder / "files"
    for path in sorted(files.iterdir()) if files.is_dir() else []:
        if path.name not in kept:
            found.orphan_files.append(path.name)
    found.orphan_scans = [d for d in scan_words.kept_for(settings, tenant) if d not in ready]
    found.missing_files = sorted(d["file_name"] for d in docs
                                 if d.get("path") and not (files / Path(d["path"]).name).exists())
    found.leftovers = [p.name for p in stale_versions(index.lexical_dir(settings, tenant))]
    if index.rebuild_pending(settings, tenant):
        found.leftovers.append(collection_name(tenant) + index.REBUILD_SUFFIX)
    return found


def repair(settings: Settings, tenant: str, doc_ids: list[str] | None = None) -> Findings:
    """Make the stores follow the registry (callers hold the tenant lock); returns what
    was found before the repair."""
    index.finish_rebuild(settings, tenant)
    found = check(settings, tenant, doc_ids)
    folder = tenant_dir(settings, tenant)
    for name in found.leftovers:
        path = folder / name
        if path.is_symlink() or path.is_file():
            path.unlink(missing_ok=True)
        else:
            shutil.rmtree(path, ignore_errors=True)
    stale = set(found.orphan_vectors)
    _, chunks = _registry(settings, tenant) if found.missing_vectors or stale else ({}, {})
    # a ready document with missing or foreign vectors gets all of its vectors again
    refill = (set(found.missing_vectors) | stale) & {row["doc_id"] for row in chunks.values()}
    if stale - refill:
        index.delete_vectors(settings, tenant, *(stale - refill))
    if refill:
        _embed_again(settings, tenant, [(cid, row) for cid, row in chunks.items() if row["doc_id"] in refill])
    if found.bm25_missing or found.bm25_extra or found.bm25_damaged:
        index.rebuild_lexical(settings, tenant)
    for name in found.orphan_files:
        (folder / "files" / name).unlink(missing_ok=True)
    scan_words.drop(settings, tenant, found.orphan_scans)
    return found


@dataclass
class _Chunk:
    chunk_id: str
    doc_id: str
    text: str


def _embed_again(settings: Settings, tenant: str, rows: list[tuple[str, dict[str, str]]]) -> None:
    """Vectors for registered chunks that lost theirs, from the registry's text; a
    document's remaining vectors are dropped first so that none is held twice."""
    import numpy as np

    from core.models import get_embedder

    docs = sorted({row["doc_id"] for _, row in rows})
    index.delete_vectors(settings, tenant, *docs)
    embedder = get_embedder(num_threads=settings.embed_threads)
    chunks = [_Chunk(cid, row["doc_id"], row["text"]) for cid, row in rows]
    for start in range(0, len(chunks), EMBED_BATCH):
        part = chunks[start : start + EMBED_BATCH]
        index.add_vectors(settings, tenant, part, np.asarray(embedder.embed_passages([c.text for c in part])))


def unfinished_deletions(settings: Settings) -> dict[str, str]:
    """Tenant -> one sentence, for each tenant whose deletion was decided and not finished: what is left of it,
    and whether its process still runs or what finishes it."""
    from core.tenant_deletion import TENANT_TABLES, tenant_paths

    out: dict[str, str] = {}
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT id, deleting_pid, deleting_pid_start FROM tenants "
                            "WHERE deleting_at IS NOT NULL ORDER BY deleting_at").fetchall()
        left_rows = {r["id"]: sum(conn.execute(f"SELECT count(*) FROM {table} WHERE tenant=?", (r["id"],)).fetchone()[0]
                                  for table in TENANT_TABLES) for r in rows}
    for row in rows:
        tenant = row["id"]
        left = [f"{left_rows[tenant]} row(s)"] if left_rows[tenant] else []
        if index.has_collection(settings, tenant):
            left.append("its vector collection")
        paths = sum(1 for p in tenant_paths(settings, tenant) if p.exists())
        if paths:
            left.append(f"{paths} folder(s) or file(s)")
        what = ", ".join(left) if left else "only its tombstone"
        if process_alive(row["deleting_pid"], row["deleting_pid_start"]):
            out[tenant] = (f"tenant {tenant!r} is being deleted by a running process (pid {row['deleting_pid']}); "
                           f"{what} left, which it removes")
        else:
            out[tenant] = (f"tenant {tenant!r} was left half-deleted by a process that stopped: {what} left; the "
                           f"API or the console finishes it as it starts, or `python -m core.cli tenants delete "
                           f"--tenant {tenant!r} --yes` now")
    return out
