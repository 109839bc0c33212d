"""Text normalisation shared by the answer and retrieval metrics.

`normalize` (for answers): NFKC, typographic quotes/dashes to ASCII, ё -> е, lowercase,
`[n]` citation markers removed, whitespace collapsed, and a number's English unit read
the same however it is written ("14-day", "14 days" and "14 day" -> "14 day"), since a
"14-day refund period" states the expected "14 days". `loose_tokens` (for matching a gold
quote against chunk text) keeps only word characters, so markup the parser dropped
(`**bold**`, table pipes, bullet glyphs) does not decide a match.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

_MARKER = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_TRANSLATE = str.maketrans({
    "‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "«": '"', "»": '"',
    "–": "-", "—": "-", "‑": "-", "−": "-", "\u00ad": None, "ё": "е", "Ё": "Е",
})
_QUANTITY = re.compile(r"(\d)[ -]([a-z]{2,}?)s?\b")  # "14-day" / "14 days" -> "14 day"
_EDGE_PUNCT = " \t\n.,;:!?\"'()"


def strip_markers(text: str) -> str:
    """Remove `[1]`, `[1, 2]` citation markers (and the space before them)."""
    return _MARKER.sub("", text or "")


def normalize(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "").translate(_TRANSLATE)
    text = _SPACE.sub(" ", strip_markers(text).casefold()).strip()
    return _QUANTITY.sub(r"\1 \2", text)


def normalize_needle(text: str | None) -> str:
    """`normalize`, then trim punctuation at the ends ("14 days." must match "14 days,")."""
    return normalize(text).strip(_EDGE_PUNCT)


def tokens(text: str | None) -> list[str]:
    return _WORD.findall(normalize(text))


def loose_tokens(text: str | None) -> str:
    """Word tokens joined by single spaces, padded so `in` matches whole words only."""
    return " " + " ".join(tokens(text)) + " "


def contains(haystack: str | None, needle: str | None) -> bool:
    """Needle in haystack after `normalize` (needle edges trimmed); empty needles never match."""
    n = normalize_needle(needle)
    if not n:
        return False
    if n[0].isdigit():  # "14 days" is not inside "114 days"
        return re.search(r"(?<![\d.,])" + re.escape(n), normalize(haystack)) is not None
    return n in normalize(haystack)


def loose_contains(haystack: str | None, needle: str | None) -> bool:
    """Whitespace-normalised, case-insensitive containment; falls back to word tokens only."""
    if contains(haystack, needle):
        return True
    n = loose_tokens(needle)
    return bool(n.strip()) and n in loose_tokens(haystack)


def token_f1(prediction: str | None, reference: str | None) -> float:
    """SQuAD-style token F1 between two texts (after `normalize`)."""
    pred, ref = tokens(prediction), tokens(reference)
    if not pred or not ref:
        return 0.0
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)
