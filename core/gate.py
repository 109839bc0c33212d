"""Gate: the hard stops that refuse before any answer is chosen, and the retrieval evidence.

Only what a model cannot learn from a few hundred questions stops a question here; every
other answer-or-refuse decision is the answer model's (core/answer/model.py).
Hard stops (confidence 0), each with a code and the subject it names:
- `no_passages`: the tenant has nothing to search;
- `missing_reference`: a cited page, appendix, or section/paragraph number no retrieved
  passage carries ("page 12" of a 5-page PDF, "para 99-1");
- `missing_identifier`: a code or reference number in the question (ERR-401, AB-220, 7-2),
  or a name with a number ("Model X 12") in the asking sentence, that no retrieved passage contains (a bare value,
  "500" or "12.5", is no code). One named only by a scene sentence before the asking one
  that the tenant's documents do hold elsewhere is no stop: "... a splash at T-104. Who
  reports it?" asks about reporting, and the tank's passage is not the answer's (a QA pass
  was told "No passage mentions T-104" of a code two documents use);
- `unknown_name`: a capitalised name in the asking sentence that no document of the
  tenant uses at all (another company, a product it does not have) — skipped when any of
  the first three passages is in another language than the question, where a name may be
  transliterated («Смирнова» for Smirnova).

Retrieval evidence (for the trace and the model provider): IDF coverage of the
question's terms by the best of the top three passages, the top dense cosine rescaled to
[0, 1], and whether the dense and BM25 top-3 agree: 0.55 cov + 0.30 sim + 0.15 agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from core.answer.facts import identifiers, is_value, model_names, proper_names
from core.answer.question import Question
from core.answer.references import appendix_refs, has_section, page_refs, section_refs
from core.answer.signals import coverage
from core.lexical import LexicalIndex, tokenize
from core.retrieve import Candidate, Retrieval

DENSE_FLOOR, DENSE_CEIL = 0.76, 0.90


@dataclass
class GateResult:
    confidence: float
    coverage: float
    similarity: float
    agreement: float
    missing_ids: list[str] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)
    reason: str | None = None
    code: str | None = None  # why it stopped: no_passages | missing_reference | missing_identifier | unknown_name
    subject: str | None = None  # what it could not find, as the question wrote it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def term_weights(terms: list[str], lexicon: LexicalIndex) -> dict[str, float]:
    return {t: max(lexicon.idf(t), 0.1) for t in terms}


def passage_tokens(c: Candidate) -> set[str]:
    return set(tokenize(f"{c.section}\n{c.title}\n{c.text}", keep_stopwords=True))


def _evidence(question: Question, retrieval: Retrieval, lexicon: LexicalIndex) -> tuple[float, float, float]:
    top = [c for c in retrieval.top if not c.neighbour]
    weights = term_weights(question.terms, lexicon)
    cov = max(coverage(weights, passage_tokens(c)) for c in top[:3])
    dense = max((c.dense_score or 0.0) for c in top)
    sim = min(max((dense - DENSE_FLOOR) / (DENSE_CEIL - DENSE_FLOOR), 0.0), 1.0)
    dense_top = {c.chunk_id for c in sorted(retrieval.candidates, key=lambda c: c.dense_rank or 1e9)[:3]
                 if c.dense_rank}
    bm25_top = {c.chunk_id for c in sorted(retrieval.candidates, key=lambda c: c.bm25_rank or 1e9)[:3]
                if c.bm25_rank}
    return cov, sim, 1.0 if dense_top & bm25_top else 0.0


def _name_stated(name: str, q: Question, passages: list[Candidate]) -> bool:
    """Does a passage state a name with a number ("Zone 3") in another form? Its words by
    their stems («Зоне 3» in the question, «Зона 3» in the passage), or, in a passage of
    another language than the question, its number after a word («Зона 3» for "Zone 3"):
    a QA pass was told "No passage mentions Zone 3" over the highlighted row «Зона 3»."""
    words, number = name.rsplit(" ", 1)
    wanted = [*tokenize(words, keep_stopwords=True), number.lower()]
    for c in passages:
        tokens = tokenize(f"{c.section} {c.text}", keep_stopwords=True)
        pairs = zip(*(tokens[k:] for k in range(len(wanted))))
        if any(list(run) == wanted for run in pairs):
            return True
        if c.lang != q.lang.code and any(t == wanted[-1] and tokens[i - 1].isalpha()
                                         for i, t in enumerate(tokens) if i):
            return True
    return False


def _stop(code: str, subject: str, reason: str, cov: float, sim: float, agree: float, **kw: Any) -> GateResult:
    return GateResult(0.0, round(cov, 4), round(sim, 4), agree, reason=reason, code=code, subject=subject, **kw)


def assess(question: Question | str, retrieval: Retrieval, lexicon: LexicalIndex, synonyms: Any = (),
           mentioned: Callable[[str], bool] | None = None) -> GateResult:
    """The hard stops, else the retrieval evidence; `mentioned(code)` says whether any of the
    tenant's documents holds a code (None: codes are looked for among the passages only)."""
    q = question if isinstance(question, Question) else Question.parse(question)
    top = [c for c in retrieval.top if not c.neighbour]
    if not top:
        return GateResult(0.0, 0.0, 0.0, 0.0, reason=q.lang.say("no_passages"), code="no_passages")
    cov, sim, agree = _evidence(q, retrieval, lexicon)
    # whitespace collapsed, so "Model X\n10" across a line break still reads as one name, and
    # a table's cell bars too: "| Windows Server | 2016 |" names Server 2016 (a QA pass was
    # told no passage mentions it, the row highlighted under the refusal)
    haystack = " ".join(" ".join(f"{c.section} {c.text} {' '.join(c.subject_ids)}"
                                 for c in retrieval.top).replace("|", " ").split()).lower()
    bad_parts = [r for r in appendix_refs(q.text) if r.lower() not in haystack]
    bad_pages = [n for n in page_refs(q.text)
                 if not any((c.page_start or 0) <= n <= (c.page_end or c.page_start or 0) for c in retrieval.top)]
    if bad_parts or bad_pages:
        # the subject keeps "page 12" whatever the language: the sentence says it in the question's
        subject = ", ".join([*bad_parts, *(f"page {n}" for n in bad_pages)])
        places = ", ".join([*bad_parts, *(q.lang.say("page", number=n) for n in bad_pages)])
        return _stop("missing_reference", subject, q.lang.say("missing_place", places=places), cov, sim, agree)
    bad_refs = [r for r in section_refs(q.text) if not any(has_section(r, c.section, c.text) for c in retrieval.top)]
    if bad_refs:
        return _stop("missing_reference", ", ".join(bad_refs),
                     q.lang.say("missing_section", refs=", ".join(bad_refs)), cov, sim, agree)
    refs = set(section_refs(q.text))
    # a bare value ("500", "12.5", "2024") is no code: whether the passages state it is the
    # answer model's `numbers_missing` signal, not a stop before any passage is read
    missing = sorted(i for i in identifiers(q.text) - refs if i not in haystack and not is_value(i))
    # a name with a number ("Model X 12") is a product no passage states unless it stands there;
    # one the asking sentence names: a scene's "Room 518 has had the sign on since this
    # morning. When should housekeeping phone the room?" asks what its rule says, and was
    # refused as "No passage mentions Room 518" (a QA pass); the answer model still weighs
    # the missing number (`numbers_missing`)
    missing += [n for n in model_names(q.asking) if n.lower() not in haystack and not _name_stated(n, q, retrieval.top)]
    missing = list({m.lower(): m for m in reversed(missing)}.values())[::-1]  # each named once
    # each code looked up in the tenant once (a scan of its chunks), only when one is missing
    held = {m for m in missing if mentioned(m)} if missing and mentioned is not None else set()
    asked = q.asking.lower()
    missing = [m for m in missing if m not in held or m.lower() in asked]
    if missing:
        subject = ", ".join(m.upper() if m.islower() else m for m in missing)
        return _stop("missing_identifier", subject,
                     q.lang.say("missing_identifier_found" if held & set(missing) else "missing_identifier",
                                subject=subject),
                     cov, sim, agree, missing_ids=missing)
    # a name can stand transliterated («Смирнова» for Smirnova) in a passage of the other
    # language: with one among the first three, no name is said to be unknown
    same_language = all(c.lang == q.lang.code for c in top[:3])
    unknown = sorted(n for n in proper_names(q.asking)
                     if all(lexicon.df.get(t, 0) == 0 for t in tokenize(n, keep_stopwords=True)))
    if unknown and same_language:
        return _stop("unknown_name", ", ".join(unknown),
                     q.lang.say("unknown_name", names=", ".join(unknown)), cov, sim, agree,
                     unknown_names=unknown)
    return GateResult(round(0.55 * cov + 0.30 * sim + 0.15 * agree, 4), round(cov, 4), round(sim, 4), agree)
