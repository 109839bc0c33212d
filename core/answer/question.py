"""A question parsed once: its language, words, topic terms, identifiers, numbers and
the kind of answer it asks for. Passed along to every later step."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.answer.facts import identifiers, numbers, tokens
from core.ingest.sentences import split_sentences
from core.lang import Language, language_of
from core.lexical import expand_contractions, tokenize


def words_of(text: str) -> list[str]:
    """Lowercase words, contractions written out ("can't" -> can not)."""
    return [t for t in tokens(expand_contractions(text)) if t[0].isalpha()]


@dataclass
class Question:
    text: str
    lang: Language = field(repr=False)
    words: list[str]  # lowercase words as written
    terms: list[str]  # stemmed topic tokens (stop words dropped), in order, unique
    asking_terms: list[str]  # the terms of the last sentence: what is asked, not the scene
    identifiers: set[str]
    numbers: list[str]
    answer_type: str | None
    asking: str = ""  # the sentence that asks (a scene before it is left out)
    focus: str | None = None  # the first topic term of the asking sentence: what it is about
    slot: frozenset[str] = frozenset()  # the asking phrase's words naming the answer's slot ("how LONG")
    negated: bool = False
    vector: object = field(default=None, repr=False)  # the e5 query vector, when computed

    @classmethod
    def parse(cls, text: str) -> Question:
        lang = language_of(text)
        stated = lang.without_tag(text)  # "..., correct?" asks for confirmation: no topic word
        words = words_of(stated)
        asking = _asking_sentence(stated)
        asking_words = words_of(asking)
        # the answer type and its slot words come from the asking sentence's first words,
        # else from the whole question's
        opening = asking_words[:8]
        answer_type = lang.answer_type(opening)
        if not answer_type:
            opening = words[:8]
            answer_type = lang.answer_type(opening)
        if not answer_type and stated != text:  # "The rate is GBP 495, correct?" asks yes or no
            answer_type = "yesno"
        slot = lang.slot_words(opening)
        return cls(
            text=text, lang=lang, words=words,
            terms=_terms(words, lang, slot), asking_terms=_terms(asking_words, lang, slot),
            identifiers=identifiers(stated), numbers=numbers(stated),
            answer_type=answer_type,
            negated=any(w in lang.negations for w in asking_words), asking=asking,
            focus=_focus(asking_words, lang, slot), slot=slot,
        )

    def to_dict(self) -> dict:
        return {"lang": self.lang.code, "terms": self.terms, "identifiers": sorted(self.identifiers),
                "numbers": self.numbers, "answer_type": self.answer_type}


def _terms(words: list[str], lang: Language, slot: frozenset[str] = frozenset()) -> list[str]:
    """Stemmed topic tokens: the words that are not the language's stop words, nor the
    asking phrase's slot words ("how LONG")."""
    return list(dict.fromkeys(tokenize(" ".join(w for w in words if w not in lang.stopwords
                                                and w not in lang.filler and w not in slot))))


def _focus(asking_words: list[str], lang: Language, slot: frozenset[str] = frozenset()) -> str | None:
    """The first topic term of the asking sentence that is not the answer's own slot
    ("how many DAYS of LEAVE" is about leave; days are how the answer is given)."""
    slot = slot | lang.time_units | lang.money_words
    for term in _terms([w for w in asking_words if w not in slot], lang):
        if not term[0].isdigit():
            return term
    return None


def _asking_sentence(text: str) -> str:
    """The sentence that asks (the last one with a question mark, else the last one): a
    scene-setting sentence before it says where the user stands, not what is asked."""
    parts = [text[s:e].strip() for s, e in split_sentences(text)]
    parts = [p for p in parts if p]
    asked = [p for p in parts if p.endswith("?")]
    return (asked or parts or [text])[-1]
