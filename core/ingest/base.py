"""The parser extension point and the one error type of ingest.

Kept apart from `core/ingest/__init__.py` so parser modules can import it without a cycle.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from core.schema import SUPPORTED_FORMATS, ParsedDocument

SUPPORTED_HINT = f"upload {SUPPORTED_FORMATS}"
NOT_PDF = "The file is not a valid PDF (it may be corrupt)."
NOT_DOCX = ("The file is not a valid Word document (DOCX); it may be damaged, so open it in Word, "
            "save it again and upload it.")
NOT_PPTX = ("The file is not a valid PowerPoint presentation (PPTX); it may be damaged, so open it in "
            "PowerPoint, save it again and upload it.")
NOT_XLSX = ("The file is not a valid Excel workbook (XLSX); it may be damaged, so open it in Excel, "
            "save it again and upload it.")


class IngestError(Exception):
    """A file that cannot be ingested; the message is one sentence a user can act on."""


class IngestCancelled(Exception):
    """Raised by a progress callback to stop an ingest at one of its safe points (each stage's
    start, each page parsed, each embedding batch, "index" just before the first write):
    nothing of the file has been written there, so it leaves no row, vector or kept file
    (core/ingest_cancel.py). No parser turns it into an IngestError."""


# (pages read, pages in all): a long PDF takes minutes to parse, and a bar that stands still
# that long looks hung
PageProgress = Callable[[int, int], None]


class Parser(Protocol):
    """Turns one file into blocks in reading order (see `core.schema.Block`). A parser of
    paged files calls `on_page` after each page; the others may ignore it."""

    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument: ...


def check_office_zip(path: Path, *, part: str, invalid: str, label: str, max_unpacked: int,
                     max_part: int | None = None) -> None:
    """An Office file is a zip: refuse a corrupt one, one without its main `part`
    (`invalid`), and a zip bomb (unpacking past `max_unpacked` bytes, or its part past
    `max_part`) before the format's library unpacks anything."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError):
        raise IngestError(invalid) from None
    main = next((i for i in infos if i.filename == part), None)
    if main is None:
        raise IngestError(invalid)
    total = sum(info.file_size for info in infos)
    if total > max_unpacked or (max_part is not None and main.file_size > max_part):
        raise IngestError(f"The {label} unpacks to {total // (1024 * 1024)} MB (a zip bomb?); it was not processed.")
