"""The cross-language slice: whether a question is asked in another language than the
documents that answer it (a Russian question over an English handbook).

For each question:
  1. The documents' language: the language of its gold document (`gold_source`, matched
     by file name) when the set names one and the tenant holds it; otherwise the language
     most of the tenant's ready documents are in (an unanswerable question has no gold).
  2. The question's language: the set's `lang` field, else the detected language.
  3. crossing = "cross" when the two differ, "same" when they agree, "unknown" when the
     tenant has no document with a known language.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from core.lang import language_of


def crossing(question: Mapping[str, Any], documents: Iterable[Mapping[str, Any]]) -> str:
    docs = [d for d in documents if d.get("status") == "ready" and d.get("lang")]
    if not docs:
        return "unknown"
    gold = str(question.get("gold_source") or "")
    held = [d for d in docs if gold and _same_file(d.get("file_name") or "", gold)]
    if held:
        doc_lang = held[0]["lang"]
    else:
        doc_lang = Counter(d["lang"] for d in docs).most_common(1)[0][0]
    asked = question.get("lang") or language_of(str(question.get("question") or "")).code
    return "same" if asked == doc_lang else "cross"


def _same_file(name: str, gold: str) -> bool:
    """The ingested name may carry a folder prefix the set's `gold_source` leaves out."""
    return name == gold or name.endswith("__" + gold) or name.endswith("/" + gold)
