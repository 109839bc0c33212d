"""A count in words (ui.format.count_of, plural) and the messages built on it: one thing,
several things, none, and thousands."""

from core.config import load_settings
from ui.format import count_of, factuality_of, fmt_confidence, note_of, plural, word_to_teach
from ui.services import settings_rows
from ui.upload import interrupted_note


def test_count_of_says_one_thing_or_things_with_thousands_separated():
    assert [count_of(n, "document") for n in (0, 1, 2, 1234)] == [
        "0 documents", "1 document", "2 documents", "1,234 documents"]
    assert count_of(1, "quoted sentence") == "1 quoted sentence" and count_of(3, "more file") == "3 more files"
    assert [count_of(n, "entry", "entries") for n in (1, 2)] == ["1 entry", "2 entries"]


def test_plural_agrees_a_noun_or_a_verb_with_its_count():
    assert [plural(n, "chunk") for n in (0, 1, 2)] == ["chunks", "chunk", "chunks"]
    assert [plural(n, "leaves", "leave") for n in (1, 5)] == ["leaves", "leave"]


def test_an_interrupted_upload_of_many_files_counts_the_rest():
    names = [f"f{i}.md" for i in range(7)]
    assert "and 1 more file was interrupted" in interrupted_note(names[:6], None)
    assert "and 2 more files was interrupted" in interrupted_note(names, None)
    assert interrupted_note(names[:1], None) == (
        "The upload of **f0\\.md** was interrupted; nothing of it was kept — upload it again.")


def test_the_settings_table_counts_synonyms(tmp_path):
    defaults = load_settings({"GROUNDWORK_DATA": str(tmp_path)})

    def synonyms(value):
        return next(r for r in settings_rows(defaults, {"synonyms": value}) if r["setting"] == "synonyms")

    assert synonyms({"boss": "oil capacity"})["tenant override"] == "1 synonym"
    assert synonyms({"boss": "oil", "gizmo": "hub"})["tenant override"] == "2 synonyms"
    assert synonyms({})["tenant override"] == "none"


def test_a_deck_is_cited_by_slide_and_every_other_paged_file_by_page():
    """A deck's `page` is its slide number (core/ingest/pptx.py): "p. 3" sent readers looking for
    a page the deck does not have."""
    from ui.components import page_bits
    from ui.format import citation_label, page_label
    from ui.review import passage_label
    from ui.upload import _result_line

    assert [page_label(3, name) for name in ("plans.pptx", "Plans.PPTM", "plans.pdf", "")] == [
        "slide 3", "slide 3", "p. 3", "p. 3"]
    assert page_label(None, "plans.pptx") == "no page"
    assert citation_label({"index": 2, "source": "plans.pptx", "page": 4}) == "[2] plans.pptx · slide 4"
    assert citation_label({"index": 1, "source": "manual.pdf", "page": 4}) == "[1] manual.pdf · p. 4"
    assert citation_label({"index": 1, "source": "notes.md", "page": None}) == "[1] notes.md"
    # the heading the quote stands under (a QA pass could not tell one tier's budget from another's)
    assert citation_label({"index": 1, "source": "benefits.docx", "section": "Benefits > Tier Basic (grades A and B)"}) \
        == "[1] benefits.docx · Tier Basic (grades A and B)"
    assert citation_label({"index": 3, "source": "manual.pdf", "page": 7, "section": "7. Maintenance > "
                           "7-2. Engine oil capacity and the filter change"}) \
        == "[3] manual.pdf · p. 7 · 7-2. Engine oil capacity and th…"
    assert page_bits(5, "plans.pptx") == ["slide 5"] and page_bits(-1, "plans.pptx") == []
    assert passage_label({"source": "plans.pptx", "page": 2, "section": "Rates"}) == "plans.pptx, slide 2 · § Rates"

    said: list[str] = []

    class Where:
        def success(self, text: str, icon: str = "") -> None:
            said.append(text)

    for name, pages in (("plans.pptx", 12), ("manual.pdf", 1)):
        _result_line(Where(), {"file_name": name, "status": "ready", "pages": pages, "chunks": 30, "seconds": 2.0})
    assert said == ["**plans\\.pptx**: indexed 12 slides, 30 chunks in 2.0 s.",
                    "**manual\\.pdf**: indexed 1 page, 30 chunks in 2.0 s."]
    # pages whose text is not indexed are not counted as indexed (the warnings say which)
    said.clear()
    _result_line(Where(), {"file_name": "scan.pdf", "status": "ready", "pages": 3, "pages_left_out": 1,
                           "chunks": 4, "seconds": 9.0})
    assert said == ["**scan\\.pdf**: indexed 2 of 3 pages, 4 chunks in 9.0 s."]


def test_a_refused_answers_confidence_is_never_rounded_onto_its_threshold():
    """Seen in the QA pass: "answers the question 0.66" over "0.6596 is below the threshold 0.66"."""
    assert fmt_confidence(0.6596, 0.66) == "0.6596"
    assert fmt_confidence(0.65999, 0.66) == "0.6599"  # cut, never rounded up
    assert fmt_confidence(0.655, 0.66) == "0.655"
    assert fmt_confidence(0.6512, 0.66) == "0.65"
    assert fmt_confidence(0.6596) == "0.66" and fmt_confidence(None) == "0.00"  # no threshold: two decimals


def test_a_confidence_has_two_decimals_unless_they_cross_the_threshold():
    """Seen in the QA pass: refusals far under the threshold read "0.4097" and "0.2087" beside
    "0.52" and "0.47" (every refusal was cut to the decimals that never round it up)."""
    assert [fmt_confidence(c, 0.66) for c in (0.40976, 0.2087, 0.52, 0.47)] == ["0.41", "0.21", "0.52", "0.47"]
    # an answer is never shown under the threshold it reached
    assert fmt_confidence(0.6642, 0.6641) == "0.6642" and fmt_confidence(0.6641, 0.6641) == "0.6641"
    assert fmt_confidence(0.6651, 0.665) == "0.67" and fmt_confidence(0.6612, 0.66) == "0.66"
    # refused over the threshold (its checks failed): two decimals, it is on the threshold's side it reads
    assert fmt_confidence(0.8123, 0.66) == "0.81" and fmt_confidence(0.66, 0.66) == "0.66"


def test_a_trace_without_claims_has_no_factuality():
    """Seen in the QA pass: refused asks with no claim read "Factuality 0%"."""
    assert factuality_of(0.0, 0) is None and factuality_of(None, None) is None
    assert factuality_of(0.0, 2) == 0.0  # two claims, none supported: a real 0 %
    assert factuality_of(50.0, 1) == 50.0 and factuality_of(100.0, 0) == 100.0


def test_an_answers_sources_anchor_is_a_plain_id_its_markers_link_to():
    from ui.format import anchor_html, answer_md, sources_anchor

    assert sources_anchor("turn5") == "gw-sources-turn5" and sources_anchor('a"<b> c') == "gw-sources-a--b--c"
    assert anchor_html("turn5", folded=True) == '<div id="gw-sources-turn5" class="gw-fold"></div>'
    assert "](#gw-sources-turn5 " in answer_md("Yes. [1]", {1: "Yes."}, sources_anchor("turn5"))


def test_a_table_cell_of_confidence_follows_the_rows_threshold():
    """The Traces, Review and feedback tables showed "%.2f": a refusal's 0.6596 read "0.66"."""
    from ui.format import confidence_cell

    assert confidence_cell(0.6596, 0.66) == "0.6596"  # refused under 0.66
    assert confidence_cell(0.6596, 0.65) == "0.66"  # answered over 0.65
    assert confidence_cell(0.40976, 0.66) == "0.41"  # far under it: two decimals
    assert confidence_cell(None, 0.66) is None  # the table's placeholder, not "0.00"


def test_a_follow_ups_reading_is_told_from_a_question_asked_with_its_scene():
    from ui.format import reading_md

    assert reading_md("How much does it cost?", "How long is the kayak tour? How much does it cost?") == \
        "Asked with the question before it: How long is the kayak tour\\?"
    # a QA pass: the follow-up's words stood inside the reading («груз|а для ...»), and the
    # caption read "Asked with the question before it: Какая ставка страхования груз"
    assert reading_md("а для ювелирных изделий?", "Какая ставка страхования груза для ювелирных изделий?") == \
        "Read as a follow-up: Какая ставка страхования груза для ювелирных изделий\\?"


def test_an_answers_note_is_shown_and_a_refusals_reason_is_not_a_note():
    assert note_of({"status": "answered", "note": "prices_2025.csv is out of force."}) == "prices_2025.csv is out of force."
    # an answer kept in a chat from before answers had a note carried it as refusal_reason
    assert note_of({"status": "fallback", "refusal_reason": "Answered from quotes instead."}) == "Answered from quotes instead."
    assert note_of({"status": "refused", "refusal_reason": "No passage answers it."}) == ""
    assert note_of({"status": "answered"}) == ""


def test_the_word_to_teach_of_a_russian_refusal_is_its_subject():
    # the Ask and Review pages offer it as a synonym: the reason is Russian, the subject is the word
    answer = {"status": "refused", "refusal_code": "unknown_word", "refusal_subject": "парковка",
              "refusal_reason": "В базе знаний нигде не упоминается «парковка». Уверенность в ответе 0.01 ниже порога 0.69."}
    assert word_to_teach(answer) == "парковка"
    assert word_to_teach({"status": "refused", "refusal_reason": "The knowledge base never mentions “gizmo”."}) == "gizmo"
    assert word_to_teach({"status": "refused", "refusal_code": "no_candidate", "refusal_reason": "x"}) == ""
