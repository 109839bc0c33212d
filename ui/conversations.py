"""Ask-page conversations kept per tenant across reloads, listed and deletable.

One JSON file per conversation under `GROUNDWORK_DATA/conversations/<tenant key>/`
(`{id, tenant, title, created_at, updated_at, turns}`, and `named` when the user renamed it;
`turns` being the answers as the page holds them, each with its passages: tens of KB), and
beside it `<id>.meta.json`
with all but the turns, which is all the list reads on every rerun of the Ask page. Both
are written by rename, the turns first, so a crash never leaves half a file. The tenant's
folder is named by its key, as every tenant folder is, so no id reaches outside.

With sign-in, each user's conversations are their own (`owner`, the user name): kept in
`users/<16 hex of sha256(name)>/` inside the tenant's folder, so another user of the tenant
neither opens nor deletes them. Single-user mode keeps the tenant's folder itself.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

from core import records
from core.config import Settings
from core.records import record_path
from core.tenants import conversations_dir
from ui.format import count_of, fmt_time_short

TITLE_CHARS = 80


def folder(settings: Settings, tenant: str, owner: str | None = None) -> Path:
    base = conversations_dir(settings, tenant)
    return base if owner is None else base / "users" / hashlib.sha256(owner.encode("utf-8")).hexdigest()[:16]


def new_id() -> str:
    return records.new_id(6)


def _path(settings: Settings, tenant: str, conv_id: str, owner: str | None = None) -> Path | None:
    """The file of a conversation id this module made (no path tricks in an id)."""
    return record_path(folder(settings, tenant, owner), conv_id)


def save(settings: Settings, tenant: str, conv_id: str, turns: list[dict[str, Any]],
         owner: str | None = None) -> None:
    path = _path(settings, tenant, conv_id, owner)
    if path is None or not turns:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    created, named = time.time(), None
    try:  # a conversation saved before keeps its start, and the name a user gave it
        before = json.loads(_meta_path(path).read_text(encoding="utf-8"))
        created, named = before.get("created_at", created), before.get("named")
    except (OSError, ValueError):
        pass
    title = named or " ".join(str(turns[0].get("question", "")).split())[:TITLE_CHARS]
    meta = {"id": conv_id, "tenant": tenant, "title": title, "created_at": created,
            "updated_at": time.time(), "turns": len(turns), **({"named": named} if named else {})}
    _write(path, {**meta, "turns": turns})
    _write(_meta_path(path), meta)


def _meta_path(path: Path) -> Path:
    return path.with_name(path.stem + ".meta.json")


def _write(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


def listed(settings: Settings, tenant: str, owner: str | None = None) -> list[dict[str, Any]]:
    """The tenant's conversations (`owner`'s own, when signed in), newest first: id, title,
    updated_at, number of turns (from the small index files only)."""
    out = []
    for path in folder(settings, tenant, owner).glob("*.meta.json"):
        try:
            meta = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a damaged file is skipped, never fatal to the page
        if meta.get("tenant") == tenant:
            out.append({"id": meta.get("id", ""), "title": meta.get("title", ""),
                        "updated_at": meta.get("updated_at", 0.0), "turns": int(meta.get("turns") or 0)})
    return sorted(out, key=lambda r: -r["updated_at"])


def load(settings: Settings, tenant: str, conv_id: str, owner: str | None = None) -> list[dict[str, Any]]:
    path = _path(settings, tenant, conv_id, owner)
    try:
        record = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return []
    return list(record.get("turns") or []) if record.get("tenant") == tenant else []


def rename(settings: Settings, tenant: str, conv_id: str, name: str, owner: str | None = None) -> bool:
    """Give a saved conversation a name of the user's (three chats all titled "What is the oil
    capacity?" were told apart by their time alone); an empty name goes back to the first
    question. False when there is no such conversation."""
    path = _path(settings, tenant, conv_id, owner)
    if path is None or not path.exists():
        return False
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if record.get("tenant") != tenant:
        return False
    name = " ".join(name.split())[:TITLE_CHARS]
    turns = record.get("turns") or []
    record.pop("named", None)
    if name:
        record["named"] = name
    first = " ".join(str(turns[0].get("question", "")).split())[:TITLE_CHARS] if turns else ""
    record["title"] = name or first
    _write(path, record)
    _write(_meta_path(path), {k: v for k, v in record.items() if k != "turns"} | {"turns": len(turns)})
    return True


def delete(settings: Settings, tenant: str, conv_id: str, owner: str | None = None) -> bool:
    path = _path(settings, tenant, conv_id, owner)
    if path is None or not path.exists():
        return False
    _meta_path(path).unlink(missing_ok=True)  # off the list first
    path.unlink()
    return True


SHOWN = 30  # chats listed at once: more are found by their words


def matching(saved: list[dict[str, Any]], words: str) -> list[dict[str, Any]]:
    """The saved chats whose title (first question or name) holds every word typed, newest
    first: the list shows SHOWN, and a QA pass with 60 chats could not reach the older ones."""
    wanted = words.casefold().split()
    return [c for c in saved if all(w in str(c.get("title") or "").casefold() for w in wanted)]


LABEL_TITLE_CHARS = 60  # the rest of a long first question: the popover cuts the label's end anyway


def saved_label(conv: dict[str, Any], now: float | None = None) -> str:
    """A Saved chats entry as plain text: when it was last used, how many questions it holds,
    then its first question. It read "How many hours of annual leave can I carry over to next
    year? · 5 · 2026-1…": a bare number, and the time cut off, as the popover cuts a label's
    end at its own width (QA pass); the question goes last, where a cut loses least."""
    title = " ".join(str(conv.get("title") or "").split()) or "(no question)"
    if len(title) > LABEL_TITLE_CHARS:
        title = title[:LABEL_TITLE_CHARS - 1].rstrip() + "…"
    when = fmt_time_short(conv.get("updated_at"), now)
    return (f"{when} · " if when else "") + f"{count_of(int(conv.get('turns') or 0), 'question')} · {title}"
