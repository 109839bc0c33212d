"""Languages the answer step reads, in a plain dict registry, and which one a text is in."""

from __future__ import annotations

from core.lang import en, ru
from core.lang.base import ANSWER_TYPES, Language

LANGUAGES: dict[str, Language] = {en.LANGUAGE.code: en.LANGUAGE, ru.LANGUAGE.code: ru.LANGUAGE}
DEFAULT = "en"

__all__ = ["ANSWER_TYPES", "DEFAULT", "LANGUAGES", "Language", "language_of", "short_text_language"]


# a text of at most this many words is read by its words, not its letters: in "А для
# Pro?" the Latin name outweighs the Russian words by letters (a QA pass: a Russian
# follow-up was read as English, so not as a follow-up of the Russian question before it)
SHORT_WORDS = 6


def language_of(text: str) -> Language:
    """The registered language whose own letters the text uses most (English when none); a
    short text's, the language most of its words are written in (`short_text_language`)."""
    lowered = text.lower()
    return LANGUAGES[short_text_language(lowered) or _letters_language(lowered)]


def short_text_language(text: str) -> str | None:
    """The code of the language most words of a text of at most SHORT_WORDS words are
    written in, a tie going to the one that is not the default (a name in Latin letters
    stands in questions of every language); None for a longer text or one of no words."""
    tokens = text.lower().split(None, SHORT_WORDS * 2)  # a long text is not read word by word
    words = [w for w in tokens if any(ch.isalpha() for ch in w)]
    if not 0 < len(words) <= SHORT_WORDS or len(tokens) > SHORT_WORDS * 2:
        return None
    by_words = dict.fromkeys(LANGUAGES, 0)
    for word in words:
        by_words[_letters_language(word)] += 1
    code = max(by_words, key=lambda c: (by_words[c], c != DEFAULT))
    return code if by_words[code] else None


def _letters_language(text: str) -> str:
    """The code of the registered language whose letters `text` (lower case) uses most."""
    counts = dict.fromkeys(LANGUAGES, 0)
    for ch in text:
        for code, lang in LANGUAGES.items():
            if ch in lang.letters:
                counts[code] += 1
    code = max(counts, key=lambda c: (counts[c], c == DEFAULT))
    return code if counts[code] else DEFAULT
