"""Builders for hand-made eval rows and Answer dicts (shared by the eval tests)."""

from __future__ import annotations

from typing import Any


def make_q(id: str, kind: str = "answerable", expected: Any = None, source: str | None = None,
           quote: str | None = None, category: str = "policy", lang: str = "en", tenant: str = "acme",
           split: str = "calib") -> dict[str, Any]:
    return {"id": id, "tenant": tenant, "question": f"question {id}?", "kind": kind,
            "expected_answer": expected, "gold_source": source, "gold_quote": quote,
            "category": category, "lang": lang, "split": split}


def make_a(status: str = "answered", text: str = "", citations: list | None = None, claims: list | None = None,
           retrieved: list | None = None, confidence: float = 1.0, total: float | None = 100.0,
           tenant: str = "acme") -> dict[str, Any]:
    a: dict[str, Any] = {"question": "?", "tenant": tenant, "status": status, "answer": text,
                         "citations": citations or [], "claims": claims or [], "confidence": confidence,
                         "refusal_reason": "not found" if status == "refused" else None,
                         "timings_ms": {} if total is None else {"retrieve": total / 2, "total": total}}
    if retrieved is not None:
        a["retrieved"] = retrieved
    return a


def cite(chunk_id: str, quote: str, source: str = "doc.md") -> dict[str, Any]:
    return {"index": 1, "doc_id": chunk_id.split(":")[0], "chunk_id": chunk_id, "source": source,
            "quote": quote, "char_start": 0, "char_end": len(quote), "score": 0.9}


def passage(chunk_id: str, source: str, text: str, rank: int, neighbour: bool = False) -> dict[str, Any]:
    return {"chunk_id": chunk_id, "doc_id": chunk_id.split(":")[0], "source": source, "rank": rank,
            "neighbour": neighbour, "text": text}


def claim(verdict: str) -> dict[str, Any]:
    return {"text": f"a {verdict} claim", "citations": [1], "verdict": verdict, "score": 1.0, "evidence": ""}
