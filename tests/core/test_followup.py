"""Chat follow-ups (core/followup.py): an elliptical question read as the whole question it
stands for, and everything else asked as typed."""

import pytest

from core.followup import read_followup


@pytest.mark.parametrize("previous, question, whole", [
    # a QA pass: a day takes the place of a day ("weekday"), not of the branch's name, and
    # a weekday's capital is no name, so the branch's name is the one to replace
    ("What are the weekday opening hours of Northgate?", "What about on Saturday?",
     "What are the Saturday opening hours of Northgate?"),
    ("What are Riverside's opening hours on Saturday?", "And Eastfield?",
     "What are Eastfield's opening hours on Saturday?"),
    ("Во сколько открывается филиал Northgate в будни?", "А в субботу?",
     "Во сколько открывается филиал Northgate в субботу?"),
    ("How many visits were there in February?", "And in March?", "How many visits were there in March?"),
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
    # brands stay, the plan changes; a model's variant keeps its brand
    ("What's the refund window for a HomeHub Monthly plan?", "What about annual plans?",
     "What's the refund window for a HomeHub annual plan?"),
    ("How much does HomeHub Standard cost per month?", "And Premium?", "How much does HomeHub Premium cost per month?"),
    ("What's the maximum spin speed of the AquaLine 7?", "And the 9 Steam?",
     "What's the maximum spin speed of the AquaLine 9 Steam?"),
    ("How long does the Eco 40-60 programme take on the WM-910?", "And Allergy Care?",
     "How long does the Allergy Care programme take on the WM-910?"),
    # step 3a: opposites
    ("What's the minimum thickness of the front brake discs?", "And the rear ones?",
     "What's the minimum thickness of the rear brake discs?"),
    ("What tyre pressures should a laden KT-200 run?", "What about unladen?",
     "What tyre pressures should a unladen KT-200 run?"),
    # step 3c: the phrase after the same (or the opposite) preposition
    ("How long is the warranty on AquaLine washing machines?", "And on accessories?",
     "How long is the warranty on accessories?"),
    ("What is the torque for the wheel lug nuts on the KT-200?", "And for the oil drain plug?",
     "What is the torque for the oil drain plug on the KT-200?"),
    ("How long does the warranty on the motor last?", "And on the drum?", "How long does the warranty on the drum last?"),
    ("How much oil does the engine take with a filter change?", "And without a filter change?",
     "How much oil does the engine take without a filter change?"),
    ("Сколько стоит подъём на этаж при наличии лифта?", "А без лифта?", "Сколько стоит подъём на этаж без лифта?"),
    ("Какой гарантийный срок на стиральные машины AquaLine?", "А на инверторный двигатель?",
     "Какой гарантийный срок на инверторный двигатель?"),
    # steps 3f, 3g: an adjective for an adjective, a subject for a subject
    ("Какой длины заливной шланг в комплекте AquaLine?", "а сливной?", "Какой длины сливной шланг в комплекте AquaLine?"),
    ("What battery does the KT-200 have?", "and the alternator?", "What battery does the alternator have?"),
    # "what if it's X", «то же для X»: X replaces, never a condition added
    ("How often do the spark plugs get changed?", "what if it's the brake fluid?",
     "How often do the brake fluid get changed?"),
    # other frames: "same question for", "X too?", a bare phrase, chat interjections
    ("What's the legal basis for Northwind's newsletter e-mails?", "same question for product safety recalls",
     "What's the legal basis for product safety recalls?"),
    ("Does the WM-910 come with an Aquastop hose?", "WM-700 too?", "Does the WM-700 come with an Aquastop hose?"),
    ("How long do analytics cookies last on the Northwind website?", "marketing cookies?",
     "How long do marketing cookies last on the Northwind website?"),
    ("How often does a KT-200 van need Service A?", "ok and service B", "How often does a KT-200 van need service B?"),
    ("Is return collection free from Germany?", "what if I'm in Austria?", "Is return collection free from Austria?"),
    ("Сколько идёт стандартная доставка в Нидерланды?", "а что насчёт США", "Сколько идёт стандартная доставка в США?"),
    ("Can I remote-start Steam Refresh on the AquaLine 9 Steam?", "ok does that work on the 8 Pro too",
     "Can I remote-start Steam Refresh on the AquaLine 8 Pro?"),
    ("Is there a refund window for monthly plans?", "does that apply to annual plans too?",
     "Is there a refund window for annual plans?"),
    ("How long does delivery to Germany take?", "Austria?", "How long does delivery to Austria take?"),
    # the QA pass: the phrase after "to" ran to the end, and the verb and "per pallet" went with it;
    # one Russian adjective for the first of the phrase, «перевозке» kept
    ("How much does road groupage from Hamburg to Vienna cost per pallet?", "And to Madrid?",
     "How much does road groupage from Hamburg to Madrid cost per pallet?"),
    ("Какая надбавка за опасный груз при морской перевозке?", "А при автомобильной?",
     "Какая надбавка за опасный груз при автомобильной перевозке?"),
    # step 3d with a compound: "e-bike" holds its own modifier, so X takes its place
    ("How much is the deposit for an e-bike?", "What about a standard bike?",
     "How much is the deposit for a standard bike?"),
    # step 3i (a QA pass over a law firm's fee table): X with no preposition takes the place of
    # the phrase after the previous question's only one; "how much is it for X" asks the same of X
    ("What is the hourly rate for a senior partner?", "And trainees?", "What is the hourly rate for trainees?"),
    # a reliability pass: "the rate of a paralegal for a partner" quoted the paralegal's row at 0.70
    ("What is the hourly rate of a paralegal?", "And for a partner?", "What is the hourly rate for a partner?"),
    ("What are the opening hours of the Riga branch?", "And on Saturday?",
     "What are the opening hours of the Riga branch on Saturday?"),
    ("How many days of leave do interns get?", "And for trainees?", "How many days of leave do trainees get?"),
    # a QA pass: "And interns?" after the full-time employees' leave was asked on its own and refused
    ("How many days of annual leave do full-time employees get?", "And interns?",
     "How many days of annual leave do interns get?"),
    ("How many days do you get?", "What about interns?", "How many days do interns get?"),
    # a QA pass: "the learning budget for the pension contribution" was refused
    ("What is the learning budget for grade C?", "And the pension contribution?",
     "What is the pension contribution for grade C?"),
    ("What is the learning budget for grade C?", "And grade D?", "What is the learning budget for grade D?"),
    ("How long is the warranty on washing machines?", "What about the batteries?",
     "How long is the warranty on the batteries?"),
    ("What is the hourly rate for a senior partner?", "how much is it for a trainee?",
     "What is the hourly rate for a trainee?"),
    ("Какая ставка для партнёра?", "а сколько это для стажёра?", "Какая ставка для стажёра?"),
    # the QA pass over a logistics tariff: a name after the preposition whose phrase is a name;
    # a Russian noun before the head is no modifier to replace
    ("Сколько стоит доставка в Казань в выходные?", "а в Екатеринбург?",
     "Сколько стоит доставка в Екатеринбург в выходные?"),
    ("Сколько стоит страховка груза?", "а для хрупких грузов?", "Сколько стоит страховка хрупких груза?"),
    # step 3o (a QA pass over a logistics tariff): a quantity for the quantity of the same unit
    ("Сколько стоит доставка груза 40 кг в Самару?", "а если 300 кг?", "Сколько стоит доставка груза 300 кг в Самару?"),
    ("How much does shipping a 40 kg parcel to Oslo cost?", "What about 300 kg?",
     "How much does shipping a 300 kg parcel to Oslo cost?"),
    ("How much is shipping for 40 kg?", "and if 300 kg?", "How much is shipping for 300 kg?"),
    # step 3j (a QA pass over a vet clinic's documents): X for the asker's own thing
    ("When should my puppy get his first vaccination?", "How about kittens?",
     "When should my kittens get his first vaccination?"),
    ("Where can I take my guinea pig to see a vet?", "And birds?", "Where can I take my birds to see a vet?"),
    ("What do you charge to get my tomcat fixed?", "And for a big dog?", "What do you charge to get my big dog fixed?"),
    ("How long can I keep my car in the garage?", "And my bike?", "How long can I keep my bike in the garage?"),
    ("Когда делать первую прививку моему щенку?", "А котятам?", "Когда делать первую прививку моему котятам?"),
    # step 3h: a condition the previous question did not have
    ("Какой вес нетто у AquaLine 8 Pro?", "А в упаковке?", "Какой вес нетто у AquaLine 8 Pro в упаковке?"),
    # a QA pass over a hotel's documents: the subject of a passive ("are general items kept"), a
    # name of several words, and a place that is no subject
    ("How long are general items kept in lost and found?", "And valuables?",
     "How long are valuables kept in lost and found?"),
    ("How much does parking cost per day at Riga Old Town?", "And in Helsinki?",
     "How much does parking cost per day at Helsinki?"),
    # a Russian follow-up naming a thing in Latin letters is still Russian (a QA pass)
    ("Какие привилегии у уровня Gold?", "А для Platinum?", "Какие привилегии у уровня Platinum?"),
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
    ("What is the engine oil capacity?", "And the tyres?"),  # "What is X?" has no subject to swap
    ("How long does delivery to Germany take?", "Warranty period?"),  # a new topic, not a name
    ("What does E20 mean on the AquaLine?", "Warranty?"),  # a bare name replaces only a place
    ("How much does express delivery cost?", "is it the same for the US?"),  # nothing of the kind to swap
    ("Какой момент затяжки у свечей зажигания на KT-200?", "то же для болтов крепления двигателя?"),
    ("", "What about annual plans?"),  # no chat before it
    ("How long does the train from Lisbon to Porto take?", "And trainees?"),  # which phrase is unclear
    ("Can my manager approve my leave?", "And trainees?"),  # whose thing is unclear
    ("When should my puppy get his first vaccination?", "And puppies?"),  # repeats, changes nothing
    ("What is the hourly rate for a senior partner?", "Trainees?"),  # a bare word replaces only a name
    ("What is the engine oil capacity?", "how much is it for a trainee?"),  # nothing after "for" to replace
    (None, "А E30?"),
])
def test_anything_else_is_asked_as_typed(previous, question):
    assert read_followup(question, previous) is None


def test_a_long_follow_up_is_a_question_of_its_own():
    previous = "What is the refund window for monthly plans?"
    assert read_followup("And for annual plans bought in a shop during the summer sale?", previous) is None


def test_a_question_that_points_back_with_a_pronoun_refers_back() -> None:
    from core.followup import refers_back

    assert refers_back("And who else can I report it to?")
    assert refers_back("А где его взять?")
    assert not refers_back("What is the engine oil capacity?")
    assert not refers_back("Сколько стоит доставка?")
    assert refers_back("Can I return it within 30 days?")


def test_a_question_with_a_scene_of_its_own_does_not_lean_back() -> None:
    # a QA pass: a full question was asked together with the one before it, and refused
    from core.followup import refers_back

    assert not refers_back("Водитель опаздывает к клиенту на 40 минут. Что ему делать?")
    assert not refers_back("My order arrived broken. Can I return it?")
    assert refers_back("Can I return it?")


def test_a_question_with_its_own_topic_stands_alone_despite_a_pronoun() -> None:
    # a QA pass over an airline's documents: full questions carried the "reads like a
    # follow-up" note for a dummy "it" or an "it" that points inside the question
    from core.followup import refers_back

    assert not refers_back("How much does it cost to carry my dog in the hold?")
    assert not refers_back("How much does an extra checked bag cost if I buy it online?")
    assert not refers_back("How long does it take to get a refund for a cancelled flight?")
    # an "it" standing for the clause after it points nowhere, however short the question
    # (QA pass: "How much does it cost to freeze a membership?" was said to read like a follow-up)
    assert not refers_back("How much does it cost to freeze a membership?")
    assert not refers_back("Is it possible to pause?")
    assert refers_back("Can I send it to you?") and refers_back("How much does it cost?")


def test_a_follow_up_in_another_language_is_asked_as_typed() -> None:
    # the QA pass: «Как часто чистить фильтр сливного насоса?» + "And with a filter change?" was read
    # as «Как часто чистить фильтр сливного насоса with a filter change?»
    assert read_followup("And with a filter change?", "Как часто чистить фильтр сливного насоса?") is None
    assert read_followup("А для годового плана?", "What is the refund window for monthly plans?") is None
    assert read_followup("And for annual plans?", "What is the refund window for monthly plans?") == \
        "What is the refund window for annual plans?"


def test_a_question_leaning_back_through_a_pronoun_is_asked_with_the_one_before_it() -> None:
    from core.followup import with_previous

    assert with_previous("How much does it cost?", "How long is the kayak tour?") == \
        "How long is the kayak tour? How much does it cost?"
    # the asking sentence is the last one ending in "?": a question typed without one gets it
    assert with_previous("can I cancel it online", "What is the Pro plan") == \
        "What is the Pro plan? can I cancel it online?"
    assert with_previous("А сколько он стоит?", "Сколько длится тур?") == "Сколько длится тур? А сколько он стоит?"
    # a question of its own, another language, or nothing before it: no reading
    assert with_previous("What is the engine oil capacity?", "How long is the kayak tour?") is None
    assert with_previous("How much does it cost to carry my dog in the hold?", "How long is the tour?") is None
    assert with_previous("Сколько он стоит?", "How long is the kayak tour?") is None
    assert with_previous("How much does it cost?", None) is None and with_previous("How much does it cost?", " ") is None


def test_a_long_scene_keeps_its_last_sentences() -> None:
    from core.config import MAX_QUESTION_CHARS
    from core.followup import with_previous

    scene = " ".join(f"Sentence number {n} about the tour." for n in range(200)) + " How long is the tour?"
    read = with_previous("How much does it cost?", scene)
    assert read is not None and len(read) <= MAX_QUESTION_CHARS
    assert read.endswith("How long is the tour? How much does it cost?") and read.startswith("Sentence number")


def test_the_asking_sentence_of_a_reading_is_the_question_typed() -> None:
    from core.answer.question import Question
    from core.followup import with_previous

    read = Question.parse(with_previous("How much does it cost?", "How long is the kayak tour?"))
    assert read.asking == "How much does it cost?" and read.answer_type == "money"
    assert "kayak" in read.terms and "kayak" not in read.asking_terms


def test_a_follow_up_naming_a_name_in_the_previous_questions_script_is_read_across_languages() -> None:
    # a QA pass: «А для Wave Youth?» after an English question was asked alone and answered
    # with Wave Youth's age limit; its name splices into the English question as it is
    assert read_followup("А для Wave Youth?", "What is the monthly fee of the Wave Plus plan?") == \
        "What is the monthly fee of the Wave Youth plan?"
    # a name shared with the one it replaces is said once (it read "the Wave Wave Plus plan")
    assert read_followup("And for Wave Plus?", "What is the monthly fee of the Wave Max plan?") == \
        "What is the monthly fee of the Wave Plus plan?"
