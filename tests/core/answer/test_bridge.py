"""Words across languages: the tenant's vocabulary, embedded once, translates a question's
words into the language of its documents, for BM25 and for the answer step's word signals."""

from __future__ import annotations

from core.answer.bridge import searched, translations, vocabulary
from core.answer.prepare import prepare_answer_vectors
from core.answer_vectors import AnswerVectors
from core.config import Settings
from core.documents import ingest_file
from core.lexical import tokenize
from core.models import get_embedder
from core.pipeline import ask, question_read
from core.retrieve import retrieve

HANDBOOK = """# Leave

Every employee accrues vacation days each month. Vacation requests go to the manager two
weeks ahead. Unused vacation days expire at the end of the year.

# Pay

The salary is paid on the last working day of the month. Salary slips are sent by email.

# Contractors

A contractor signs the contractor agreement before the first visit. Contractors wear a
visitor badge.
"""


def test_the_vocabulary_keeps_repeated_topic_words_only() -> None:
    words = vocabulary(["The vacation starts. The vacation ends. A rare word.", "Vacation again, and the end."])
    assert words["vacation"] == 3
    assert "the" not in words and "rare" not in words  # a stop word; a word seen once
    assert all(len(w) >= 3 for w in words)


def test_a_russian_question_finds_the_english_words(settings: Settings, write_file) -> None:
    ingest_file(settings, "hr", write_file("handbook.md", HANDBOOK))
    done = prepare_answer_vectors(settings, "hr", get_embedder())
    assert done.words > 5
    stored = AnswerVectors.of(settings, "hr")

    q = question_read("Когда выплачивается зарплата?")
    found = translations(q, stored, get_embedder())
    assert tokenize("salary")[0] in found[tokenize("зарплата")[0]]

    # the same language needs no translation; a tenant without prepared words has none
    assert translations(question_read("When is the salary paid?"), stored, get_embedder()) == {}
    assert translations(q, AnswerVectors.of(settings, "nobody"), get_embedder()) == {}

    # BM25 ranks the salary passage by the translated words
    ranked = retrieve(settings, "hr", q.text, translated=searched(found)).top
    first = next(c for c in ranked if c.bm25_rank == 1)
    assert "salary" in first.text.lower()


def test_the_trace_shows_the_words_searched_across_languages(settings: Settings, write_file) -> None:
    ingest_file(settings, "hr", write_file("handbook.md", HANDBOOK))
    prepare_answer_vectors(settings, "hr", get_embedder())
    answer = ask(settings, "hr", "Когда выплачивается зарплата?")
    assert tokenize("salary")[0] in answer.steps["translations"][tokenize("зарплата")[0]]
    assert "translations" not in ask(settings, "hr", "When is the salary paid?").steps
