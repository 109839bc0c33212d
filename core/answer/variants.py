"""How steady the ranking stays when the question is asked a little differently.

Each content word of the asking sentence is left out in turn (at most `MAX_VARIANTS`
words) and the shortened question is embedded. A unit that states what is asked stays the
closest by e5 cosine whichever word is missing; under a question the documents do not
answer, the closest unit changes with the word left out, since no unit matches the whole
question (test-time perturbation as an estimate of uncertainty). Two signals per unit:

- `stab_top`: the share of the variants under which it is the closest unit;
- `stab_rank`: the mean of 1 / (1 + its rank among the units) over the variants.

A question with no content word to leave out reads 0.5 for both: nothing is known.
Measured before it was built (docs/quality.md, fifteenth session): leave-one-domain-out
grounded 0.526 -> 0.544 on the seven shipped domains, 0.533 -> 0.552 on eleven.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from core.answer.question import Question, words_of

MAX_VARIANTS = 8
UNKNOWN = 0.5


def content_words(question: Question) -> list[str]:
    """The asking sentence's words that carry its topic, in order, at most MAX_VARIANTS:
    not stop words, conversation fillers or the words of asking ("how", "many")."""
    lang = question.lang
    out: list[str] = []
    for word in words_of(question.asking):
        if len(word) < 2 or word in lang.stopwords or word in lang.filler or word in lang.asking_words:
            continue
        if word not in out:
            out.append(word)
    return out[:MAX_VARIANTS]


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def without(text: str, word: str) -> str:
    """`text` with every whole-word occurrence of `word` (any case) left out."""
    lower, target = text.lower(), word.lower()
    if len(lower) != len(text):  # a letter whose lowercase is longer: leave the text as it is
        return text
    kept, i = [], 0
    while True:
        at = lower.find(target, i)
        if at < 0:
            kept.append(text[i:])
            break
        end = at + len(target)
        whole = (at == 0 or not _is_word_char(lower[at - 1])) and (end == len(lower) or not _is_word_char(lower[end]))
        kept.append(text[i:at] if whole else text[i:end])
        i = end
    return "".join(kept).replace("  ", " ").strip()


def variant_texts(question: Question) -> list[str]:
    """The question once per content word, with that word left out."""
    return [without(question.text, w) for w in content_words(question)]


def variant_vectors(embedder: Any, question: Question) -> np.ndarray:
    """e5 query vectors of the variants, one row each (no rows when there is none)."""
    texts = variant_texts(question)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.asarray(embedder.embed_queries(texts), dtype=np.float32).reshape(len(texts), -1)


def add_stability(scored: list[Any], unit_vectors: np.ndarray, variants: np.ndarray | None) -> None:
    """Set `stab_top` and `stab_rank` in the signals of `scored` (units the vetoes kept,
    one vector each): ranks count only units that could be quoted."""
    top, rank = stability(unit_vectors, variants if variants is not None else np.zeros((0, 0)))
    for s, t, r in zip(scored, top, rank):
        s.signals["stab_top"], s.signals["stab_rank"] = float(t), float(r)


def stability(unit_vectors: np.ndarray, variants: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(stab_top, stab_rank) per unit (see the module docstring)."""
    n = len(unit_vectors)
    if not len(variants) or not n:
        return np.full(n, UNKNOWN), np.full(n, UNKNOWN)
    sims = np.asarray(variants, float) @ np.asarray(unit_vectors, float).T  # variants x units
    tops = sims.argmax(axis=1)
    ranks = np.argsort(np.argsort(-sims, axis=1, kind="stable"), axis=1, kind="stable")
    stab_top = np.asarray([np.mean(tops == j) for j in range(n)], float)
    return stab_top, np.mean(1.0 / (1.0 + ranks), axis=0)
