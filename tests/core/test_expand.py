"""Question words documents spell otherwise (core/expand.py)."""

from core.expand import everyday_terms, expand_question


def test_acronyms_are_spelled_out():
    assert expand_question("Who is the CEO of Globex?") == "Who is the CEO chief executive officer of Globex?"
    assert expand_question("Who is the owner?") == "Who is the owner?"
    assert expand_question("How big is the admin fee?") == "How big is the admin administration fee?"
    assert expand_question("Quick 15 min programme, which temp?") == "Quick 15 min programme, which temp?"


def test_everyday_words_get_the_documents_word_added():
    assert expand_question("Will they pay back my train ticket?") == "Will they pay back reimburse my train ticket?"
    assert expand_question("Pass on the contract") == "Pass on transfer the contract"
    assert expand_question("Как вернуть деньги за курс?") == "Как вернуть деньги возврат за курс?"
    assert expand_question("Can I fix it myself?") == "Can I fix repair it myself?"
    assert expand_question("Is the prefix known?") == "Is the prefix known?"  # whole words only


def test_everyday_phrases_and_the_documents_words():
    assert everyday_terms("Who looks after the kids?") == [({"kid"}, {"children"})]
    # found again in the expanded question, once
    assert everyday_terms(expand_question("Who looks after the kids?")) == [({"kid"}, {"children"})]
    assert everyday_terms("Who looks after the children?") == []


def test_domain_words_are_a_tenants_synonyms_not_built_in():
    # a product's everyday name is one tenant's vocabulary: taught on the Settings page
    assert expand_question("How many bikes can I lease?") == "How many bikes can I lease?"
    assert expand_question("How many bikes can I lease?", (("bikes", "bicycles"),)) == \
        "How many bikes bicycles can I lease?"


def test_a_dimension_asked_by_its_adjective_finds_its_noun():
    assert expand_question("How deep is the WM-820?") == "How deep depth is the WM-820?"
    assert "height" in expand_question("How tall is the cabinet?")
    assert expand_question("A deep drum.") == "A deep drum."  # only "how deep" asks for the depth


def test_the_most_asks_for_the_maximum():
    assert expand_question("What's the most the hotel can cost?") == "What's the most maximum the hotel can cost?"
    assert expand_question("Which is most used?") == "Which is most used?"


def test_colloquial_and_everyday_names_of_things():
    assert "consecutive" in expand_question("after how many nights in a row?")


def test_keeping_data_for_a_time_is_its_retention():
    assert "retention" in expand_question("How long do you keep my e-mails?")
    assert "retention" in expand_question("How long will you hang on to that recording?")
    assert "retention" not in expand_question("Can I keep the old hose?")




def test_a_tenants_synonyms_are_expanded_like_the_built_in_words():
    synonyms = (("the app", "HomeHub"), ("gizmo", "HomeHub Premium"))
    assert expand_question("Does the  App work offline?", synonyms) == "Does the  App HomeHub work offline?"
    assert expand_question("What does a gizmo cost?", synonyms) == "What does a gizmo HomeHub Premium cost?"
    # matched on stems, so a plural or a Russian case ending still finds the synonym
    assert expand_question("What do two gizmos cost?", synonyms) == "What do two gizmos HomeHub Premium cost?"
    assert expand_question("Какую тормозную жидкость заливать?", (("тормозная жидкость", "brake fluid"),)) \
        == "Какую тормозную жидкость brake fluid заливать?"
    assert expand_question("What does a gizmology cost?", synonyms) == "What does a gizmology cost?"  # whole words
    assert expand_question("Does the app work offline?") == "Does the app work offline?"  # another tenant
    assert everyday_terms("What does a gizmo cost?", synonyms) == [({"gizmo"}, {"homehub", "premium"})]
    # a tenant's own word wins over the built-in one
    assert everyday_terms("Can I fix it?", (("fix", "mend"),)) == [({"fix"}, {"mend"})]


def test_a_synonym_whose_documents_words_are_never_used_is_named():
    from core.expand import unused_targets
    from core.lexical import LexicalIndex

    lexicon = LexicalIndex.build([("a:0", "The engine oil capacity is 4.5 litres. Тормозная жидкость DOT 4.")])
    synonyms = {"lubricant": "engine oil", "gizmo": "flux capacitor", "тормозуха": "тормозной жидкости",
                "widget": "capacitor oil"}  # one known word of several is enough, as for the gate
    assert unused_targets(synonyms, lexicon) == ["gizmo"]


