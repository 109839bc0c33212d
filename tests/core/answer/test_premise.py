from core.answer.premise import conflict, correction
from core.answer.question import Question
from core.answer.signals import Scored
from core.answer.units import Unit


def _scored(text: str, score: float = 0.8, lex: float = 0.9) -> Scored:
    return Scored(1, Unit(text, text, 0, len(text), text, "sentence"),
                  {"lex_unit": lex, "lex_context": lex}, score=score)


def test_another_number_with_the_questions_unit_corrects_it() -> None:
    q = Question.parse("Why is paid parental leave 20 weeks long?")
    unit = _scored("Employees get 12 weeks of paid parental leave.")
    assert conflict(q, unit, unit.unit.text) == "the documents state 12 week, not 20 week"
    # the question's own number anywhere in the passage: no contradiction
    assert conflict(q, unit, unit.unit.text + " Unpaid leave may add up to 20 weeks.") is None


def test_a_scene_is_no_premise() -> None:
    q = Question.parse("I have worked here 3 years. How many weeks of parental leave do I get?")
    assert conflict(q, _scored("After 5 years you get 14 weeks."), "After 5 years you get 14 weeks.") is None


def test_a_negated_passage_contradicts_an_asserting_question() -> None:
    q = Question.parse("How do I delete a chat message?")
    passage = "Chat etiquette. You aren't able to delete a message."
    assert conflict(q, _scored("You aren't able to delete a message."), passage) == "the documents say the opposite"
    # off topic (little of the question's words): no correction
    assert conflict(q, _scored("You aren't able to park here.", lex=0.2), passage) is None
    # a question that is itself negated is answered, not corrected
    assert conflict(Question.parse("Why can't I delete a chat message?"),
                    _scored("You aren't able to delete a message."), passage) is None


def test_a_denial_of_something_else_is_no_correction() -> None:
    # the QA report: "Does the warranty cover damage caused by flooding?" was "corrected"
    # with the freezing sentence, which says nothing about flooding
    q = Question.parse("Does the warranty cover damage caused by flooding?")
    unit = _scored("The warranty does not cover damage caused by freezing.")
    assert conflict(q, unit, "Pump warranty. " + unit.unit.text) is None
    assert conflict(q, unit, "Pump warranty. Floods are the owner's risk. " + unit.unit.text) is not None


def test_a_number_that_names_what_is_asked_about_is_no_premise() -> None:
    # "room 5" and "bed 7" name a room and a bed; another room's figure is no correction
    for asked, said in (("How many people does room 5 seat?", "Room 13 seats 20 people."),
                        ("What does garden bed 7 grow?", "Garden bed 77 grows pepper.")):
        assert conflict(Question.parse(asked), _scored(said), said) is None


def test_only_top_on_topic_units_are_read() -> None:
    q = Question.parse("Why is paid parental leave 20 weeks long?")
    low = _scored("Employees get 12 weeks of paid parental leave.", score=0.05)
    assert correction(q, [low], [low.unit.text]) is None
    high = _scored("Employees get 12 weeks of paid parental leave.", score=0.6)
    assert correction(q, [high], [high.unit.text])[0] is high


def test_a_word_negated_by_its_prefix_contradicts_the_question() -> None:
    q = Question.parse("How many weeks of paid family leave can I take?")
    unit = _scored("You can take up to 12 weeks of unpaid family leave.")
    assert conflict(q, unit, unit.unit.text) == "the documents say unpaid, not paid"
    ru = Question.parse("Сколько дней оплачиваемого отпуска положено?")
    said = _scored("Положено 10 дней неоплачиваемого отпуска.")
    assert conflict(ru, said, said.unit.text) == "в документах сказано: неоплачиваемого, а не оплачиваемого"


def test_another_number_about_something_else_is_no_correction() -> None:
    # the QA report: the notice period's 14 days "corrected" a question about the leave's length
    q = Question.parse("Почему отпуск составляет 35 дней?")
    notice = _scored("Заявление на отпуск подаётся не позднее чем за 14 дней.")
    assert conflict(q, notice, notice.unit.text) is None
    length = _scored("Ежегодный отпуск составляет 28 дней.")
    assert conflict(q, length, length.unit.text) == "в документах указано 28 дне, а не 35 дне"


def test_a_negation_inside_a_conditional_clause_states_a_case_and_denies_nothing() -> None:
    # the QA pass: "How do I change my name in GSA systems?" was "corrected" with the very
    # sentence that opens the steps, for its "does not match"
    q = Question.parse("How do I change my name in GSA systems?")
    steps = "Follow these steps if your name in GSA systems does not match your name on your ID card:"
    assert conflict(q, _scored(steps), "Changing your name. " + steps) is None
    # a negation in the main clause still denies, after the condition's comma
    denial = "If you are a contractor, you cannot change your name in GSA systems."
    assert conflict(q, _scored(denial), denial) == "the documents say the opposite"
    ru = Question.parse("Как изменить имя в системе учёта?")
    case = "Если имя в системе учёта не совпадает с паспортом, подайте заявление."
    assert conflict(ru, _scored(case), case) is None


def test_a_bound_on_an_amount_is_no_denial() -> None:
    # development question cln-041: «не менее 2 часов» (at least 2 hours) read as a denial
    q = Question.parse("Как оплачивается час дежурства на дому?")
    bound = "Час дежурства на дому оплачивается как сверхурочная работа, но не менее 2 часов за вызов."
    assert conflict(q, _scored(bound), bound) is None
    en = Question.parse("Is an on-call hour at home paid?")
    assert conflict(en, _scored("An on-call hour at home is paid no later than the next payday."),
                     "An on-call hour at home is paid no later than the next payday.") is None
    assert conflict(en, _scored("An on-call hour at home is not paid."),
                     "An on-call hour at home is not paid.") == "the documents say the opposite"


def test_a_no_about_another_action_denies_nothing_the_question_asks() -> None:
    # the QA pass: «Как передать данные дочернему компоненту?» (no premise at all) was
    # "corrected" with a sentence whose no is about changing the prop, not passing data
    q = Question.parse("Как передать данные дочернему компоненту?")
    other = ("Когда объекты и массивы передаются как входные параметры, дочерний компонент не может "
             "изменить привязку входного параметра, но он сможет изменить вложенные свойства объекта.")
    passage = "Входные параметры передают данные дочернему компоненту. " + other
    assert conflict(q, _scored(other), passage) is None
    en = Question.parse("How do I change my name in GSA systems?")
    keep = "If you change your name in GSA systems, you cannot keep the old badge name."
    assert conflict(en, _scored(keep), keep) is None
    # the same question denied about what it asks still is
    denied = "Дочерний компонент не может получать данные от родителя напрямую."
    asked = Question.parse("Как дочернему компоненту получать данные от родителя?")
    assert conflict(asked, _scored(denied), denied) == "the documents say the opposite"


def test_a_prohibition_about_what_is_asked_is_quoted_first() -> None:
    # a QA pass: the meloxicam dose "for 5 days" was read before "Never give ... paracetamol"
    from core.answer.premise import denials_first
    from core.answer.result import Selected
    from core.answer.units import Unit

    def sel(text: str, start: int) -> Selected:
        return Selected(1, Unit(text, text, start, start + len(text), text, "sentence"), 0.5)

    q = Question.parse("How many days should I give my dog paracetamol after surgery?")
    drowsy = sel("Your pet may be drowsy for up to 24 hours after the anaesthetic.", 0)
    dose = sel("Give meloxicam once daily with food for 5 days.", 70)
    never = sel("Never give human painkillers such as paracetamol or ibuprofen to cats or dogs.", 120)
    assert denials_first(q, [drowsy, dose, never]) == [never, drowsy, dose]
    # a caveat inside a sentence leans on the one before it: kept in its place
    caveat = sel("It does not apply to dogs after surgery.", 120)
    assert denials_first(q, [drowsy, caveat]) == [drowsy, caveat]
    # a prohibition about something the question does not name keeps its place
    other = sel("Do not bath your pet for 10 days.", 120)
    assert denials_first(q, [dose, other]) == [dose, other]
    ru = Question.parse("Сколько дней давать собаке парацетамол?")
    ru_dose = sel("Мелоксикам дают 5 дней.", 0)
    ru_never = sel("Не давайте собаке парацетамол.", 30)
    assert denials_first(ru, [ru_dose, ru_never]) == [ru_never, ru_dose]


def test_a_contrary_state_corrects_the_state_the_question_takes_for_granted() -> None:
    # the QA report: "Why is the Riverside branch open on Sundays?" against a row saying
    # Sunday: closed was answered as asked, since no word of it was negated
    row = _scored("Day: Sunday; Riverside: closed; Northgate: 10:00-14:00")
    passage = "Branch opening hours\n| Day | Riverside | Northgate |\n" + row.unit.text
    assert conflict(Question.parse("Why is the Riverside branch open on Sundays?"), row, passage) \
        == "the documents say closed, not open"
    ru = _scored("Курение на территории клиники запрещено.")
    assert conflict(Question.parse("Почему курение на территории клиники разрешено?"), ru, ru.unit.text) \
        == "в документах сказано: запрещено, а не разрешено"


def test_no_contrary_correction_without_a_premise_or_off_the_topic() -> None:
    row = _scored("Day: Sunday; Riverside: closed")
    passage = "Branch opening hours\n" + row.unit.text
    # asks when, takes no state for granted
    assert conflict(Question.parse("When is the Riverside branch open?"), row, passage) is None
    # names both states: takes neither for granted
    both = _scored("The consent form is required for every patient.")
    assert conflict(Question.parse("Is the consent form optional or required?"), both, both.unit.text) is None
    # the contrary is said about something the question does not name
    other = _scored("Pets are prohibited in the office.")
    assert conflict(Question.parse("Why are pets allowed in the lounge?"), other, other.unit.text) is None
    # the state asked stands in the unit too: no contradiction to read
    mixed = _scored("The Riverside branch is open on Saturdays and closed on Sundays.")
    assert conflict(Question.parse("Is the Riverside branch open on Sundays?"), mixed, mixed.unit.text) is None


def test_a_state_asked_with_a_word_of_asking_is_still_taken_for_granted() -> None:
    # "allowed" is no topic term (it asks as "can" does), yet the question takes it for granted
    unit = _scored("Smoking is prohibited on the clinic premises.")
    assert conflict(Question.parse("Am I allowed to smoke on the clinic premises?"), unit, unit.unit.text) \
        == "the documents say prohibited, not allowed"


def test_a_number_bounded_the_other_way_corrects_the_question() -> None:
    # the QA pass: "Do you treat children under 3?" was answered "from the age of 3" at 0.96
    # as if it said yes
    unit = _scored("We treat children from the age of 3.")
    assert conflict(Question.parse("Do you treat children under 3?"), unit, unit.unit.text) \
        == "the documents say from the age of 3, not under 3"
    ru = _scored("Записать ребёнка на приём можно с 3 лет.")
    assert conflict(Question.parse("Можно ли записать ребёнка до 3 лет?"), ru, ru.unit.text) \
        == "в документах сказано: с 3, а не до 3"
    # "no more than" bounds from above, as "up to" does
    cap = _scored("A cabin bag may weigh no more than 8 kg.")
    assert conflict(Question.parse("Can a cabin bag weigh over 8 kg?"), cap, cap.unit.text) \
        == "the documents say no more than 8, not over 8"


def test_a_bound_the_same_way_or_on_another_number_is_no_correction() -> None:
    unit = _scored("We treat children from the age of 3.")
    passage = unit.unit.text
    assert conflict(Question.parse("Do you treat children over 3?"), unit, passage) is None
    assert conflict(Question.parse("Do you treat children under 5?"), unit, passage) is None
    # asks what, takes no bound for granted
    assert conflict(Question.parse("From what age do you treat children?"), unit, passage) is None
    # a range states both bounds: "to 18:00" is no bound the other way of "until 18:00"
    hours = _scored("The practice is open from 8:00 to 18:00.")
    assert conflict(Question.parse("Is the practice open until 18:00?"), hours, hours.unit.text) is None
    # both bounds stand in the unit: nothing contradicted
    both = _scored("Children under 3 are seen by the paediatric team, children from 3 by any dentist.")
    assert conflict(Question.parse("Do you treat children under 3?"), both, both.unit.text) is None


def test_a_clause_stated_as_given_is_a_premise_whatever_is_asked() -> None:
    # a QA pass: "Since Oakfield is open on Sundays, what time does it open?" was answered at
    # 0.90 beside the row "Oakfield: Closed": "what time" asserts nothing, the clause does
    row = _scored("Day: Sunday; Riverside: 10:00-16:00; Oakfield: Closed")
    passage = "Opening hours\n" + row.unit.text
    q = Question.parse("Since Oakfield is open on Sundays, what time does it open?")
    assert correction(q, [row], [passage])[1] == "the documents say closed, not open"
    ru = _scored("Курение на территории клиники запрещено.")
    q = Question.parse("Раз курение на территории клиники разрешено, где можно курить?")
    assert correction(q, [ru], [ru.unit.text])[1] == "в документах сказано: запрещено, а не разрешено"


def test_no_stated_premise_without_an_opener_a_comma_or_a_clause() -> None:
    row = _scored("Day: Sunday; Riverside: 10:00-16:00; Oakfield: Closed")
    passage = "Opening hours\n" + row.unit.text
    for asked in ("What time does Oakfield open on Sundays?",  # takes nothing for granted
                  "Since when is Oakfield open on Sundays?",  # no clause before a comma
                  "Since 2020, what time does Oakfield open on Sundays?"):  # a time, not a premise
        assert correction(Question.parse(asked), [row], [passage]) is None, asked


def test_a_value_only_a_replaced_document_states_is_corrected() -> None:
    # a QA pass: "Why is the damage claim period only 7 days?" was answered "The documents
    # differ" at 0.93, though the 2025 rules (14 days) replace the 2023 ones (7 days)
    from datetime import date

    from core.answer.differing import rival_rows
    from core.answer.premise import outdated_value
    from core.answer.result import Selected
    from core.answer.units import units
    from core.retrieve import Candidate

    def doc(name: str, days: int) -> Candidate:
        text = f"A damage claim is accepted within {days} calendar days of delivery."
        return Candidate(f"{name}:0", name, text, f"{name}.md", "Claims rules", None, None, "", "text", "en", 0)

    passages = [doc("claims_2023", 7), doc("claims_2025", 14)]
    ranked = sorted([Scored(n, u, {}, 0.9 if n == 1 else 0.8) for n, p in enumerate(passages, 1)
                     for u in units(p.text)], key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    pairs = rival_rows(chosen, ranked, passages)
    today = date(2026, 11, 30)
    unit, why = outdated_value(Question.parse("Why is the damage claim period only 7 days?"), pairs, passages, today)
    assert unit.passage == 2 and why == "the documents in force state 14, not 7 days"
    # the value in force, or a question that asserts nothing: no correction
    assert outdated_value(Question.parse("Why is the damage claim period 14 days?"), pairs, passages, today) is None
    assert outdated_value(Question.parse("How long is the damage claim period?"), pairs, passages, today) is None


def test_a_value_an_older_version_changed_to_is_corrected_by_the_latest_one() -> None:
    # a QA pass: "Why is the biggest file we can sync still stuck at 4 GB in the current
    # release?" was answered with 4.2.1's "raised from 2 GB to 4 GB", while 5.0 says 20 GB
    from datetime import date

    from core.answer.differing import rival_rows
    from core.answer.premise import outdated_value
    from core.answer.result import Selected
    from core.answer.units import units
    from core.retrieve import Candidate

    def doc(name: str, text: str) -> Candidate:
        return Candidate(f"{name}:0", name, text, f"{name}.md", "", None, None, "", "text", "en", 0)

    passages = [doc("release_notes_4.2", "The maximum file size for sync was raised from 2 GB to 4 GB."),
                doc("release_notes_5.0", "The maximum file size was raised to 20 GB.")]
    ranked = sorted([Scored(n, u, {}, 0.9 if n == 1 else 0.3) for n, p in enumerate(passages, 1)
                     for u in units(p.text)], key=lambda s: -s.score)
    pairs = rival_rows([Selected(1, ranked[0].unit, 0.9)], ranked, passages)
    asked = Question.parse("Why is the biggest file we can sync still stuck at 4 GB?")
    unit, why = outdated_value(asked, pairs, passages, date(2026, 12, 1))
    assert unit.passage == 2 and why == "the documents in force state 20, not 4 GB"
    assert outdated_value(Question.parse("Why is the maximum file size 20 GB?"), pairs, passages, date(2026, 12, 1)) is None


def test_a_statement_with_a_confirming_tag_asserts_its_value() -> None:
    # a QA pass: "..., correct?" and «..., верно?» were read as asking nothing, so the premise
    # checks never read them; a tag makes a yes/no question of the statement before it
    q = Question.parse("Paid parental leave is 20 weeks long, correct?")
    assert q.answer_type == "yesno" and "correct" not in q.terms
    unit = _scored("Employees get 12 weeks of paid parental leave.")
    assert conflict(q, unit, unit.unit.text) == "the documents state 12 week, not 20 week"
    assert conflict(Question.parse("Paid parental leave is 20 weeks long."), unit, unit.unit.text) is None
    ru = Question.parse("Отпуск длится 35 дней, верно?")
    assert ru.answer_type == "yesno" and "верн" not in ru.terms


def test_a_price_corrects_a_question_taking_a_thing_for_free() -> None:
    # a QA pass: "Why is eSIM activation free for prepaid customers?" was refused over
    # "eSIM activation for a prepaid customer costs 5 EUR."
    q = Question.parse("Why is eSIM activation free for prepaid customers?")
    unit = _scored("eSIM activation for a prepaid customer costs 5 EUR.")
    assert conflict(q, unit, unit.unit.text) == "the documents say 5 EUR, not free"
    free = _scored("eSIM activation for a prepaid customer is free of charge.")
    assert conflict(q, free, free.unit.text) is None  # the text says free too
    other = _scored("A replacement SIM card costs 10 EUR.")
    assert conflict(q, other, other.unit.text) is None  # not what is asked
    assert conflict(Question.parse("Why isn't eSIM activation free for prepaid customers?"), unit,
                    unit.unit.text) is None  # a negated question takes nothing for granted
    ru = Question.parse("Почему замена SIM-карты бесплатна для клиентов с предоплатой?")
    priced = _scored("Замена SIM-карты для клиентов с предоплатой стоит 10 EUR.")
    assert conflict(ru, priced, priced.unit.text) == "в документах сказано: 10 EUR, а не бесплатна"
