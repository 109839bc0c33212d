import pytest

from core.verify import guard, split_claims, validate_citations, verify_answer, verify_pair

OIL = "7-2 Engine oil. The engine oil capacity is 5 quarts (4.7 litres) with filter change."
REFUNDS = ("| Plan | Refund | Cancellation |\n|---|---|---|\n"
           "| Monthly | Full refund within 14 days of purchase | Cancel any time |\n"
           "| Annual | Non-refundable | Cancel any time |")
E20 = "Ошибка E20 означает проблему слива: засорён сливной фильтр или перегнут сливной шланг."


@pytest.mark.parametrize("premise, claim, verdict", [
    (OIL, "The engine oil capacity is 5 quarts.", "supported"),
    (OIL, "The engine oil capacity is 5-6 quarts.", "contradicted"),
    (OIL, "The engine oil capacity is 6 quarts.", "contradicted"),
    (OIL, "The engine oil capacity is 5 litres.", "unsupported"),
    (OIL, "The transmission fluid capacity is 5 quarts.", "unsupported"),
    (REFUNDS, "Monthly plans get a full refund within 14 days of purchase.", "supported"),
    (REFUNDS, "Monthly plans get a full refund within 30 days of purchase.", "contradicted"),
    (REFUNDS, "Annual plans are non-refundable.", "supported"),
    (REFUNDS, "Annual plans are refundable.", "contradicted"),
    (E20, "Ошибка E20 означает проблему слива.", "supported"),
    (E20, "Ошибка E21 означает проблему слива.", "unsupported"),
    (E20, "Ошибка E20 не означает проблему слива.", "contradicted"),
    (OIL, "According to Bosch the engine oil capacity is 5 quarts.", "unsupported"),
])
def test_deterministic_judge(premise, claim, verdict):
    assert verify_pair(premise, claim).verdict == verdict


def test_unit_changes_are_not_supported():
    v = verify_pair(OIL, "The engine oil capacity is 5 gallons.")
    assert v.verdict != "supported"


def test_split_claims_and_citation_validation():
    text = "Oil is 5 quarts [1]. Drain plug torque is 30 N·m [2][1]. And more."
    assert split_claims(text) == [("Oil is 5 quarts", [1]), ("Drain plug torque is 30 N·m", [2, 1]),
                                  ("And more.", [])]
    problems = validate_citations(text, 1)
    assert any("no citation" in p for p in problems) and any("[2]" in p for p in problems)
    assert validate_citations("Oil is 5 quarts [1].", 1) == []


def test_verify_answer_and_guard_policy():
    passages = [OIL, REFUNDS]
    good = verify_answer("The engine oil capacity is 5 quarts [1].", passages)
    assert [c.verdict for c in good] == ["supported"] and good[0].evidence.startswith("The engine oil")
    assert guard("x", good, strict_mode=False).status == "answered"

    one_bad = verify_answer("The engine oil capacity is 5 quarts [1]. Annual plans are refundable [2].", passages)
    decision = guard("", one_bad, strict_mode=False)
    assert decision.status == "narrowed" and "refundable" not in decision.answer and "[1]" in decision.answer

    two_bad = verify_answer("The engine oil capacity is 9 quarts [1]. Annual plans are refundable [2].", passages)
    refused = guard("", two_bad, strict_mode=False)
    assert refused.status == "refused" and refused.reason == "2 claim(s) were not supported by the cited passages."
    # the reason in the question's language
    from core.lang import LANGUAGES

    assert guard("", two_bad, strict_mode=False, lang=LANGUAGES["ru"]).reason \
        == "Утверждений, не подтверждённых цитируемыми фрагментами: 2."
    strict = guard("", two_bad, strict_mode=True, quotes_only="“The engine oil capacity is 5 quarts” [1]")
    assert strict.status == "fallback" and strict.answer.startswith("“")


def test_claim_citing_a_missing_passage_is_unsupported():
    claims = verify_answer("The engine oil capacity is 5 quarts [3].", [OIL])
    assert claims[0].verdict == "unsupported"


STEPS = ("Draining\n\n1. Switch the machine off.\n\n"
         "2. Put a flat container under the flap. Open the flap in the bottom right corner.\n\n"
         "3. Pull out the emergency hose.")


def test_consecutive_sentences_of_one_paragraph_quoted_word_for_word_are_supported():
    claim = "2. Put a flat container under the flap. Open the flap in the bottom right corner."
    verdict = verify_pair(STEPS, claim)
    assert verdict.verdict == "supported" and "Open the flap" in verdict.evidence
    # the same sentences altered, or taken across two paragraphs, are not
    assert verify_pair(STEPS, claim.replace("bottom right", "top left")).verdict != "supported"
    assert verify_pair(STEPS, "1. Switch the machine off. 2. Put a flat container under the flap.").verdict \
        != "supported"
