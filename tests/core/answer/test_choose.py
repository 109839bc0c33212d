"""core/answer/extractive.py `choose`: which units an answer quotes beside the best one."""

from __future__ import annotations

from core.answer.extractive import choose
from core.answer.signals import Scored
from core.answer.units import Unit


def scored(passage: int, text: str, score: float, start: int = 0) -> Scored:
    return Scored(passage, Unit(text, text, start, start + len(text), text, "sentence"), {}, score)


def texts(picked) -> list[str]:
    return [s.unit.text for s in picked]


def test_a_runner_up_from_another_passage_needs_the_stricter_share() -> None:
    # "240 hours" is best; "15 days" (another kind of leave, another passage) scores 0.7 of it
    ranked = [scored(1, "Carry over at most 240 hours.", 0.9),
              scored(2, "Carry over at most 15 days.", 0.63),
              scored(1, "Unused hours above that are lost.", 0.5, start=40)]
    assert texts(choose(ranked, [], 0.35)) == [
        "Carry over at most 240 hours.", "Unused hours above that are lost.", "Carry over at most 15 days."]
    # the rival from elsewhere is left out; the best unit's own passage still adds its sentence
    assert texts(choose(ranked, [], 0.35, other_passage=0.8)) == [
        "Carry over at most 240 hours.", "Unused hours above that are lost."]


def test_a_runner_up_from_another_passage_close_to_the_best_is_kept() -> None:
    ranked = [scored(1, "Monthly: 9 EUR.", 0.9), scored(3, "Monthly plans renew each month.", 0.85)]
    assert texts(choose(ranked, [], 0.35, other_passage=0.8)) == ["Monthly: 9 EUR.", "Monthly plans renew each month."]


def test_the_same_ratio_still_ends_the_list() -> None:
    ranked = [scored(1, "A.", 0.9), scored(1, "B.", 0.2, start=5)]
    assert texts(choose(ranked, [], 0.35, other_passage=0.0)) == ["A."]



def row(passage: int, text: str, score: float, lex: float, start: int = 0) -> Scored:
    return Scored(passage, Unit(text, text, start, start + len(text), text, "row"),
                  {"is_row": 1.0, "lex_context": lex}, score)


def test_rows_of_the_best_rows_table_holding_less_of_the_question_are_not_quoted() -> None:
    # "How many paid days off do I get when I move house?": the wedding's and the
    # bereavement's rows padded the answer, the wedding's quoted first
    ranked = [row(1, "Occasion: Moving house; Paid days off: 1 day", 0.95, 1.0, start=80),
              row(1, "Occasion: Own wedding; Paid days off: 2 days", 0.43, 0.48),
              row(1, "Occasion: Death of a parent; Paid days off: 3 days", 0.40, 0.48, start=40)]
    assert texts(choose(ranked, [], 0.35)) == ["Occasion: Moving house; Paid days off: 1 day"]
    # rows holding as much of the question as the best are quoted with it (a timetable's days)
    even = [row(1, "Day: Monday-Friday; Hours: 8-18", 0.9, 0.7), row(1, "Day: Saturday; Hours: 9-13", 0.8, 0.7, start=40)]
    assert len(choose(even, [], 0.35)) == 2
    # another table's row is no sibling
    elsewhere = [ranked[0], row(2, "Occasion: Moving office; Paid days off: 0", 0.9, 0.5)]
    assert len(choose(elsewhere, [], 0.35, other_passage=0.5)) == 2
