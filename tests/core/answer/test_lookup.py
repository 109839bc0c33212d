"""core/answer/lookup.py: a verbatim lookup is answered with the development sets' precision."""

from __future__ import annotations

from dataclasses import replace

from core.answer.lookup import is_lookup, lookup_confidence
from core.answer.model import load_model
from core.documents import ingest_file
from core.pipeline import ask

LOOKUP = {"lex_unit": 1.0, "p_best": 0.97, "p_gap": 0.87, "rank_prior": 1.0, "numbers_missing": 0.0,
          "cross_language": 0.0, "unknown_share": 0.0, "type_match": 0.5}


def test_a_lookup_needs_every_topic_word_a_clear_first_unit_and_nothing_missing() -> None:
    assert is_lookup(LOOKUP, "Which colour cloth is for cleaning toilets?")
    assert not is_lookup(LOOKUP, "And the cloth for toilets?")  # a fragment asks nothing of its own
    for name, value in (("lex_unit", 0.9), ("p_best", 0.5), ("p_gap", 0.05), ("rank_prior", 0.5),
                        ("numbers_missing", 1.0), ("cross_language", 1.0), ("unknown_share", 0.2),
                        ("type_match", 0.0)):
        assert not is_lookup({**LOOKUP, name: value}, "Which colour cloth is for cleaning toilets?"), name


def test_its_confidence_is_laplaces_rule_over_the_development_lookups() -> None:
    assert lookup_confidence(24, 24) == 0.9615 and lookup_confidence(0, 0) == 0.5
    model = load_model()
    assert model.lookup_confidence == lookup_confidence(model.meta["lookup"]["right"], model.meta["lookup"]["n"])


HOUSEKEEPING = """# Housekeeping standards

## Chemicals and colour coding

Cleaning cloths and buckets are colour-coded and never mixed: red for toilets and urinals; yellow for
bathroom sinks, showers and tiles; blue for bedrooms and general surfaces.

## Linen

Bed linen is changed every third night for stays of more than three nights.
"""


def test_a_plain_question_whose_words_all_stand_in_one_sentence_is_answered(settings, write_file):
    # a QA pass: "which colour cloth is for cleaning toilets?" was refused at 0.65 with that
    # sentence first under the refusal
    assert ingest_file(settings, "hotel", write_file("housekeeping.md", HOUSEKEEPING)).status == "ready"
    strict = replace(settings, gate_threshold=0.95)  # over what the model alone gives, under the lookup's
    a = ask(strict, "hotel", "Which colour cloth is for cleaning toilets?")
    assert a.status == "answered" and "red for toilets and urinals" in a.answer, a.refusal_reason
    assert a.confidence == load_model().lookup_confidence
    # a fragment that names the topic but asks nothing is no lookup, however its words match
    fragment = ask(strict, "hotel", "And the cloth for cleaning toilets?")
    assert fragment.status == "refused"
