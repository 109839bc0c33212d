"""Language of a text by letter script: "ru" (Cyrillic), "en" (English-looking Latin), "other";
a short text by the script most of its words are written in.

No model and no download: counts Cyrillic vs Latin letters; Latin text counts as English
unless it is long enough to judge and has accented letters but few English function words.
"""

from __future__ import annotations

import re

from core.lang import short_text_language

_EN_STOPWORDS = frozenset(
    "the a an and or of to in on for is are was were be by with as at from that this it "
    "not no can you your we our they their have has will if".split()
)
_WORD = re.compile(r"[^\W\d_]+")


def detect_lang(text: str) -> str:
    """Return "en", "ru" or "other" for `text`."""
    # a short text is read by its words, as the answer step reads it: "А для Pro?" is Russian
    # with a name in it, though the name has more letters
    if short_text_language(text) == "ru":
        return "ru"
    cyrillic = latin = other = accented = 0
    for ch in text:
        if not ch.isalpha():
            continue
        if "\u0400" <= ch <= "\u04ff":
            cyrillic += 1
        elif ch.isascii():
            latin += 1
        elif "\u00c0" <= ch <= "\u024f":
            latin += 1
            accented += 1
        else:
            other += 1
    letters = cyrillic + latin + other
    if letters == 0:
        return "other"
    if cyrillic / letters >= 0.4:
        return "ru"
    if latin / letters < 0.5:
        return "other"
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) >= 8 and accented / latin > 0.01:
        english = sum(w in _EN_STOPWORDS for w in words) / len(words)
        if english < 0.05:
            return "other"
    return "en"
