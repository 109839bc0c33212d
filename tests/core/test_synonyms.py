"""A tenant's synonyms, end to end: the word its documents never use is asked about by the
documents' words, for that tenant only (core/expand.py, core/gate.py, core/generate.py)."""

import pytest

from core.config import save_tenant_overrides
from core.documents import ingest_file
from core.pipeline import ask


@pytest.fixture
def two_tenants(settings, write_file):
    terms = write_file("subscription.md", "# HomeHub subscription\n\n## Prices\n\n"
                       "HomeHub Premium costs €8.99 per month and includes remote diagnostics.\n\n"
                       "## Cancellation\n\nYou can cancel HomeHub Premium at any time in the app; it stays "
                       "active until the end of the paid month.\n")
    delivery = write_file("delivery.md", "# Delivery\n\nWashing machines are delivered within 5 business days. "
                          "Delivery costs €19.90.\n")
    for tenant in ("acme", "globex"):
        for path in (terms, delivery):
            assert ingest_file(settings, tenant, path).status == "ready"
    return settings


def test_a_synonym_turns_an_unknown_word_into_the_documents_words(two_tenants):
    settings = two_tenants
    question = "How much does the gizmo subscription cost per month?"
    before = ask(settings, "acme", question)
    # refused, the refusal names the word to teach; answered, it cannot be from the word
    assert before.status != "refused" or before.refusal_subject == "gizmo", before.refusal_reason

    save_tenant_overrides(settings, "acme", {"synonyms": {"gizmo": "HomeHub Premium"}})
    after = ask(settings, "acme", question)
    assert after.status == "answered" and "€8.99" in after.answer
    assert after.citations[0].source == "subscription.md"
    # the documents' words make the answer surer than the bare word did, for this tenant only
    assert after.confidence > before.confidence
    other = ask(settings, "globex", question)
    assert other.confidence == pytest.approx(before.confidence, abs=1e-6)
    # the synonym says what the word means, not that every question with it has an answer
    assert ask(settings, "acme", "How much does the gizmo delivery to Mars cost?").status == "refused"
