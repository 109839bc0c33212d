"""The Answer JSON read back (core/schema.py): a refusal explains itself in `refusal_reason`,
an answer's caveat is its `note`, also for answers stored before `note` existed."""

from core.schema import Answer


def test_an_answer_stored_with_its_note_as_refusal_reason_reads_it_as_its_note():
    old = {"question": "q", "tenant": "acme", "status": "fallback", "answer": "a [1].",
           "refusal_reason": "The LLM endpoint timed out. Answered from quotes instead."}
    answer = Answer.from_dict(old)
    assert answer.note == "The LLM endpoint timed out. Answered from quotes instead."
    assert answer.refusal_reason is None


def test_a_refusal_keeps_its_reason_and_has_no_note():
    answer = Answer.from_dict({"question": "q", "tenant": "acme", "status": "refused", "answer": "",
                               "refusal_reason": "No passage holds a sentence that could answer it."})
    assert answer.refusal_reason == "No passage holds a sentence that could answer it." and answer.note is None


def test_the_json_round_trip_keeps_the_note():
    answer = Answer(question="q", tenant="acme", status="corrected", answer="The documents say: no [1].",
                    note="The documents say no to what the question asks.")
    assert Answer.from_dict(answer.to_dict()) == answer
