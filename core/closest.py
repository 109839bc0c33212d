"""The closest sentence of each closest passage of a refused answer: where to look first.

A refusal shows the passages that came closest. Reading three passages takes a minute; the
sentence in each that comes nearest the question is marked, so a person can see in
seconds whether the knowledge base holds the answer after all (a refusal can be too
cautious: a paraphrase the rules could not match). It is never an answer: nothing here is
verified, and the console says so.

Algorithm, for the top `CANDIDATE_PASSAGES` passages by retrieval rank:
1. Split each passage into units (sentences, table rows with their header); skip headings,
   captions, and every paragraph that addresses a model (a planted instruction is never
   put forward as the nearest thing to an answer).
2. Score each unit by words: (1 - `SIM_SHARE`) x the IDF-weighted share of the question's
   topic words found in the unit and its context (section path, table header), +
   `TYPE_BONUS` when the unit holds the kind of answer asked for (a duration for "how
   long", a price for "how much does it cost"; core/analysis.py `question_type`), -
   `RIVAL_PENALTY` when it names a rival of a qualifier the question sets (the Monthly
   row for a question about annual plans).
3. The `SHORTLIST` best units of each passage by words also get `SIM_SHARE` x their e5
   similarity to the question, rescaled to [0, 1] (core/generate.py `similarity_scores`)
   (embedding every sentence of three passages would double a refusal's time).
4. A passage's best unit is its closest sentence. The snippet is the passage text around
   it (at most `WINDOW` characters each side, cut at spaces), with the sentence's offsets
   inside the snippet for highlighting.
5. The `CLOSEST_PASSAGES` passages whose closest sentences score best are listed, best
   first (ties keep retrieval order); a passage without any unit left keeps its opening as
   the snippet and comes last. (The passage holding the answer is ranked fourth or fifth
   often enough that looking at five and showing three points at it more often: on the
   development sets 115 of 184 refusals of answerable questions against 109.)
"""

from __future__ import annotations

from typing import Any

from core.analysis import (
    content_terms,
    contrast_conflict,
    looks_like_instruction,
    matches_type,
    proper_names,
    question_type,
    units,
)
from core.gate import coverage, term_weights
from core.generate import heading_of, is_title, paragraph_of, similarity_scores
from core.ingest.lang import detect_lang
from core.lexical import LexicalIndex, tokenize
from core.retrieve import Candidate

CLOSEST_PASSAGES = 3  # shown
CANDIDATE_PASSAGES = 5  # searched
SIM_SHARE = 0.6
TYPE_BONUS = 0.2  # chosen on the development sets + calib (see docs/quality.md)
RIVAL_PENALTY = 0.2  # a unit naming a rival qualifier (Monthly for an annual question); dev: no change, fixes the QA case
SHORTLIST = 6  # units per passage scored by e5 too
WINDOW = 160
OPENING = 300  # characters of a passage shown when no sentence stands out


def closest_entries(question: str, passages: list[Candidate], lexicon: LexicalIndex,
                    embedder: Any = None) -> list[dict[str, Any]]:
    """Steps 1-5 of the module docstring: one dict per passage, best sentence first."""
    weights = {t: w for t, w in term_weights(content_terms(question), lexicon).items()
               if lexicon.df.get(t, 0) > 0}
    top = passages[:CANDIDATE_PASSAGES]
    qtype = question_type(question)
    names = proper_names(question)
    shortlist: list[tuple[float, Candidate, Any]] = []  # (word score, passage, unit)
    for passage in top:
        scored = []
        for unit in units(passage.text, heading_of(passage)):
            if unit.kind == "heading" or is_title(unit) or looks_like_instruction(paragraph_of(passage.text, unit)):
                continue
            said = set(tokenize(f"{passage.section}\n{unit.context}", keep_stopwords=True))
            score = (1 - SIM_SHARE) * (coverage(weights, said) if weights else 0.0)
            if qtype and matches_type(unit.text, qtype[0], question, names):
                score += TYPE_BONUS
            if contrast_conflict(question, f"{passage.section}\n{unit.context}") not in (None, "unstated"):
                score -= RIVAL_PENALTY  # the Monthly row is not the nearest thing to the annual plan's answer
            scored.append((score, passage, unit))
        # only the best few by words are embedded: a refusal should stay about as fast as an answer
        shortlist += sorted(scored, key=lambda x: -x[0])[:SHORTLIST]
    sims = [0.0] * len(shortlist)
    if embedder is not None and shortlist:
        sims = similarity_scores(embedder, question, [u.text for _, _, u in shortlist])
    best: dict[str, tuple[float, Any]] = {}  # chunk id -> (score, unit)
    for (word_score, passage, unit), sim in zip(shortlist, sims):
        score = word_score + SIM_SHARE * sim
        if passage.chunk_id not in best or score > best[passage.chunk_id][0]:
            best[passage.chunk_id] = (score, unit)
    entries = []
    for rank, passage in enumerate(top):
        score, unit = best.get(passage.chunk_id, (-1.0, None))
        entries.append((-score, rank, _entry(passage, unit, score)))
    return [e for _, _, e in sorted(entries, key=lambda x: x[:2])][:CLOSEST_PASSAGES]


def _entry(passage: Candidate, unit: Any, score: float) -> dict[str, Any]:
    out: dict[str, Any] = {"source": passage.source, "page": passage.page_start, "section": passage.section,
                           "doc_id": passage.doc_id, "chunk_id": passage.chunk_id}
    text = passage.text
    if unit is None:
        snippet = " ".join(text.split())
        out["snippet"] = snippet[:OPENING] + ("…" if len(snippet) > OPENING else "")
        return out
    start = max(0, unit.start - WINDOW)
    if start:
        start = text.find(" ", start, unit.start) + 1 or unit.start  # at a space, never inside the sentence
    end = min(len(text), unit.end + WINDOW)
    if end < len(text):
        cut = text.rfind(" ", unit.end, end)
        end = cut if cut > 0 else unit.end
    lead = "…" if start > 0 else ""
    out["snippet"] = lead + text[start:end] + ("…" if end < len(text) else "")
    out["highlight"] = [len(lead) + unit.start - start, len(lead) + unit.end - start]
    out["sentence"] = unit.text
    out["quote"] = unit.quote
    out["char_start"], out["char_end"] = unit.start, unit.end
    out["score"] = round(score, 4)
    return out


LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}


def other_language(question: str, entries: list[dict[str, Any]]) -> str | None:
    """The language of a refusal's closest sentences when one of them is not in the
    question's (English or Russian): word checks cannot match across languages, so such
    questions are refused more often (on the development sets 52 of the 61 answerable
    Russian questions whose answer stands in an English document), and asking in that
    language is the thing to try. On those sets it is named for 34 of the 52, for none of
    53 refused Russian questions answered in Russian documents, and for 39 of 128 Russian
    questions rightly refused (a needless second try, never a wrong answer)."""
    asked = detect_lang(question)
    if asked not in LANGUAGE_NAMES:
        return None
    for entry in entries:
        said = detect_lang(entry.get("sentence") or entry.get("snippet") or "")
        if said in LANGUAGE_NAMES and said != asked:
            return LANGUAGE_NAMES[said]
    return None
