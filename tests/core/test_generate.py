"""The extractive generator's unaddressed-word check (step 7 of core/generate.py), with
the real embedded model over a tiny lexicon."""

import pytest

from core.generate import unaddressed_words
from core.lexical import LexicalIndex
from core.models import get_embedder

pytestmark = pytest.mark.slow

TEXTS = [
    "The Kestrel van has a payload of 1,100 kg.",
    "The Kestrel van is 5.4 metres long and 2.0 metres wide.",
    "Стиральная машина весит 70 кг.",
    "Глубина машины 590 мм.",
]


@pytest.fixture(scope="module")
def lexicon():
    return LexicalIndex.build([(str(i), t) for i, t in enumerate(TEXTS)])


@pytest.fixture(scope="module")
def embedder():
    return get_embedder()


@pytest.mark.parametrize("question, unit, word", [
    ("What is the Kestrel van's towing capacity?", TEXTS[0], "towing"),
    ("Какого цвета бывает машина?", TEXTS[2], "цвета"),
])
def test_a_topic_the_sentence_ignores_is_reported(lexicon, embedder, question, unit, word):
    assert unaddressed_words(question, unit, lexicon, embedder) == [word]


@pytest.mark.parametrize("question, unit", [
    ("How heavy a load can the Kestrel van carry?", TEXTS[0]),  # paraphrase of payload
    ("How wide is the Kestrel van?", TEXTS[1]),  # every word known
    ("Насколько глубокая машина?", TEXTS[3]),  # paraphrase of глубина
])
def test_paraphrases_and_known_words_pass(lexicon, embedder, question, unit):
    assert unaddressed_words(question, unit, lexicon, embedder) == []


def test_a_russian_word_against_an_english_sentence_is_a_translation(lexicon, embedder):
    assert unaddressed_words("Какая грузоподъёмность у Kestrel van?", TEXTS[0], lexicon, embedder) == []


def _passage(text: str, section: str):
    from core.retrieve import Candidate

    return Candidate(chunk_id="d1:0", doc_id="d1", text=text, source="guide.md", title="Guide", page_start=None,
                     page_end=None, section=section, kind="text", lang="ru", ordinal=0, rank=1)


def _asker(chunk: str, section: str, *others: str):
    """Ask questions of one passage, with `others` as further documents of the tenant."""
    from core.generate import ExtractiveGenerator

    lexicon = LexicalIndex.build([("1", chunk), *((str(n), text) for n, text in enumerate(others, start=2))])
    passage = _passage(chunk, section)
    return lambda question: ExtractiveGenerator().generate(question, [passage], lexicon)


def test_a_steps_own_number_is_not_the_quantity_asked():
    from core.generate import ExtractiveGenerator

    steps = ("Слив воды\n\n2. Откройте лючок в правом нижнем углу.\n\n"
             "3. Вытащите аварийный шланг и слейте воду в ёмкость.")
    lexicon = LexicalIndex.build([("1", steps), ("2", "Ёмкость бака 50 литров.")])
    generation = ExtractiveGenerator().generate(
        "Какой ёмкости должна быть посуда для слива воды через аварийный шланг?", [_passage(steps, "Слив воды")], lexicon)
    assert generation.text == ""  # "3." numbers the step; no sentence gives a volume
    assert any(r["why"] == "does not give the quantity asked about" for r in generation.rejected)


def test_a_table_row_is_named_by_its_lead_in_not_by_text_after_the_table():
    from core.generate import ExtractiveGenerator

    chunk = ("Approvals\n\nTrips are approved as follows.\n\n| Trip | Approved by |\n|---|---|\n"
             "| Any trip above €2,500 | Head of Finance |\n\n"
             "Laundry costs are reimbursed for trips of more than 5 consecutive nights.")
    lexicon = LexicalIndex.build([("1", chunk), ("2", "Hotels in Zurich: €240 per night.")])
    passage = _passage(chunk, "Approvals")
    generation = ExtractiveGenerator().generate("How much is reimbursed for laundry on a long trip?", [passage], lexicon)
    assert generation.text == ""  # the laundry sentence gives no amount; the row is not about laundry
    approval = ExtractiveGenerator().generate("Who approves a trip above €2,500?", [passage], lexicon)
    assert "Head of Finance" in approval.text


def test_an_identifier_and_the_asked_kind_pin_the_topic_down():
    from core.generate import ExtractiveGenerator

    chunk = ("E10 — нет воды\n\nКод E10 появляется, если машина не начала набирать воду в течение 4 минут "
             "после запуска программы.")
    others = "Дисплей показывает оставшееся время. Набор воды идёт через клапан. Оставшееся время на дисплее."
    lexicon = LexicalIndex.build([("1", chunk), ("2", others), ("3", "Стиральная машина AquaLine.")])
    passage = _passage(chunk, "E10 — нет воды")
    question = "Через сколько минут без набора воды машина показывает E10?"
    generation = ExtractiveGenerator().generate(question, [passage], lexicon)
    assert "4 минут" in generation.text  # "набора" and "показывает" are said otherwise
    # without an identifier the same words are too few
    assert ExtractiveGenerator().generate(question.replace(" E10", ""), [passage], lexicon).text == ""


def test_how_many_days_is_not_answered_by_immediately():
    from core.generate import ExtractiveGenerator

    chunk = "E12 — перелив\n\nНемедленно закройте водопроводный кран и вызовите сервисного инженера."
    lexicon = LexicalIndex.build([("1", chunk)])
    generation = ExtractiveGenerator().generate(
        "Сколько дней ждать инженера при ошибке E12?", [_passage(chunk, "E12 — перелив")], lexicon)
    assert generation.text == ""


def test_a_numbered_step_is_read_with_the_steps_around_it():
    from core.generate import ExtractiveGenerator

    chunk = ("Слив воды\n\n1. Освободите проход: ширина коридора не менее 70 см.\n\n"
             "2. Подставьте плоскую ёмкость объёмом не менее 2 литров.\n\n"
             "3. Вытащите аварийный шланг и слейте остатки воды в ёмкость.\n\n"
             "4. В доме без лифта укажите этаж при заказе.")
    lexicon = LexicalIndex.build([("1", chunk), ("2", "Этаж и лифт."), ("3", "Ширина машины 60 см."),
                                  ("4", "Ширина двери 80 см.")])
    passage = _passage(chunk, "Слив воды")
    generation = ExtractiveGenerator().generate(
        "Какую ёмкость подставить, чтобы слить остатки воды через аварийный шланг?", [passage], lexicon)
    assert "не менее 2 литров" in generation.text  # step 2, read with step 3's hose and water
    # step 1 is not read with step 4: the corridor width is no answer about the lift
    assert ExtractiveGenerator().generate("Какой ширины должен быть лифт?", [passage], lexicon).text == ""


def test_a_permission_question_needs_a_unit_that_speaks_of_the_action():
    ask = _asker("CarePlus contracts\n\n| Contract | Cover ends | Price |\n|---|---|---|\n"
                 "| CarePlus Complete | 5 years after delivery | €189 |\n\n"
                 "A CarePlus contract can be transferred to a new owner once.", "CarePlus contracts",
                 "Contracts can be extended by the Fleet Manager.", "The warranty lasts 2 years.")
    extend = ask("Can I extend my CarePlus Complete contract after 5 years?")
    assert extend.text == ""  # the row states the term; nothing says it can be extended
    assert any(r["why"] == "does not speak of the action asked about" for r in extend.rejected)
    transfer = ask("Can I transfer my CarePlus contract?")
    assert "transferred to a new owner" in transfer.text
    warranty = ask("Can I transfer the warranty to a new owner?")
    assert warranty.text == ""  # the contract can be transferred; nothing says the warranty can


def test_an_address_is_answered_only_for_its_owner():
    ask = _asker("Contact\n\nE-mails to support@northwind.example are answered within 1 business day.\n\n"
                 "The Compliance team is reached at compliance@northwind.example.", "Contact",
                 "The IT service desk answers on +49 40 1600.")
    desk = ask("What is the e-mail address of the IT service desk?")
    assert desk.text == ""  # the support address is not the service desk's
    assert any(r["why"] == "does not say whose email it is" for r in desk.rejected)
    team = ask("What is the e-mail address of the Compliance team?")
    assert "compliance@northwind.example" in team.text


def test_a_duration_under_an_identifier_must_still_be_said_of_the_asked_thing():
    ask = _asker("E20 — не сливается вода\n\nЕсли стирка шла при 60 °C, дайте воде остыть не менее 20 минут. "
                 "Откройте лючок и выкрутите сливной фильтр.", "E20 — не сливается вода", "Слив длится 2 минуты.")
    drain = ask("Сколько минут длится слив при ошибке E20?")
    assert drain.text == ""  # 20 minutes is how long the water cools, not how long it drains
    cool = ask("Сколько минут ждать, чтобы вода остыла, при ошибке E20?")
    assert "20 минут" in cool.text


def test_a_numbered_procedure_is_quoted_whole_across_a_chunk_boundary():
    from dataclasses import replace

    from core.generate import ExtractiveGenerator

    first = ("E20 — проблема слива\n\nПорядок устранения ошибки E20:\n\n1. Отключите машину от электросети.\n\n"
             "2. Подставьте ёмкость. Откройте лючок.\n\n3. Вытащите аварийный шланг.")
    second = ("E20 — проблема слива\n\n3. Вытащите аварийный шланг.\n\n4. Выкрутите сливной фильтр. Промойте его.\n\n"
              "5. Запустите программу «Слив».\n\nE21 означает долгий слив.")
    lexicon = LexicalIndex.build([("1", first), ("2", second), ("3", "Ошибка E30: утечка.")])
    passages = [_passage(first, "E20 — проблема слива"),
                replace(_passage(second, "E20 — проблема слива"), chunk_id="d1:1", ordinal=1, neighbour=True)]
    generation = ExtractiveGenerator().generate("Как устранить ошибку E20?", passages, lexicon)
    text = generation.text
    assert text.startswith("Порядок устранения ошибки E20: [1]")
    # every step once, in order, a step's second sentence with it, the chunks' overlap not repeated
    assert text.count("3. Вытащите") == 1
    assert text.index("1. Отключите") < text.index("3. Вытащите") < text.index("5. Запустите")
    assert "2. Подставьте ёмкость. Откройте лючок. [1]" in text
    assert "4. Выкрутите сливной фильтр. Промойте его. [2]" in text
    assert "E21" not in text  # the list ended with its last step


def test_the_publisher_itself_is_no_answer_to_which_company():
    from core.generate import ExtractiveGenerator

    chunk = ("Vans\n\nField-service engineers use vans from the Northwind fleet. "
             "Field-service vans are insured by Allsecur AG.")
    lexicon = LexicalIndex.build([("d1:0", chunk), ("d2:0", "Northwind pays salaries monthly."),
                                  ("d3:0", "Northwind ships to Austria. Insurance is arranged.")])
    passage = _passage(chunk, "Vans")
    answer = ExtractiveGenerator().generate("Which insurance company insures our field-service vans?", [passage], lexicon)
    assert "Allsecur AG" in answer.text and "Northwind fleet" not in answer.text
    bare = _passage("Vans\n\nField-service engineers use vans from the Northwind fleet.", "Vans")
    assert ExtractiveGenerator().generate("Which insurance company insures the vans?", [bare], lexicon).text == ""


def test_a_long_procedure_stays_within_the_claims_the_verifier_checks():
    from core.generate import ExtractiveGenerator
    from core.verify import MAX_CLAIMS

    steps = "\n\n".join(f"{n}. Tighten bolt number {n} of the pump cover." for n in range(1, 15))
    chunk = f"Pump cover\n\nFitting the pump cover takes the following steps:\n\n{steps}"
    lexicon = LexicalIndex.build([("1", chunk), ("2", "The pump is made of steel.")])
    generation = ExtractiveGenerator().generate("How do I fit the pump cover?", [_passage(chunk, "Pump cover")], lexicon)
    assert generation.text.startswith("Fitting the pump cover takes the following steps: [1] 1. Tighten bolt")
    assert generation.text.count("[1]") == MAX_CLAIMS  # the intro and the first nine steps


def test_a_washer_is_a_washing_machine_to_the_documents():
    from core.expand import expand_question

    ask = _asker("Production\n\nAll AquaLine washing machines are assembled at our partner plant in Wrocław, Poland.",
                 "Production", "The AquaLine range has three models.", "Fit the plug with a new sealing washer.",
                 "Put the parts together in order.")
    assert "Wrocław" in ask(expand_question("In which city are AquaLine washers put together?")).text
    # without the everyday word "washers" is a word the documents use for something else
    assert ask("In which city are AquaLine washers put together?").text == ""


def test_the_sentences_before_a_value_in_its_paragraph_say_what_it_is_of():
    others = ("The app shows the programme.", "The appliance has a display.", "Firmware versions are logged.")
    ask = _asker("Version 3.2\n\nNew: the appliance firmware can be updated from the app. "
                 "Updates are installed only while the appliance is idle and take about 4 minutes.", "Version 3.2", *others)
    question = "The app says there's new firmware for my washing machine. Roughly how long does installing it take?"
    assert "about 4 minutes" in ask(question).text
    # a sentence after the value says nothing about what the value is of
    after = _asker("Version 3.2\n\nUpdates are installed only while the appliance is idle and take about 4 minutes. "
                   "New: the appliance firmware can be updated from the app.", "Version 3.2", *others)
    assert after(question).text == ""


def test_a_sentence_naming_the_attribute_asked_is_read_with_the_sentences_before_it():
    chunk = ("Модели AquaLine 8 Pro и AquaLine 9 Steam после первого запуска можно подключить к приложению "
             "HomeHub. Для подключения нужна сеть Wi-Fi с частотой 2,4 ГГц.")
    ask = _asker(chunk, "Подключение к приложению", "Перед первой стиркой запустите программу «Хлопок».")
    generation = ask("Какая частота Wi-Fi нужна, чтобы подключить AquaLine 8 Pro к приложению HomeHub?")
    assert generation.text.startswith("Для подключения нужна сеть Wi-Fi с частотой 2,4 ГГц.")


def test_the_washing_machines_care_guide_does_not_answer_for_a_dryer():
    ask = _asker("Уход за стиральной машиной\nЧистите сливной фильтр каждые 3 месяца.",
                 "Уход за стиральной машиной", "Сушилка для белья: паспорт.")
    assert "3 месяца" in ask("Как часто чистить сливной фильтр стиральной машины?").text
    refused = ask("Как часто чистить сливной фильтр у сушилки?")
    assert refused.text == ""
    assert any("another kind of appliance" in r["why"] for r in refused.rejected)


def test_a_yes_no_question_about_a_group_needs_a_passage_that_speaks_of_that_group():
    ask = _asker("Plans and prices\n\nPremium subscribers receive a 10% discount on CarePlus service contracts.",
                 "Plans and prices", "Staff may use a company van for private trips with approval.")
    staff = ask("Do staff get a discount on HomeHub Premium subscriptions?")
    assert staff.text == ""  # the subscribers' discount says nothing of staff
    assert any(r["why"] == "does not speak of whom the question asks about" for r in staff.rejected)
    assert "10% discount" in ask("Do Premium subscribers get a discount on CarePlus contracts?").text


def test_a_word_in_most_passages_anchors_no_value():
    from core.generate import ExtractiveGenerator

    chunk = "Ошибка E50\n\nПри ошибке E50 выньте часть белья, выключите машину на 10 минут и запустите программу снова."
    fillers = [f"Стиральная машина AquaLine, модель {n}." for n in range(12)]  # "машина" everywhere
    lexicon = LexicalIndex.build([("1", chunk), *((str(n), t) for n, t in enumerate(fillers, start=2))])
    passage = _passage(chunk, "Ошибка E50")
    late = ExtractiveGenerator()
    assert late.generate("Через сколько минут после запуска машина выдаёт ошибку E50?", [passage], lexicon).text == ""
    assert any(r["why"] == "gives a duration of something else" for r in late.generate(
        "Через сколько минут после запуска машина выдаёт ошибку E50?", [passage], lexicon).rejected)
    # the same sentence answers for what it does say: how long to switch the machine off
    assert "10 минут" in ExtractiveGenerator().generate(
        "На сколько минут выключить машину при ошибке E50?", [passage], lexicon).text


def test_a_place_of_manufacture_needs_a_unit_that_speaks_of_making():
    ask = _asker("Warranty\n\nThis manufacturer's warranty is given by Northwind GmbH, Hamburg, Germany, "
                 "for AquaLine washing machines.\n\nAll AquaLine washing machines are assembled in Wrocław, Poland.",
                 "Warranty", "The control boards are tested after assembly.")
    assert "Wrocław" in ask("In which country are AquaLine washing machines assembled?").text
    # the warrantor's address names a country, but says nothing of where anything is made
    assert "Hamburg" not in ask("In which country are the AquaLine control boards manufactured?").text


def test_the_attribute_must_be_of_what_the_question_names():
    ask = _asker("KT-200 torque values\n\nAfter fitting a wheel, tighten the lug nuts of the KT-200 in a star pattern "
                 "to 120 N·m.", "KT-200 torque values",
                 "The rear axle and the hub are inspected yearly.", "Engine mount bolts: 55 N·m.")
    assert "120" in ask("What torque do the lug nuts on the KT-200 need?").text
    # the lug nuts' torque is no answer for the rear axle hub nut (the identifier lets a third
    # of the topic words do, so only whose torque it is tells them apart)
    assert ask("What torque does the rear axle hub nut on the KT-200 need?").text == ""



def test_words_only_the_scene_uses_count_for_less(monkeypatch):
    import core.generate

    ask = _asker("Special leave\n\nEmployees get 3 paid days off on the death of a close relative.", "Special leave",
                 "The kitchen kettle and the printer are cleaned daily.", "Dogs are not allowed in the garden.",
                 "Delivery to Spain takes 5 business days.")
    question = "My dog broke the kettle and the printer in the garden. How many paid days off do I get after a death?"
    assert "3 paid days" in ask(question).text
    # a place the documents never name makes the scene part of the question: counted in full
    assert ask(question.replace("garden.", "garden in Lisbon.")).text == ""
    monkeypatch.setattr(core.generate, "SCENE_WEIGHT", 1.0)
    # counted in full, the dog, the kettle, the printer and the garden outweigh what is asked
    assert ask(question).text == ""


def test_a_why_question_gets_the_reason_the_next_sentence_gives():
    chunk = ("Safe operation\n\nDo not wash items that have been treated with petrol or paint thinner. "
             "Such items can cause a fire or an explosion. Keep children away from the machine.\n\n"
             "Do not use the machine outdoors. Install it indoors on a level floor.")
    ask = _asker(chunk, "Safe operation", "The warranty covers the motor for 5 years.")

    why = ask("Why should clothes treated with petrol never be washed in the machine?")
    assert "Do not wash items" in why.text and "Such items can cause a fire or an explosion." in why.text
    assert "Keep children away" not in why.text  # one reason, not the rest of the paragraph
    # the same rule asked without "why" is answered by the rule alone
    what = ask("Can clothes treated with petrol be washed in the machine?")
    assert "Do not wash items" in what.text and "fire" not in what.text
    # a next sentence that gives no reason is not added
    outdoors = ask("Why may I not run the machine outdoors?")
    assert "Do not use the machine outdoors." in outdoors.text and "level floor" not in outdoors.text


def test_a_why_question_answered_with_its_reason_already_gets_nothing_more():
    chunk = ("Care\n\nLeave the door open after each wash so that the drum can dry. "
             "This also prevents odours. Wipe the seal monthly.")
    ask = _asker(chunk, "Care", "The warranty covers the motor for 5 years.")
    generation = ask("Why should the door be left open after each wash?")
    assert "so that the drum can dry" in generation.text and "odours" not in generation.text
