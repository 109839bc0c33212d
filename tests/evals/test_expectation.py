"""The expectation experiment (evals/experiments/expectation.py): the kind of value a
question expects, learned from expected answers."""

from evals.experiments.expectation import (
    KINDS,
    NEUTRAL,
    Expectation,
    expectation_signals,
    fit_expectation,
    holds,
    question_words,
)

# questions written for this test only: the kind of the answer follows from their words
TRAIN = [
    ("How long is the warranty on the pump?", "en", "24 months"),
    ("How long does a refill take?", "en", "10 minutes"),
    ("How long is the trial?", "en", "30 days"),
    ("How long can a badge stay inactive?", "en", "90 days"),
    ("What does the badge cost?", "en", "$15"),
    ("What does a replacement card cost?", "en", "$25"),
    ("What does the course cost?", "en", "120 dollars"),
    ("Who approves the request?", "en", "your supervisor"),
    ("Who signs the form?", "en", "the team lead"),
    ("Which tool stores passwords?", "en", "the password manager"),
    ("Which folder holds the templates?", "en", "the shared drive"),
    ("Сколько длится испытательный срок?", "ru", "3 месяца"),
    ("Сколько длится обучение?", "ru", "5 дней"),
    ("Кто утверждает заявку?", "ru", "руководитель"),
    ("Кто подписывает форму?", "ru", "начальник отдела"),
]


def _fit() -> Expectation:
    return fit_expectation([(q, lang) for q, lang, _ in TRAIN], [a for _, _, a in TRAIN])


def test_the_expected_kind_is_learned_from_the_answers() -> None:
    model = _fit()
    lasting = model.predict("How long is the warranty on the fan?", "en")
    person = model.predict("Who approves the card?", "en")
    priced = model.predict("What does the badge cost?", "en")
    assert lasting["duration"] > 0.5 > person["duration"]
    assert lasting["number"] > 0.5 > person["number"]
    assert priced["money"] > person["money"]
    assert model.predict("Сколько длится стажировка?", "ru")["duration"] > model.predict(
        "Кто утверждает отпуск?", "ru")["duration"]


def test_fitting_is_deterministic_and_the_stored_form_predicts_the_same() -> None:
    a, b = _fit(), _fit()
    assert a.to_dict() == b.to_dict()
    again = Expectation.from_dict(a.to_dict())  # weights kept to six decimals
    for q, lang, _ in TRAIN:
        stored, fitted = again.predict(q, lang), a.predict(q, lang)
        assert all(abs(stored[k] - fitted[k]) < 1e-4 for k in KINDS)


def test_a_word_seen_nowhere_in_training_changes_nothing() -> None:
    model = _fit()
    assert model.predict("How long is the zzyzx?", "en") == model.predict("How long is the?", "en")


def test_signals_sign_the_expectation_by_what_the_unit_holds() -> None:
    expects = {"number": 0.9, "duration": 0.8, "money": 0.1}
    with_days = expectation_signals(expects, holds("The trial lasts 30 days."))
    without = expectation_signals(expects, holds("The trial is free for students."))
    assert with_days["fits_duration"] == 0.8 and without["fits_duration"] == -0.8
    assert with_days["fits_money"] == -0.1 and with_days["expects_number"] == 0.9
    # no model: every kind is as likely as not
    assert expectation_signals(None, holds("30 days"))["expects_duration"] == NEUTRAL["duration"]


def test_question_words_keep_the_asking_words_and_the_first_ones() -> None:
    words = question_words("How many days?", "en")
    assert "w:how" in words and "f:how" in words and "lang:en" in words
    assert any(w.startswith("b:how_") for w in words)


def test_the_brake_holds_a_unit_against_a_kind_only_when_it_is_expected_enough() -> None:
    expects = {"number": 0.9, "duration": 0.5, "money": 0.1}
    lacking = holds("Ask the team lead.")
    out = expectation_signals(expects, lacking, brake=0.8)
    assert out["fits_number"] == -0.9 and out["fits_duration"] == 0.0 and out["fits_money"] == 0.0
    assert expectation_signals(expects, holds("It takes 5 days."), brake=0.8)["fits_duration"] == 0.5
