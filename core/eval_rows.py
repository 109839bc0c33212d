"""Eval-set rows made from real asks: validated once here, written to the tenant's feedback set.

The console's "Add to eval set" form and the review queue both make rows; either way a row
is answerable *with* a quote and an expected answer, or unanswerable/misleading with
neither (DESIGN.md's eval format), so no contradictory row reaches a set.
"""

from __future__ import annotations

import json
import string
import time
from pathlib import Path
from typing import Any

from core import store
from core.config import Settings

EVAL_KINDS = ("answerable", "unanswerable", "misleading")
EVAL_SPLITS = ("calib", "test")  # a row's `split`; a run asks "all" or one of them
FEEDBACK_SUFFIX = "-feedback"  # a tenant's own set: <tenant>-feedback.jsonl
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")  # a tenant id usable as a file name


def feedback_set_path(settings: Settings, tenant: str) -> Path:
    """`<GROUNDWORK_DATA>/eval_sets/<tenant>-feedback.jsonl`; a tenant id no file name can
    hold as it is goes by its key after a "+", a character no plain id has: the bare key was
    also a plain id, and two tenants shared one file (a reliability pass)."""
    from core.tenants import tenant_key

    plain = 0 < len(tenant) <= 64 and not tenant.startswith(".") and all(c in _NAME_CHARS for c in tenant)
    name = tenant if plain else "+" + tenant_key(tenant)
    return Path(settings.data_dir) / "eval_sets" / f"{name}{FEEDBACK_SUFFIX}.jsonl"


def validate_row(row: dict[str, Any]) -> dict[str, Any]:
    """The row if it is usable; ValueError with one sentence otherwise."""
    kind = row.get("kind")
    if kind not in EVAL_KINDS:
        raise ValueError(f"kind must be one of {', '.join(EVAL_KINDS)}.")
    if not (row.get("question") or "").strip():
        raise ValueError("An eval row needs the question.")
    if kind == "answerable":
        if not (row.get("expected_answer") or "").strip():
            raise ValueError("An answerable question needs the expected answer.")
        if not row.get("gold_source"):
            raise ValueError("An answerable question needs the source that holds the answer.")
        if not (row.get("gold_quote") or "").strip():
            raise ValueError("An answerable question needs the quote from its source that answers it.")
    elif row.get("expected_answer") or row.get("gold_quote"):
        raise ValueError(f"A {kind} question is one to refuse: it has no expected answer or quote.")
    return row


def eval_row(answer: dict[str, Any], kind: str, expected_answer: str, gold_source: str | None,
             gold_quote: str | None, category: str) -> dict[str, Any]:
    """An eval-set row (DESIGN.md format) from an answer and the expected outcome.

    Fields a refusal-kind row cannot have are dropped rather than refused: the form may still
    hold what was typed before the kind was changed. Raises ValueError with one sentence when
    the row would be unusable.
    """
    answerable = kind == "answerable"
    return validate_row({
        "id": f"fb-{(answer.get('trace_id') or '')[:12] or int(time.time())}",
        "tenant": answer.get("tenant"),
        # a follow-up's reading: an eval row is asked with no chat before it
        "question": answer.get("asked_as") or answer.get("question"),
        "kind": kind,
        "expected_answer": ((expected_answer or "").strip() or None) if answerable else None,
        "gold_source": (gold_source or None) if answerable else None,
        "gold_quote": ((gold_quote or "").strip() or None) if answerable else None,
        "category": (category or "feedback").strip() or "feedback",
    })


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def _check_quote(settings: Settings, tenant: str, source: str, quote: str) -> None:
    """ValueError unless the gold quote stands in the gold source's text (case and spacing
    aside): a row whose quote another document holds scores every answer wrong, and the form
    saved one (a QA pass)."""
    docs = [d for d in store.list_documents(settings, tenant) if d["file_name"] == source]
    if not docs:
        raise ValueError(f"This tenant holds no document named {source}; pick the document that holds the answer.")
    wanted = _folded(quote)
    for doc in docs:  # its passages read as one text: a quote may run across two
        if wanted in _folded(" ".join(r["text"] for r in store.chunk_rows(settings, tenant, doc["doc_id"]))):
            return
    raise ValueError(f"The quote is not in {source}: copy it from that document's text, or pick the document "
                     "that holds it.")


def append_eval_row(settings: Settings, tenant: str, row: dict[str, Any]) -> tuple[Path, str]:
    """Add a valid row to the tenant's feedback eval set, or replace the row it already holds
    for the same answer (same id) or the same question (compared as search compares it: case
    and spacing aside); atomic write. Returns (the set's path, "added" or "updated")."""
    validate_row(row)
    if row["kind"] == "answerable":
        _check_quote(settings, tenant, row["gold_source"], row["gold_quote"])
    path = feedback_set_path(settings, tenant)
    path.parent.mkdir(parents=True, exist_ok=True)
    question = store.fold(row.get("question"))
    rows, replaced = [], False
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                existing = json.loads(line)
                same_question = bool(question) and store.fold(existing.get("question")) == question
                if existing.get("id") == row["id"] or same_question:
                    replaced = True
                else:
                    rows.append(existing)
    rows.append(row)
    tmp = path.with_suffix(".jsonl.tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(path)
    return path, "updated" if replaced else "added"
