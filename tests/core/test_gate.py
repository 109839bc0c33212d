from core.gate import _as_written, _unknown_phrase
from core.lexical import LexicalIndex


def _lexicon() -> LexicalIndex:
    return LexicalIndex.build([("a:0", "Annual leave is requested four weeks in advance. Torque the bolts to 120 N·m.")])


def test_two_adjacent_unknown_words_name_something_the_documents_never_do():
    assert _unknown_phrase("What is the torque for the flux capacitor bolts?", _lexicon()) == "flux capacitor"


def test_words_apart_by_a_preposition_or_punctuation_are_no_phrase():
    lexicon = _lexicon()
    assert _unknown_phrase("Three weeks of vacation in August: how far in advance?", lexicon) is None
    assert _unknown_phrase("Если зимой в помещении, что делать?", lexicon) is None
    assert _unknown_phrase("Сколько ждать, прежде чем открывать?", lexicon) is None


def test_a_refusal_names_the_word_as_the_user_wrote_it():
    assert _as_written("capacit", "What is the capacitance of the flux capacitor?") == "capacitance"
    assert _as_written("мощност", "Какова мощность нагрева?") == "мощность"
    assert _as_written("zzz", "No such word here") == "zzz"  # nothing to map back: the stem itself
