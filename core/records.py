"""Small JSON records kept per tenant under the data folder (saved chats, eval jobs): their
ids and the one check that keeps an id from naming a path outside its folder."""

from __future__ import annotations

import time
import uuid
from pathlib import Path


def new_id(random_hex: int = 8) -> str:
    """A time-ordered id: sorting the file names sorts the records by creation."""
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:random_hex]


def record_path(folder: Path, record_id: str) -> Path | None:
    """The file of an id `new_id` made, inside `folder`; None for anything else (no path tricks)."""
    if not record_id or not all(ch.isalnum() or ch == "-" for ch in record_id):
        return None
    return folder / f"{record_id}.json"
