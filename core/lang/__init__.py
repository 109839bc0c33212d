"""Languages the answer step reads, in a plain dict registry, and which one a text is in."""

from __future__ import annotations

from core.lang import en, ru
from core.lang.base import ANSWER_TYPES, Language

LANGUAGES: dict[str, Language] = {en.LANGUAGE.code: en.LANGUAGE, ru.LANGUAGE.code: ru.LANGUAGE}
DEFAULT = "en"

__all__ = ["ANSWER_TYPES", "LANGUAGES", "Language", "language_of"]


def language_of(text: str) -> Language:
    """The registered language whose own letters the text uses most (English when none)."""
    counts = dict.fromkeys(LANGUAGES, 0)
    for ch in text.lower():
        for code, lang in LANGUAGES.items():
            if ch in lang.letters:
                counts[code] += 1
    code = max(counts, key=lambda c: (counts[c], c == DEFAULT))
    return LANGUAGES[code if counts[code] else DEFAULT]
