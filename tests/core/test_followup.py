"""Chat follow-ups (core/followup.py): an elliptical question read as the whole question it
stands for, and everything else asked as typed."""

import pytest

from core.followup import read_followup


@pytest.mark.parametrize("previous, question, whole", [
    # step 3: the head word stays, its modifiers change
    ("What is the refund window for monthly plans?", "What about annual plans?",
     "What is the refund window for annual plans?"),
    ("What is the refund window for monthly HomeHub plans?", "And for annual plans?",
     "What is the refund window for annual HomeHub plans?"),
    ("How long is the return window for private customers?", "Same for business customers?",
     "How long is the return window for business customers?"),
    ("Можно ли вернуть деньги за месячный тариф?", "А для годовых тарифов?",
     "Можно ли вернуть деньги за годовых тариф?"),
    # step 4: a model, an identifier, a name of the same kind
    ("How much does the AquaLine 9 Steam weigh?", "And the AquaLine 7?", "How much does the AquaLine 7 weigh?"),
    ("What does error E20 mean?", "What about E30?", "What does error E30 mean?"),
    ("Что означает ошибка E20?", "А E30?", "Что означает ошибка E30?"),
    ("What does para 7-2 say?", "How about para 7-3?", "What does para 7-3 say?"),
    ("How long does delivery to Germany take?", "What about Norway?", "How long does delivery to Norway take?"),
    ("How long does HomeHub delivery to Germany take?", "And to Austria?",
     "How long does HomeHub delivery to Austria take?"),
    ("Сколько дней идёт доставка в Германию?", "А в Австрию?", "Сколько дней идёт доставка в Австрию?"),
])
def test_an_elliptical_follow_up_is_read_whole(previous, question, whole):
    assert read_followup(question, previous) == whole


@pytest.mark.parametrize("previous, question", [
    ("What is the oil capacity?", "How long does standard delivery to Germany take?"),  # a whole question
    ("What is the oil capacity?", "And how long does it take?"),  # asks its own question
    ("What is the oil capacity?", "How about the torque?"),  # nothing of the previous to replace
    ("What is the oil capacity of the KP20 engine?", "What about para 99-1?"),  # not the engine's kind
    ("What does error E20 mean?", "Thanks"),
    ("What is the refund window for monthly plans?", "What about plans?"),  # repeats, changes nothing
    ("", "What about annual plans?"),  # no chat before it
    (None, "А E30?"),
])
def test_anything_else_is_asked_as_typed(previous, question):
    assert read_followup(question, previous) is None


def test_a_long_follow_up_is_a_question_of_its_own():
    previous = "What is the refund window for monthly plans?"
    assert read_followup("And for annual plans bought in a shop during the summer sale?", previous) is None
