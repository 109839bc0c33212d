"""The gate stops only what a model cannot learn: a cited page, section or code that no
passage holds, and a name the tenant's documents never use; everything else is the answer
model's decision."""

from core.gate import assess
from core.lexical import LexicalIndex
from core.retrieve import Candidate, Retrieval


def _passage(text: str, section: str = "Leave", page: int | None = None, lang: str = "en", rank: int = 1) -> Candidate:
    return Candidate(chunk_id=f"d:{rank}", doc_id="d", text=text, source="handbook.md", title="Handbook",
                     page_start=page, page_end=page, section=section, kind="paragraph", lang=lang, ordinal=rank,
                     dense_score=0.85, dense_rank=rank, bm25_score=3.0, bm25_rank=rank, rank=rank)


TEXT = "Annual leave is requested three weeks in advance. Error ERR-20 means the form was not signed."


def _assess(question: str, passages: list[Candidate] | None = None):
    passages = passages if passages is not None else [_passage(TEXT)]
    lexicon = LexicalIndex.build([(p.chunk_id, p.text) for p in passages] or [("x:0", "nothing")])
    return assess(question, Retrieval(question, passages, passages), lexicon)


def test_an_ordinary_question_passes_with_its_retrieval_evidence() -> None:
    gate = _assess("How far in advance is annual leave requested?")
    assert gate.reason is None and gate.code is None
    off_topic = _assess("What is the dress code for the office party?")
    assert off_topic.reason is None  # not the gate's to refuse: the answer model decides
    assert gate.coverage > off_topic.coverage and gate.confidence > off_topic.confidence


def test_an_identifier_no_passage_holds_stops_it_with_a_code_and_subject() -> None:
    gate = _assess("What does error ERR-40 mean?")
    assert (gate.code, gate.subject, gate.confidence) == ("missing_identifier", "ERR-40", 0.0)
    assert _assess("What does error ERR-20 mean?").code is None


def test_a_name_with_a_number_split_over_table_cells_is_found() -> None:
    # a QA pass: "Is Windows Server 2016 supported?" was told no passage mentions Server 2016
    # while the row "| Windows Server | 2016 | Supported |" stood highlighted under it
    row = _passage("| OS | Version | Agent 5.0 |\n|---|---|---|\n| Windows Server | 2016 | Supported |")
    assert _assess("Is Windows Server 2016 supported by the agent?", [row]).code is None
    gate = _assess("Is Windows Server 2019 supported by the agent?", [row])
    assert (gate.code, gate.subject) == ("missing_identifier", "Server 2019")


def test_a_code_of_the_scene_the_tenant_holds_elsewhere_is_no_stop() -> None:
    """A scene sentence's code the tenant's documents hold (but no passage found) is the
    user's situation, not what is asked; one no document holds, or one the asking sentence
    names, still stops, and the reason says which (a QA pass: "No passage mentions T-104")."""
    passages = [_passage(TEXT)]
    lexicon = LexicalIndex.build([(p.chunk_id, p.text) for p in passages])
    held = {"t-104"}.__contains__

    def gate(question: str):
        return assess(question, Retrieval(question, passages, passages), lexicon, mentioned=lambda c: held(c.lower()))

    assert gate("A splash happened at T-104 this morning. How far in advance is leave requested?").code is None
    unknown = gate("A splash happened at T-999 this morning. How far in advance is leave requested?")
    assert (unknown.code, unknown.reason) == ("missing_identifier", "No passage mentions T-999.")
    asked = gate("How far in advance is leave requested at T-104?")
    assert (asked.code, asked.reason) == ("missing_identifier", "No passage found for this question mentions T-104.")
    # without a tenant-wide look-up a scene's code stops as before
    assert _assess("A splash happened at T-104 this morning. How far in advance is leave requested?").code \
        == "missing_identifier"


def test_a_bare_value_no_passage_holds_is_the_answer_models_to_weigh_not_a_stop() -> None:
    # amounts and years are values (the answer model reads `numbers_missing`); codes stop
    for question in ("Can I request 4000 days of annual leave?", "Is the 12.5 rate in advance?",
                     "How far in advance is annual leave requested in 2031?"):
        assert _assess(question).code is None, question
    assert _assess("What does form 12.4.1 say about leave?").code == "missing_identifier"
    assert _assess("What does code 40-7 mean?").code in ("missing_identifier", "missing_reference")


def test_a_cited_page_or_section_that_is_not_there() -> None:
    assert _assess("What is on page 12?", [_passage(TEXT, page=2)]).code == "missing_reference"
    assert _assess("What does section 14 say?").code == "missing_reference"
    assert _assess("What does section 3 say?", [_passage("3. Leave\nLeave is booked online.", "3. Leave")]).code is None


def test_a_name_the_documents_never_use_but_not_across_languages() -> None:
    gate = _assess("How much annual leave do Globex employees get?")
    assert (gate.code, gate.subject) == ("unknown_name", "Globex")
    # a scene's name is where the user stands, not what is asked
    assert _assess("I moved to Lisbon. How far in advance is annual leave requested?").code is None
    # a Russian question over English passages: a name may be transliterated
    assert _assess("Сколько отпуска у сотрудников Глобекс?").code is None
    # a QA pass: "When does Dr. Smirnova see patients?" was stopped as never mentioned while
    # the closest passage said «Доктор Ольга Смирнова принимает ...», an English one beside it
    mixed = [_passage("Доктор Ольга Смирнова принимает по понедельникам.", lang="ru"),
             _passage(TEXT, rank=2)]
    assert _assess("When does Dr. Smirnova see patients?", mixed).code is None
    assert _assess("When does Dr. Smirnova see patients?", [_passage(TEXT), _passage(TEXT, rank=2)]).code \
        == "unknown_name"


def test_no_passages() -> None:
    assert _assess("Anything?", []).code == "no_passages"


def test_a_name_with_a_number_only_the_scene_holds_is_no_stop() -> None:
    # a QA pass: "Room 518 has had the Do Not Disturb sign on since this morning. When should
    # housekeeping phone the room?" was refused as "No passage mentions Room 518"
    dnd = [_passage("If the sign is still on at 14:00, the floor supervisor calls the room.")]
    scene = _assess("Room 518 has had the Do Not Disturb sign on since this morning. When should housekeeping "
                    "phone the room?", dnd)
    assert scene.code is None and not scene.missing_ids
    # named by the asking sentence, it is what is asked about and still stops; a scene's code too
    asked = _assess("When should housekeeping phone Room 518?", dnd)
    assert (asked.code, asked.subject) == ("missing_identifier", "Room 518")
    assert _assess("A splash happened at T-999 this morning. When should housekeeping phone?", dnd).code \
        == "missing_identifier"


def test_a_name_with_a_number_in_another_form_or_language_is_found() -> None:
    # a QA pass: "No passage mentions Zone 3" (and «… Зоне 3») over the highlighted row «Зона 3»
    row = _passage("| Зона | Исходящие звонки, EUR/мин |\n|---|---|\n| Зона 3 | 0,99 |", "Роуминг", lang="ru")
    assert _assess("Сколько стоят исходящие звонки в Зоне 3?", [row]).code is None  # the stem, not the ending
    assert _assess("How much are outgoing calls in roaming Zone 3?", [row]).code is None  # the other language
    gate = _assess("Сколько стоят исходящие звонки в Зоне 7?", [row])
    assert (gate.code, gate.subject) == ("missing_identifier", "Зоне 7")
    english = _passage("| Zone | Calls |\n|---|---|\n| Zone 3 | 0.99 |", "Roaming")
    assert _assess("How much are calls in Zone 7?", [english]).code == "missing_identifier"  # same language: exact
