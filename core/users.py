"""Console accounts: who may sign in, and their role in each tenant.

Roles: `expert` (Ask, Traces, Review), `admin` (an expert's pages plus Documents and
Settings, API keys included), `manager` (Quality). With no account at all the console runs
in single-user mode (no sign-in; meant for 127.0.0.1, and the page says so); the first
account turns sign-in on. Passwords are stored as scrypt hashes (RFC 7914, n=2^14, r=8,
p=1, a random 16-byte salt each), compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Any

from core import store
from core.config import Settings

ROLES = ("expert", "admin", "manager")
PAGES_OF_ROLE = {
    "expert": ("ask", "traces", "review"),
    "admin": ("ask", "traces", "review", "documents", "settings"),
    "manager": ("quality",),
}
_N, _R, _P = 2 ** 14, 8, 1
MIN_PASSWORD = 10


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def _matches(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(digest) // 2)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


def _username(name: str) -> str:
    name = " ".join((name or "").split()).lower()
    if not name or len(name) > 64 or not all(c.isalnum() or c in "._-@" for c in name):
        raise ValueError("A user name is 1-64 letters, digits or . _ - @ (no spaces).")
    return name


def add_user(settings: Settings, username: str, password: str | None, tenant: str, role: str) -> str:
    """Create the user (a password is required then) or give an existing one a role in
    another tenant (the password, if given, is changed). ValueError/LookupError with one
    sentence; nothing written on error."""
    username = _username(username)
    if role not in ROLES:
        raise ValueError(f"Role must be one of {', '.join(ROLES)}.")
    if not store.tenant_exists(settings, tenant):
        raise LookupError(f"No tenant named '{tenant}'; create it first.")
    if password is not None and len(password) < MIN_PASSWORD:
        raise ValueError(f"A password needs at least {MIN_PASSWORD} characters.")
    with store.connect(settings) as conn:
        exists = conn.execute("SELECT 1 FROM users WHERE username=?", (username,)).fetchone() is not None
        if not exists and password is None:
            raise ValueError(f"User {username} is new: give a password.")
        if password is not None:
            conn.execute("INSERT INTO users (username, password_hash, created_at) VALUES (?,?,?) "
                         "ON CONFLICT (username) DO UPDATE SET password_hash=excluded.password_hash",
                         (username, hash_password(password), time.time()))
        conn.execute("INSERT OR REPLACE INTO memberships (username, tenant, role) VALUES (?,?,?)",
                     (username, tenant, role))
    return "updated" if exists else "created"


def remove_user(settings: Settings, username: str, tenant: str | None = None) -> bool:
    """Remove the user's role in `tenant`, or the user altogether; False when nothing matched."""
    username = _username(username)
    with store.connect(settings) as conn:
        if tenant is not None:
            return conn.execute("DELETE FROM memberships WHERE username=? AND tenant=?",
                                (username, tenant)).rowcount == 1
        conn.execute("DELETE FROM memberships WHERE username=?", (username,))
        return conn.execute("DELETE FROM users WHERE username=?", (username,)).rowcount == 1


def list_users(settings: Settings) -> list[dict[str, Any]]:
    """Every user with their roles: username, created_at, roles {tenant: role}."""
    with store.connect(settings) as conn:
        users = conn.execute("SELECT username, created_at FROM users ORDER BY username").fetchall()
        members = conn.execute("SELECT username, tenant, role FROM memberships").fetchall()
    roles: dict[str, dict[str, str]] = {}
    for m in members:
        roles.setdefault(m["username"], {})[m["tenant"]] = m["role"]
    return [{"username": u["username"], "created_at": u["created_at"], "roles": roles.get(u["username"], {})}
            for u in users]


def sign_in_required(settings: Settings) -> bool:
    """Is there any account? (None: single-user mode.)"""
    with store.connect(settings) as conn:
        return conn.execute("SELECT 1 FROM users LIMIT 1").fetchone() is not None


def authenticate(settings: Settings, username: str, password: str) -> dict[str, str] | None:
    """The user's roles {tenant: role} when the password is right, else None (the same
    work is done for an unknown name, so timing does not tell names apart)."""
    try:
        username = _username(username)
    except ValueError:
        return None
    with store.connect(settings) as conn:
        row = conn.execute("SELECT password_hash FROM users WHERE username=?", (username,)).fetchone()
        if row is None:
            _matches(password, hash_password("not a user"))
            return None
        if not _matches(password, row["password_hash"]):
            return None
        members = conn.execute("SELECT tenant, role FROM memberships WHERE username=?", (username,)).fetchall()
    return {m["tenant"]: m["role"] for m in members}


def roles_of(settings: Settings, username: str) -> dict[str, str]:
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT tenant, role FROM memberships WHERE username=?", (_username(username),)).fetchall()
    return {r["tenant"]: r["role"] for r in rows}
