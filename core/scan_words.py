"""The words OCR read on a document's scanned pages, with their boxes, kept so that a quote
from a scan is boxed on its page like a quote from a digital page: the kept original has
no text there for `search_for` to find (core/highlight.py).

Derived data, one gzip'd JSON file per document under the tenant's folder
(`scans/<doc_id>.json.gz`): written after the document is indexed, dropped with it. A
missing file only costs the box (the page is still shown); a re-index writes it again.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from core.config import Settings
from core.tenants import tenant_dir

# (x0, y0, x1, y1, word, block, line): PyMuPDF's "words" of a page, in page units
Word = tuple[float, float, float, float, str, int, int]
_TURNS = "turns"  # the key beside the page numbers that holds the pages' turns


def _file(settings: Settings, tenant: str, doc_id: str) -> Path:
    return tenant_dir(settings, tenant) / "scans" / f"{doc_id}.json.gz"


def save(settings: Settings, tenant: str, doc_id: str, pages: dict[int, list[Word]],
         turns: dict[int, int] | None = None) -> None:
    """Keep the words of a document's scanned pages (page number -> words), and the quarter
    turns (degrees clockwise) that stood the pages fed the wrong way upright, so the console
    shows them upright; no words: drop them."""
    if not pages:
        drop(settings, tenant, [doc_id])
        return
    path = _file(settings, tenant, doc_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    rows: dict[str, object] = {str(page): [[round(w[0], 1), round(w[1], 1), round(w[2], 1), round(w[3], 1), w[4],
                                            w[5], w[6]] for w in words] for page, words in pages.items()}
    if turns:
        rows[_TURNS] = {str(page): turn for page, turn in turns.items()}
    tmp.write_bytes(gzip.compress(json.dumps(rows, ensure_ascii=False).encode("utf-8"), mtime=0))
    os.replace(tmp, path)  # a reader sees the old file or the new one, never half of one


@dataclass(frozen=True)
class Kept:
    """What is kept of a document's scanned pages: page -> OCR words, and page -> degrees
    clockwise a page fed the wrong way was turned to be read."""

    words: dict[int, list[Word]]
    turns: dict[int, int]


def read(settings: Settings, tenant: str, doc_id: str) -> Kept:
    """Both, from one read of the file; empty when the document has none (or they are lost)."""
    rows = _rows(settings, tenant, doc_id)
    return Kept({int(page): [tuple(w) for w in words] for page, words in rows.items() if page.isdigit()},
                {int(page): int(turn) for page, turn in (rows.get(_TURNS) or {}).items()})


def load(settings: Settings, tenant: str, doc_id: str) -> dict[int, list[Word]]:
    """The kept words of a document's scanned pages; {} when it has none (or they are lost)."""
    return read(settings, tenant, doc_id).words


def turns(settings: Settings, tenant: str, doc_id: str) -> dict[int, int]:
    """Page number -> degrees clockwise that stood a page fed the wrong way upright; {} for none."""
    return read(settings, tenant, doc_id).turns


def _rows(settings: Settings, tenant: str, doc_id: str) -> dict:
    try:
        rows = json.loads(gzip.decompress(_file(settings, tenant, doc_id).read_bytes()))
    except (OSError, ValueError, EOFError):
        return {}
    return rows if isinstance(rows, dict) else {}


def drop(settings: Settings, tenant: str, doc_ids: Iterable[str]) -> None:
    for doc_id in doc_ids:
        _file(settings, tenant, doc_id).unlink(missing_ok=True)


def kept_for(settings: Settings, tenant: str) -> list[str]:
    """The doc_ids whose OCR words are kept (for the doctor: words a crash left behind)."""
    folder = tenant_dir(settings, tenant) / "scans"
    return sorted(p.name.removesuffix(".json.gz") for p in folder.glob("*.json.gz")) if folder.is_dir() else []
