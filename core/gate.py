"""Confidence gate: should we answer at all, judging only by the retrieval evidence?

1. Hard stops (confidence 0): an identifier in the question (E401, 99-1, 12.4) that no
   retrieved passage contains; a name in the question that the tenant's documents never
   mention at all (another company, a product we don't have; a name only a scene-setting
   sentence holds, "I live in Aarhus.", counts only when the question points back at it
   with "there"); two adjacent topic words
   (only a space between them) that appear nowhere in the tenant's documents ("flux
   capacitor"; "vacation in August" is no phrase), or a Russian
   adjective they never use before a noun they do ("ПОСУДОМОЕЧНОЙ машины": a dishwasher
   is not a washing machine); an asked attribute
   or quantity the documents never name ("Какой уровень ШУМА...", "Какая МОЩНОСТЬ..."),
   or a word after an article (or after its adjective: "an old FRIDGE") the documents
   never use ("install a DISHWASHER"), or in what a yes/no question's verb acts on
   ("Do you offer gift WRAPPING?") or what a request asks for ("Tell me a JOKE about...",
   «Расскажи АНЕКДОТ про...»); a long English stem counts as used when a word
   it begins is ("complain" -> "complaint"), and an everyday word when its document
   word is ("buyer" -> "new owner", core/expand.py); a cited
   section, paragraph or clause number ("section 14", "пункт 9.3") that no retrieved
   passage's heading carries; an
   appendix or page ("Appendix C", "page 12") that no retrieved passage comes from; a
   model name with a number ("AquaLine 10") that no retrieved passage states; a value the
   asking sentence takes for granted ("why does the van need 6 LITRES of oil?") where the
   passages give that unit only with other numbers (4.7 litres). The word
   checks are skipped for a Russian question whose best passages are all English (there
   an unknown word is a translation, not a new topic).
2. Coverage: the IDF-weighted share of the question's topic words found in the best of
   the top three passages (text + section path). Rare words count more than common ones.
3. Similarity: the top passage's dense cosine, rescaled from e5's narrow band to [0, 1].
4. Agreement: 1 if the dense and BM25 rankings share a passage in their top three, else 0.
5. confidence = 0.55 * coverage + 0.30 * similarity + 0.15 * agreement.
The pipeline combines it with the generator's support for its best sentence
(answer confidence = 0.5 * this + 0.5 * support) and refuses below the tenant's
`gate_threshold`, chosen by `evals.calibrate` on the calib split. A hard stop refuses
without generating, and so does a retrieval confidence too low for any sentence to lift.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from core.analysis import (
    ANSWER_FORM_WORDS,
    QUESTION_FILLER,
    SLOT_WORDS,
    appendix_refs,
    asked_object_words,
    asking_part,
    content_terms,
    determined_words,
    expected_type,
    focus_terms,
    has_section,
    identifiers,
    is_qualifier,
    measures,
    model_names,
    page_refs,
    proper_names,
    requested_object_words,
    section_refs,
    unstated_values,
    yes_no_subject,
)
from core.expand import ACRONYMS, EVERYDAY_WORDS, Synonyms, synonym_spans
from core.lexical import CYRILLIC_RE, STOPWORDS, LexicalIndex, tokenize
from core.retrieve import Candidate, Retrieval

DENSE_FLOOR, DENSE_CEIL = 0.76, 0.90
# words that point back at a place named in the scene ("what does it cost THERE?")
THERE_RE = re.compile(r"\b(?:there|that country|that city|там|туда|оттуда|этой стране|этом городе)\b", re.IGNORECASE)


@dataclass
class GateResult:
    confidence: float
    coverage: float
    similarity: float
    agreement: float
    missing_ids: list[str] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def term_weights(terms: list[str], lexicon: LexicalIndex) -> dict[str, float]:
    return {t: max(lexicon.idf(t), 0.1) for t in terms}


def coverage(weights: dict[str, float], text_tokens: set[str]) -> float:
    total = sum(weights.values())
    if total == 0:
        return 0.0
    return sum(w for t, w in weights.items() if t in text_tokens) / total


def passage_tokens(c: Candidate) -> set[str]:
    return set(tokenize(f"{c.section}\n{c.title}\n{c.text}", keep_stopwords=True))


# a Russian verb form (infinitive, past, present): «бронировать билеты», «звать мастера»,
# «грузчики пронесли» (a past plural after a consonant stem: нести -> несли), «мастер придёт»
# are things a user does, said in their own words, not a thing the documents fail to name
RU_VERB_RE = re.compile(r"[а-яё]{2,}(?:ть|ться|ти|чь|[аяиеу]л(?:а|о|и|ся|ась|ось|ись)?|[сзгк]ли|[еёиюяу]т(?:ся)?)$",
                        re.IGNORECASE)
# the ending is captured: core/followup.py swaps an adjective only for one of the same ending
RU_ADJECTIVE_RE = re.compile(r"[а-яё]{3,}(ый|ий|ой|ая|яя|ое|ее|ые|ие|ых|их|ого|его|ому|ему|ую|юю|ыми|ими)$",
                             re.IGNORECASE)


def _unknown_phrase(question: str, lexicon: LexicalIndex) -> str | None:
    """Two adjacent topic words that no passage of the tenant contains ("flux capacitor",
    "bug bounty"): the question is about something the documents never name."""
    # adjacent means only a space between: "vacation in August", "ждать, прежде" are no phrase
    found = list(re.finditer(r"[^\W\d_]+", question))
    pairs = [(a.group(0), b.group(0)) for a, b in zip(found, found[1:])
             if question[a.end():b.start()].isspace() and len(a.group(0)) >= 3 and len(b.group(0)) >= 3]
    for first, second in pairs:
        if first.lower() in STOPWORDS or second.lower() in STOPWORDS:
            continue  # STOPWORDS holds surface forms ("чтобы"), not stems
        if RU_VERB_RE.search(first) or RU_VERB_RE.search(second):
            continue
        stems = [tokenize(w, keep_stopwords=True) for w in (first, second)]
        if not all(stems) or any(s[0] in QUESTION_FILLER for s in stems):
            continue
        if all(lexicon.df.get(s[0], 0) == 0 for s in stems):
            return f"{first} {second}"
        # "СУШИЛЬНОЙ машины": an adjective the documents never use makes a known noun a
        # thing they never name (a dryer is not a washing machine); "МИНИМАЛЬНОЙ высоты"
        # is a qualifier, the contrast checks' business
        if RU_ADJECTIVE_RE.search(first) and lexicon.df.get(stems[0][0], 0) == 0 \
                and lexicon.df.get(stems[1][0], 0) > 0 and not is_qualifier(stems[0][0]):
            return f"{first} {second}"
    return None


def _without_known_everyday(text: str, lexicon: LexicalIndex, synonyms: Synonyms = ()) -> str:
    """The text without its everyday phrases (the tenant's synonyms included) whose
    documents' word the tenant uses: "get my money back" (expanded to "money back refund")
    asks about a refund, known to a tenant whose terms say "refunded", even if they never
    say "money"."""
    def known(doc_words: str) -> bool:
        return any(lexicon.df.get(t, 0) > 0 for t in tokenize(doc_words, keep_stopwords=True))

    for start, end, _, doc_words in reversed(synonym_spans(text, synonyms)):  # matched on stems
        if known(doc_words):
            text = f"{text[:start]} {text[end:]}"
    for phrase, doc_words in EVERYDAY_WORDS.items():
        if known(doc_words):
            text = re.sub(rf"\b{re.escape(phrase)}\b", " ", text, flags=re.IGNORECASE)
    return text


def _spelled_out(word: str, lexicon: LexicalIndex) -> bool:
    """An acronym or everyday word whose documents' words the tenant uses ("the CEO" of a
    tenant whose documents say "Chief Executive Officer")."""
    expansion = ACRONYMS.get(word.lower())
    return bool(expansion) and all(lexicon.df.get(t, 0) > 0 for t in tokenize(expansion))


def _as_written(stem: str, question: str) -> str:
    """The question's own word for a stem: a refusal says "capacitor", not "capacit"."""
    return next((w for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", question)
                 if tokenize(w, keep_stopwords=True)[:1] == [stem]), stem)


def unknown_word(word: str, lexicon: LexicalIndex, slot: frozenset[str] = frozenset()) -> bool:
    """A topic word the tenant's documents never use. Filler words do not count, nor the
    answer's own slot ("the DEADLINE", "the phone NUMBER": documents state it as a value);
    a known acronym counts as known when the documents spell it out."""
    stems = tokenize(word)
    if word.lower() in ACRONYMS:  # "the CEO": known if the documents spell it out
        stems = tokenize(ACRONYMS[word.lower()])
    return bool(stems) and stems[0] not in QUESTION_FILLER and stems[0] not in slot \
        and not any(lexicon.knows_family(t) for t in stems)


def assess(question: str, retrieval: Retrieval, lexicon: LexicalIndex, synonyms: Synonyms = ()) -> GateResult:
    top = [c for c in retrieval.top if not c.neighbour]
    if not top:
        return GateResult(0.0, 0.0, 0.0, 0.0, reason="The knowledge base has no passages to search.")

    # whitespace collapsed, so "AquaLine\n10" across a line break still reads as one name
    haystack = " ".join(" ".join(f"{c.section} {c.text} {' '.join(c.subject_ids)}"
                                 for c in retrieval.top).split()).lower()
    missing = sorted(i for i in identifiers(question) if i not in haystack)
    # a place the user only sets the scene with ("I live in Aarhus.") is not what is asked,
    # unless the asking part points back at it ("what does the warranty give me THERE?")
    asking = asking_part(question)
    # a name the tenant gave a synonym for ("the Hub" -> HomeHub) is one its documents use
    asked_names = _without_known_everyday(question if THERE_RE.search(asking) else asking, lexicon, synonyms)
    unknown = sorted(
        n for n in proper_names(asked_names)
        if all(lexicon.df.get(tok, 0) == 0 for tok in tokenize(n, keep_stopwords=True))
    )

    weights = term_weights(content_terms(question), lexicon)
    cov = max(coverage(weights, passage_tokens(c)) for c in top[:3])
    dense = max((c.dense_score or 0.0) for c in top)
    sim = min(max((dense - DENSE_FLOOR) / (DENSE_CEIL - DENSE_FLOOR), 0.0), 1.0)
    dense_top = {c.chunk_id for c in sorted(retrieval.candidates, key=lambda c: c.dense_rank or 1e9)[:3]
                 if c.dense_rank}
    bm25_top = {c.chunk_id for c in sorted(retrieval.candidates, key=lambda c: c.bm25_rank or 1e9)[:3]
                if c.bm25_rank}
    agree = 1.0 if dense_top & bm25_top else 0.0
    conf = 0.55 * cov + 0.30 * sim + 0.15 * agree

    # A Russian question answered from English passages cannot be checked word by word:
    # there, a word the documents never use is a translation, not a new topic.
    cross_language = bool(CYRILLIC_RE.search(question)) and not any(c.lang == "ru" for c in top[:3])
    slot = SLOT_WORDS.get(expected_type(question) or "", frozenset()) | ANSWER_FORM_WORDS
    # words the documents never use count where the question asks, not in the scene it sets
    asked = _without_known_everyday(asking, lexicon, synonyms)
    # what a yes/no question asks to exist may be an everyday word ("is there any PERK")
    unknown_phrase = None if cross_language else _unknown_phrase(asked, lexicon) or next(
        (w for w in (_as_written(t, asked) for t in [*focus_terms(asked, existence=False), *measures(asked)]
                     if lexicon.df.get(t, 0) == 0 and not is_qualifier(t)) if not _spelled_out(w, lexicon)),
        None) or next(
        (w for w in [*determined_words(asked), *yes_no_subject(asked), *asked_object_words(asked),
                   *requested_object_words(asked)]
         if unknown_word(w, lexicon, slot)), None)
    bad_refs = [r for r in section_refs(question)
                if not any(has_section(r, c.section, c.text) for c in retrieval.top)]
    bad_parts = [r for r in appendix_refs(question) if r.lower() not in haystack]
    bad_parts += [f"page {n}" for n in page_refs(question)
                  if not any((c.page_start or 0) <= n <= (c.page_end or c.page_start or 0) for c in retrieval.top)]
    missing_names = [n for n in model_names(question) if n.lower() not in haystack]
    # a value the question takes for granted ("6 litres") where the passages give another
    wrong_values = unstated_values(asking, "\n".join(c.text for c in retrieval.top))
    reason = None
    if bad_parts:
        conf = 0.0
        reason = f"None of the passages found comes from {', '.join(bad_parts)}."
    elif missing_names:
        conf = 0.0
        reason = f"No passage mentions {', '.join(missing_names)}."
    elif bad_refs:
        conf = 0.0
        reason = f"No passage is numbered {', '.join(bad_refs)} in the documents searched."
    elif unknown_phrase:
        conf = 0.0
        reason = f"The knowledge base never mentions “{unknown_phrase}”."
    elif missing:
        conf = 0.0
        reason = f"No passage mentions {', '.join(m.upper() for m in missing)}."
    elif wrong_values:
        conf = 0.0
        reason = f"No passage gives {', '.join(wrong_values)}; the documents state other values."
    elif unknown:
        conf = 0.0
        reason = f"The knowledge base never mentions {', '.join(unknown)}."
    return GateResult(round(conf, 4), round(cov, 4), round(sim, 4), agree, missing + missing_names, unknown,
                      reason)
