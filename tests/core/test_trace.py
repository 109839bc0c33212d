"""Traces read back: the words users asked about that the documents never use."""

from core.config import save_tenant_overrides
from core.documents import ingest_file
from core.pipeline import ask
from core.trace import unknown_word_of, unknown_words, word_to_teach


def test_the_word_a_refusal_names_is_read_back():
    assert unknown_word_of("The knowledge base never mentions “gizmo”.") == "gizmo"
    assert unknown_word_of("The closest passage does not address “gizmo”, a word the knowledge base never "
                           "uses.") == "gizmo"
    assert unknown_word_of("The knowledge base never mentions Vienna.") is None  # a name: no synonym to teach
    assert unknown_word_of(None) is None


def test_the_word_to_teach_is_the_refusals_subject_in_any_language():
    russian = {"status": "refused", "refusal_code": "unknown_word", "refusal_subject": "парковка",
               "refusal_reason": "В базе знаний нигде не упоминается «парковка». Уверенность в ответе 0.01 ниже порога 0.69."}
    assert word_to_teach(russian) == "парковка"
    assert word_to_teach({**russian, "refusal_code": "low_confidence", "refusal_subject": None}) is None
    assert word_to_teach({**russian, "status": "answered"}) is None
    # an answer from before refusals carried a code: its English reason is read
    assert word_to_teach({"status": "refused", "refusal_reason": "The knowledge base never mentions “gizmo”."}) == "gizmo"


def test_untaught_words_are_listed_most_asked_first(settings, write_file):
    ingest_file(settings, "acme", write_file("oil.md", "# Engine\n\nThe engine oil capacity is 4.5 litres.\n"))
    # whether each is refused is the answer model's call; here every one is, so that the
    # list is what this test reads
    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.999})
    for question in ("What is the gizmo capacity?", "What is the weight of the flux capacitor?",
                     "What is the gizmo capacity?", "What is the capacity of the gizmos?",
                     "What is the engine oil capacity?", "How heavy is the dingbat?"):
        ask(settings, "acme", question)
    ask(settings, "globex", "What is the widget capacity?")  # another tenant's refusals stay its own

    words = unknown_words(settings, "acme")
    # "gizmo" and "gizmos" are one word; ties go to the most recently asked
    assert [(w["word"], w["asked"]) for w in words] == [("gizmos", 3), ("dingbat", 1), ("flux capacitor", 1)]
    assert words[0]["last_question"] == "What is the capacity of the gizmos?"  # the newest spelling and question

    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.999, "synonyms": {"gizmo": "engine oil"}})
    assert [w["word"] for w in unknown_words(settings, "acme")] == ["dingbat", "flux capacitor"]


def test_asks_traced_before_the_word_column_are_read_back_once(settings, monkeypatch):
    import json

    from core import store

    # a database from before migration 7, holding refusals whose word sits only in the JSON
    all_migrations = list(store.MIGRATIONS)
    monkeypatch.setattr(store, "MIGRATIONS", all_migrations[:6])
    reasons = [("t1", "acme", "refused", "The knowledge base never mentions “gizmo”.", 1.0),
               ("t2", "acme", "refused", "The closest passage does not address “dingbat”, a word the knowledge "
                                         "base never uses.", 2.0),
               ("t3", "acme", "refused", "The knowledge base never mentions Vienna.", 3.0),  # a name
               ("t4", "acme", "answered", None, 4.0),
               ("t5", "globex", "refused", "The knowledge base never mentions “widget”.", 5.0)]
    with store.connect(settings) as conn:
        for trace_id, tenant, status, reason, when in reasons:
            data = json.dumps({"answer": {"status": status, "refusal_reason": reason}})
            conn.execute("INSERT INTO traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                         (trace_id, tenant, f"question {trace_id}", when, status, None, None, None, None, 0, 5.0,
                          data))
        conn.execute("INSERT INTO traces VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",  # a trace whose JSON is damaged
                     ("t6", "acme", "q", 6.0, "refused", None, None, None, None, 0, 5.0, "{not json"))
    monkeypatch.setattr(store, "MIGRATIONS", all_migrations)

    words = unknown_words(settings, "acme")
    assert [(w["word"], w["last_question"]) for w in words] == [("dingbat", "question t2"), ("gizmo", "question t1")]
    # a follow-up is shown as it was read, which holds the word ("And for grade C?" held no "flying": a QA pass)
    store.save_trace(settings, {"answer": {"tenant": "acme", "question": "And for grade C?", "status": "refused",
                                           "asked_as": "I'm flying to Berlin, how much can I claim for grade C?"}},
                     unknown_word="flying")
    assert unknown_words(settings, "acme")[0]["last_question"] == "I'm flying to Berlin, how much can I claim for grade C?"
    assert [w["word"] for w in unknown_words(settings, "globex")] == ["widget"]
