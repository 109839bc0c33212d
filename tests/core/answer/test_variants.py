"""Ranking stability under question variants (core/answer/variants.py)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from core.answer.question import Question
from core.answer.variants import UNKNOWN, content_words, stability, variant_texts, variant_vectors, without


class BagOfWords:
    """Vectors that are the normalised sum of one fixed random vector per word: cosine
    follows shared words, enough to test what the variants do."""

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(64)
        for word in text.lower().replace("?", " ").replace(".", " ").split():
            v += np.random.default_rng(zlib.crc32(word.encode())).normal(size=64)
        return v / (np.linalg.norm(v) or 1.0)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return np.asarray([self._vector(t) for t in texts])

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self.embed_passages(texts)


def test_content_words_leave_out_asking_and_stop_words():
    words = content_words(Question.parse("How many hours of annual leave can I carry over?"))
    assert words == ["annual", "leave", "carry"]  # "hours" is how the answer is asked for


def test_content_words_come_from_the_asking_sentence_only():
    q = Question.parse("I joined the Lisbon office last spring. How long is the notice period?")
    words = content_words(q)
    assert "notice" in words and "lisbon" not in words
    # the scene stays in every variant: only a word of the asking sentence is left out
    assert all("Lisbon office" in t for t in variant_texts(q))


def test_content_words_read_the_questions_language():
    words = content_words(Question.parse("Сколько дней отпуска можно перенести?"))
    assert "отпуска" in words and "сколько" not in words


def test_without_leaves_out_whole_words_in_any_case():
    assert without("Leave, leaves and LEAVE.", "leave") == ", leaves and ."
    assert without("annual leave", "leaves") == "annual leave"
    assert without("Отпуск и отпуска", "отпуск") == "и отпуска"


def test_each_variant_misses_one_word():
    q = Question.parse("Where is the visitor parking entrance?")
    texts = variant_texts(q)
    assert len(texts) == len(content_words(q)) == 3
    words = content_words(q)
    for left_out, text in zip(words, texts, strict=True):
        assert left_out not in text and all(w in text for w in words if w != left_out)


def test_a_unit_matching_the_whole_question_stays_first_under_every_variant():
    emb = BagOfWords()
    q = Question.parse("How many hours of annual leave can staff carry over?")
    units = ["Staff can carry over 240 hours of annual leave.", "Annual reviews happen in May.",
             "Sick leave is earned every pay period."]
    top, rank = stability(emb.embed_passages(units), variant_vectors(emb, q))
    assert top[0] == 1.0 and top[1] == top[2] == 0.0
    assert rank[0] == 1.0 and rank[0] > rank[1] and rank[0] > rank[2]


def test_under_a_question_no_unit_answers_the_first_place_moves():
    emb = BagOfWords()
    q = Question.parse("When does the canteen open on weekends?")
    units = ["The canteen serves lunch.", "The office opens at 8.", "Weekends are quiet."]
    top, _ = stability(emb.embed_passages(units), variant_vectors(emb, q))
    assert top.max() < 1.0 and top.sum() == pytest.approx(1.0)


def test_nothing_to_leave_out_reads_unknown():
    top, rank = stability(np.eye(3), np.zeros((0, 0)))
    assert list(top) == list(rank) == [UNKNOWN] * 3
    assert variant_vectors(BagOfWords(), Question.parse("What?")).shape[0] == 0
