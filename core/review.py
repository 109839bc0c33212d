"""The review queue: real asks a person should look at, and what the person decided.

Human-on-the-loop, as the seed systems route doubtful answers to a person. An ask is queued
when it was refused, answered with confidence under the gate threshold plus
`Settings.review_margin`, rated down on the Ask page, routed to a person by the answer's
route verdict, or, a confident answer, drawn for a spot check (`Settings.review_sample` of
them, by trace id: what no check flags is known only by reading a sample). The expert opens one, sees its trace, and resolves it by

- picking the passage that answers it: an answerable eval row with that passage's quote;
- marking it truly unanswerable (or misleading): an eval row that must be refused;
- teaching a synonym: the user's word for what the documents say otherwise;
- dismissing it: the answer was right after all.

Eval rows go to the tenant's feedback set (core/eval_rows.py), validated there. Every
decision is stored per (tenant, ask), so the queue shows what is still open and its age.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from core import eval_rows, store
from core.config import Settings, load_tenant_overrides, save_tenant_overrides

RESOLUTIONS = ("answerable", "unanswerable", "misleading", "synonym", "dismissed")


@dataclass(frozen=True)
class QueueItem:
    trace_id: str
    question: str
    status: str
    confidence: float | None
    asked_at: float
    reasons: tuple[str, ...]  # refused | near the threshold | rated down | routed to a person | spot check
    comment: str | None = None
    resolution: str | None = None
    resolved_at: float | None = None
    # the threshold its answer confidence was compared with (the tenant's now when its trace
    # recorded none): its confidence is shown against it
    threshold: float | None = None
    # the other open asks of the same question (case and spacing aside), older: one row and
    # one decision for all (a QA pass saw each question twice, asked in the console and the CLI)
    repeats: tuple[str, ...] = ()
    # a refusal's code (core/pipeline.py): the table says why it was refused, not only that
    # it was (a QA pass read "refused" on every row of the "why" column)
    refusal_code: str | None = None

    def age_s(self, now: float | None = None) -> float:
        return max(0.0, (now or time.time()) - self.asked_at)


def review_below(settings: Settings) -> float:
    """Answers with confidence under this are queued (the gate threshold plus the margin)."""
    return min(1.0, settings.gate_threshold + settings.review_margin)


def _reasons(row: dict[str, Any], below: float) -> tuple[str, ...]:
    reasons = []
    if row["status"] == "refused":
        reasons.append("refused")
    elif (row.get("confidence") or 0.0) < below:
        reasons.append("near the threshold")  # answered, but under the review line
    if row.get("route") == "human" and not reasons:
        # sent to a person by its checks (a claim dropped, quotes only, a claim unsupported)
        # though answered with confidence: a refusal or a low confidence is routed for itself,
        # and "refused, routed to a person" on every refusal said nothing (QA pass)
        reasons.append("routed to a person")
    if row.get("rating") == -1:
        reasons.append("rated down")
    if row.get("spot_check") and not reasons:
        # a confident answer drawn at random: how often such answers are wrong is known only
        # by reading some (a QA pass: wrong answers at 0.85 looked healthy until rated down)
        reasons.append("spot check")
    return tuple(reasons)


def queue(settings: Settings, tenant: str, *, include_resolved: bool = False,
          limit: int = 500) -> list[QueueItem]:
    """The tenant's queued asks, newest first (only open ones unless `include_resolved`)."""
    tenant_settings = settings.for_tenant(tenant)
    below = review_below(tenant_settings)
    rows = store.review_candidates(tenant_settings, tenant, below=below, open_only=not include_resolved,
                                   limit=limit, sample=tenant_settings.review_sample)
    items = [QueueItem(trace_id=r["trace_id"], question=r["question"], status=r["status"],
                       confidence=r["confidence"], asked_at=r["created_at"], reasons=_reasons(r, below),
                       comment=r.get("comment"), resolution=r.get("resolution"),
                       resolved_at=r.get("resolved_at"),
                       threshold=r["threshold"] if r.get("threshold") is not None else tenant_settings.gate_threshold,
                       refusal_code=r.get("refusal_code"))
             for r in rows]
    return _grouped(items)


def _grouped(items: list[QueueItem]) -> list[QueueItem]:
    """Open asks of one question as one item: the newest, with every reason of the group and
    its older asks as `repeats` (the newest waits as long as the oldest has: its age is kept)."""
    out: list[QueueItem] = []
    first: dict[str, int] = {}  # folded question -> index in out of its newest open ask
    for item in items:  # newest first
        key = store.fold(item.question)
        if item.resolution is not None or not key:
            out.append(item)
        elif key not in first:
            first[key] = len(out)
            out.append(item)
        else:
            kept = out[first[key]]
            out[first[key]] = replace(kept, repeats=(*kept.repeats, item.trace_id), asked_at=item.asked_at,
                                      reasons=tuple(dict.fromkeys((*kept.reasons, *item.reasons))),
                                      comment=kept.comment or item.comment)
    return out


def _close(settings: Settings, tenant: str, trace_id: str, resolution: str, detail: dict[str, Any] | None = None) -> None:
    """Record a decision for the ask and for the other open asks of its question."""
    group = next(((item.trace_id, *item.repeats) for item in queue(settings, tenant)
                  if trace_id == item.trace_id or trace_id in item.repeats), (trace_id,))
    for tid in group:
        store.save_review(settings, tenant, tid, resolution, detail)


# the Review page's cards, one per reason an ask waits for
CARDS = ("refused", "near the threshold", "rated down", "routed to a person", "spot check")


def counts(items: list[QueueItem], now: float | None = None) -> dict[str, Any]:
    """Open items; by reason, each of CARDS present (an item with two reasons counts under
    both: a refusal rated down counted only as a refusal hid every rating from a manager,
    QA pass); and the oldest open item's age in seconds (None when empty)."""
    open_items = [i for i in items if i.resolution is None]
    by_reason: dict[str, int] = dict.fromkeys(CARDS, 0)
    for item in open_items:
        for reason in item.reasons:
            by_reason[reason] = by_reason.get(reason, 0) + 1
    return {"open": len(open_items), "by_reason": by_reason,
            "oldest_s": max((i.age_s(now) for i in open_items), default=None)}


def _trace(settings: Settings, tenant: str, trace_id: str) -> dict[str, Any]:
    trace = store.get_trace(settings, tenant, trace_id)
    if trace is None:
        raise LookupError("That ask is not in this tenant's history; reload the queue.")
    # the row's id comes from the ask, however the trace stored its answer
    trace["answer"] = {**(trace.get("answer") or {}), "trace_id": trace_id}
    return trace


def passages(settings: Settings, tenant: str, trace_id: str, limit: int = 8) -> list[dict[str, Any]]:
    """The passages the ask saw, in the order the Ask page showed them, to pick the answering
    one from: a refusal's closest passages (best first), an answer's cited ones, then those
    given to the answer step and the other retrieved candidates. Each: chunk_id, source, page,
    section, text (the stored chunk's current text) and `quote`, the sentence the Ask page
    showed of it ("" when none). A QA pass saw the review open on a passage of another document,
    in retrieval's order, while the refusal had put the answering clause first."""
    trace = _trace(settings, tenant, trace_id)
    answer = trace.get("answer", {})
    shown = answer.get("closest", []) if answer.get("status") == "refused" else answer.get("citations", [])
    ids: list[str] = []
    quotes: dict[str, str] = {}
    for group in (shown, answer.get("retrieved", []), answer.get("closest", []), trace.get("candidates", [])):
        for p in group:
            cid = p.get("chunk_id")
            if cid and cid not in ids:
                ids.append(cid)
            if cid and group is shown and p.get("quote"):
                quotes.setdefault(cid, p["quote"])
    stored = store.get_chunks(settings, tenant, ids[: limit * 2])  # gone if the document was deleted
    out = []
    for cid in ids:
        chunk = stored.get(cid)
        if chunk is None:
            continue
        quote = quotes.get(cid, "")
        out.append({"chunk_id": cid, "source": chunk.get("source") or "", "page": chunk.get("page_start"),
                    "section": chunk.get("section") or "", "text": chunk["text"],
                    "quote": quote if quote and quote in chunk["text"] else ""})
        if len(out) == limit:
            break
    return out


def _squash(text: str) -> str:
    return " ".join(text.split())


def resolve_with_passage(settings: Settings, tenant: str, trace_id: str, chunk_id: str, quote: str,
                         expected_answer: str | None = None) -> tuple[str, str]:
    """The ask is answerable: `quote` (verbatim from the tenant's passage `chunk_id`) answers
    it. Adds an answerable eval row and closes the item; returns (eval set path, added|updated).
    ValueError with one sentence when the quote is not in the passage."""
    trace = _trace(settings, tenant, trace_id)
    chunk = store.get_chunks(settings, tenant, [chunk_id]).get(chunk_id)
    if chunk is None:
        raise ValueError("That passage is no longer in the knowledge base; pick another one.")
    quote = _squash(quote or "")
    if not quote:
        raise ValueError("Select the words of the passage that answer the question.")
    if quote not in _squash(chunk["text"]):
        raise ValueError("The quote must be copied exactly from the passage; it was not found there.")
    source = chunk.get("source")
    row = eval_rows.eval_row(trace["answer"], "answerable", expected_answer or quote, source, quote, "review")
    path, outcome = eval_rows.append_eval_row(settings, tenant, row)
    _close(settings, tenant, trace_id, "answerable", {"chunk_id": chunk_id, "quote": quote})
    return str(path), outcome


def resolve_refusal_kind(settings: Settings, tenant: str, trace_id: str,
                         kind: str = "unanswerable") -> tuple[str, str]:
    """The ask should be refused (`unanswerable`, or `misleading`: a false premise): adds that
    eval row and closes the item."""
    if kind not in ("unanswerable", "misleading"):
        raise ValueError("kind must be unanswerable or misleading.")
    trace = _trace(settings, tenant, trace_id)
    row = eval_rows.eval_row(trace["answer"], kind, "", None, None, "review")
    path, outcome = eval_rows.append_eval_row(settings, tenant, row)
    _close(settings, tenant, trace_id, kind)
    return str(path), outcome


def resolve_with_synonym(settings: Settings, tenant: str, trace_id: str, word: str, doc_words: str) -> dict[str, str]:
    """The user's `word` means the documents' `doc_words`: saved as a tenant synonym (core
    validates it) and the item closed. Returns the tenant's synonyms."""
    _trace(settings, tenant, trace_id)
    word, doc_words = " ".join(word.split()), " ".join(doc_words.split())
    if not word or not doc_words:
        raise ValueError("Type both the user's word and the documents' words; nothing was saved.")
    merged = {**load_tenant_overrides(settings, tenant).get("synonyms", {}), word: doc_words}
    save_tenant_overrides(settings, tenant, {"synonyms": merged})
    _close(settings, tenant, trace_id, "synonym", {"word": word, "doc_words": doc_words})
    return merged


def dismiss(settings: Settings, tenant: str, trace_id: str, note: str = "") -> None:
    """The answer was right (or the ask needs nothing): close the item."""
    _close(settings, tenant, trace_id, "dismissed", {"note": note} if note else None)


def reopen(settings: Settings, tenant: str, trace_id: str) -> None:
    """Undo a decision (its eval row, if any, stays in the set)."""
    store.reopen_review(settings, tenant, trace_id)

