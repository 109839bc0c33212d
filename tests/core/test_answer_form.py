"""Answer forms (core/answer_form.py) and the extractive generator's use of them: a
question asking for a telephone number, an e-mail address or a weight is answered only by
text that holds one."""

import pytest

from core.answer_form import asked_forms, form_words, holds_form
from core.generate import ExtractiveGenerator
from core.lexical import LexicalIndex
from core.retrieve import Candidate


@pytest.mark.parametrize("question, forms", [
    ("What is the telephone number of the data protection officer?", ["phone"]),
    ("What number should I call to cancel my contract?", ["phone"]),
    ("По какому телефону звонить по вопросам оплаты?", ["phone"]),
    ("Which e-mail address handles billing questions?", ["email"]),
    ("Какой адрес электронной почты у отдела доставки?", ["email"]),
    ("What is the website address of the portal?", ["url"]),
    ("How much does the AquaLine 9 weigh?", ["mass"]),
    ("Сколько весит стиральная машина?", ["mass"]),
    ("How heavy a load can the van carry?", ["load"]),
    ("Which error code shows when the door lock does not close?", ["code"]),
    ("Какой код ошибки показывает машина, если не закрывается замок дверцы?", ["code"]),
    ("Какая ошибка появляется при засоре фильтра?", ["code"]),
    ("How deep is the AquaLine 8 Pro?", ["length"]),
    ("How far from the router can the washer stand?", ["length"]),
    ("Какой минимальной ширины должны быть двери?", ["length"]),
    ("На каком расстоянии от стены ставить машину?", ["length"]),
    # mentions that do not ask for the form
    ("What should I do if my phone is stolen?", []),
    ("Can I cancel by e-mail?", []),
    ("How long are website server logs kept?", []),
    ("Does the machine weigh the laundry?", []),
    ("What does error code E20 mean?", []),
    ("How far in advance must I book the train?", []),  # a time ahead, not a length
    ("How far ahead can I delay the start?", []),
])
def test_the_forms_a_question_asks_for(question, forms):
    assert asked_forms(question) == forms


@pytest.mark.parametrize("text, form, held", [
    ("Call customer service on +49 40 5550 1200.", "phone", True),
    ("You can contact her at dpo@example.org or by post.", "phone", False),
    ("You can contact her at dpo@example.org or by post.", "email", True),
    ("Our Data Protection Officer is Dr. Katrin Vogel.", "email", False),
    ("Open https://portal.example/report to report a concern.", "url", True),
    ("Specification: Net weight; AquaLine 7: 63 kg; AquaLine 9: 76 kg", "mass", True),
    ("Specification: Load capacity; AquaLine 7: 7 kg; AquaLine 9: 9 kg", "mass", False),
    ("AquaLine 8 Pro: 8 kg capacity, touch display.", "mass", False),
    ("The maximum payload is 1,150 kg, including the shelving (85 kg).", "mass", True),
    ("The maximum payload is 1,150 kg.", "load", True),
    ("Orders over 500 are shipped free.", "phone", False),  # a short number is not dialable
    ("Код E20 означает проблему слива.", "code", True),
    ("Use the stacking kit SK-60.", "code", True),
    ("Причина — неисправный заливной клапан, который не закрывается.", "code", False),
    ("Depth 590 mm; width 600 mm", "length", True),
    ("Ширина проёмов должна быть не менее 70 см.", "length", True),
    ("The machine must be within range of a 2.4 GHz network.", "length", False),
    ("The room must be at least 50 m² in size.", "length", False),  # an area is no length
])
def test_a_text_holds_the_form_or_not(text, form, held):
    assert holds_form(text, form) is held


def test_the_asking_words_are_the_form_words():
    assert {"phone", "number"} <= form_words("What is the phone number for the shipping department?")
    assert "depart" not in form_words("What is the phone number for the shipping department?")


PRIVACY = ("Our Data Protection Officer is Dr. Katrin Vogel. You can contact her at "
           "dpo@northwind.example or by post at Speicherstraße 14, Hamburg.")
SERVICE = "Customer service is available by telephone on +49 40 5550 1200 from Monday to Friday."


def _candidate(i: int, text: str, section: str) -> Candidate:
    return Candidate(chunk_id=f"d{i}:0", doc_id=f"d{i}", text=text, source=f"doc{i}.md", title=section,
                     page_start=None, page_end=None, section=section, kind="text", lang="en", ordinal=0, rank=i)


@pytest.fixture()
def passages():
    return [_candidate(1, PRIVACY, "Data protection officer"), _candidate(2, SERVICE, "Contact")]


@pytest.fixture()
def lexicon():
    return LexicalIndex.build([("1", PRIVACY), ("2", SERVICE)])


def test_an_asked_telephone_number_is_not_answered_by_an_e_mail_address(passages, lexicon):
    generation = ExtractiveGenerator().generate(
        "What is the telephone number of the data protection officer?", passages, lexicon)
    assert generation.text == ""  # the DPO's sentences hold no number; the service line is not hers
    assert any(r["why"] == "holds no phone" and "dpo@" in r["text"] for r in generation.rejected)


def test_an_asked_e_mail_address_is_answered_with_it(passages, lexicon):
    generation = ExtractiveGenerator().generate(
        "What e-mail address reaches the data protection officer?", passages, lexicon)
    assert "dpo@northwind.example" in generation.text
    assert generation.text.endswith("[1]")


@pytest.mark.parametrize("question", ["How heavy a trailer may the van tow?", "Сколько весит груз, который выдерживает полка?"])
def test_a_weight_the_thing_can_take_is_a_capacity(question):
    assert asked_forms(question) == ["load"]
    assert holds_form("The maximum braked trailer load is 2,000 kg.", "load")


def test_a_numbered_paragraph_caption_names_the_attribute_of_its_sentences():
    from core.generate import _caption

    assert _caption("4-1. Tyre size. The van uses 215/65 R16C tyres.") == "Tyre size"
    assert _caption("The van has a 12 V battery. It sits under the seat.") == ""
    text = "4-1. Tyre size. The van uses 215/65 R16C tyres on all four wheels."
    lexicon = LexicalIndex.build([("1", text)])
    generation = ExtractiveGenerator().generate(
        "What tyre size does the van need?", [_candidate(1, text, "Tyres")], lexicon)
    assert "215/65 R16C" in generation.text


def test_which_version_is_answered_with_the_version_its_heading_gives():
    notes = ("Version 5.4.0 (14 May 2024)\n\nNew: dark mode, following the phone's system setting.\n\n"
             "New: monthly energy report for each appliance.")
    lexicon = LexicalIndex.build([("1", notes)])
    assert asked_forms("Which release of the app brought in dark mode?") == ["version"]
    assert holds_form("Version 5.4.0 (14 May 2024)", "version") and not holds_form("New: dark mode.", "version")
    generation = ExtractiveGenerator().generate(
        "Which app version added dark mode?", [_candidate(1, notes, "Version 5.4.0 (14 May 2024)")], lexicon)
    assert generation.text.startswith("Version 5.4.0 (14 May 2024) [1] New: dark mode")
    # without a version above it, a change answers no "which version"
    bare = _candidate(1, "New: dark mode, following the phone's system setting.", "What is new")
    assert ExtractiveGenerator().generate("Which app version added dark mode?", [bare], lexicon).text == ""


def test_whose_address_or_number_is_asked():
    from core.answer_form import form_owner

    assert form_owner("What is the e-mail address of the IT service desk?") == ["servic", "desk"]
    assert form_owner("What is the phone number for the Compliance team if I see fraud?") == ["complianc", "team"]
    assert form_owner("What phone number should I call if it smells of burning?") == []
    assert form_owner("Which e-mail address handles questions about CarePlus?") == []


def test_what_does_it_weigh_asks_for_a_mass():
    from core.answer_form import asked_forms

    assert asked_forms("What does the AquaLine 8 Pro weigh, unpacked?") == ["mass"]
    assert asked_forms("What does the warranty cover?") == []


def test_a_part_number_is_asked_as_a_code():
    from core.answer_form import asked_forms, holds_form

    for q in ("What's the part number for the anti-vibration feet set?", "What is the article number of the kit?",
              "Какой артикул у набора ножек?"):
        assert "code" in asked_forms(q), q
    assert holds_form("Anti-vibration feet (set of 4) | AV-4 | €24", "code")
    # the warranty row that names the feet gives no number for them
    assert not holds_form("Accessories (hoses, stacking kit, anti-vibration feet); Warranty period: 1 year", "code")


def test_a_percentage_is_asked_as_a_percentage_and_its_topic_still_counts():
    from core.answer_form import asked_forms, form_words, holds_form

    for q in ("What VAT rate is included in the prices?", "What percentage discount do staff get?",
              "Какой процент НДС включён в цены?", "Какая ставка НДС?"):
        assert "percent" in asked_forms(q), q
    assert "percent" not in asked_forms("What rate per kilometre do I get back?")  # a rate in euros
    assert form_words("What VAT rate is included?") == {"rate"}  # VAT is the topic, not an asking word
    assert holds_form("All prices include German VAT at 19%.", "percent")
    assert not holds_form("Monthly plan: €4.99 per month", "percent")
