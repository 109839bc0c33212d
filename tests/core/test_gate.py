from core.gate import _as_written, _unknown_phrase
from core.lexical import LexicalIndex


def _lexicon() -> LexicalIndex:
    return LexicalIndex.build([("a:0", "Annual leave is requested four weeks in advance. Torque the bolts to 120 N·m.")])


def test_two_adjacent_unknown_words_name_something_the_documents_never_do():
    assert _unknown_phrase("What is the torque for the flux capacitor bolts?", _lexicon()) == "flux capacitor"


def test_an_unknown_russian_adjective_names_another_thing_unless_it_is_a_qualifier():
    lexicon = LexicalIndex.build([("a:0", "Для встраивания высота ниши должна быть не менее 85 см.")])
    assert _unknown_phrase("Какой сушильной высоты?", lexicon) == "сушильной высоты"
    assert _unknown_phrase("Какой минимальной высоты должна быть ниша?", lexicon) is None


def test_a_russian_verb_in_the_pair_is_something_the_user_does():
    lexicon = LexicalIndex.build([("a:0", "Ширина коридоров должна быть не менее 70 см.")])
    assert _unknown_phrase("Какой ширины проходы, чтобы грузчики пронесли машину?", lexicon) is None  # past plural
    assert _unknown_phrase("Когда мастер придёт?", lexicon) is None  # future in -ёт
    assert _unknown_phrase("Какой ширины сушильной машины?", lexicon) == "сушильной машины"


def test_words_apart_by_a_preposition_or_punctuation_are_no_phrase():
    lexicon = _lexicon()
    assert _unknown_phrase("Three weeks of vacation in August: how far in advance?", lexicon) is None
    assert _unknown_phrase("Если зимой в помещении, что делать?", lexicon) is None
    assert _unknown_phrase("Сколько ждать, прежде чем открывать?", lexicon) is None


def test_a_refusal_names_the_word_as_the_user_wrote_it():
    assert _as_written("capacit", "What is the capacitance of the flux capacitor?") == "capacitance"
    assert _as_written("мощност", "Какова мощность нагрева?") == "мощность"
    assert _as_written("zzz", "No such word here") == "zzz"  # nothing to map back: the stem itself


def test_an_everyday_phrase_is_known_through_the_documents_word():
    from core.gate import _without_known_everyday

    lexicon = LexicalIndex.build([("a:0", "Monthly plans can be refunded within 14 days.")])
    asked = "Can I still get my money back refund?"  # as expand_question writes it
    assert _unknown_phrase(_without_known_everyday(asked, lexicon), lexicon) is None
    assert _unknown_phrase(asked, lexicon) == "money back"
    # a tenant that never speaks of refunds does not know the phrase either
    other = LexicalIndex.build([("a:0", "Torque the bolts to 120 N·m.")])
    assert "money back" in _without_known_everyday(asked, other)


def test_an_acronym_is_known_when_the_documents_spell_it_out():
    from core.gate import _spelled_out

    lexicon = LexicalIndex.build([("a:0", "Margaret Okafor has been Chief Executive Officer since 2019.")])
    assert _spelled_out("CEO", lexicon) and not _spelled_out("CFO", lexicon)
    assert not _spelled_out("Okafor", lexicon)  # no acronym at all


def test_a_russian_verb_is_something_the_user_does_not_a_thing_the_documents_never_name():
    lexicon = LexicalIndex.build([("a:0", "Поездку согласуют в системе TravelNord. Момент затяжки болтов 120 Н·м.")])
    assert _unknown_phrase("В какой системе согласовать поездку, прежде чем бронировать билеты?", lexicon) is None
    assert _unknown_phrase("Что проверить, прежде чем звать мастера?", lexicon) is None
    # two unknown nouns still name something the documents never do
    assert _unknown_phrase("Какой момент затяжки флюксового конденсатора?", lexicon) == "флюксового конденсатора"


def test_a_thing_offered_that_the_documents_never_name_stops_the_answer():
    from core.analysis import asked_object_words
    from core.gate import unknown_word

    lexicon = LexicalIndex.build([("a:0", "You can pay by card. Gift cards are valid for 3 years. We ship orders daily.")])
    words = asked_object_words("Do you offer gift wrapping for orders?")
    assert [w for w in words if unknown_word(w, lexicon)] == ["wrapping"]
    assert not [w for w in asked_object_words("Do you offer gift cards?") if unknown_word(w, lexicon)]



def test_pronouns_and_adverbs_name_no_topic():
    from core.gate import unknown_word

    # "Is that SOMETHING to worry about?", "clip them STRAIGHT onto the battery": no topic
    # the documents should have named, unlike "gizmo"
    lexicon = _lexicon()
    for word in ("something", "anything", "straight", "directly", "что-нибудь", "сразу"):
        assert not unknown_word(word, lexicon), word
    assert unknown_word("gizmo", lexicon)
