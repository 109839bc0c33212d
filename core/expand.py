"""Question words documents spell otherwise: acronyms ("the CEO"), abbreviations ("the
admin fee") and everyday words ("pay me back" for reimburse, "kids" for children).

1. `expand_question` writes the documents' words after each such word, so retrieval and the
   word checks see both ("Will they pay back reimburse me?").
2. The gate counts such a word as known when the documents use its expansion
   (core/pipeline.py `unknown_words`, via `ACRONYMS`, which holds all three tables).
3. `everyday_terms` lets the extractive generator count an everyday phrase as covered by a
   unit that holds the documents' word ("reimburse" covers "pay back").
4. A tenant adds its own everyday words as `synonyms` (Settings page, `Settings.synonyms`):
   each of the three steps above reads them with the built-in ones, so an expert can teach
   the tenant that "the app" is its product's name after a refusal saying the documents never mention it.
"""

from __future__ import annotations

import re

from core.lang import LANGUAGES  # noqa: E402
from core.lexical import LexicalIndex, tokenize

# general-language tables of every registered language (core/lang/): the documents' words
# for everyday phrases, acronyms and abbreviations; domain words are a tenant's synonyms
EVERYDAY_WORDS: dict[str, str] = {k: v for lang in LANGUAGES.values() for k, v in lang.everyday.items()}
# an acronym is expanded only as written in capitals ("24 hr" is no human resources)
ACRONYMS: dict[str, str] = {k: v for lang in LANGUAGES.values() for k, v in lang.acronyms.items()}
ACRONYMS.update(EVERYDAY_WORDS)
ACRONYMS.update(EVERYDAY_WORDS)
_SHORT_RE = re.compile(r"\b(?:" + "|".join(
    re.escape(w) for w in sorted([*EVERYDAY_WORDS], key=len, reverse=True)) + r")\b|\b[A-Z]{2,4}\b",
    re.IGNORECASE)


Synonyms = tuple[tuple[str, str], ...]  # a tenant's (phrase, documents' words), see core/config.py
_WORD_RE = re.compile(r"[^\W_]+(?:-[^\W_]+)*")


def phrase_stems(phrase: str) -> tuple[str, ...]:
    """The stems of a phrase's words, one a word (a stopword kept: "the app")."""
    return tuple((tokenize(w, keep_stopwords=True) or [w.lower()])[0] for w in _WORD_RE.findall(phrase))


def synonym_spans(text: str, synonyms: Synonyms) -> list[tuple[int, int, str, str]]:
    """(start, end, phrase, documents' words) of each of the tenant's synonyms in the text,
    matched word by word on stems, so that «годовую премию» finds the synonym
    «годовая премия»; longer phrases first, no two overlapping."""
    if not synonyms:
        return []
    words = [(m.start(), m.end(), phrase_stems(m.group(0))[0]) for m in _WORD_RE.finditer(text)]
    out: list[tuple[int, int, str, str]] = []
    taken: set[int] = set()
    for phrase, doc_words in sorted(synonyms, key=lambda p: -len(phrase_stems(p[0]))):
        stems = phrase_stems(phrase)
        for i in range(len(words) - len(stems) + 1):
            span = range(i, i + len(stems))
            if stems and not taken & set(span) and tuple(words[j][2] for j in span) == stems:
                out.append((words[i][0], words[span[-1]][1], phrase, doc_words))
                taken.update(span)
    return sorted(out)


def everyday_terms(question: str, synonyms: Synonyms = ()) -> list[tuple[set[str], set[str]]]:
    """(stems of the everyday phrase, stems of the documents' words) for each everyday
    phrase of the question (the tenant's synonyms matched on stems), whether or not it was
    already expanded."""
    out = []
    own = {phrase for phrase, _ in synonyms}
    for phrase, doc_words in EVERYDAY_WORDS.items():
        if phrase not in own and re.search(rf"\b{re.escape(phrase)}\b", question, re.IGNORECASE):
            out.append((set(tokenize(phrase, keep_stopwords=True)), set(tokenize(doc_words, keep_stopwords=True))))
    for phrase, doc_words in dict.fromkeys((p, d) for _, _, p, d in synonym_spans(question, synonyms)):
        out.append((set(phrase_stems(phrase)), set(tokenize(doc_words, keep_stopwords=True))))
    return out


def expand_question(text: str, synonyms: Synonyms = (), replace: bool = False) -> str:
    """The text with known acronyms (CEO), abbreviations (admin), everyday words (pay back)
    and the tenant's synonyms each followed by the words documents use for them (search
    finds either); with `replace`, the documents' words stand instead of them (what the
    answer model reads: a taught word is no longer a word the documents never use)."""
    def expand(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower() in EVERYDAY_WORDS or (
                word.isupper() and word.lower() in ACRONYMS):
            return ACRONYMS[word.lower()] if replace else f"{word} {ACRONYMS[word.lower()]}"
        return word
    text = _SHORT_RE.sub(expand, text)
    for start, end, _, doc_words in reversed(synonym_spans(text, synonyms)):
        text = f"{text[:start]}{doc_words}{text[end:]}" if replace else f"{text[:end]} {doc_words}{text[end:]}"
    return text


def unused_targets(synonyms: dict[str, str], lexicon: LexicalIndex) -> list[str]:
    """The tenant's synonyms whose documents' words its documents never use: such a synonym
    changes nothing (the gate and the coverage read it only when they do), which the admin
    who adds it should hear at once. Returns their phrases, sorted."""
    return sorted(phrase for phrase, doc_words in synonyms.items()
                  if not any(lexicon.df.get(t, 0) > 0 for t in tokenize(doc_words, keep_stopwords=True)))
