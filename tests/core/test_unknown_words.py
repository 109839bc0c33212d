"""core/pipeline.py `unknown_words`: the words of a question the documents never use, the
one a refusal names first."""

from __future__ import annotations

from core.answer.question import Question
from core.lexical import LexicalIndex
from core.pipeline import never_mentions, unknown_words
from core.retrieve import Candidate

TEXT = "Delivery to Europe takes 5 days. Delivery to Asia takes 9 days."


def _passages(lang: str = "en") -> list[Candidate]:
    return [Candidate(chunk_id="d1:0000", doc_id="d1", text=TEXT, source="delivery.md", title="Delivery",
                      page_start=None, page_end=None, section="Delivery", kind="text", lang=lang, ordinal=0)]


def _unknown(question: str, lang: str = "en") -> list[str]:
    lexicon = LexicalIndex.build([("d1:0000", TEXT)])
    return unknown_words(Question.parse(question), lexicon, _passages(lang))


def test_the_rarest_word_in_general_text_comes_first() -> None:
    # "capacitor" and "Zanzibar" both stand in no passage; "capacitor" is in more texts
    assert _unknown("Does delivery of a capacitor to Zanzibar take 5 days?") == ["zanzibar", "capacitor"]
    # equally unknown to general text: the last run first, the head of the noun phrase
    assert _unknown("Is delivery of the flux capacitor or the dingbat in 5 days?") == ["dingbat", "flux capacitor"]


def test_an_everyday_word_is_never_named() -> None:
    # four QA passes were told the documents never mention "number", «делаем», «стоить»: words
    # of every text, not a topic the knowledge base lacks; the question is still refused, for
    # its own reason
    assert _unknown("What is the number of days delivery to Zanzibar takes?") == ["zanzibar"]
    assert _unknown("Does delivery to Asia take 9 days extra?") == []


def test_none_when_the_passages_are_in_another_language() -> None:
    assert _unknown("How long does delivery to Zanzibar last?", lang="ru") == []


def test_none_when_one_of_the_first_passages_is_in_another_language() -> None:
    # the QA pass: "Is a helmet included with the rental for free?" was refused as "never
    # mentions “helmet”" beside «Шлем выдаётся бесплатно», the second passage of a mixed tenant
    lexicon = LexicalIndex.build([("d1:0000", TEXT)])
    question = Question.parse("Does delivery to Zanzibar take 5 days?")
    english, russian = _passages("en")[0], _passages("ru")[0]
    assert unknown_words(question, lexicon, [english, russian]) == []
    assert unknown_words(question, lexicon, [english, english, english, russian]) == ["zanzibar"]


def test_words_of_asking_are_never_named() -> None:
    # the QA report: "How often must passwords be changed?" named "often" as a word to teach
    assert _unknown("How often does delivery of the gizmo take 5 days?") == ["gizmo"]
    assert "почему" not in _unknown("Почему доставка гизмо такая долгая?", lang="ru")


def test_words_of_time_are_never_named() -> None:
    # a dev question "If I cancel now, what will I be charged?" was refused over "now": a
    # word of the moment of asking, not a topic the documents lack
    assert _unknown("Does delivery to Asia take 9 days now?") == []
    assert _unknown("Does delivery to Zanzibar take 5 days now?") == ["zanzibar"]


def test_a_confirming_tag_and_the_asking_phrase_are_no_unknown_words() -> None:
    # a QA pass: "The senior partner hourly rate is GBP 495, correct?" was refused as "never
    # mentions “correct”", «..., верно?» as never mentioning «верно», "how far back" as "back"
    assert _unknown("Delivery to Asia takes 9 days, correct?") == []
    assert _unknown("Delivery to Zanzibar takes 9 days, is that right?") == ["zanzibar"]
    assert _unknown("How far back does delivery to Asia go?") == []
    assert "верно" not in _unknown("Доставка в Азию занимает 9 дней, верно?", lang="ru")


def test_a_reference_to_a_section_or_page_is_no_unknown_word() -> None:
    # the QA pass: "What does section 4 say?" was refused as "never mentions “section”"
    assert _unknown("What does section 4 say about delivery to Zanzibar?") == ["zanzibar"]
    assert _unknown("What does page 12 of the delivery waybill say?") == ["waybill"]


def test_a_number_ends_a_run_of_unknown_words() -> None:
    # «со стажем 3 года» was named as one phrase «стажем года»
    assert _unknown("Does delivery of gizmo 5 widgets take 5 days?") == ["widgets", "gizmo"]


def test_never_mentions_is_said_of_the_questions_language_when_a_passage_is_in_another() -> None:
    # the QA pass: "lithium batteries" was "never mentioned" while the fourth passage, in
    # Russian, was headed «Литиевые батареи»; the word stays one to teach (a synonym across
    # languages helps), but the refusal says which documents never use it
    question = Question.parse("Does delivery to Zanzibar take 5 days?")
    english, russian = _passages("en")[0], _passages("ru")[0]
    assert never_mentions(question, "zanzibar", [english, english, english, russian]) \
        == "The knowledge base never mentions “zanzibar” in English"
    assert never_mentions(question, "zanzibar", [english, english]) == "The knowledge base never mentions “zanzibar”"
    # said in a Russian question's own language, scoped the same way
    russian_question = Question.parse("Сколько идёт доставка на Занзибар?")
    assert never_mentions(russian_question, "занзибар", [russian, russian, russian, english]) \
        == "В документах базы знаний на русском языке нигде не упоминается «занзибар»"
    assert never_mentions(russian_question, "занзибар", [russian]) == "В базе знаний нигде не упоминается «занзибар»"


def test_a_refusal_names_the_users_word_not_its_everyday_expansion() -> None:
    # the QA pass: "How deep is the pool?" was refused naming "depth", a word the user never
    # wrote (the everyday expansion of "how deep"); named as written, and not at all when the
    # documents use the expansion
    from core.pipeline import question_written, taught_words

    lexicon = LexicalIndex.build([("d1:0000", TEXT)])
    asked = "How deep is the harbour?"
    assert unknown_words(question_written(asked), lexicon, _passages(),
                         taught_words(asked, (), lexicon)) == ["harbour"]  # "deep" is an everyday word
    with_depth = LexicalIndex.build([("d1:0000", TEXT + " The harbour depth is 12 m.")])
    assert unknown_words(question_written(asked), with_depth, _passages(),
                         taught_words(asked, (), with_depth)) == []
    # a tenant's synonym whose documents' words stand there: known through it
    assert unknown_words(question_written("Is delivery to the mainland speedy?"), lexicon, _passages(),
                         taught_words("Is delivery to the mainland speedy?", (("mainland", "Europe"),), lexicon)) \
        == ["speedy"]


def test_a_code_the_documents_use_is_no_unknown_word() -> None:
    # the QA pass: "Why are post-mortems written only for SEV3 incidents?" named "sev" as a
    # word the documents never use, while they say "SEV3" (the index keeps a code whole)
    text = "Severity levels: SEV3 incidents get a post-mortem within 5 days."
    lexicon = LexicalIndex.build([("d1:0000", text)])
    passage = Candidate(chunk_id="d1:0000", doc_id="d1", text=text, source="runbook.md", title="Runbook",
                        page_start=None, page_end=None, section="Runbook", kind="text", lang="en", ordinal=0)
    assert unknown_words(Question.parse("Why are post-mortems archived for SEV3 incidents?"), lexicon, [passage]) \
        == ["archived"]


def test_a_russian_word_of_a_family_the_documents_use_is_not_named() -> None:
    # a QA pass: «стандартная» (the tariff says «Стандарт») and «страховка» («страхование»)
    # were named as words the documents never use, and the admin sent to Synonyms
    text = "Тариф Стандарт: 4200 руб. Страхование груза стоит 0,5% от его стоимости."
    lexicon = LexicalIndex.build([("d1:0000", text)])
    passages = [Candidate(chunk_id="d1:0000", doc_id="d1", text=text, source="tariff.md", title="Тариф",
                          page_start=None, page_end=None, section="", kind="text", lang="ru", ordinal=0)]
    assert unknown_words(Question.parse("Сколько стоит стандартная доставка?"), lexicon, passages) == ["доставка"]
    assert unknown_words(Question.parse("Сколько стоит страховка посылки?"), lexicon, passages) == ["посылки"]
    # an everyday word is never named (a QA pass was told the documents never mention «делаем»)
    assert unknown_words(Question.parse("Что мы делаем со страховкой посылки?"), lexicon, passages) == ["посылки"]


def test_a_name_the_documents_write_in_latin_letters_is_not_named() -> None:
    # a QA pass: «Сколько идёт груз до Алматы?» was told the knowledge base never mentions
    # «Алматы», beside an English document's "Almaty (Kazakhstan): 9 business days"
    text = "International shipments: Almaty (Kazakhstan) 9 business days; Minsk 5 business days."
    lexicon = LexicalIndex.build([("d1:0000", text)])
    ru = Candidate(chunk_id="d2:0000", doc_id="d2", text="Доставка по России.", source="ru.md", title="",
                   page_start=None, page_end=None, section="", kind="text", lang="ru", ordinal=0)
    assert unknown_words(Question.parse("Сколько идёт бандероль до Алматы?"), lexicon, [ru]) == ["идёт бандероль"]
    assert unknown_words(Question.parse("Можно ли отправить бандероль в Минске?"), lexicon, [ru]) \
        == ["отправить бандероль"]
    # a name no document writes in either script is still named
    assert unknown_words(Question.parse("Сколько идёт бандероль до Бишкека?"), lexicon, [ru]) \
        == ["идёт бандероль", "бишкека"]  # "бандероль" is the rarer in general text


def test_a_form_of_a_stop_word_is_never_named() -> None:
    # a QA pass: "When is a medical certificate needed for sick leave?" was refused as "never
    # mentions “needed”": "need" is no topic word, nor is "needed"
    assert _unknown("Is delivery to Zanzibar needed in 5 days?") == ["zanzibar"]
    assert _unknown("Is delivery wanted in 5 days?") == []
