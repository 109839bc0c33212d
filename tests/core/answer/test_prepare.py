"""Prepared answer vectors: a prepared tenant's question embeds only itself, answers are the
same prepared or not, a question stores what it had to embed, a deleted document's vectors
go, and a broken store costs time, never an answer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core import store
from core.answer import vectors
from core.answer.prepare import prepare_answer_vectors, texts_of
from core.answer_vectors import AnswerVectors
from core.config import Settings
from core.documents import delete_document, ingest_file
from core.models import get_embedder
from core.pipeline import ask

SHIPPING = """# Shipping

Parcels ship within 2 business days of the order. Express delivery costs 9 euros and
arrives the next working day.

| Zone | Delivery time |
|---|---|
| Domestic | 2 days |
| Europe | 5 days |
"""
RETURNS = """# Returns

Items may be returned within 30 days of delivery. Refunds are paid to the original card
within 5 business days of the return reaching the warehouse.
"""
QUESTIONS = ["How much does express delivery cost?", "How long do I have to return an item?",
             "How long does delivery to Europe take?"]


@pytest.fixture
def counted(embed_calls, monkeypatch) -> list[int]:
    """Texts embedded as passages, per call, with this process's unit cache emptied."""
    monkeypatch.setattr(vectors, "_cache", {})
    return embed_calls


def _tenant(settings: Settings, write_file, counted: list[int]) -> list[str]:
    ids = [ingest_file(settings, "shop", write_file(name, text)).doc_id
           for name, text in (("shipping.md", SHIPPING), ("returns.md", RETURNS))]
    counted.clear()  # the chunks' own vectors: not the answer step's
    return ids


def _seen(answer) -> tuple:
    return (answer.status, answer.answer, answer.confidence, [c.quote for c in answer.citations])


def test_a_prepared_tenant_embeds_only_the_question(settings: Settings, write_file, counted) -> None:
    _tenant(settings, write_file, counted)
    done = prepare_answer_vectors(settings, "shop", get_embedder())
    assert done.units > 0 and done.embedded == sum(counted) > 0
    assert AnswerVectors.of(settings, "shop").count() == done.embedded  # each text once

    counted.clear()
    again = prepare_answer_vectors(settings, "shop", get_embedder())  # nothing left to do
    assert again.embedded == 0 and counted == []

    vectors._cache.clear()  # a fresh process: only the store holds the vectors
    for question in QUESTIONS:
        ask(settings, "shop", question)
    assert counted == []


def test_answers_are_the_same_prepared_or_not(settings: Settings, tmp_path, write_file, counted) -> None:
    # what is compared is the answers' text, confidence and quotes, stored vectors or fresh:
    # a threshold under the answer model's keeps answers to compare whatever its calibration
    settings = replace(settings, gate_threshold=0.5)
    _tenant(settings, write_file, counted)
    cold = [_seen(ask(settings, "shop", q)) for q in QUESTIONS]
    assert sum(counted) > 0  # unprepared: the questions embedded the units they read ...
    stored = AnswerVectors.of(settings, "shop").count()
    assert stored > 0  # ... and stored them for the next question

    vectors._cache.clear()
    counted.clear()
    prepare_answer_vectors(settings, "shop", get_embedder())
    assert AnswerVectors.of(settings, "shop").count() >= stored
    vectors._cache.clear()
    warm = [_seen(ask(settings, "shop", q)) for q in QUESTIONS]
    assert warm == cold
    assert any(status == "answered" for status, *_ in warm)


def test_a_deleted_documents_vectors_go_with_it(settings: Settings, write_file, counted) -> None:
    shipping, returns = _tenant(settings, write_file, counted)
    prepare_answer_vectors(settings, "shop", get_embedder())
    kept = AnswerVectors.of(settings, "shop")
    assert kept.count(shipping) > 0 and kept.count(returns) > 0
    assert delete_document(settings, "shop", shipping)
    assert kept.count(shipping) == 0 and kept.count(returns) > 0


def test_every_unit_of_a_chunk_is_prepared(settings: Settings, write_file, counted) -> None:
    _tenant(settings, write_file, counted)
    prepare_answer_vectors(settings, "shop", get_embedder())
    rows = store.chunk_rows(settings, "shop")
    texts = [t for r in rows for t in texts_of(r)]
    assert any("9 euros" in t for t in texts) and any("Europe" in t for t in texts)  # sentences and rows
    model = vectors.model_name(get_embedder())
    from core.answer_vectors import key_of

    keys = list({key_of(model, t) for t in texts})
    assert len(AnswerVectors.of(settings, "shop").get(keys)) == len(keys)


def test_a_broken_store_costs_time_not_answers(settings: Settings, tmp_path, write_file, counted) -> None:
    _tenant(settings, write_file, counted)
    reference = [_seen(ask(settings, "shop", q)) for q in QUESTIONS]
    path = AnswerVectors.of(settings, "shop").path
    path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    vectors._cache.clear()
    counted.clear()
    assert [_seen(ask(settings, "shop", q)) for q in QUESTIONS] == reference
    assert sum(counted) > 0  # embedded afresh
    assert prepare_answer_vectors(settings, "shop", get_embedder()).embedded > 0


def test_an_upload_prepares_in_the_background(settings: Settings, counted) -> None:
    from core.answer.prepare import wait_for_background
    from ui import services

    result = services.ingest_upload(settings, "shop", "shipping.md", SHIPPING.encode(), "admin")
    assert result.status == "ready"
    assert wait_for_background(120)
    assert AnswerVectors.of(settings, "shop").count(result.doc_id) > 0
    vectors._cache.clear()
    counted.clear()
    ask(settings, "shop", QUESTIONS[0])
    assert counted == []


def test_a_new_version_embeds_only_its_new_sentences(settings: Settings, write_file, counted) -> None:
    from core.answer_vectors import key_of

    shipping, _ = _tenant(settings, write_file, counted)
    prepare_answer_vectors(settings, "shop", get_embedder())
    stored = AnswerVectors.of(settings, "shop")
    model = vectors.model_name(get_embedder())
    old_texts = {t for r in store.chunk_rows(settings, "shop", shipping) for t in texts_of(r)}

    new = ingest_file(settings, "shop", write_file("shipping.md", SHIPPING.replace("costs 9 euros", "costs 12 euros")))
    assert new.replaced == shipping and new.doc_id != shipping
    assert stored.count(shipping) == 0 and stored.count(new.doc_id) > 0  # handed over, not dropped
    counted.clear()
    done = prepare_answer_vectors(settings, "shop", get_embedder(), [new.doc_id])
    new_texts = {t for r in store.chunk_rows(settings, "shop", new.doc_id) for t in texts_of(r)}
    changed = new_texts - old_texts
    assert changed and all("12 euros" in t for t in changed)
    assert done.embedded == sum(counted) == len(changed)  # only the texts that changed
    # the new version's texts are all stored; the old version's changed texts are gone
    assert len(stored.get([key_of(model, t) for t in new_texts])) == len(new_texts)
    assert stored.get([key_of(model, t) for t in old_texts - new_texts]) == {}
    assert stored.count(new.doc_id) == len(new_texts)


def test_a_reindexed_document_keeps_its_answer_vectors(settings: Settings, write_file, counted) -> None:
    from core.documents import reindex_document

    shipping, _ = _tenant(settings, write_file, counted)
    prepare_answer_vectors(settings, "shop", get_embedder())
    before = AnswerVectors.of(settings, "shop").count(shipping)
    reindex_document(settings, "shop", shipping)
    assert AnswerVectors.of(settings, "shop").count(shipping) == before
    counted.clear()
    assert prepare_answer_vectors(settings, "shop", get_embedder(), [shipping]).embedded == 0
