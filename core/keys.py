"""HTTP API keys: each reaches exactly one tenant.

A key is `gw_<key id>_<secret>`: the id (8 hex) names it in lists and logs, the secret is 32
random URL-safe characters. Only the SHA-256 of the whole key is stored: a key carries 190+
bits of randomness, so a fast hash cannot be brute-forced, and it lets a request be looked
up in one indexed query (a slow password KDF is for low-entropy secrets). The key is shown
once, when created.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from core import store
from core.config import Settings

PREFIX = "gw_"


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def create_key(settings: Settings, tenant: str, label: str = "") -> tuple[str, str]:
    """A new key for an existing tenant: (key_id, the key). LookupError for an unknown tenant."""
    if not store.tenant_exists(settings, tenant):
        raise LookupError(f"No tenant named '{tenant}'; create it or ingest documents into it first.")
    key_id = secrets.token_hex(4)
    key = f"{PREFIX}{key_id}_{secrets.token_urlsafe(24)}"
    with store.connect(settings) as conn:
        conn.execute("INSERT INTO api_keys (key_id, tenant, key_hash, label, created_at) VALUES (?,?,?,?,?)",
                     (key_id, tenant, _hash(key), printable_label(label), time.time()))
    return key_id, key


def printable_label(label: str) -> str:
    """A key's label as kept: control characters dropped (an escape sequence in a label
    coloured the terminal of whoever ran `keys list`, a QA pass), spaces collapsed, 80 at most."""
    return " ".join("".join(c for c in label if c.isprintable() or c.isspace()).split())[:80]


def list_keys(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """The tenant's keys, newest first (never the key itself): key_id, label, created_at,
    revoked_at, last_used_at."""
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT key_id, label, created_at, revoked_at, last_used_at FROM api_keys "
                            "WHERE tenant=? ORDER BY created_at DESC", (tenant,)).fetchall()
    return [dict(r) for r in rows]


def revoke_key(settings: Settings, tenant: str, key_id: str) -> bool:
    """Revoke one of the tenant's keys; False when the tenant has no such live key."""
    with store.connect(settings) as conn:
        cur = conn.execute("UPDATE api_keys SET revoked_at=? WHERE key_id=? AND tenant=? AND revoked_at IS NULL",
                           (time.time(), key_id, tenant))
    return cur.rowcount == 1


def holder_of(settings: Settings, key: str | None) -> dict[str, Any] | None:
    """What a live key reaches: {key_id, tenant, label}; None (no key, unknown, revoked).
    Notes its use. The id and label name the key in logs; the key itself is never kept."""
    if not key or not key.startswith(PREFIX) or len(key) > 200:
        return None
    with store.connect(settings) as conn:
        row = conn.execute("SELECT key_id, tenant, label FROM api_keys WHERE key_hash=? AND revoked_at IS NULL",
                           (_hash(key),)).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE api_keys SET last_used_at=? WHERE key_id=?", (time.time(), row["key_id"]))
    return dict(row)


def tenant_for_key(settings: Settings, key: str | None) -> str | None:
    """The tenant a live key reaches, or None (no key, unknown, revoked). Notes its use."""
    holder = holder_of(settings, key)
    return holder["tenant"] if holder else None
