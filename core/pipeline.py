"""ask(): the whole flow, top to bottom — retrieve, gate, generate, validate, verify,
guard, trace. Each step is one call into its own module."""

from __future__ import annotations

import time
from pathlib import Path

from core import index, store
from core.analysis import expand_acronyms, strip_instructions
from core.config import Settings
from core.gate import assess
from core.generate import GENERATORS, Generation
from core.highlight import quote_rects
from core.models import get_embedder
from core.retrieve import Candidate, retrieve
from core.schema import Answer, Citation
from core.tenants import validate_tenant
from core.trace import new_trace_id, record
from core.verify import guard, validate_citations, verify_answer

REFUSAL = "I did not find this in your knowledge base."
MAX_QUESTION_CHARS = 2000


def ask(settings: Settings, tenant: str, question: str) -> Answer:
    validate_tenant(tenant)
    question = (question or "").strip()
    if not question:
        raise ValueError("Ask a question: the text is empty.")
    if len(question) > MAX_QUESTION_CHARS:
        raise ValueError(f"The question is {len(question)} characters; keep it under {MAX_QUESTION_CHARS}.")
    settings = settings.for_tenant(tenant)
    started = time.perf_counter()
    timings: dict[str, float] = {}
    trace_id = new_trace_id()

    # 1. retrieve (dense + BM25 over this tenant only, fused). Clauses aimed at the model
    #    ("ignore previous instructions") are not part of what is asked; known acronyms are
    #    spelled out ("CEO" -> "CEO chief executive officer") as documents write them.
    asked = expand_acronyms(strip_instructions(question))
    retrieval = retrieve(settings, tenant, asked)
    timings["retrieve"] = retrieval.timings_ms["retrieve"]
    passages = retrieval.top
    lexicon = index.lexical_index(settings, tenant)

    # 2. gate on the retrieval evidence. Answer confidence = half retrieval evidence, half
    #    how well the best sentence answers; refuse early when even a perfect sentence
    #    could not lift it over the tenant's threshold.
    t = time.perf_counter()
    gate = assess(asked, retrieval, lexicon)
    timings["gate"] = _ms(t)
    threshold = settings.gate_threshold
    answer = Answer(question=question, tenant=tenant, status="refused", answer=REFUSAL,
                    confidence=round(0.5 * gate.confidence, 4), provider=settings.provider,
                    trace_id=trace_id, retrieved=[_retrieved(c) for c in passages])
    generation: Generation | None = None
    decision_note = "answer"

    if gate.reason or 0.5 * gate.confidence + 0.5 < threshold:
        decision_note = "refuse before generating"
        answer.refusal_reason = gate.reason or (
            f"Retrieval confidence {gate.confidence:.2f} is too low for the threshold {threshold:.2f}."
        )
    else:
        # 3. generate with [n] markers
        t = time.perf_counter()
        generator = GENERATORS["extractive"](embedder=get_embedder(num_threads=settings.embed_threads))
        generation = generator.generate(asked, passages, lexicon)
        timings["generate"] = _ms(t)
        answer.provider, answer.model = generation.provider, generation.model
        answer.confidence = round(0.5 * gate.confidence + 0.5 * generation.support, 4)
        # 4. validate citations; 5. verify claims; 6. guard
        t = time.perf_counter()
        if not generation.text:
            decision_note = "refuse: no answering sentence"
            answer.refusal_reason = generation.refusal_reason
        elif answer.confidence < threshold:
            decision_note = "refuse after generating"
            answer.refusal_reason = (f"Answer confidence {answer.confidence:.2f} is below the threshold "
                                     f"{threshold:.2f}: the closest sentence does not clearly answer it.")
        elif validate_citations(generation.text, len(passages)):
            answer.refusal_reason = "The answer had no valid citations."
        else:
            claims = verify_answer(generation.text, [p.text for p in passages])
            decision = guard(generation.text, claims, settings.strict_mode, _quotes_only(generation))
            answer.claims = decision.claims
            if decision.status != "refused":
                answer.status, answer.answer = decision.status, decision.answer
                answer.citations = _citations(settings, tenant, generation, passages, decision.answer)
            answer.refusal_reason = decision.reason
        timings["verify"] = _ms(t)

    supported = sum(1 for c in answer.claims if c.verdict == "supported")
    answer.factuality = round(100.0 * supported / len(answer.claims), 1) if answer.claims else 0.0
    if answer.status == "refused":
        answer.closest = [_closest(c) for c in passages[:3]]
        answer.citations = []
    timings["total"] = _ms(started)
    answer.timings_ms = {k: round(v, 2) for k, v in timings.items()}

    # 7. trace
    record(settings, trace_id, answer=answer.to_dict(),
           candidates=[c.to_dict() for c in retrieval.candidates] + [c.to_dict() for c in passages if c.neighbour],
           gate={**gate.to_dict(), "threshold": threshold, "answer_confidence": answer.confidence,
                 "support": generation.support if generation else None, "decision": decision_note},
           prompt=generation.prompt if generation else None,
           raw_output=generation.raw_output if generation else None,
           tokens=generation.tokens if generation else None)
    return answer


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _retrieved(c: Candidate) -> dict:
    return {"chunk_id": c.chunk_id, "doc_id": c.doc_id, "source": c.source, "rank": c.rank,
            "page": c.page_start, "neighbour": c.neighbour, "text": c.text}


def _closest(c: Candidate) -> dict:
    snippet = " ".join(c.text.split())
    return {"source": c.source, "page": c.page_start, "section": c.section, "doc_id": c.doc_id,
            "chunk_id": c.chunk_id, "snippet": snippet[:300] + ("…" if len(snippet) > 300 else "")}


def _quotes_only(generation: Generation) -> str:
    return " ".join(f"“{s.unit.quote}” [{s.passage}]" for s in generation.selected)


def _citations(settings: Settings, tenant: str, generation: Generation, passages: list[Candidate],
               final_text: str) -> list[Citation]:
    """One citation per quoted unit still in the final answer; PDF quotes get page rectangles."""
    out = []
    for sel in generation.selected:
        if sel.unit.text.rstrip() not in final_text and sel.unit.quote not in final_text:
            continue
        p = passages[sel.passage - 1]
        page, rects = p.page_start, []
        if p.page_start is not None and p.source.lower().endswith(".pdf"):
            doc = store.get_document(settings, tenant, p.doc_id)
            if doc and doc.get("path") and Path(doc["path"]).exists():
                pages = list(range(p.page_start, (p.page_end or p.page_start) + 1))
                found, rects = quote_rects(Path(doc["path"]), pages, sel.unit.quote)
                page = found or page
        out.append(Citation(index=sel.passage, doc_id=p.doc_id, chunk_id=p.chunk_id, source=p.source,
                            title=p.title, page=page, section=p.section, quote=sel.unit.quote,
                            char_start=sel.unit.start, char_end=sel.unit.end, score=sel.score, rects=rects))
    return out
