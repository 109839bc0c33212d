"""core/lang/wording.py and `Language.say`: the product's sentences on an answer, in the
question's language, English where a language module gives none."""

from __future__ import annotations

from dataclasses import replace
from string import Formatter

from core.lang import LANGUAGES
from core.lang.wording import WORDING


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(template) if name}


def test_every_russian_sentence_is_one_english_has_with_no_field_english_lacks() -> None:
    russian = LANGUAGES["ru"].wording
    assert set(russian) <= set(WORDING)
    assert [k for k, text in russian.items() if not _fields(text) <= _fields(WORDING[k])] == []
    # every sentence on an answer is said in Russian, not only the refusal
    assert set(russian) == set(WORDING)


def test_russian_sentences_quote_with_guillemets() -> None:
    russian = LANGUAGES["ru"]
    assert [k for k, text in russian.wording.items() if "“" in text or "”" in text or '"' in text] == []
    assert russian.say("never_mentions", word="парковка") == "В базе знаний нигде не упоминается «парковка»"
    assert russian.say("missing_identifier", subject="E77") == "Ни в одном фрагменте не упоминается E77."


def test_english_sentences_are_the_ones_answers_always_carried() -> None:
    english = LANGUAGES["en"]
    assert english.say("never_mentions", word="parking") == "The knowledge base never mentions “parking”"
    assert english.say("below", confidence="0.689", threshold="0.69") == "0.689 is below the threshold 0.69"
    assert english.say("unsupported_claims", count=2) == "2 claim(s) were not supported by the cited passages."


def test_a_language_without_a_sentence_says_it_in_english() -> None:
    # a third language is one new module: the sentences it does not give yet read in English
    third = replace(LANGUAGES["ru"], code="xx", name="Xish", wording={"refusal": "Xx xx."})
    assert third.say("refusal") == "Xx xx."
    assert third.say("no_candidate") == "No passage holds a sentence that could answer it."
    # the English sentence names the language by the module's name
    assert third.say("never_mentions_in", word="w", language=third.name) == "The knowledge base never mentions “w” in Xish"
    bare = replace(LANGUAGES["en"], code="yy", wording={})
    assert {k: bare.say(k, **dict.fromkeys(_fields(t), "F")) for k, t in WORDING.items()} \
        == {k: t.format(**dict.fromkeys(_fields(t), "F")) for k, t in WORDING.items()}
