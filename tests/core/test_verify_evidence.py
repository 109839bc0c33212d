"""Claims are checked against their evidence span (the sentence, or the table row with its
header, that states them), not against the whole cited passage; and no claim past the
limit of MAX_CLAIMS reaches the user unchecked."""

import pytest

from core.llm_judge import CheckedJudge
from core.verify import MAX_CLAIMS, Verdict, guard, verify_answer, verify_pair

PLANS = "Monthly plans can be refunded within 14 days. Annual plans can be cancelled within 30 days."
NON_REFUNDABLE = "Monthly plans can be refunded within 14 days. Annual plans are non-refundable."
DELIVERY_TABLE = ("Delivery times\n\n| Country | Delivery |\n|---|---|\n"
                  "| Germany | 3 days |\n| France | 5 days |")
DELIVERY_PROSE = "Delivery to Germany takes 3 days. Delivery to France takes 5 days."
CODES = "Error codes\n\nE20: drain problem. Check the drain filter. E30: heating problem. Check the heater."
CODES_TABLE = "Error codes\n\n| Code | Meaning |\n|---|---|\n| E20 | Drain problem |\n| E30 | Heating problem |"
UNDER_HEADING = "E20\n\nThe drain filter is blocked or the drain hose is kinked."
OIL = "7-2 Engine oil. The engine oil capacity is 5 quarts (4.7 litres) with filter change."


@pytest.mark.parametrize("premise, claim", [
    (PLANS, "Monthly plans can be refunded within 30 days."),  # 30 is said of the annual plan
    (PLANS, "Annual plans can be refunded within 30 days."),  # ... and of cancelling
    (NON_REFUNDABLE, "Annual plans can be refunded within 14 days."),
    (DELIVERY_TABLE, "Delivery to Germany takes 5 days."),
    (DELIVERY_PROSE, "Delivery to Germany takes 5 days."),
    (CODES, "E30 means a drain problem."),
    (CODES_TABLE, "E30 means a drain problem."),
    ("E30\n\nThe drain filter is blocked or the drain hose is kinked.", "E20 means the drain filter is blocked."),
    ("Gold members get refunds within 14 days. Silver members get no refunds.",
     "Silver members get refunds within 14 days."),
])
def test_a_value_said_of_another_subject_supports_nothing(premise, claim):
    assert verify_pair(premise, claim).verdict in ("unsupported", "contradicted")


@pytest.mark.parametrize("premise, claim, evidence", [
    (PLANS, "Monthly plans can be refunded within 30 days.", "Monthly plans can be refunded within 14 days."),
    (DELIVERY_TABLE, "Delivery to Germany takes 5 days.", "| Germany | 3 days |"),
])
def test_a_rival_value_in_the_evidence_is_a_contradiction(premise, claim, evidence):
    v = verify_pair(premise, claim)
    assert v.verdict == "contradicted" and v.evidence == evidence and v.score == 0.0


def test_the_reason_names_the_code_the_sentence_is_about():
    v = verify_pair(CODES_TABLE, "E30 means a drain problem.")
    assert v.verdict == "unsupported" and "E20" in v.reason and v.evidence == "| E20 | Drain problem |"


@pytest.mark.parametrize("premise, claim", [
    # verbatim sentences, as the extractive generator quotes them
    (PLANS, "Monthly plans can be refunded within 14 days."),
    (PLANS, "Annual plans can be cancelled within 30 days."),
    (NON_REFUNDABLE, "Annual plans are non-refundable."),
    (DELIVERY_PROSE, "Delivery to France takes 5 days."),
    (CODES, "E30: heating problem."),
    (CODES, "Check the drain filter."),
    (OIL, "The engine oil capacity is 5 quarts (4.7 litres) with filter change."),
    # table rows as the generator renders them, "Header: value; Header: value"
    (DELIVERY_TABLE, "Country: Germany; Delivery: 3 days"),
    (DELIVERY_TABLE, "Country: France; Delivery: 5 days"),
    (CODES_TABLE, "Code: E30; Meaning: Heating problem"),
    # the subject given by a heading or by the row's first cell
    (UNDER_HEADING, "The drain filter is blocked or the drain hose is kinked."),
    (UNDER_HEADING, "E20 means the drain filter is blocked."),
    (DELIVERY_TABLE, "Delivery to Germany takes 3 days."),
    (CODES_TABLE, "E30 means a heating problem."),
    # a sentence that takes its subject from the one before
    ("For a Monthly plan, the 14-day refund period starts on the day of the first payment. "
     "It does not apply to later monthly renewals.",
     "The 14-day refund period does not apply to later monthly renewals."),
])
def test_verbatim_quotes_and_their_subjects_are_supported(premise, claim):
    v = verify_pair(premise, claim)
    assert v.verdict == "supported", v.reason
    assert v.evidence in premise


def test_the_next_sentence_lends_its_words_only_when_it_continues_the_subject():
    # "E30: heating problem." follows "Check the drain filter.": no pair, the claim stays unsupported
    assert verify_pair(CODES, "E30 means a drain problem.").verdict != "supported"
    two = verify_pair("Refunds take 14 days. They are paid to the original card.",
                      "Refunds take 14 days and are paid to the original card.")
    assert two.verdict == "supported" and two.evidence == "Refunds take 14 days. They are paid to the original card."


def test_the_audit_pairs_through_the_answer_path():
    passages = [PLANS, NON_REFUNDABLE, DELIVERY_TABLE, CODES]
    answer = ("Monthly plans can be refunded within 30 days [1]. Annual plans can be refunded within 14 days [2]. "
              "Delivery to Germany takes 5 days [3]. E30 means a drain problem [4].")
    claims = verify_answer(answer, passages)
    assert [c.verdict for c in claims] == ["contradicted", "unsupported", "contradicted", "unsupported"]
    assert guard(answer, claims, strict_mode=False).status == "refused"


def _answer(n: int, last: str) -> str:
    return " ".join(["The engine oil capacity is 5 quarts [1]."] * (n - 1) + [f"{last} [1]."])


def test_a_claim_past_the_limit_is_not_passed_unchecked():
    claims = verify_answer(_answer(MAX_CLAIMS + 1, "The engine oil capacity is 9 quarts"), [OIL])
    assert len(claims) == MAX_CLAIMS + 1
    assert all(c.verdict == "supported" for c in claims[:MAX_CLAIMS])
    assert claims[-1].verdict == "unsupported" and "Not checked" in claims[-1].reason
    decision = guard("", claims, strict_mode=False)  # one unsupported: dropped, the rest stands
    assert decision.status == "narrowed" and "9 quarts" not in decision.answer
    assert len(decision.claims) == MAX_CLAIMS


def test_even_a_true_claim_past_the_limit_counts_and_two_of_them_refuse():
    claims = verify_answer(_answer(MAX_CLAIMS + 2, "The engine oil capacity is 5 quarts"), [OIL])
    assert [c.verdict for c in claims[MAX_CLAIMS:]] == ["unsupported", "unsupported"]
    assert guard("", claims, strict_mode=False).status == "refused"
    assert guard("", claims, strict_mode=True, quotes_only="“x” [1]").status == "fallback"


def test_ten_claims_are_all_checked():
    claims = verify_answer(_answer(MAX_CLAIMS, "The engine oil capacity is 9 quarts"), [OIL])
    assert claims[-1].verdict == "contradicted" and claims[-1].checks != ["limit"]


class _Recorder:
    def __init__(self):
        self.premises = []

    def judge(self, premise, claim):
        self.premises.append(premise)
        return Verdict("supported", 0.9, checks=["llm"])


def test_the_model_judge_reads_the_evidence_span():
    model = _Recorder()
    v = CheckedJudge(model).judge(DELIVERY_TABLE, "Delivery to Germany takes 3 days.")
    assert v.verdict == "supported"
    assert "Germany" in model.premises[0] and "France" not in model.premises[0] and "Country" in model.premises[0]
    model = _Recorder()
    CheckedJudge(model).judge(PLANS, "Annual plans can be cancelled within 30 days.")
    assert model.premises == ["Annual plans can be cancelled within 30 days."]
    model = _Recorder()  # a claim the checks refuse never reaches the model
    assert CheckedJudge(model).judge(PLANS, "Monthly plans can be refunded within 30 days.").verdict == "contradicted"
    assert model.premises == []


@pytest.mark.parametrize("premise, claim, said", [
    # the QA pass: each was "supported" 1.0 (three content words in four stood in the source)
    ("Standard users are locked out after 5 failed attempts.", "Administrators are locked out after 5 failed attempts.",
     "“administrators” where the source says “standard users”"),
    ("The incident commander is the primary on-call engineer.",
     "The incident commander is the secondary on-call engineer.", "“secondary” where the source says “primary”"),
    ("Новый сотрудник получает ноутбук в первый рабочий день.",
     "Новый сотрудник получает ноутбук в последний рабочий день.", "“последний” where the source says “первый”"),
])
def test_a_claim_swapping_words_of_its_source_is_not_supported(premise, claim, said):
    verdict = verify_pair(premise, claim)
    assert verdict.verdict == "unsupported" and said in verdict.reason
    assert verdict.soft  # only words differ: a model judge, when configured, may read it as a paraphrase


@pytest.mark.parametrize("premise, claim, word", [
    # the QA pass: a claim that dropped "openconnect instead of" was supported 1.0
    ("Staff connect to the VPN with openconnect instead of GlobalProtect.", "Staff connect to the VPN with GlobalProtect.",
     "GlobalProtect"),
    ("All staff except contractors receive a laptop.", "Contractors receive a laptop.", "Contractors"),
    ("Офис открыт все дни, кроме субботы.", "Офис открыт в субботу.", "субботу"),
])
def test_a_claim_asserting_what_its_source_leaves_out_is_not_supported(premise, claim, word):
    verdict = verify_pair(premise, claim)
    assert verdict.verdict == "unsupported" and f"“{word}”, which the source names only to leave it out" in verdict.reason
    assert verdict.soft


@pytest.mark.parametrize("premise, claim", [
    ("Staff connect to the VPN with openconnect instead of GlobalProtect.",
     "Staff connect to the VPN with openconnect instead of GlobalProtect."),
    ("Staff connect to the VPN with openconnect instead of GlobalProtect.", "Staff connect to the VPN with openconnect."),
    # only the first word after "except" is left out; the verb is the statement's
    ("All staff except contractors receive a laptop.", "Staff receive a laptop."),
    # a word left out in one clause and stated in another
    ("Use the form rather than e-mail. E-mail requests are answered within 5 days.",
     "E-mail requests are answered within 5 days."),
])
def test_a_claim_keeping_its_sources_exclusions_is_supported(premise, claim):
    assert verify_pair(premise, claim).verdict == "supported"


def test_a_claim_that_leaves_words_out_or_quotes_whole_is_still_supported():
    premise = "Refunds are paid within 14 days of the return arriving at our warehouse."
    assert verify_pair(premise, "Refunds are paid within 14 days of the return arriving.").verdict == "supported"
    assert verify_pair(premise, premise).verdict == "supported"
    # reworded, the source's words elsewhere in the claim: no swap (the model path's paraphrase)
    assert verify_pair("The engine oil capacity is 5 quarts (4.7 litres) with filter change.",
                       "The engine holds 5 quarts of oil with the filter.").verdict == "supported"


def test_a_reason_writes_numbers_with_their_words_as_the_claim_does():
    # the QA pass: "Not in the cited text: 30 дне." (a stem)
    verdict = verify_pair("Новый сотрудник получает ноутбук в первый рабочий день.",
                          "Новый сотрудник получает ноутбук через 30 дней.")
    assert verdict.reason == "Not in the cited text: 30 дней."
    assert verify_pair("Passwords need 14 characters.", "Passwords need 12 characters.").reason == \
        "The claim says 12 characters but the source says 14."


def test_thousands_grouped_by_a_space_are_one_number():
    # a QA pass: "50" stood in "50 000 рублей", and a model's claim of a 50-rouble fine was
    # supported 1.0 (answered at 0.99 with an LLM configured)
    premise = "Штраф субподрядчику за алкоголь на объекте составляет 50 000 рублей."
    assert verify_pair(premise, "Штраф субподрядчику за алкоголь на объекте составляет 50 рублей.").verdict \
        == "contradicted"
    assert verify_pair("The fine is 50 000 roubles.", "The fine is 50 roubles.").verdict == "contradicted"
    assert verify_pair("The fine is 50 000 roubles.", "The fine is 50000 roubles.").verdict == "supported"
    assert verify_pair("The fine is 50\u00a0000 roubles.", "The fine is 50 000 roubles.").verdict == "supported"


def test_a_claim_leaving_out_a_negated_clause_is_supported():
    # a QA pass: the model's "valid for a maximum of 8 hours" was contradicted ("disagree on
    # negation") by "... 8 hours and never past the end of the shift"
    premise = "A hot work permit is valid for a maximum of 8 hours and never past the end of the shift."
    assert verify_pair(premise, "A hot work permit is valid for a maximum of 8 hours.").verdict == "supported"
    # a no about what the claim says still contradicts it
    assert verify_pair("Badges are not issued to visitors.", "Badges are issued to visitors.").verdict == "contradicted"
    assert verify_pair("You cannot delete a message.", "You can delete a message.").verdict == "contradicted"
