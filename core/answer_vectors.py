"""A tenant's stored vectors of answer units: the e5 vectors of the sentences and table
rows the answer step scores (and of each read with its heading and the sentence before it),
so a question embeds only itself once a tenant's documents are prepared.

One SQLite file per tenant (`tenants/<16 hex>/answer_vectors.sqlite`), keyed by a hash of
the embedder's name and the unit's text, each row owned by the document it was computed for.
It is derived data: a lost or stale row costs one embedding, never a different answer,
because vectors are kept (and, computed afresh, used) at float16 either way. Rows go when
their document's vectors go (`core/index.py` delete_vectors), and a crash between the two
leaves rows that are only never read again. A new version of a document takes over the old
one's rows (`hand_over`), so its unchanged sentences are not embedded again, and preparing a
document drops the rows of its own that its text no longer uses (`keep_only`). Preparations
of one tenant take turns (`preparing`), so a second finds the first's vectors stored.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from core import locks
from core.config import Settings
from core.tenants import tenant_dir

FILE_NAME = "answer_vectors.sqlite"
LOCK_NAME = "answer_vectors.lock"
DIM = 384
SCHEMA = ("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, doc_id TEXT NOT NULL, vector BLOB NOT NULL)",
          "CREATE INDEX IF NOT EXISTS vectors_doc ON vectors(doc_id)")


def key_of(model: str, text: str) -> str:
    return hashlib.sha1(f"{model}\n{text}".encode()).hexdigest()


def as_stored(vectors: np.ndarray) -> np.ndarray:
    """The precision vectors are kept at; a vector computed at question time is rounded the
    same way, so a prepared tenant and an unprepared one score alike."""
    return np.asarray(vectors, dtype=np.float16).astype(np.float32)


@contextmanager
def preparing(settings: Settings, tenant: str, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the tenant's preparation lock (across threads and processes); a second
    preparation waits here and then embeds only what the first left undone, instead of
    everything alongside it. `on_wait()` is called once when another holds the lock.

    Not the writer lock (core/index.py `tenant_lock`): preparing takes minutes and must not
    hold up uploads and deletes, and the vectors are derived data that needs no settling."""
    folder = tenant_dir(settings, tenant)
    folder.mkdir(parents=True, exist_ok=True)
    with locks.held(folder / LOCK_NAME, on_wait):
        yield


class AnswerVectors:
    """Get and put unit vectors of one tenant. Every failure of the file (missing, locked,
    read-only, not a database) reads as "nothing stored" and writes nothing: a cache that
    cannot be used costs time, not answers."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def of(cls, settings: Settings, tenant: str) -> AnswerVectors:
        return cls(tenant_dir(settings, tenant) / FILE_NAME)

    @contextmanager
    def _db(self, create: bool = False) -> Iterator[sqlite3.Connection | None]:
        """A connection, or None when there is no file to read (and `create` is off)."""
        if not self.path.exists() and not create:
            yield None
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            if create:
                conn.execute("PRAGMA journal_mode=WAL")
                for statement in SCHEMA:
                    conn.execute(statement)
            yield conn
        finally:
            conn.close()

    def get(self, keys: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        try:
            with self._db() as conn:
                for start in range(0, len(keys) if conn else 0, 500):
                    part = keys[start:start + 500]
                    rows = conn.execute(f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(part))})",
                                        part).fetchall()
                    out.update((k, np.frombuffer(b, dtype=np.float16).astype(np.float32))
                               for k, b in rows if len(b) == 2 * DIM)
        except sqlite3.Error:
            pass  # what was read stands
        return out

    def put(self, rows: Iterable[tuple[str, str, np.ndarray]]) -> int:
        """Store (key, doc_id, vector) rows; returns how many were new (a key stored already,
        for the same text in another chunk, stays as it is)."""
        items = [(k, d, np.asarray(v, dtype=np.float16).tobytes()) for k, d, v in rows]
        if not items:
            return 0
        try:
            with self._db(create=True) as conn:
                conn.execute("BEGIN IMMEDIATE")
                before = conn.total_changes
                conn.executemany("INSERT OR IGNORE INTO vectors (key, doc_id, vector) VALUES (?, ?, ?)", items)
                conn.execute("COMMIT")
                return conn.total_changes - before
        except (sqlite3.Error, OSError):
            return 0

    def _write_many(self, sql: str, rows: list[tuple]) -> None:
        """One statement for each row on an existing file; a failure writes nothing more."""
        try:
            with self._db() as conn:
                if conn and rows:
                    conn.executemany(sql, rows)
        except sqlite3.Error:
            pass

    def forget(self, doc_ids: Iterable[str]) -> None:
        self._write_many("DELETE FROM vectors WHERE doc_id=?", [(i,) for i in doc_ids])

    def hand_over(self, old_ids: Iterable[str], new_id: str) -> None:
        """Make `new_id` the owner of the rows of `old_ids` (a document replaced by a new version)."""
        self._write_many("UPDATE vectors SET doc_id=? WHERE doc_id=?", [(new_id, i) for i in old_ids if i != new_id])

    def keep_only(self, doc_id: str, keys: set[str]) -> int:
        """Drop the rows `doc_id` owns whose key is not in `keys`; returns how many went."""
        try:
            with self._db() as conn:
                if conn is None:
                    return 0
                owned = [k for (k,) in conn.execute("SELECT key FROM vectors WHERE doc_id=?", (doc_id,))]
                stale = [(k,) for k in owned if k not in keys]
                conn.executemany("DELETE FROM vectors WHERE key=?", stale)
                return len(stale)
        except sqlite3.Error:
            return 0

    def count(self, doc_id: str | None = None) -> int:
        try:
            with self._db() as conn:
                if conn is None:
                    return 0
                if doc_id is None:
                    return int(conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])
                return int(conn.execute("SELECT COUNT(*) FROM vectors WHERE doc_id=?", (doc_id,)).fetchone()[0])
        except sqlite3.Error:
            return 0
