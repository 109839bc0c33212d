"""ask(): the whole flow, top to bottom — retrieve, gate, generate, validate, verify,
guard, trace. Each step is one call into its own module."""

from __future__ import annotations

import functools
import re
import time
import unicodedata
from dataclasses import dataclass, replace
from typing import Any

from core import index, journal, scan_words, store
from core.answer.differing import key_text, later_versions, series_version
from core.answer.differing import note as differences_note
from core.answer.premise import OPPOSITE
from core.answer.question import Question
from core.answer.references import without_references
from core.answer.safety import MARKUP_RE, strip_instructions
from core.answer_vectors import AnswerVectors
from core.closest import closest_entries
from core.config import MAX_QUESTION_CHARS, Settings
from core.expand import Synonyms, everyday_terms, expand_question
from core.followup import looks_like_followup, read_followup, refers_back, with_previous
from core.gate import assess
from core.generate import GENERATORS, Generation
from core.highlight import quote_rects
from core.lang import DEFAULT, LANGUAGES, Language, language_of
from core.lang.frequency import chunk_probability
from core.lang.wording import WORDING
from core.lexical import FAMILY_PREFIX, TOKEN_RE, LexicalIndex, expand_contractions, tokenize
from core.llm import LLMClient, LLMUnavailable
from core.llm_followup import condense
from core.llm_generate import evidence_units
from core.llm_judge import CheckedJudge
from core.llm_steps import (
    grade_passages,
    hypothetical_passage,
    judge_answer,
    rewrite_query,
    suggest_followups,
)
from core.models import get_embedder
from core.retrieve import Candidate, retrieve
from core.route import route_of
from core.schema import Answer, Citation, Claim, is_paged
from core.telemetry import cost_usd, emit_ask
from core.tenants import kept_file, validate_tenant
from core.trace import new_trace_id, record
from core.verify import (
    JUDGES,
    ONE_MARKER_RE,
    guard,
    quotable,
    strip_markers,
    validate_citations,
    verify_answer,
)

REFUSAL = WORDING["refusal"]  # in English; a question is refused in its own language
MAX_REJECTED_SHOWN = 40


_STATUS_RANK = {"answered": 3, "corrected": 3, "narrowed": 2, "fallback": 1, "refused": 0}


def ask(settings: Settings, tenant: str, question: str, previous: str | None = None,
        origin: str | None = None) -> Answer:
    """Answer one question from the tenant's documents. `previous` is the question asked
    just before in the same chat: an elliptical follow-up ("What about part-time staff?") is
    read as the whole question it stands for (core/followup.py), kept as `asked_as`; one
    that leans on it through a pronoun ("How much does it cost?") is asked with it before it.
    `origin` marks an ask no person made (`eval`, `benchmark`): its trace is kept and listed,
    but live quality, the review queue and the words to teach count people's asks only.

    With the llm provider and `llm_self_check`, an answer routed to a person is asked once
    more as the model rewrites the question (core/llm_steps.py); the better answer is kept
    and the first ask's trace notes what happened."""
    first = _ask_once(settings, tenant, question, previous, origin)
    # llm_self_check is no tenant knob: most asks return here without another registry read
    if not (settings.llm_self_check and first.route == "human" and first.refusal_code != "unknown_tenant"):
        return first
    tenant_settings = settings.for_tenant(tenant)
    if tenant_settings.provider != "llm":
        return first
    rewritten = rewrite_query(LLMClient(tenant_settings), first.asked_as or question)
    if rewritten is None:
        store.annotate_trace(settings, tenant, first.trace_id, "self_check", {"rewritten": None})
        return first
    second = _ask_once(settings, tenant, rewritten, origin=origin)
    better = (_STATUS_RANK.get(second.status, 0), second.confidence) > (_STATUS_RANK.get(first.status, 0), first.confidence)
    kept, other = (second, first) if better else (first, second)
    note = {"rewritten": rewritten, "kept": "rewritten" if better else "first", "other_trace": other.trace_id}
    store.annotate_trace(settings, tenant, kept.trace_id, "self_check", note)
    if not better:
        first.steps["self_check"] = note
        return first
    second.question, second.asked_as = question, rewritten
    second.steps["self_check"] = note
    return second


def _ask_once(settings: Settings, tenant: str, question: str, previous: str | None = None,
              origin: str | None = None) -> Answer:
    validate_tenant(tenant)
    question = without_controls(question or "").strip()
    if not question:
        raise ValueError(EMPTY_QUESTION)
    if len(question) > MAX_QUESTION_CHARS:
        raise ValueError(f"The question is {len(question):,} characters; keep it to {MAX_QUESTION_CHARS:,} "
                         "characters or fewer.")
    if not re.search(r"\w", MARKUP_RE.sub(" ", question)):
        # "<script>alert(1)</script>" asks nothing, but its markup finds the document lines
        # that carry the same markup, and one of them was quoted as the "answer"
        raise ValueError("The question has no words, only markup or punctuation; type it in plain words.")
    if not store.tenant_exists(settings, tenant):
        # no trace, no collection: a mistyped id leaves nothing behind
        return Answer(question=question, tenant=tenant, status="refused", answer=language_of(question).say("refusal"), confidence=0.0,
                      provider="extractive", model=None, refusal_code="unknown_tenant", refusal_subject=tenant,
                      refusal_reason=language_of(question).say("unknown_tenant", tenant=tenant))
    journal.settle_abandoned(settings, tenant)  # a write a crash left half-done
    settings = settings.for_tenant(tenant)
    started = time.perf_counter()
    # every stage DESIGN.md lists is present; a refusal at the gate spends nothing on the later ones
    timings: dict[str, float] = {"retrieve": 0.0, "gate": 0.0, "generate": 0.0, "verify": 0.0}
    trace_id = new_trace_id()

    # 1. retrieve (dense + BM25 over this tenant only, fused). Clauses aimed at the model
    #    ("ignore previous instructions") are not part of what is asked; known acronyms are
    #    spelled out ("CEO" -> "CEO chief executive officer") as documents write them.
    previous = (previous or "")[:MAX_QUESTION_CHARS]
    asked_as = read_followup(question, previous)
    if asked_as is None and previous and settings.provider == "llm" and (
            looks_like_followup(question) or refers_back(question)):
        try:  # the model reads what the rules could not place; None when it fails
            asked_as = condense(LLMClient(settings), question, previous)
        except LLMUnavailable:
            asked_as = None
    if asked_as is None:  # a pronoun pointing back: asked with the question before it as its scene
        asked_as = with_previous(question, previous)
    asked = prepare_question(asked_as or question, settings.synonyms)
    hyde = settings.llm_hyde and settings.llm_configured
    hypothetical = hypothetical_passage(LLMClient(settings), asked) if hyde else None  # None: the model failed
    retrieval = retrieve(settings, tenant, asked, hypothetical)
    timings["retrieve"] = retrieval.timings_ms["retrieve"]
    passages = retrieval.top
    lexicon = index.lexical_index(settings, tenant)
    stored_vectors = AnswerVectors.of(settings, tenant)  # unit vectors prepared at ingest

    # 2. gate on the retrieval evidence. Answer confidence = half retrieval evidence, half
    #    how well the best sentence answers; refuse early when even a perfect sentence
    #    could not lift it over the tenant's threshold.
    t = time.perf_counter()
    parsed = question_read(asked_as or question, settings.synonyms)
    gate = assess(parsed, retrieval, lexicon, mentioned=lambda code: store.mentions(settings, tenant, code))
    timings["gate"] = _ms(t)
    threshold = settings.gate_threshold
    # provider/model say what produced the answer: a refusal at the gate runs no model (the
    # refusal and its closest passages are extractive), whatever the tenant's provider is
    answer = Answer(question=question, asked_as=asked_as, tenant=tenant, status="refused", answer=language_of(question).say("refusal"),
                    confidence=round(0.5 * gate.confidence, 4), provider="extractive", model=None,
                    trace_id=trace_id, retrieved=[_retrieved(c) for c in passages])
    if hyde:
        answer.steps["hyde"] = {"passage": hypothetical}  # None: the model failed, retrieval went on without
    generation: Generation | None = None
    model_run: Generation | None = None  # what the LLM was sent and said, kept for the trace
    decision_note = "answer"
    model_unavailable = False  # the endpoint failed: the route says "retry"

    if gate.reason:
        decision_note = "refuse before generating"
        answer.refusal_reason = gate.reason
        answer.refusal_code, answer.refusal_subject = gate.code, gate.subject
    else:
        # 3. generate with [n] markers: the configured provider; the extractive answer when
        #    the model is unreachable or its output breaks the citation rules twice
        t = time.perf_counter()
        extractive = GENERATORS["extractive"](embedder=get_embedder(num_threads=settings.embed_threads),
                                              synonyms=settings.synonyms, stored=stored_vectors)
        parsed.vector = None
        fallback_reason = None
        if settings.provider == "llm":
            if settings.llm_grade_passages:
                graded = grade_passages(LLMClient(settings), asked, passages)
                answer.steps["grade_passages"] = {"kept": len(graded), "of": len(passages)}
                passages = graded
            writer = settings
            if settings.llm_strong_model and gate.confidence < settings.gate_threshold:
                # a hard question: weak retrieval evidence, so the stronger model writes
                writer = replace(settings, llm_model=settings.llm_strong_model)
                answer.steps["strong_model"] = {"model": settings.llm_strong_model,
                                                "retrieval_evidence": round(gate.confidence, 4)}
            try:
                generation = model_run = GENERATORS["llm"](writer).generate(asked, passages, lexicon)
            except LLMUnavailable as exc:
                fallback_reason = parsed.lang.say("model_failed", error=exc)
                model_run = getattr(exc, "run", None)
                model_unavailable = True
        if generation is None:
            generation = extractive.generate(parsed, passages, lexicon)
        timings["generate"] = _ms(t)
        answerable = _model_says_answerable(settings, asked, generation, answer.steps)
        # 4. validate citations; 5. verify claims; 6. guard
        t = time.perf_counter()
        outcome = _check(settings, generation, passages, gate.confidence, parsed.lang, answerable)
        if outcome.status == "refused" and generation.provider == "llm" and generation.text:
            # the model's answer failed its checks: the extractive answer instead
            fallback_reason = parsed.lang.say("model_unverified", reason=outcome.reason)
            generation = extractive.generate(parsed, passages, lexicon)
            outcome = _check(settings, generation, passages, gate.confidence, parsed.lang)
        timings["verify"] = _ms(t)
        decision_note = outcome.note
        answer.provider, answer.model = generation.provider, generation.model
        answer.confidence, answer.claims = outcome.confidence, outcome.claims
        if outcome.status != "refused":
            answer.status, answer.answer, answer.note = outcome.status, outcome.answer, outcome.reason
            answer.citations = _citations(settings, tenant, generation, passages, outcome.answer)
            _renumber(answer)
            if fallback_reason:
                answer.status, answer.note = "fallback", fallback_reason
            elif generation.correction:  # the passage contradicts the question's premise
                answer.status = "corrected"
                answer.answer, answer.note = _correction_wording(parsed, answer.answer, generation.correction)
            elif generation.differences:  # two documents disagree, or a row is out of force
                answer.differences = [{"key": d["key"], "rows": [{k: r[k] for k in ("source", "validity", "date", "by")}
                                                                  for r in d["rows"]]} for d in generation.differences]
                if any(len(d["rows"]) > 1 for d in generation.differences):
                    answer.answer = language_of(question).say("differ", answer=answer.answer)
                answer.note = differences_note(generation.differences, parsed.lang)
            if generation.amended:
                answer.note = f"{answer.note} {generation.amended}" if answer.note else generation.amended
            if withdrawn := _out_of_force_note(answer.citations, passages, parsed.lang):
                answer.note = f"{answer.note} {withdrawn}" if answer.note else withdrawn
            if later := _later_versions(settings, tenant, answer):
                answer.differences += later  # shown as the documents that differ are: not a footnote
                said = differences_note(later, parsed.lang)
                answer.note = f"{answer.note} {said}" if answer.note else said
        else:
            answer.refusal_reason = outcome.reason or fallback_reason
        if answer.status == "refused":
            answer.refusal_code = ("no_candidate" if not generation.text else "low_confidence"
                                   if outcome.note == "refuse after generating" else "failed_checks")
            unknown = unknown_words(question_written(asked_as or question), lexicon, passages,
                                    taught_words(asked_as or question, settings.synonyms, lexicon))
            if unknown and answer.refusal_code != "failed_checks":  # a word of the user's: a synonym to teach
                answer.refusal_code, answer.refusal_subject = "unknown_word", unknown[0]
                answer.refusal_reason = parsed.lang.say("unknown_word", mention=never_mentions(parsed, unknown[0], passages),
                                                        reason=answer.refusal_reason or "")

    supported = sum(1 for c in answer.claims if c.verdict == "supported")
    answer.factuality = round(100.0 * supported / len(answer.claims), 1) if answer.claims else 0.0
    if answer.status == "refused":
        t = time.perf_counter()
        answer.closest = closest_entries(parsed, passages, lexicon, get_embedder(num_threads=settings.embed_threads),
                                         ranked=(generation.ranked or None) if generation else None,
                                         stored=stored_vectors)
        first = answer.closest[0] if answer.closest else None
        if first and first.get("quote"):  # its PDF page, marked once here, not on every page rerun
            passage = next(p for p in passages if p.chunk_id == first["chunk_id"])
            first["page"], first["rects"] = _on_pdf_page(settings, tenant, passage, first["quote"])
        answer.citations = []
        timings["closest"] = _ms(t)
    timings["total"] = _ms(started)
    answer.timings_ms = {k: round(v, 2) for k, v in timings.items()}
    answer.route = route_of(answer, settings, model_failed=model_unavailable)
    if settings.provider == "llm" and settings.llm_suggest_followups and answer.status != "refused":
        answer.suggestions = suggest_followups(LLMClient(settings), answer.asked_as or question, passages)
        answer.steps["suggest_followups"] = len(answer.suggestions)

    # 7. trace (and OpenTelemetry spans when OTEL_EXPORTER_OTLP_ENDPOINT is set)
    tokens = model_run.tokens if model_run else None
    cost = cost_usd(tokens, settings.llm_price_in_per_1k, settings.llm_price_out_per_1k) if tokens else None
    answered = answer.to_dict()
    record(settings, trace_id, answer=answered, cost_usd=cost, origin=origin,
           candidates=[c.to_dict() for c in retrieval.candidates] + [c.to_dict() for c in passages if c.neighbour],
           gate={**gate.to_dict(), "threshold": threshold, "answer_confidence": answer.confidence,
                 "support": generation.support if generation else None, "decision": decision_note,
                 "rejected": generation.rejected[:MAX_REJECTED_SHOWN] if generation else [],
                 "answer_model": generation.candidates if generation else []},
           prompt=model_run.prompt if model_run else None,
           raw_output=model_run.raw_output if model_run else None,
           tokens=tokens)
    emit_ask(settings.otel_endpoint, answered, tokens, cost)
    return answer


EMPTY_QUESTION = "Ask a question: the text is empty."


def is_empty_question(text: str) -> bool:
    """Nothing but spaces and control characters: the question asks nothing."""
    return not without_controls(text).strip()


def without_controls(text: str) -> str:
    """The text without control characters (a bell or NUL pasted into "calcu\\x07lation"
    split the word, and the refusal named "lation" as a word the documents never use);
    line breaks and tabs stay as the spaces between words they are."""
    return "".join(ch for ch in text if ch in "\n\t" or unicodedata.category(ch) != "Cc")


def unknown_words(question: Question, lexicon: LexicalIndex, passages: list[Candidate],
                  taught: frozenset[str] = frozenset()) -> list[str]:
    """Runs of adjacent words of the asking sentence that the tenant's documents never use,
    as written, the rarest in general text first (core/lang/frequency.py), else the last
    (the head of an English noun phrase, usually): "dingbat" before "heavy" in "How heavy
    is the dingbat?"; an everyday word ("long", "number": `EVERYDAY`) is never named.
    None when one of the first three passages is in another language: there an unknown word
    may be a translation ("helmet" of «Шлем выдаётся бесплатно»), and "never mentions" would
    be false and send an admin to teach a synonym of what the tenant already holds.
    `question` is read as the user wrote it (a refusal of "How deep is it?" named "depth",
    the everyday word's expansion); `taught` stems count as known: everyday words and the
    tenant's synonyms whose documents' words the tenant uses (`taught_words`)."""
    if any(p.lang != question.lang.code for p in passages[:3]):
        return []
    runs: list[list[tuple[str, list[str]]]] = [[]]  # (word as written, its stems)
    # a number ends a run («стажем 3 года» is no phrase «стажем года»)
    # words as the index reads them: a code stays whole ("SEV3" was named as "sev")
    for word in (w.lower() for w in TOKEN_RE.findall(expand_contractions(without_references(question.asking)))):
        stems = tokenize(word)
        # a letter or two is a piece of a code ("ab" of AB12), not a word to teach
        # words of asking ("how OFTEN", «ПОЧЕМУ») are no topic the documents lack
        if stems and len(word) > 2 and word not in question.lang.stopwords and not word[0].isdigit() \
                and not set(stems) <= question.lang.stopword_stems \
                and word not in question.lang.asking_words and word not in question.lang.filler \
                and not any(lexicon.knows_family(t) or t in taught for t in stems) \
                and not _known_in_latin(word, question, lexicon):
            runs[-1].append((word, stems))
        elif runs[-1]:
            runs.append([])
    # each run by its rarest word's share of general-text passages, the last run first on a tie
    rated = sorted(((min(chunk_probability(t) for _, stems in r for t in stems), n, r)
                    for n, r in enumerate(reversed(runs)) if r), key=lambda x: x[:2])
    return [" ".join(word for word, _ in r) for share, _, r in rated if share < EVERYDAY]


# A word more than one general-text passage in a hundred holds is an everyday word, not a topic
# the knowledge base lacks ("number", «делаем», «стоить»: four QA passes were told the
# documents never mention them). On the development sets' refusals that named a word, such
# words stood in 63, only 10 of them the topic of a question to refuse; the rarer ones in 86,
# 34 of them such a topic.
EVERYDAY = 0.01


def _known_in_latin(word: str, question: Question, lexicon: LexicalIndex) -> bool:
    """Does the tenant use the word as written in Latin letters? «Алматы» of a document's
    "Almaty": a QA pass was told the knowledge base never mentions it. Stems are compared
    by their first letters, as the Latin spelling ends otherwise ("Minsk" / «Минске»)."""
    latin = question.lang.in_latin(word)
    if latin == word.lower() or not latin.isascii() or len(latin) < 4:
        return False
    return any(lexicon.knows_family(t) for t in tokenize(latin)) or lexicon.knows_prefix(latin[:FAMILY_PREFIX])


def never_mentions(question: Question, word: str, passages: list[Candidate]) -> str:
    """"The knowledge base never mentions “word”", in the question's language, and scoped
    to it ("... in English") when a passage is in another language: the claim holds for the
    question's language only (a Russian passage fourth for "lithium batteries" said
    «Литиевые батареи»). It said too "its documents in Russian may use their own words for
    it", which in a tenant with one Russian document of eight stood under nearly every
    English refusal (two QA passes): the scope says it already."""
    if any(p.lang != question.lang.code and p.lang in LANGUAGES for p in passages):
        return question.lang.say("never_mentions_in", word=word, language=question.lang.name)
    return question.lang.say("never_mentions", word=word)


def taught_words(question: str, synonyms: Synonyms, lexicon: LexicalIndex) -> frozenset[str]:
    """The stems of the question's everyday words and tenant synonyms whose documents' words
    the tenant uses: known through them ("how deep" when the documents say "depth")."""
    return frozenset(stem for phrase, doc_words in everyday_terms(question, synonyms)
                     if any(lexicon.knows_family(t) for t in doc_words) for stem in phrase)


def question_written(question: str) -> Question:
    """The question as the user wrote it (no expansion): what a refusal names words of."""
    return Question.parse(expand_contractions(strip_instructions(question)))


def prepare_question(question: str, synonyms: Synonyms = ()) -> str:
    """What is searched and answered: clauses aimed at the model dropped, contractions
    spelled out, the tenant's synonyms and known acronyms added."""
    return expand_question(expand_contractions(strip_instructions(question)), synonyms)


def question_read(question: str, synonyms: Synonyms = ()) -> Question:
    """The question the answer model reads: as `prepare_question`, but the documents' words
    stand in place of the everyday ones and the tenant's synonyms."""
    return Question.parse(expand_question(expand_contractions(strip_instructions(question)), synonyms,
                                          replace=True))


@dataclass
class Outcome:
    status: str  # answered | narrowed | refused | fallback
    answer: str
    claims: list[Claim]
    confidence: float
    reason: str | None
    note: str  # the decision as the trace shows it


def _model_says_answerable(settings: Settings, question: str, generation: Generation,
                           steps: dict) -> float | None:
    """With `llm_judge_answers`, P(the extractive quote answers the question) from the
    model (core/llm_steps.py `judge_answer`); None when the step is off, the quote is under
    the floor, or the model fails. Noted in the answer's steps for the trace."""
    if not (settings.llm_judge_answers and settings.llm_configured and generation.provider == "extractive"
            and generation.text and not generation.correction and generation.support >= settings.llm_judge_floor):
        return None
    quote = strip_markers(generation.text)
    p = judge_answer(LLMClient(settings), question, quote)
    steps["judge_answer"] = {"p_yes": p, "confidence": round(generation.support, 4), "quote": quote[:500]}
    return p


def _check(settings: Settings, generation: Generation, passages: list[Candidate], evidence: float,
           lang: Language, answerable: float | None = None) -> Outcome:
    """Steps 4-6 for one generated answer: threshold (or, when asked, the model's word on
    whether the quote answers the question), citation markers, claims, guard. Reasons are
    said in `lang`, the question's."""
    # the extractive answer model's probability is the answer confidence; a model's
    # answer is judged by its retrieval evidence and, below, its claims' scores
    confidence = round(generation.support if generation.provider == "extractive"
                       else 0.5 * evidence + 0.5 * generation.support, 4)
    threshold = settings.gate_threshold
    if not generation.text:
        return Outcome("refused", "", [], confidence, generation.refusal_reason, "refuse: no answering sentence")
    if answerable is not None and answerable < settings.llm_judge_answers_threshold:
        return Outcome("refused", "", [], confidence, lang.say("model_judged", p=f"{answerable:.2f}"),
                       "refuse after generating")
    # a model's answer is not refused on retrieval scores: its claims' judge decides below
    if (confidence < threshold and answerable is None and not generation.correction
            and generation.provider == "extractive"):
        return Outcome("refused", "", [], confidence,
                       lang.say("low_confidence", below=_below(confidence, threshold, lang)), "refuse after generating")
    if validate_citations(generation.text, len(passages)):
        return Outcome("refused", "", [], confidence, lang.say("no_citations"), "refuse: no citations")
    judge = None
    if generation.provider == "llm":
        # a verbatim quote entails itself; a model's paraphrase is what needs the model judge
        judge = CheckedJudge(JUDGES["llm"](LLMClient(settings), settings.judge_threshold))
    claims = verify_answer(generation.text, [p.text for p in passages], judge)
    decision = guard(generation.text, claims, settings.strict_mode, _quotes_only(generation), lang)
    if generation.provider == "llm" and claims:
        confidence = round(0.5 * evidence + 0.5 * min(c.score for c in decision.claims or claims), 4)
    return Outcome(decision.status, decision.answer, decision.claims, confidence, decision.reason, "answer")


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


def _retrieved(c: Candidate) -> dict:
    return {"chunk_id": c.chunk_id, "doc_id": c.doc_id, "source": c.source, "rank": c.rank,
            "page": c.page_start, "neighbour": c.neighbour, "text": c.text}


def _quotes_only(generation: Generation) -> str:
    return " ".join(f"“{quotable(s.unit.quote)}” [{s.passage}]" for s in generation.selected)


def _on_pdf_page(settings: Settings, tenant: str, p: Candidate, quote: str) -> tuple[int | None, list[list[float]]]:
    """(page, rectangles) of a quote of a PDF (or page image) passage on its kept original,
    for the console's highlight; the passage's first page and no rectangles otherwise."""
    if p.page_start is None:
        return p.page_start, []
    doc = store.get_document(settings, tenant, p.doc_id)
    original = kept_file(settings, tenant, doc["path"]) if doc and doc.get("path") else None
    # a PDF, or an image of a page: named by what its bytes are, whatever the upload was called
    if original is None or not is_paged(original.name) or not original.exists():
        return p.page_start, []
    at = p.text.find(quote)
    kept = functools.cache(lambda: scan_words.read(settings, tenant, p.doc_id))  # read once, and only for a scan
    found, rects = quote_rects(original, list(range(p.page_start, (p.page_end or p.page_start) + 1)), quote,
                               before=p.text[:at] if at > 0 else "",
                               scanned=lambda: kept().words, turned=lambda: kept().turns)
    return found or p.page_start, rects


def _renumber(answer: Answer) -> None:
    """Markers count 1, 2, 3 in the order the answer first cites them ([1] [2] [3], not the
    passage numbers [1] [2] [3] [5]); citations and claims follow. The trace keeps the
    passages in retrieval order, and each citation names its chunk."""
    order: dict[int, int] = {}
    for m in ONE_MARKER_RE.finditer(answer.answer):
        order.setdefault(int(m.group(1)), len(order) + 1)
    for c in answer.citations:
        order.setdefault(c.index, len(order) + 1)
    if all(old == new for old, new in order.items()):
        return
    answer.answer = ONE_MARKER_RE.sub(lambda m: f"[{order.get(int(m.group(1)), int(m.group(1)))}]", answer.answer)
    for c in answer.citations:
        c.index = order[c.index]
    for claim in answer.claims:
        claim.citations = [order.get(n, n) for n in claim.citations]


def _citations(settings: Settings, tenant: str, generation: Generation, passages: list[Candidate],
               final_text: str) -> list[Citation]:
    """One citation per quoted unit still in the final answer; PDF quotes get page rectangles."""
    out = []
    if generation.provider == "llm":  # a paraphrase: cite the evidence of the claims left
        selected = evidence_units(final_text, passages)
    else:
        selected = [s for s in generation.selected
                    if quotable(s.unit.text.rstrip()) in final_text or quotable(s.unit.quote) in final_text]
    for sel in selected:
        p = passages[sel.passage - 1]
        page, rects = _on_pdf_page(settings, tenant, p, sel.unit.quote)
        out.append(Citation(index=sel.passage, doc_id=p.doc_id, chunk_id=p.chunk_id, source=p.source,
                            title=p.title, page=page, section=p.section, quote=sel.unit.quote,
                            char_start=sel.unit.start, char_end=sel.unit.end, score=sel.score, rects=rects))
    return out


def _below(confidence: float, threshold: float, lang: Language | None = None) -> str:
    """"0.689 is below the threshold 0.69": as many decimals as it takes for the two numbers
    not to print the same (0.6892 at 0.69 read "0.69 is below the threshold 0.69")."""
    digits = 2
    while digits < 4 and f"{confidence:.{digits}f}" == f"{threshold:.{digits}f}":
        digits += 1
    return (lang or LANGUAGES[DEFAULT]).say("below", confidence=f"{confidence:.{digits}f}", threshold=f"{threshold:.2f}")


def _out_of_force_note(citations: list[Citation], passages: list[Candidate], lang: Language) -> str:
    """What to read an answer with that quotes a document saying it is out of force (it
    answers only when no document in force was found: core/retrieve.py), in `lang`."""
    said = {p.chunk_id: p for p in passages if p.out_of_force}
    named = dict.fromkeys((said[c.chunk_id].source, said[c.chunk_id].out_of_force)
                          for c in citations if c.chunk_id in said)
    return " ".join(lang.say("out_of_force", source=source, why=why) for source, why in named)


def _later_versions(settings: Settings, tenant: str, answer: Answer) -> list[dict[str, Any]]:
    """A `differences` entry for each quoted document of which the tenant holds a later
    version (core/answer/differing.py `later_versions`), unless the answer already quotes or
    compares that version: its quote "may no longer apply", being from an older edition. The
    tenant's file names are read only when a cited one has a version."""
    cited = {(c.source, c.title): c.quote for c in reversed(answer.citations)}  # each source's first quote
    if not any(series_version(source, title) for source, title in cited):
        return []
    names = store.ready_file_names(settings, tenant)
    shown = {c.source for c in answer.citations} | {r["source"] for d in answer.differences for r in d["rows"]}
    out = []
    for (source, title), quote in reversed(cited.items()):
        later = later_versions(source, title, names)
        if later and not shown & set(later):
            out.append({"key": key_text(quote), "rows": [{"source": source, "validity": "superseded", "date": None,
                                                          "by": later[0]}]})
    return out


def _correction_wording(question: Question, answer: str, why: str) -> tuple[str, str]:
    """The answer and its note when the passage contradicts the question. "Why can leave be
    paid out?" takes something for granted the documents deny ("otherwise"); "Can leave be
    paid out?" takes nothing for granted: the documents say no to what it asks."""
    lang = question.lang
    if question.answer_type == "yesno":
        return lang.say("say", answer=answer), (lang.say("says_no") if why == OPPOSITE
                                                 else lang.say("says_no_because", why=why))
    # OPPOSITE is the premise check's marker, said here in the question's language
    return lang.say("say_otherwise", answer=answer), lang.say("contradicts", why=lang.say("opposite")
                                                              if why == OPPOSITE else why)
