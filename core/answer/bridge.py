"""Words across languages: a question's words in the words of the tenant's documents that
are written in another language, found by the multilingual embedder itself.

A question in Russian over English documents shares no word with them, so every word
signal of the answer step was zero across languages and BM25 found nothing; only the
dense similarity was left (right answers across languages: 6% on the blind sets). The
embedder (multilingual e5) places a word near its translations (отпуск -> vacation,
подрядчик -> contractor), so the tenant's own vocabulary, embedded once, is a dictionary
learned from data, in both directions, with no word list and no model beyond the one the
product already runs.

Algorithm:
1. Preparation (core/answer/prepare.py): the words of the tenant's passages (letters only,
   at least MIN_LETTERS, not a stop word, seen at least MIN_COUNT times) are embedded as
   passages and stored with their language (core/answer_vectors.py, table `words`).
2. At question time: the question's topic words (stop words dropped) are embedded as
   queries, in one call; for each, the stored words of every *other* language with cosine
   >= MIN_SIMILARITY and within MARGIN of that word's best are its translations (at most
   TRANSLATIONS), kept as the stemmed tokens the lexical index uses.
3. Used (a) as one more BM25 ranking in retrieval, over the translations (core/retrieve.py),
   and (b) by the answer step's word signals for a unit in another language than the
   question (core/answer/signals.py), which the answer model learns to weigh.
The thresholds were set once from the embedder's similarity scale (a translation scores
0.86-0.90, a look-alike word 0.85-0.87), not tuned on any evaluation set; the answer model
learns how much the resulting overlap is worth.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from core.answer.question import Question, words_of
from core.answer_vectors import AnswerVectors
from core.lang import LANGUAGES, language_of
from core.lexical import tokenize

MIN_LETTERS = 3
MIN_COUNT = 2
MIN_SIMILARITY = 0.86
MARGIN = 0.02
TRANSLATIONS = 3

_STOP = frozenset().union(*(lang.stopwords for lang in LANGUAGES.values()))
_tables: dict[str, tuple[Any, list[str], np.ndarray, np.ndarray]] = {}  # path -> (version, words, langs, matrix)
_lock = threading.Lock()


def vocabulary(texts: Iterable[str]) -> Counter:
    """Words worth a translation, with how often they stand in the texts."""
    counts: Counter = Counter()
    for text in texts:
        counts.update(w for w in words_of(text) if len(w) >= MIN_LETTERS and w.isalpha() and w not in _STOP)
    return Counter({w: n for w, n in counts.items() if n >= MIN_COUNT})


def _table(stored: AnswerVectors) -> tuple[list[str], np.ndarray, np.ndarray]:
    version = stored.words_version()
    with _lock:
        cached = _tables.get(str(stored.path))
        if cached and cached[0] == version:
            return cached[1], cached[2], cached[3]
    words, langs, matrix = stored.words()
    with _lock:
        _tables[str(stored.path)] = (version, words, np.asarray(langs), matrix)
    return words, np.asarray(langs), matrix


def translations(question: Question, stored: AnswerVectors, embedder: Any) -> dict[str, list[str]]:
    """The question's topic terms (stemmed, as `Question.terms`) -> their translations'
    stemmed tokens in the tenant's other languages; empty when the tenant has none."""
    words, langs, matrix = _table(stored)
    if not len(words):
        return {}
    other = langs != question.lang.code
    if not other.any():
        return {}
    source = list(dict.fromkeys(w for w in question.words if len(w) >= MIN_LETTERS and w.isalpha()
                                and w not in _STOP and language_of(w).code == question.lang.code))
    if not source:
        return {}
    vectors = np.vstack([embedder.embed_query(w) for w in source])
    sims = vectors @ matrix[other].T
    targets = [w for w, keep in zip(words, other) if keep]
    out: dict[str, list[str]] = {}
    for word, row in zip(source, sims):
        term = tokenize(word)
        if not term:
            continue
        best = float(row.max())
        if best < MIN_SIMILARITY:
            continue
        found: list[str] = []
        for i in np.argsort(-row)[: TRANSLATIONS * 4]:
            if row[i] < max(MIN_SIMILARITY, best - MARGIN) or len(found) >= TRANSLATIONS:
                break
            for tok in tokenize(targets[i]):
                if tok not in found:
                    found.append(tok)
        if found:
            out.setdefault(term[0], found[:TRANSLATIONS])
    return out


def prepare_words(stored: AnswerVectors, texts: Iterable[str], embedder: Any, batch: int = 256) -> int:
    """Embed and store the words of `texts` not stored yet; returns how many were new."""
    have = set(stored.words()[0])
    todo = [w for w in vocabulary(texts) if w not in have]
    for start in range(0, len(todo), batch):
        part = todo[start:start + batch]
        stored.put_words(zip(part, (language_of(w).code for w in part), embedder.embed_passages(part)))
    return len(todo)


def searched(bridged: dict[str, list[str]]) -> list[str]:
    """The translations' tokens as one BM25 query (core/retrieve.py `translated`)."""
    return list(dict.fromkeys(tok for toks in bridged.values() for tok in toks))
