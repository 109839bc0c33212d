"""Ask-page conversations kept per tenant across reloads, listed and deletable.

One JSON file per conversation under `GROUNDWORK_DATA/conversations/<tenant key>/`
(`{id, tenant, title, created_at, updated_at, turns}`, `turns` being the answers as the
page holds them), written by rename so a crash never leaves half a file. The tenant's
folder is named by its key, as every tenant folder is, so no id reaches outside.
"""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from core.config import Settings
from core.tenants import tenant_key

TITLE_CHARS = 80


def folder(settings: Settings, tenant: str) -> Path:
    return Path(settings.data_dir) / "conversations" / tenant_key(tenant)


def new_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


def _path(settings: Settings, tenant: str, conv_id: str) -> Path | None:
    """The file of a conversation id this module made (no path tricks in an id)."""
    if not conv_id or not all(ch.isalnum() or ch == "-" for ch in conv_id):
        return None
    return folder(settings, tenant) / f"{conv_id}.json"


def save(settings: Settings, tenant: str, conv_id: str, turns: list[dict[str, Any]]) -> None:
    path = _path(settings, tenant, conv_id)
    if path is None or not turns:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    created = turns[0].get("asked_at") or time.time()
    if path.exists():
        try:
            created = json.loads(path.read_text(encoding="utf-8")).get("created_at", created)
        except ValueError:
            pass
    title = " ".join(str(turns[0].get("question", "")).split())[:TITLE_CHARS]
    record = {"id": conv_id, "tenant": tenant, "title": title, "created_at": created,
              "updated_at": time.time(), "turns": turns}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


def listed(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """The tenant's conversations, newest first: id, title, updated_at, number of turns."""
    out = []
    for path in folder(settings, tenant).glob("*.json"):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged file is skipped, never fatal to the page
        if record.get("tenant") != tenant:
            continue
        out.append({"id": record.get("id", path.stem), "title": record.get("title", ""),
                    "updated_at": record.get("updated_at", 0.0), "turns": len(record.get("turns") or [])})
    return sorted(out, key=lambda r: -r["updated_at"])


def load(settings: Settings, tenant: str, conv_id: str) -> list[dict[str, Any]]:
    path = _path(settings, tenant, conv_id)
    try:
        record = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return []
    return list(record.get("turns") or []) if record.get("tenant") == tenant else []


def delete(settings: Settings, tenant: str, conv_id: str) -> bool:
    path = _path(settings, tenant, conv_id)
    if path is None or not path.exists():
        return False
    path.unlink()
    return True
