"""Sentence splitting, language detection and token counting."""

from __future__ import annotations

import time

import pytest

from core.ingest.lang import detect_lang
from core.ingest.sentences import sentences, split_sentences
from core.ingest.tokens import count_tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Plans are pro-rated, e.g. After 3 months you get 75%. The rating is 4.7 of 5.",
         ["Plans are pro-rated, e.g. After 3 months you get 75%.", "The rating is 4.7 of 5."]),
        ("Mr. J. Smith signs. Dr. Watson checks!", ["Mr. J. Smith signs.", "Dr. Watson checks!"]),
        ("Steps: 1. Open the app. 2. Click Refund.", ["Steps: 1. Open the app.", "2. Click Refund."]),
        ("7-2 The customer may cancel. 7-3 No fee applies.",
         ["7-2 The customer may cancel.", "7-3 No fee applies."]),
        ('"Really?" he asked. Yes.', ['"Really?" he asked.', "Yes."]),
        ("Срок — две недели, т.е. 14 дней. В 2020 г. Компания выросла. Офис в г. Москве.",
         ["Срок — две недели, т.е. 14 дней.", "В 2020 г. Компания выросла.", "Офис в г. Москве."]),
        ("Автор — А. С. Пушкин. См. рис. 5 ниже.", ["Автор — А. С. Пушкин.", "См. рис. 5 ниже."]),
        ("No punctuation at the end", ["No punctuation at the end"]),
        # a telephone extension is no sentence end (a QA pass: «(доб.» was a unit of its own)
        ("Звоните в техслужбу (доб. 400) и перекройте воду. Затем сообщите дежурному.",
         ["Звоните в техслужбу (доб. 400) и перекройте воду.", "Затем сообщите дежурному."]),
        ("Call maintenance (ext. 400) first. Then tell the duty manager.",
         ["Call maintenance (ext. 400) first.", "Then tell the duty manager."]),
        # a clause's own number stays with its clause (a QA pass quoted "2.3." as a claim),
        # while a version ending a sentence still ends it
        ("2.1. Audit logs are kept 365 days. 2.2. Deleted files stay 30 days. Fixed in 4.3.2. Upgrade now.",
         ["2.1. Audit logs are kept 365 days.", "2.2. Deleted files stay 30 days.", "Fixed in 4.3.2.", "Upgrade now."]),
    ],
)
def test_sentences(text, expected):
    assert sentences(text) == expected
    for start, end in split_sentences(text):
        assert text[start:end] == text[start:end].strip()


def test_a_huge_single_line_splits_in_linear_time():
    # the word before every dot was looked for from the start of the text: a 5 MB
    # single-line file took hours to chunk (200 KB: 44 s) and the upload seemed to hang
    text = "The quokka ferry leaves at nine. " * 6000  # 200 KB, no newline
    started = time.perf_counter()
    spans = split_sentences(text)
    assert time.perf_counter() - started < 2.0
    assert len(spans) == 6000


def test_abbreviations_list_numbers_and_long_words_after_a_long_line():
    lead = "x" * 500 + " " + "A" * 200 + ". "  # a 200-letter "word" before a dot is no abbreviation
    text = lead + "Steps: 1. Open it. В 2020 г. Компания выросла. Mr. Smith signs."
    assert sentences(text)[1:] == ["Steps: 1. Open it.", "В 2020 г. Компания выросла.", "Mr. Smith signs."]


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        ("Monthly plans can be refunded within 14 days.", "en"),
        ("Ежемесячные планы можно вернуть в течение 14 дней.", "ru"),
        ("Тариф Pro стоит 19.50 EUR в месяц, оплата картой Visa.", "ru"),
        ("А для Platinum?", "ru"),  # short: by its words, not its letters (a QA pass)
        ("And for Platinum?", "en"),
        ("Der schnelle braune Fuchs springt über den faulen Hund und läuft weg.", "other"),
        ("这是中文文本", "other"),
        ("12 345 67.8", "other"),
        ("", "other"),
    ],
)
def test_detect_lang(text, lang):
    assert detect_lang(text) == lang


def test_token_count_uses_the_embedders_tokenizer():
    short, long = count_tokens("refund"), count_tokens("refund " * 100)
    assert 0 < short < long
    assert long >= 100


@pytest.mark.parametrize("lines, joined", [
    (["Write to members@aquapark-", "nordhafen.example for help."], "Write to members@aquapark-nordhafen.example for help."),
    (["See https://aqua-", "park.example/help today."], "See https://aqua-park.example/help today."),
    (["Visit www.aqua-", "park.example."], "Visit www.aqua-park.example."),
    (["Write to Members@Aquapark-", "Nordhafen.example."], "Write to Members@Aquapark-Nordhafen.example."),
    (["the non-", "profit.org site"], "the non-profit.org site"),
    (["Refunds are pro-", "cessed within 5 days."], "Refunds are processed within 5 days."),
    (["develop-", "ment. Next"], "development. Next"),
    (["version 3-", "5.2 of it"], "version 3- 5.2 of it"),
])
def test_a_hyphen_at_a_line_end_inside_an_address_is_kept(lines, joined):
    from core.ingest.text import join_lines

    assert join_lines(lines) == joined


def test_a_word_the_document_hyphenates_keeps_its_hyphen_at_a_line_end():
    from core.ingest.text import hyphenated_words, join_lines

    words = hyphenated_words(["Each sub-processor is named.", "(a well-known case)", "pre-2020 rules"])
    assert words == frozenset({"sub-processor", "well-known"})
    assert join_lines(["a new sub-", "processor, named"], words) == "a new sub-processor, named"
    assert join_lines(["a new sub-", "processor, named"]) == "a new subprocessor, named"  # nothing known: joined
    assert join_lines(["claims are pro-", "cessed"], words) == "claims are processed"


@pytest.mark.parametrize("previous, line, wrapped", [
    ("The Client may object within fourteen", "(14) days of the notice.", True),
    ("The Client may object within fourteen", "14) days of the notice.", True),
    ("The notice names the following:", "(1) the name of the sub-processor;", False),
    ("The Client may object within fourteen", "(a) days of the notice.", False),  # a letter marks an item
    ("Payment is due within thirty", "(30) Days after the invoice.", False),  # a capital starts an item
    ("the last item of the list;", "(2) the country of processing.", False),
])
def test_a_bracketed_number_carries_on_the_sentence_above_only_inside_one(previous, line, wrapped):
    from core.ingest.text import continues_sentence

    assert continues_sentence(previous, line) is wrapped


def test_a_hard_wrapped_text_file_keeps_a_number_written_twice_in_its_sentence(tmp_path):
    from core.ingest import parse_file

    path = tmp_path / "dpa.txt"
    path.write_text("Objections\n\nThe Client may object to a new sub-processor on reasonable grounds within fourteen\n"
                    "(14) days of the notice.\n\nThe notice names:\n(1) the new sub-processor;\n(2) its country.\n")
    blocks = [(b.kind, b.text) for b in parse_file(path).blocks]
    assert ("paragraph", "The Client may object to a new sub-processor on reasonable grounds within fourteen "
                         "(14) days of the notice.") in blocks
    assert [k for k, _ in blocks].count("list_item") == 2
