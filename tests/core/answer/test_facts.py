from core.answer.facts import Reading, has_negation, identifiers, numbers


def test_a_modal_verb_is_no_month() -> None:
    # the old substring check read "may" as a month and «ма» inside any word
    assert Reading("You may return the product.").matches("date") == 0.0
    assert Reading("Отпуск начинается в мае.").matches("date") == 1.0
    assert Reading("Submit it by 14 March.").matches("date") == 1.0


def test_reading_kinds_of_value() -> None:
    assert Reading("Requests take 10 business days.").duration
    assert not Reading("It costs $4.99 per month.").duration  # a rate, no number before a time unit
    assert Reading("It costs $4.99 per month.").money
    assert Reading("Срок — три недели.").duration
    assert Reading("Doors open at 09:30.").time
    assert Reading("Ask Dana Whitfield in HR.").name
    assert Reading("The meeting is short.").matches("number") == 0.0
    assert Reading("The meeting is short.").matches(None) == 0.5


def test_identifiers_numbers_negation() -> None:
    assert identifiers("Error ERR-20 and para 7-2 of ISO9001") == {"err-20", "7-2", "iso9001"}
    assert numbers("between 2,5 and 3-4 hours") == ["2.5", "3-4"]
    assert has_negation("Annual plans are non-refundable.")
    assert has_negation("Это нельзя отменить.")
    assert not has_negation("Nothing in it stops you.")


def test_outside_conditions_drops_each_conditional_clause_up_to_its_end() -> None:
    from core.answer.facts import outside_conditions

    assert outside_conditions("Follow these steps if it does not match: call us.") == "Follow these steps, call us."
    assert outside_conditions("If you leave, you will not be paid.") == ", you will not be paid."
    assert outside_conditions("Если сумма не совпадает, напишите нам") == ", напишите нам"
    assert outside_conditions("Unless told otherwise; badges are not issued.") == ", badges are not issued."


def test_says_no_skips_conditions_and_bounds_but_not_a_plain_denial() -> None:
    from core.answer.facts import says_no

    assert not says_no("Call us if the name does not match.")
    assert not says_no("Pay no more than $50, and not later than Friday.")
    assert not says_no("Оплачивается не менее 2 часов.")
    assert says_no("Badges are not issued to visitors.") and says_no("Если опоздали, билет не возвращается.")
    assert says_no("The ticket is non-refundable.")


def test_thousands_grouped_by_spaces_are_joined_and_nothing_else() -> None:
    from core.answer.facts import join_thousands, number_units

    assert number_units("штраф 50 000 рублей") == [("50000", "рубл")]
    assert join_thousands("1 000 000 EUR and 12 345 678") == "1000000 EUR and 12345678"
    assert join_thousands("costs 50\u00a0000 ₽") == "costs 50000 ₽"
    # years side by side, a time, a decimal, a short group and a long first group stay apart
    for text in ("between 2019 2020", "at 8 30", "version 2.5 000", "pages 1 2 3", "1234 567"):
        assert join_thousands(text) == text


def test_thousands_grouped_by_commas_are_joined_and_decimal_commas_kept() -> None:
    # a reliability pass: "1,200 EUR" was read as 1.2 EUR, and "1200 EUR" of a question was
    # missing from a row's "1,200"
    from core.answer.facts import numbers

    assert numbers("a claim of 1,200 EUR") == numbers("a claim of 1200 EUR") == ["1200"]
    assert numbers("2,000,000 people; 1,234.56 USD") == ["2000000", "1234.56"]
    assert numbers("1,200, 1,300 and 1,400") == ["1200", "1300", "1400"]
    # a decimal comma: one or two digits after it, or a lone 0 before it
    assert numbers("3,5 кг, 12,50 руб и 0,125 л") == ["3.5", "12.50", "0.125"]
    assert numbers("items 1, 2, 3") == ["1", "2", "3"]
