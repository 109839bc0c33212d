"""Re-uploading an edited file embeds only the chunks whose text changed."""

from __future__ import annotations

from core import doctor, index
from core.config import Settings
from core.documents import ingest_file, reindex_document
from core.models import get_embedder


def test_an_edited_file_embeds_only_its_changed_chunks(settings: Settings, write_file, embed_calls) -> None:
    sections = [f"# Section {n}\n\n" + f"Rule {n} says the gate closes at {n}:00 on weekdays. " * 30 + "\n"
                for n in range(1, 7)]
    first = ingest_file(settings, "t", write_file("rules.md", "\n".join(sections)))
    assert first.status == "ready" and first.chunks >= 6 and first.reused_vectors == 0
    calls = embed_calls
    calls.clear()
    sections[2] = sections[2].replace("closes at 3:00", "closes at 4:30")
    second = ingest_file(settings, "t", write_file("new/rules.md", "\n".join(sections)))
    assert second.status == "ready" and second.replaced == first.doc_id
    assert 0 < sum(calls) < second.chunks and second.reused_vectors == second.chunks - sum(calls)
    # the reused vectors are the ones the text would get anyway: search finds the new version
    q = get_embedder().embed_query("When does the gate close under rule 5?")
    assert index.dense_search(settings, "t", q, 1)[0][0].startswith(second.doc_id)
    assert doctor.check(settings, "t").consistent

    calls.clear()  # a re-index of the same bytes embeds nothing at all
    again = reindex_document(settings, "t", second.doc_id)
    assert again.status == "ready" and sum(calls) == 0 and again.reused_vectors == again.chunks
    assert doctor.check(settings, "t").consistent
