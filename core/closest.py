"""The closest sentence of each closest passage of a refused answer: where to look first.

A refusal shows the passages that came closest. Reading three passages takes a minute; the
sentence in each that comes nearest the question is marked, so a person can see in
seconds whether the knowledge base holds the answer after all (a refusal can be too
cautious: a paraphrase the rules could not match). It is never an answer: nothing here is
verified, and the console says so.

Algorithm, for the top `CANDIDATE_PASSAGES` passages by retrieval rank: every unit that
passes the answer step's hard vetoes (never a paragraph addressing a model) is scored by the
answer model's unit scorer (core/answer/extractive.py `rank_units`); a passage's best unit
is its closest sentence, and the `CLOSEST_PASSAGES` passages whose closest sentences score
best are listed, best first. The snippet is the passage text around the sentence (at most
`WINDOW` characters each side, cut at spaces), with the sentence's offsets inside it for
highlighting; a passage without a unit left keeps its opening and comes last, and a copy of
a passage above it (the same text in another document) is not listed. Lines of a
snippet addressed to a model ("Ignore previous instructions ...") are shown as `LEFT_OUT`,
as the answer never quotes them either; the best-retrieved passage holding such text is
always listed, with `left_out: "addresses_model"` (first when retrieval ranked it first,
else last), so the refusal says why.
"""

from __future__ import annotations

from typing import Any

from core.answer.extractive import rank_units
from core.answer.model import load_model
from core.answer.question import Question
from core.answer.safety import looks_like_instruction, without_instructions
from core.answer_vectors import AnswerVectors
from core.ingest.lang import detect_lang
from core.lexical import LexicalIndex
from core.retrieve import Candidate

CLOSEST_PASSAGES = 3  # shown
CANDIDATE_PASSAGES = 5  # searched
WINDOW = 160
OPENING = 300  # characters of a passage shown when no sentence stands out
LEFT_OUT = "[text addressed to an AI model, left out]"


def closest_entries(question: Question | str, passages: list[Candidate], lexicon: LexicalIndex,
                    embedder: Any = None, ranked: list[Any] | None = None,
                    stored: AnswerVectors | None = None) -> list[dict[str, Any]]:
    """One dict per passage, best sentence first (the module docstring). `ranked`: the
    answer step's scored units over the same passages, when it ran (a refusal after
    generating), so nothing is scored twice."""
    q = question if isinstance(question, Question) else Question.parse(question)
    top = passages[:CANDIDATE_PASSAGES]
    best: dict[str, tuple[float, Any]] = {}  # chunk id -> (score, unit)
    if ranked is None and embedder is not None and top:
        if q.vector is None:
            q.vector = embedder.embed_query(q.text)
        ranked, _ = rank_units(q, top, lexicon, embedder, load_model(), stored)
    for s in ranked or []:  # best first: the first unit seen of a passage is its best
        if s.passage <= len(top):
            best.setdefault(top[s.passage - 1].chunk_id, (s.score, s.unit))
    entries = []
    seen: set[str] = set()
    for rank, passage in enumerate(top):
        text = " ".join(passage.text.casefold().split())
        if text in seen:
            continue  # a copy of a passage above (a document uploaded twice) shows nothing new
        seen.add(text)
        score, unit = best.get(passage.chunk_id, (-1.0, None))
        entries.append((-score, rank, _entry(passage, unit, score)))
    shown = [e for _, _, e in sorted(entries, key=lambda x: x[:2])][:CLOSEST_PASSAGES]
    poisoned = next((p for p in top if looks_like_instruction(p.text)), None)
    if poisoned is not None:
        # a retrieved passage holding text addressed to a model is never quoted (in part), so
        # it has no sentence to rank and fell off the list: a refusal hid why that document's
        # facts go unanswered (a QA pass). Show it, flagged: first when retrieval put it
        # first, else in the last place
        entry = next(e for _, _, e in entries if e["chunk_id"] == poisoned.chunk_id)
        entry["left_out"] = "addresses_model"
        rest = [e for e in shown if e is not entry]
        if poisoned is top[0]:
            shown = [entry, *rest[:CLOSEST_PASSAGES - 1]]
        elif entry not in shown:
            shown = [*rest[:CLOSEST_PASSAGES - 1], entry]
    return shown


def _entry(passage: Candidate, unit: Any, score: float) -> dict[str, Any]:
    out: dict[str, Any] = {"source": passage.source, "page": passage.page_start, "section": passage.section,
                           "doc_id": passage.doc_id, "chunk_id": passage.chunk_id}
    text = passage.text
    if unit is None:
        snippet = " ".join(without_instructions(text, LEFT_OUT).split())
        out["snippet"] = snippet[:OPENING] + ("…" if len(snippet) > OPENING else "")
        return out
    start = max(0, unit.start - WINDOW)
    if start:
        start = text.find(" ", start, unit.start) + 1 or unit.start  # at a space, never inside the sentence
    end = min(len(text), unit.end + WINDOW)
    if end < len(text):
        cut = text.rfind(" ", unit.end, end)
        end = cut if cut > 0 else unit.end
    before = ("…" if start > 0 else "") + without_instructions(text[start:unit.start], LEFT_OUT)
    out["snippet"] = before + text[unit.start:unit.end] + without_instructions(text[unit.end:end], LEFT_OUT) + (
        "…" if end < len(text) else "")
    out["highlight"] = [len(before), len(before) + unit.end - unit.start]
    out["sentence"] = unit.text
    out["quote"] = unit.quote
    out["char_start"], out["char_end"] = unit.start, unit.end
    out["score"] = round(score, 4)
    return out


LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}


def first_in_other_language(question: str, entries: list[dict[str, Any]]) -> tuple[int, str] | None:
    """(position, language name) of the first closest entry in another language than the
    question, or None. Word checks cannot match across languages, so such questions are
    refused more often, and asking in that language is the thing to try."""
    asked = detect_lang(question)
    if asked not in LANGUAGE_NAMES:
        return None
    for n, entry in enumerate(entries):
        said = detect_lang(entry.get("sentence") or entry.get("snippet") or "")
        if said in LANGUAGE_NAMES and said != asked:
            return n, LANGUAGE_NAMES[said]
    return None
