"""Room on the data folder's disk: checked before a write starts, and a full disk named as such.

On a full disk Chroma's embedded store (Rust) first failed adds with "Error in compaction:
Failed to apply logs to the metadata segment" or "(code: 13) database or disk is full", and
then hung for good inside an add, holding the tenant's lock (measured on a 40 MB tmpfs), so
every later write of the tenant waited behind it. A write is therefore refused up front
when the disk has too little room for it, with one sentence that says so.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from core.config import Settings

# headroom every write needs beyond its own bytes: Chroma's write-ahead log and compaction,
# SQLite's journal, the BM25 version written beside the live one
MIN_FREE_BYTES = 32 * 1024 * 1024
# what one chunk costs on disk, generously: its vector in Chroma's log, HNSW files and
# metadata segment, its text in Chroma and in the registry, its BM25 counts
BYTES_PER_CHUNK = 32 * 1024
# a delete adds no vectors of its own: it writes a copy of the tenant's other vectors
# (core/index.py delete_vectors, counted per chunk above), their BM25 and a few registry
# pages, so it needs far less headroom than an ingest, and refusing it on a nearly full
# disk took away the way to free space. On a 40 MB tmpfs a delete that copies nothing
# succeeded with 0.25 MB free and one that copies 54 chunks needed 1-2 MB.
DELETE_HEADROOM_BYTES = 2 * 1024 * 1024
# Chroma's compaction error is how a full disk first showed on the tmpfs; with room left
# `full_sentence` does not blame the space
_FULL_WORDS = ("database or disk is full", "no space left on device", "disk i/o error", "disk is full",
               "failed to apply logs to the metadata segment")


class DiskFull(RuntimeError):
    """The data folder's disk has no room for a write; the message says how much it needs."""


def free_bytes(settings: Settings) -> int:
    """Free bytes on the disk holding the data folder (its nearest existing parent)."""
    folder = Path(settings.data_dir)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def ensure_room(settings: Settings, need_bytes: int, what: str, headroom: int = MIN_FREE_BYTES) -> None:
    """Raise DiskFull unless the data folder's disk has `need_bytes` plus `headroom` free."""
    free, need = free_bytes(settings), need_bytes + headroom
    if free < need:
        raise DiskFull(f"The disk holding the data folder {settings.data_dir} has {_mb(free)} free and {what} "
                       f"needs about {_mb(need)}; free some space on it and try again.")


def is_full(exc: BaseException) -> bool:
    """Whether an error from SQLite, Chroma or the file system means the disk is full."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return any(words in str(exc).lower() for words in _FULL_WORDS)


def full_sentence(settings: Settings) -> str:
    """What to say when a write failed because the disk filled up during it (SQLite says
    "disk I/O error" when it cannot even grow its shared-memory file; with room left on
    the disk that error has another cause, and the sentence does not blame the space)."""
    free = free_bytes(settings)
    if free >= MIN_FREE_BYTES:
        return (f"Reading or writing the data folder {settings.data_dir} failed at the disk ({_mb(free)} free); "
                "check that its disk is healthy and writable, then try again.")
    return (f"The disk holding the data folder {settings.data_dir} is full ({_mb(free)} free); "
            "free some space on it and try again.")


def _mb(n: int) -> str:
    return f"{n / 1048576:,.0f} MB"
