"""core/answer/brackets.py: of rows bracketed by a quantity, the ones holding the asked value."""

from __future__ import annotations

from core.answer.brackets import asked_value, in_bracket
from core.answer.result import Selected
from core.answer.units import units

PRICES = ("| Service | Species | Price (EUR) |\n|---|---|---|\n| Spay, dog under 20 kg | Dog | 340 |\n"
          "| Spay, dog 20 kg and over | Dog | 420 |\n| Spay | Cat | 130 |")
RU = ("| Услуга | Цена |\n|---|---|\n| Стерилизация, собака до 20 кг | 340 |\n"
      "| Стерилизация, собака свыше 20 кг | 420 |")


def chosen(table: str, n: int = 2) -> list[Selected]:
    return [Selected(1, u, 0.9) for u in units(table) if u.kind == "row"][:n]


def prices(selected: list[Selected]) -> list[str]:
    return [s.unit.text.rsplit(" ", 1)[-1] for s in selected]


def test_the_row_whose_bracket_holds_the_asked_value_stays() -> None:
    # a QA pass: "My dog weighs 32 kg ... How much will it cost?" quoted 340 and 420
    assert prices(in_bracket("My dog weighs 32 kg. How much is a spay?", chosen(PRICES))) == ["420"]
    assert prices(in_bracket("My dog weighs 15 kg. How much is a spay?", chosen(PRICES))) == ["340"]
    # "under 20" leaves 20 out, "20 and over" holds it
    assert prices(in_bracket("How much is a spay for a dog of exactly 20 kg?", chosen(PRICES))) == ["420"]
    # «до 20 кг» holds 20, «свыше 20 кг» does not
    assert prices(in_bracket("Сколько стоит стерилизация собаки весом 20 кг?", chosen(RU))) == ["340"]
    assert prices(in_bracket("Собака весит 25 кг, сколько стоит стерилизация?", chosen(RU))) == ["420"]
    spans = chosen("| Service | Price |\n|---|---|\n| Dental, dog 10-20 kg | 150 |\n| Dental, dog 21-40 kg | 190 |")
    assert prices(in_bracket("My dog weighs 32 kg. What does dental cost?", spans)) == ["190"]


def test_rows_stay_when_no_value_or_no_bracket_decides() -> None:
    both = chosen(PRICES)
    assert in_bracket("How much is a spay for a dog?", both) == both  # no value asked
    assert in_bracket("My dog weighs 32 kg and is 3 years old. How much is a spay?", both) == both  # two values
    assert in_bracket("My dog is 32 cm tall. How much is a spay?", both) == both  # another unit
    # a row without a bracket is never dropped, and nothing is when no bracket holds the value
    with_cat = chosen(PRICES, 3)
    assert prices(in_bracket("My dog weighs 32 kg. How much is a spay?", with_cat)) == ["420", "130"]
    gap = chosen("| Item | Price |\n|---|---|\n| Parcel under 5 kg | 5 |\n| Parcel under 10 kg | 9 |")
    assert in_bracket("My parcel weighs 12 kg. What does it cost?", gap) == gap


def test_the_asked_value_is_one_number_with_a_unit() -> None:
    assert asked_value("My dog weighs 32 kg.") == (32.0, "kg")
    assert asked_value("How much is a spay?") is None
    assert asked_value("Room 5 and room 7?") is None


def test_a_range_held_in_two_fields_brackets_a_row() -> None:
    # a QA pass over a logistics tariff: rows "Вес от, кг: 0; Вес до, кг: 50": the 800 kg
    # question quoted the 0-50 and 151-500 rows before the 501-1500 one it asked about
    from core.answer.brackets import within
    from core.lang import LANGUAGES

    tariff = ("| Направление | Вес от, кг | Вес до, кг | Стандарт, руб. |\n|---|---|---|---|\n"
              "| Новосибирск | 0 | 50 | 9800 |\n| Новосибирск | 151 | 500 | 35200 |\n"
              "| Новосибирск | 501 | 1500 | по запросу |")
    rows = chosen(tariff, 3)
    assert [s.unit.text.rsplit(" ", 1)[-1] for s in in_bracket("Какой тариф на 800 кг до Новосибирска?", rows)] == \
        ["запросу"]
    ru = LANGUAGES["ru"]
    assert within("40", "кг", "Направление: Казань; Вес от, кг: 0; Вес до, кг: 50; Стандарт, руб.: 4200", ru)
    assert not within("60", "кг", "Направление: Казань; Вес от, кг: 0; Вес до, кг: 50", ru)
    # a span holds its numbers; a field pair of another unit does not
    assert within("40", "kg", "Parcels 0-50 kg: 9 EUR", LANGUAGES["en"])
    assert not within("40", "kg", "Distance from, km: 0; Distance to, km: 50", LANGUAGES["en"])


def test_a_span_in_words_holds_the_asked_value() -> None:
    # a reliability pass: "Who approves an expense claim of 1,200 EUR?" beside the row
    # "500 to 2,000 EUR | Department head" counted the claim's amount missing
    from core.answer.brackets import asked_value, within
    from core.lang import LANGUAGES

    row = "Amount: 500 to 2,000 EUR; Approver: Department head"
    assert asked_value("Who approves an expense claim of 1,200 EUR?") == (1200.0, "eur")
    assert within("1200", "eur", row, LANGUAGES["en"]) and not within("2500", "eur", row, LANGUAGES["en"])
    assert within("7", "кг", "Вес с 5 по 10 кг", LANGUAGES["ru"])


def test_bounds_read_numbers_grouped_or_decimal_by_commas() -> None:
    from core.answer.brackets import bounds
    from core.lang import LANGUAGES

    en, ru = LANGUAGES["en"], LANGUAGES["ru"]
    assert bounds("500 to 2,000 EUR", "eur", en) == [("lower", 500.0, False), ("upper", 2000.0, False)]
    assert bounds("Above 2,000 EUR", "eur", en) == [("lower", 2000.0, True)]
    assert bounds("до 2,5 кг", "кг", ru) == [("upper", 2.5, False)]
