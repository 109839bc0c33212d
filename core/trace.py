"""Traces: everything about one ask, stored so it can be opened again in the console."""

from __future__ import annotations

import re
import uuid
from typing import Any

from core import store
from core.config import Settings
from core.expand import phrase_stems

# How core/gate.py and core/generate.py word a refusal over a word the documents never use
_UNKNOWN_WORD_RE = re.compile(r"never (?:mentions|uses) “([^”]{1,60})”|address “([^”]{1,60})”, a word the knowledge")


def new_trace_id() -> str:
    return uuid.uuid4().hex


# who asked, when no person did (None: the console, the CLI or the API): such asks are
# listed on Traces but left out of live quality, the review queue and the words to teach
ORIGIN_EVAL = "eval"
ORIGIN_BENCHMARK = "benchmark"
ORIGIN_BATCH = "batch"  # `ask --batch`: a file of questions run by a script, not typed by a person


def record(settings: Settings, trace_id: str, *, answer: dict[str, Any], candidates: list[dict[str, Any]],
           gate: dict[str, Any] | None, prompt: str | None, raw_output: str | None,
           tokens: dict[str, int] | None = None, cost_usd: float | None = None,
           origin: str | None = None) -> str:
    """Store one ask: answer, candidates with dense/BM25/fused scores, gate, prompt, output,
    the model's token counts and cost estimate, and its origin (None: a person asked)."""
    trace = {
        "trace_id": trace_id,
        "answer": answer,
        "candidates": candidates,
        "gate": gate,
        "prompt": prompt,
        "raw_output": raw_output,
        "tokens": tokens or {},
        "cost_usd": cost_usd,
        "settings": settings.public_dict(),
        "origin": origin,
    }
    return store.save_trace(settings, trace, unknown_word=word_to_teach(answer))


def word_to_teach(answer: dict[str, Any]) -> str | None:
    """The word a refusal says the tenant's documents never use, or None: its structured
    subject (the reason is worded in the question's language, so never read back), else,
    for an answer from before refusals had codes, read off its English reason."""
    if answer.get("status") != "refused":
        return None
    if answer.get("refusal_code") == "unknown_word":
        return answer.get("refusal_subject") or None
    return unknown_word_of(answer.get("refusal_reason"))


def unknown_word_of(reason: str | None) -> str | None:
    """The word an English refusal reason says the tenant's documents never use, if it says
    so: answers stored before refusals carried a code (core/store.py migration 8 reads old
    traces the same way)."""
    m = _UNKNOWN_WORD_RE.search(reason or "")
    return (m.group(1) or m.group(2)) if m else None


def unknown_words(settings: Settings, tenant: str, *, since: float | None = None) -> list[dict[str, Any]]:
    """Words the tenant's users asked about that its documents never use, from the refused
    asks' traces, most asked first: {word, asked, last_question, last_asked}. Words the
    tenant already has a synonym for are left out: what is left is the list to teach.

    1. Read the asks refused over a word (newest first; the word is kept beside each trace
       when it is recorded).
    2. Group by the word's stems (so "gizmo" and "Gizmos" are one), keeping the newest
       spelling and question.
    3. Drop the groups a synonym of the tenant covers; sort by count, then recency."""
    taught = {phrase_stems(phrase) for phrase, _ in settings.for_tenant(tenant).synonyms}
    groups: dict[tuple[str, ...], dict[str, Any]] = {}
    for row in store.unknown_word_asks(settings, tenant, since=since):
        word = row["unknown_word"]
        key = phrase_stems(word.lower())
        if key in taught:
            continue
        # a follow-up as it was read: "And for grade C?" holds no "flying" (a QA pass)
        entry = groups.setdefault(key, {"word": word, "asked": 0, "last_question": row["asked_as"] or row["question"],
                                        "last_asked": row["created_at"]})
        entry["asked"] += 1
    return sorted(groups.values(), key=lambda e: (-e["asked"], -e["last_asked"]))
