"""The documents table (pure: registry rows in, DataFrame out)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from core.schema import is_paged
from core.store import document_notes
from ui.format import count_of, fmt_time
from ui.safe import clean, clip

# what to act on (an error, a note: "Out of force: ...") beside the status, in view: at the
# grid's far right they were cut at its edge (a QA pass read "Out of force: retenti")
COLUMNS = ["name", "status", "error", "notes", "pages", "chunks", "language", "format", "size KB", "uploaded at",
           "uploaded by", "doc_id"]


def filter_documents(docs: list[dict[str, Any]], search: str, status: str | None = None) -> list[dict[str, Any]]:
    """The documents whose file name holds `search` (or whose id it is), of one status when
    `status` is given."""
    needle = (search or "").strip().lower()
    return [d for d in docs if (status is None or d.get("status") == status)
            and (not needle or needle in (d.get("file_name") or "").lower() or needle == d.get("doc_id"))]


def status_counts(docs: list[dict[str, Any]]) -> dict[str, int]:
    """Documents per status, failed first (what an admin acts on), then by count."""
    counts: dict[str, int] = {}
    for d in docs:
        status = d.get("status") or "unknown"
        counts[status] = counts.get(status, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (kv[0] != "failed", -kv[1], kv[0])))


def tenant_summary(docs: list[dict[str, Any]]) -> str:
    """One line over the whole tenant: documents, passages, and how many uploads failed. A
    failed upload is no document ("15 documents · 4 failed" of 11 that answer: QA pass)."""
    chunks = sum(d.get("chunks") or 0 for d in docs)
    failed = sum(d.get("status") == "failed" for d in docs)
    return (f"{count_of(len(docs) - failed, 'document')} · {count_of(chunks, 'passage')}"
            + (f" · {count_of(failed, 'failed upload')}" if failed else ""))


def newest_first(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Failed uploads pinned on top (their error shown), then the newest upload first."""
    return sorted(docs, key=lambda d: (d.get("status") != "failed", -(d.get("uploaded_at") or 0)))


def documents_frame(docs: list[dict[str, Any]], out_of_force: dict[str, str] | None = None) -> pd.DataFrame:
    """One row per document. A failed file has no pages, language or format: those cells are
    missing values (nullable integers keep pages and chunks numeric, so they sort as numbers),
    which the page shows with a placeholder instead of "None". A document out of force
    (`out_of_force`: doc_id -> why, core/withdrawn.py) says so in its status and notes: a QA
    pass read the replaced 2019 policy as "ready" with nothing noted."""
    withdrawn = out_of_force or {}
    frame = pd.DataFrame([{
        "name": clean(d.get("file_name")),
        "status": f"{d.get('status')} · out of force" if d.get("doc_id") in withdrawn else d.get("status"),
        "pages": d.get("pages"), "chunks": d.get("chunks"), "language": d.get("lang"),
        "format": d.get("format"), "size KB": (d.get("size") or 0) / 1024,
        "uploaded at": fmt_time(d.get("uploaded_at")), "uploaded by": clean(d.get("uploaded_by")),
        "error": clip(clean(d.get("error") or ""), 300), "doc_id": d.get("doc_id"),
        "notes": clip(clean(f"Out of force: {withdrawn[d['doc_id']]}"), 200) if d.get("doc_id") in withdrawn
        else notes_cell(d),
    } for d in docs], columns=COLUMNS)
    for column in ("pages", "chunks"):
        frame[column] = pd.array(frame[column].tolist(), dtype="Int64")
    return frame


def drawn_by_page(original: Path | None) -> Path | None:
    """The kept original when the console can draw it page by page (a PDF, a page image)."""
    return original if original is not None and is_paged(original.name) else None


def notes_cell(doc: dict[str, Any]) -> str:
    """The first thing indexing noted about a document (pages read by OCR, left out,
    skipped...), and how many more; the document's own view lists them all."""
    notes = document_notes(doc)
    if not notes:
        return ""
    more = f" (+{len(notes) - 1} more)" if len(notes) > 1 else ""
    return clip(clean(notes[0]), 200) + more
