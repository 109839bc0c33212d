"""The column a question asks for, shown first in a quoted table row."""

from __future__ import annotations

from core.answer.columns import asked_column_first, named_columns
from core.answer.question import Question
from core.answer.units import units
from core.lexical import tokenize

TABLE = ("| Plan | Monthly fee | Data | Minutes | EU roaming data |\n|---|---|---|---|---|\n"
         "| Start | EUR 9 | 5 GB | 100 | 2 GB |\n| Max | EUR 35 | Unlimited | Unlimited | 30 GB |\n")
HEADER = ("Plan", "Monthly fee", "Data", "Minutes", "EU roaming data")


def _max_row():
    return next(u for u in units(TABLE) if u.kind == "row" and "Max" in u.quote)


def _asked(question: str) -> list[int]:
    return named_columns(HEADER, set(tokenize(Question.parse(question).asking)))[0]


def test_a_header_is_named_by_all_its_words_or_by_one_no_other_header_holds():
    assert _asked("How much EU roaming data does Max include?") == [4]  # "Data" is inside it
    assert _asked("How much roaming data do I get?") == [4]  # "roaming" is its own
    assert _asked("How much data is in Start?") == [2]
    assert _asked("What is the fee of Max?") == [1]
    assert _asked("What does Max cost?") == []  # no header named: the row as it stands
    assert _asked("What are the plan's monthly fee and minutes?") == [1, 3]


def test_the_cell_asked_follows_the_row_name_and_nothing_is_dropped():
    row = _max_row()
    assert row.text == "Plan: Max; Monthly fee: EUR 35; Data: Unlimited; Minutes: Unlimited; EU roaming data: 30 GB"
    shown = asked_column_first(Question.parse("How much EU roaming data does the Max plan include?"), row)
    assert shown.text == "Plan: Max; EU roaming data: 30 GB; Monthly fee: EUR 35; Data: Unlimited; Minutes: Unlimited"
    assert (shown.quote, shown.start, shown.end) == (row.quote, row.start, row.end)  # the same citation


def test_a_row_is_left_as_it_is_when_the_question_names_no_column_or_each_one():
    row = _max_row()
    assert asked_column_first(Question.parse("Tell me about the Max plan."), row) is row
    every = "What are the monthly fee, data, minutes and EU roaming data of Max?"
    assert asked_column_first(Question.parse(every), row) is row
    # the scene is not the asking: a column named there is not asked for
    scene = Question.parse("A customer asks about roaming data. What does the Max plan cost a month?")
    assert asked_column_first(scene, row).text.startswith("Plan: Max; Monthly fee: EUR 35; Data")


def test_a_russian_header_is_named_by_its_stems():
    table = ("| Тариф | Абонентская плата | Интернет | Роуминг в ЕС |\n|---|---|---|---|\n"
             "| Старт | 300 руб. | 5 ГБ | 1 ГБ |\n| Макс | 900 руб. | Безлимит | 20 ГБ |\n")
    row = next(u for u in units(table) if "Макс" in u.quote)
    shown = asked_column_first(Question.parse("Сколько гигабайт роуминга в ЕС даёт тариф Макс?"), row)
    assert shown.text == "Тариф: Макс; Роуминг в ЕС: 20 ГБ; Абонентская плата: 900 руб.; Интернет: Безлимит"


def test_a_header_holding_more_of_the_asked_words_than_any_other_is_named():
    header = ("Зона", "Страны", "Исходящие звонки, EUR/мин", "Входящие звонки, EUR/мин", "Исходящие SMS, EUR")
    asked = set(tokenize("Сколько стоят исходящие звонки в Зоне 3?"))
    assert named_columns(header, asked)[0] == [2]  # each of its asked words is in another header too
    assert named_columns(header, set(tokenize("Сколько стоят звонки в Зоне 3?")))[0] == []  # a tie: none
