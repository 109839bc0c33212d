"""The HTTP API's access log: one line per request, to the logger `groundwork.api.access`.

    POST /v1/documents 202 41.3 ms tenant="acme" key=1a2b3c4d label="nightly sync"

Method, path as sent (percent-encoded, no query string), status, time to the end of the
response, and who called: the tenant and the id and label of the key that reached it ("-"
when no valid key was sent). Never the key itself, a header or a body. The same values ride
on each record as attributes (`http_method`, `http_path`, `http_status`, `duration_ms`,
`tenant`, `key_id`, `key_label`) for an operator's own handler or formatter.

The auth step notes the caller into the request's scope (`note_caller`); the middleware
around the whole app writes the line when the response has gone out (or the app failed).
`python -m core.api` shows the lines on stderr (`show_on_stderr`) unless `--no-access-log`;
an operator who configures logging routes or silences the logger as any other.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

LOGGER_NAME = "groundwork.api.access"
log = logging.getLogger(LOGGER_NAME)
_SLOT = "groundwork.caller"  # the scope key the auth step fills and the middleware reads


def note_caller(scope: dict[str, Any], tenant: str, key_id: str | None, label: str | None) -> None:
    """Record who a request's key reached, for its access line."""
    scope[_SLOT] = {"tenant": tenant, "key_id": key_id, "key_label": label or None}


def caller(scope: dict[str, Any]) -> dict[str, Any]:
    """Who the request's key reached, as noted ({} before the auth step or without a key)."""
    return scope.get(_SLOT) or {}


def _quoted(text: str | None) -> str:
    # JSON quoting: a tenant id or label with spaces, quotes or any script stays one field
    # and one line
    return "-" if not text else json.dumps(text, ensure_ascii=False)


def _path(scope: dict[str, Any]) -> str:
    # as sent on the wire (still percent-encoded): a decoded "%0A" would break the line
    raw = scope.get("raw_path")
    return raw.decode("latin-1") if isinstance(raw, bytes) else json.dumps(scope.get("path", ""))[1:-1]


def write_line(scope: dict[str, Any], status: int | None, seconds: float) -> None:
    who = caller(scope)
    fields = {"http_method": scope.get("method", "-"), "http_path": _path(scope), "http_status": status or 0,
              "duration_ms": round(seconds * 1000, 1), "tenant": who.get("tenant"),
              "key_id": who.get("key_id"), "key_label": who.get("key_label")}
    log.info("%s %s %s %.1f ms tenant=%s key=%s label=%s", fields["http_method"], fields["http_path"],
             status or "-", fields["duration_ms"], _quoted(fields["tenant"]), fields["key_id"] or "-",
             _quoted(fields["key_label"]), extra=fields)


class AccessLog:
    """ASGI middleware: one access line per HTTP request, written when it has ended."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable[[], Awaitable[dict]], send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = []

        async def sending(message: dict) -> None:
            if message["type"] == "http.response.start":
                status.append(int(message["status"]))
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except BaseException:
            if not status:
                status.append(500)  # the server's error handler answers it outside this middleware
            raise
        finally:
            write_line(scope, status[0] if status else None, time.perf_counter() - started)


def show_on_stderr() -> None:
    """Make the lines visible where `python -m core.api` prints (uvicorn itself runs at
    warning level): INFO on this logger, and a stderr handler unless logging has one already."""
    log.setLevel(logging.INFO)
    if not log.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s access %(message)s"))
        log.addHandler(handler)
