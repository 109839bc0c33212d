"""Prepare a tenant's answer vectors ahead of its questions: every sentence and table row
the answer step could score (core/answer/signals.py `unit_candidates`), alone and read with
its heading and the sentence before it (`windows`), embedded once and stored
(core/answer_vectors.py). A prepared tenant embeds only the question when it is asked.

Not part of making a document ready: a document answers as soon as it is indexed, and a
question before preparation embeds its candidates' units itself (and stores them). It runs
after an ingest (the CLI, the console's upload) or alone (`python -m core.cli prepare`);
stopped halfway it loses nothing: what is stored stays, the rest is done next time.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core import store
from core.answer.signals import unit_candidates, windows
from core.answer.vectors import fill, model_name
from core.answer_vectors import AnswerVectors, key_of, preparing
from core.background import until_finished
from core.config import Settings
from core.retrieve import candidate_of

log = logging.getLogger(__name__)

# texts per embedding call: one call embeds its texts in parallel, so small calls leave a
# core idle while the longest text of the call finishes
BATCH_TEXTS = 128


@dataclass
class Prepared:
    units: int  # texts the tenant's documents hold (units and windows)
    embedded: int  # of which embedded now (the rest were stored already)
    seconds: float


def texts_of(row: dict[str, Any]) -> list[str]:
    """The unit texts and window texts the answer step would embed for one chunk."""
    passage = candidate_of(row)
    kept = unit_candidates([passage])
    return [u.text for _, u in kept] + windows([passage], kept)


def prepare_answer_vectors(settings: Settings, tenant: str, embedder: Any, doc_ids: list[str] | None = None,
                           progress: Callable[[int, int], None] | None = None) -> Prepared:
    """Embed and store every unit text of the tenant's documents (or of `doc_ids`) that is
    not stored yet; `progress(done, total)` counts chunks."""
    started = time.perf_counter()
    stored = AnswerVectors.of(settings, tenant)
    model = model_name(embedder)
    rows = [r for d in (doc_ids or [None]) for r in store.chunk_rows(settings, tenant, d) if not r["disabled"]]
    total = embedded = 0
    pending: dict[str, tuple[str, str]] = {}  # key -> (doc_id, text)

    def flush() -> None:
        nonlocal embedded
        embedded += fill(embedder, pending, stored)[1]
        pending.clear()

    used: dict[str, set[str]] = {}  # doc_id -> the keys its text uses now
    for n, row in enumerate(rows, 1):
        for text in texts_of(row):
            total += 1
            key = key_of(model, text)
            used.setdefault(row["doc_id"], set()).add(key)
            pending.setdefault(key, (row["doc_id"], text))
        if len(pending) >= BATCH_TEXTS:
            flush()
        if progress:
            progress(n, len(rows))
    flush()
    for doc_id, keys in used.items():  # rows a replaced version handed over and no longer uses
        stored.keep_only(doc_id, keys)
    return Prepared(total, embedded, time.perf_counter() - started)


# ---- in the background, for long-running processes (the console, the HTTP API) ----------

_jobs: queue.Queue = queue.Queue()
_worker: threading.Thread | None = None
_worker_lock = threading.Lock()
# tenant key (data folder, tenant) -> [documents queued or running, chunks done, chunks in the running job]
_progress: dict[tuple[str, str], list[int]] = {}


@dataclass(frozen=True)
class BackgroundState:
    """What this process's background preparation is doing for one tenant."""

    documents: int  # documents queued or being prepared
    chunks_done: int  # of the one being prepared now
    chunks_total: int


def background_state(settings: Settings, tenant: str) -> BackgroundState | None:
    """None when nothing of this tenant waits for preparation in this process."""
    with _worker_lock:
        got = _progress.get((str(settings.data_dir), tenant))
        return BackgroundState(*got) if got else None


def _count(settings: Settings, tenant: str, documents: int) -> None:
    with _worker_lock:
        key = (str(settings.data_dir), tenant)
        state = _progress.setdefault(key, [0, 0, 0])
        state[0] += documents
        if state[0] <= 0:
            del _progress[key]


def prepare_in_background(settings: Settings, tenant: str, doc_ids: list[str]) -> None:
    """Queue the preparation of these documents' answer vectors on this process's one
    background thread, so an upload returns as soon as its document is ready. A failure
    there is logged and costs only time: questions embed what is missing."""
    global _worker
    _count(settings, tenant, len(doc_ids))
    _jobs.put((settings, tenant, list(doc_ids)))
    with _worker_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_work, name="prepare-answer-vectors", daemon=True)
            _worker.start()


def wait_for_background(timeout: float = 60.0) -> bool:
    """Until the queued preparations are done (for tests and orderly shutdown)."""
    return until_finished(_jobs, timeout)


def _work() -> None:
    from core.models import get_embedder

    while True:
        settings, tenant, doc_ids = _jobs.get()
        key = (str(settings.data_dir), tenant)

        def progress(done: int, total: int, key: tuple[str, str] = key) -> None:
            with _worker_lock:
                if key in _progress:
                    _progress[key][1:] = [done, total]

        try:
            if not store.tenant_exists(settings, tenant):
                continue  # deleted since it was queued: preparing would make its folder again
            # the same lock as the CLI's prepare: a console upload during `core.cli prepare`
            # of the tenant waits, then embeds only what is left, not everything alongside it
            with preparing(settings, tenant):
                prepare_answer_vectors(settings, tenant, get_embedder(num_threads=settings.embed_threads),
                                       doc_ids, progress=progress)
        except Exception:  # a cache: never let it take the process down
            log.exception("preparing the answer vectors of %s in tenant %s failed", doc_ids, tenant)
        finally:
            progress(0, 0)
            _count(settings, tenant, -len(doc_ids))
            _jobs.task_done()
