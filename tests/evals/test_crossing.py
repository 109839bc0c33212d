"""The cross-language slice: a question's language against its documents' language."""

from evals.crossing import crossing

DOCS = [
    {"file_name": "handbook__leave.md", "lang": "en", "status": "ready"},
    {"file_name": "handbook__travel.md", "lang": "en", "status": "ready"},
    {"file_name": "guide-ru.md", "lang": "ru", "status": "ready"},
    {"file_name": "broken.md", "lang": "ru", "status": "failed"},
]


def test_the_gold_documents_language_decides_when_the_set_names_one():
    assert crossing({"lang": "ru", "gold_source": "guide-ru.md"}, DOCS) == "same"
    assert crossing({"lang": "en", "gold_source": "guide-ru.md"}, DOCS) == "cross"
    # the ingested name carries the corpus folder as a prefix
    assert crossing({"lang": "ru", "gold_source": "leave.md"}, DOCS) == "cross"


def test_without_a_gold_document_the_tenants_main_language_decides():
    # two ready English documents against one ready Russian one (the failed one not counted)
    assert crossing({"lang": "ru", "gold_source": None}, DOCS) == "cross"
    assert crossing({"lang": "en"}, DOCS) == "same"


def test_the_questions_language_is_detected_when_the_set_does_not_give_it():
    assert crossing({"question": "Сколько дней отпуска?"}, DOCS) == "cross"
    assert crossing({"question": "How many days of leave?"}, DOCS) == "same"


def test_a_tenant_without_ready_documents_is_unknown():
    assert crossing({"lang": "en"}, []) == "unknown"
    assert crossing({"lang": "en"}, [{"file_name": "a.md", "lang": "en", "status": "failed"}]) == "unknown"
