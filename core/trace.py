"""Traces: everything about one ask, stored so it can be opened again in the console."""

from __future__ import annotations

import uuid
from typing import Any

from core import store
from core.config import Settings


def new_trace_id() -> str:
    return uuid.uuid4().hex


def record(settings: Settings, trace_id: str, *, answer: dict[str, Any], candidates: list[dict[str, Any]],
           gate: dict[str, Any] | None, prompt: str | None, raw_output: str | None,
           tokens: dict[str, int] | None = None) -> str:
    """Store one ask: answer, candidates with dense/BM25/fused scores, gate, prompt, output."""
    trace = {
        "trace_id": trace_id,
        "answer": answer,
        "candidates": candidates,
        "gate": gate,
        "prompt": prompt,
        "raw_output": raw_output,
        "tokens": tokens or {},
        "settings": settings.public_dict(),
    }
    return store.save_trace(settings, trace)
