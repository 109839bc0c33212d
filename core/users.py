"""Console accounts: who may sign in, and their role in each tenant.

Roles: `expert` (Ask, Traces, Review), `admin` (an expert's pages plus Documents and
Settings, API keys included), `manager` (Quality). With no account at all the console runs
in single-user mode (no sign-in; meant for 127.0.0.1, and the page says so); the first
account turns sign-in on. Passwords are stored as scrypt hashes (RFC 7914, n=2^14, r=8,
p=1, a random 16-byte salt each), compared in constant time.

A sign-in outlives a reload through a session token: 32 random bytes given to the browser
once, stored as their SHA-256 (`console_sessions`, migration 12) with a hard expiry
(`Settings.session_hours`, 12 h by default). It names one user and nothing else: the
user's roles are read afresh on every use. Signing out ends it; removing the user or
changing their password ends all of theirs.

Wrong passwords are counted per user name (`sign_in_failures`, migration 16), known or not,
so the count tells no name apart: after `MAX_FAILURES` within `FAILURE_WINDOW_S` the name
waits until the oldest of them leaves the window (`SignInLocked`, with the seconds left),
right password or not; a sign-in that succeeds clears its name's count.
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
ORGANISATION_ONLY = "organisation-only"  # stored instead of a password hash
MAX_FAILURES = 5
FAILURE_WINDOW_S = 15 * 60


class SignInLocked(Exception):
    """Too many wrong passwords for one user name lately: it waits `seconds` more."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        minutes = max(1, round(seconds / 60))
        super().__init__(f"Too many wrong passwords for this user name; try again in {minutes} "
                         f"minute{'s' if minutes != 1 else ''}.")


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


def add_user(settings: Settings, username: str, password: str | None, tenant: str, role: str,
             organisation_only: bool = False) -> str:
    """Create the user (a password is required then, unless `organisation_only`: they sign in
    only through the organisation's OIDC provider, by the e-mail that is their name) or give
    an existing one a role in another tenant (the password, if given, is changed).
    ValueError/LookupError with one sentence; nothing written on error."""
    username = _username(username)
    if role not in ROLES:
        raise ValueError(f"Role must be one of {', '.join(ROLES)}.")
    if not store.tenant_exists(settings, tenant):
        raise LookupError(f"No tenant named '{tenant}'; create it first.")
    if password is not None and len(password) < MIN_PASSWORD:
        raise ValueError(f"A password needs at least {MIN_PASSWORD} characters.")
    with store.connect(settings) as conn:
        exists = conn.execute("SELECT 1 FROM users WHERE username=?", (username,)).fetchone() is not None
        if not exists and password is None and not organisation_only:
            raise ValueError(f"User {username} is new: give a password (or sign-in through the organisation only).")
        if password is None and organisation_only and not exists:
            # no scrypt hash: the local form can never sign this name in (see _matches)
            conn.execute("INSERT INTO users (username, password_hash, created_at) VALUES (?,?,?)",
                         (username, ORGANISATION_ONLY, time.time()))
        if password is not None:
            if exists:  # a new password ends the sign-ins the old one opened
                _end_sessions(conn, username)
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
        _end_sessions(conn, username)  # a removed user's open sign-ins end with them
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


def authenticate(settings: Settings, username: str, password: str, *, now: float | None = None) -> dict[str, str] | None:
    """The user's roles {tenant: role} when the password is right, else None (the same
    work is done for an unknown name, so timing does not tell names apart). Raises
    `SignInLocked` while the name has `MAX_FAILURES` wrong passwords within the window."""
    try:
        username = _username(username)
    except ValueError:
        return None
    now = time.time() if now is None else now
    with store.connect(settings) as conn:
        conn.execute("DELETE FROM sign_in_failures WHERE at < ?", (now - FAILURE_WINDOW_S,))
        recent = [r["at"] for r in conn.execute(
            "SELECT at FROM sign_in_failures WHERE username=? ORDER BY at", (username,))]
        if len(recent) >= MAX_FAILURES:
            raise SignInLocked(recent[-MAX_FAILURES] + FAILURE_WINDOW_S - now)
        row = conn.execute("SELECT password_hash FROM users WHERE username=?", (username,)).fetchone()
        if row is None or row["password_hash"] == ORGANISATION_ONLY:
            _matches(password, hash_password("not a user"))  # the same work: timing tells no name apart
            ok = False
        else:
            ok = _matches(password, row["password_hash"])
        if not ok:
            conn.execute("INSERT INTO sign_in_failures (username, at) VALUES (?, ?)", (username, now))
            return None
        conn.execute("DELETE FROM sign_in_failures WHERE username=?", (username,))
        members = conn.execute("SELECT tenant, role FROM memberships WHERE username=?", (username,)).fetchall()
    return {m["tenant"]: m["role"] for m in members}


def roles_of(settings: Settings, username: str) -> dict[str, str]:
    with store.connect(settings) as conn:
        rows = conn.execute("SELECT tenant, role FROM memberships WHERE username=?", (_username(username),)).fetchall()
    return {r["tenant"]: r["role"] for r in rows}


# ---- sign-in sessions ----------------------------------------------------------------------

SESSION_PREFIX = "gws_"


def _token_hash(token: str) -> str:
    # a 256-bit random token needs no slow KDF: SHA-256 only keeps a stolen database from
    # being a list of live sessions
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _end_sessions(conn: Any, username: str) -> None:
    conn.execute("UPDATE console_sessions SET ended_at=? WHERE username=? AND ended_at IS NULL",
                 (time.time(), username))


def start_session(settings: Settings, username: str, *, now: float | None = None) -> str:
    """A new session token for a user who has just signed in (shown to the browser once,
    stored hashed); valid for `settings.session_hours` unless ended first."""
    username = _username(username)
    now = time.time() if now is None else now
    token = SESSION_PREFIX + secrets.token_urlsafe(32)
    with store.connect(settings) as conn:
        # expired and ended rows are of no use to anyone: drop them as new ones come
        conn.execute("DELETE FROM console_sessions WHERE expires_at < ?", (now,))
        conn.execute("INSERT INTO console_sessions (token_hash, username, created_at, expires_at) VALUES (?,?,?,?)",
                     (_token_hash(token), username, now, now + settings.session_hours * 3600))
    return token


def session_user(settings: Settings, token: str | None, *, now: float | None = None) -> str | None:
    """The user a token signs in, or None when it is unknown, expired, ended, or its user
    is gone."""
    if not token or not token.startswith(SESSION_PREFIX) or len(token) > 100:
        return None
    now = time.time() if now is None else now
    with store.connect(settings) as conn:
        row = conn.execute(
            "SELECT s.username FROM console_sessions AS s JOIN users AS u ON u.username = s.username"
            " WHERE s.token_hash=? AND s.ended_at IS NULL AND s.expires_at > ?", (_token_hash(token), now)).fetchone()
    return row["username"] if row else None


def end_session(settings: Settings, token: str | None) -> bool:
    """Sign-out: the token signs nobody in any more. False when it was not a live session."""
    if not token:
        return False
    with store.connect(settings) as conn:
        return conn.execute("UPDATE console_sessions SET ended_at=? WHERE token_hash=? AND ended_at IS NULL",
                            (time.time(), _token_hash(token))).rowcount == 1
