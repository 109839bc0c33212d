"""Citation pills: one pill per marker, opening it highlights every quote marked so."""

from ui.components import _quote_span, merge_by_index


def test_quotes_sharing_a_marker_are_opened_together():
    text = "E20 means a drain problem. Check the drain filter. Then check the hose."
    cites = [
        {"index": 1, "chunk_id": "d:1", "quote": "E20 means a drain problem.", "char_start": 0, "char_end": 26,
         "rects": [[0, 0, 10, 10]]},
        {"index": 2, "chunk_id": "d:2", "quote": "Other.", "char_start": 0, "char_end": 6, "rects": []},
        {"index": 1, "chunk_id": "d:1", "quote": "Then check the hose.", "char_start": 51, "char_end": 71,
         "rects": [[0, 20, 10, 30]]},
    ]
    merged = merge_by_index(cites)
    assert sorted(merged) == [1, 2]
    assert merged[1]["rects"] == [[0, 0, 10, 10], [0, 20, 10, 30]]
    assert _quote_span(text, merged[1]) == (0, 71)
    assert "E20 means" in merged[1]["quote"] and "the hose" in merged[1]["quote"]
    assert _quote_span("Other. More.", merged[2]) == (0, 6)


def _tyre_table(settings) -> dict:
    """engine.md's tyre table passage of the tiny tenant (tests/pages/conftest.py)."""
    from core import store

    chunks = [c for c in store.chunk_rows(settings, "acme") if "| Front | 2.4 bar |" in c["text"]]
    assert len(chunks) == 1 and chunks[0]["kind"] == "table", chunks
    return chunks[0]


def _closest_captions(chunk: dict, source: str, section: str, quote: str, question: str) -> list[str]:
    """The captions the Ask page shows under a refusal whose closest passage is `chunk`, its
    nearest sentence `quote`."""
    from streamlit.testing.v1 import AppTest

    near = {"chunk_id": chunk["chunk_id"], "doc_id": chunk["doc_id"], "source": source, "section": section,
            "snippet": " ".join(chunk["text"].split()), "quote": quote}
    at = AppTest.from_function(_show_closest, default_timeout=30)
    at.session_state["answer"] = {"question": question, "status": "refused", "closest": [near]}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return [c.value for c in at.caption]


def _show_citation():
    import streamlit as st

    from core.config import load_settings
    from ui.components import citation_panel

    citation_panel(load_settings(), "acme", st.session_state["citation"], key="c")


def _show_closest():
    import streamlit as st

    from core.config import load_settings
    from ui.components import closest_passages

    closest_passages(load_settings(), "acme", st.session_state["answer"])


def test_two_rows_quoted_under_one_marker_are_both_highlighted(settings):
    """An answer quoting two rows of one table marks both [1]; opening [1] showed the table
    with no row highlighted and the joined quote as raw pipes under it (QA pass)."""
    at = _tyre_citation(settings, "| Front | 2.4 bar |", "| Rear | 2.2 bar |")
    captions = [c.value for c in at.caption]
    assert "The quoted rows are highlighted." in captions, captions
    assert not any(c.startswith("Quote:") for c in captions), captions


def _tyre_citation(settings, *quotes: str):
    """The citation panel of one marker quoting `quotes` of the tyre table's passage, run."""
    from streamlit.testing.v1 import AppTest

    chunk = _tyre_table(settings)
    cites = [{"index": 1, "chunk_id": chunk["chunk_id"], "doc_id": chunk["doc_id"], "source": "engine.md",
              "quote": q} for q in quotes]
    at = AppTest.from_function(_show_citation, default_timeout=30)
    at.session_state["citation"] = merge_by_index(cites)[1]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_sentence_and_a_row_quoted_under_one_marker_are_both_highlighted(settings):
    """The QA pass: "What is the yearly price of the Standard tier?" quoted the sentence above a
    table and the Standard row as [1]; the panel highlighted neither and printed the joined quote."""
    at = _tyre_citation(settings, "Tyres", "| Front | 2.4 bar |")
    captions = [c.value for c in at.caption]
    assert "The quoted row is highlighted." in captions and not any(c.startswith("Quote:") for c in captions)
    assert any(":orange-background[Tyres]" in m.value for m in at.markdown), [m.value for m in at.markdown]

def test_a_closest_passage_of_a_table_shows_its_table_not_raw_pipes(settings):
    """A refusal's closest passage from a table chunk whose nearest sentence is no row (or
    no sentence was near): it read as `| Axle | Pressure | |---|---|` pipes (QA pass)."""
    from streamlit.testing.v1 import AppTest

    chunk = _tyre_table(settings)
    flat = " ".join(chunk["text"].split())
    near = {"chunk_id": chunk["chunk_id"], "doc_id": chunk["doc_id"], "source": "engine.md", "section": "Tyres",
            "snippet": flat, "quote": ""}
    at = AppTest.from_function(_show_closest, default_timeout=30)
    at.session_state["answer"] = {"question": "What is the tyre tread depth?", "status": "refused", "closest": [near]}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe) == 1
    shown = [t.value for t in at.text] + [m.value for m in at.markdown] + [c.value for c in at.caption]
    assert not any("|---|" in s or "| Front |" in s for s in shown), shown


def test_a_closest_row_under_a_refusal_is_not_called_quoted(settings):
    """Under a refusal nothing was quoted, yet the closest table said "The quoted row is
    highlighted." (QA pass)."""

    captions = _closest_captions(_tyre_table(settings), "engine.md", "Tyres", "| Front | 2.4 bar |",
                                 "What is the tyre tread depth?")
    assert "The row of the nearest sentence is highlighted; it was not quoted." in captions
    assert not any("quoted row" in c for c in captions)


def test_only_the_quoted_sentences_of_a_marker_are_highlighted_not_those_between():
    """An answer quoting the first and third sentences of a passage under [1]: opening [1]
    highlighted from the first quote to the last, so the unquoted sentence between them read
    as part of the answer (QA pass: "Your leave increases on the first full pay period…"
    stood highlighted between two quoted accrual lines and the carry-over rule)."""
    from ui.components import quote_spans
    from ui.safe import highlight_spans_md

    text = "E20 means a drain problem. Check the drain filter. Then check the hose."
    cites = [
        {"index": 1, "chunk_id": "d:1", "quote": "E20 means a drain problem.", "char_start": 0, "char_end": 26},
        {"index": 1, "chunk_id": "d:1", "quote": "Then check the hose.", "char_start": 51, "char_end": 71},
    ]
    merged = merge_by_index(cites)[1]
    assert quote_spans(text, merged) == [(0, 26), (51, 71)]
    out = highlight_spans_md(text, quote_spans(text, merged))
    assert out.count("-background[") == 2, out
    between = out.split("-background[")[1].split("]", 1)[1]  # after the first highlight closes
    assert "Check the drain filter" in between and between.index("Check") < between.index(":orange")


def test_quotes_that_cannot_be_placed_fall_back_to_the_whole_quote():
    from ui.components import quote_spans

    text = "E20 means a drain problem. Check the drain filter."
    one = merge_by_index([{"index": 1, "chunk_id": "d:1", "quote": "Check the drain filter."}])[1]
    assert quote_spans(text, one) == [(27, 50)]
    gone = merge_by_index([{"index": 1, "chunk_id": "d:1", "quote": "Not in it."}])[1]
    assert quote_spans(text, gone) == []


def test_citation_panel_highlights_two_quotes_of_one_passage_apart(settings):
    """The page itself: the cited passage's Markdown marks the two quotes and leaves the
    words between them plain."""
    from streamlit.testing.v1 import AppTest

    from core import store

    chunk = next(c for c in store.chunk_rows(settings, "acme") if "Monthly plans" in c["text"])
    text = chunk["text"]
    quotes = ["Monthly plans can be refunded within 14 days of purchase.", "30 days of purchase."]
    cites = [{"index": 1, "chunk_id": chunk["chunk_id"], "doc_id": chunk["doc_id"], "source": "refunds.md",
              "quote": q, "char_start": text.index(q), "char_end": text.index(q) + len(q)} for q in quotes]
    at = AppTest.from_function(_show_citation, default_timeout=30)
    at.session_state["citation"] = merge_by_index(cites)[1]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    shown = next(m.value for m in at.markdown if "-background[" in m.value)
    marked = [seg.split("]", 1)[0] for seg in shown.split("-background[")[1:]]
    assert len(marked) == 2, shown
    assert not any("Annual" in m for m in marked), shown  # between the quotes: not quoted


def test_a_quote_from_a_scanned_page_says_it_was_read_by_ocr(settings, tmp_path):
    """A scan's text is OCR's reading: the citation says so, beside the page image it is
    checked against; a digital page's citation does not."""
    import pymupdf
    from streamlit.testing.v1 import AppTest

    from core import scan_words, store
    from core.documents import ingest_file

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 100), "Receipts must be submitted within 30 days.", fontsize=11)
    doc.save(tmp_path / "expenses.pdf")
    result = ingest_file(settings, "acme", tmp_path / "expenses.pdf")
    chunk = next(c for c in store.chunk_rows(settings, "acme", result.doc_id))
    citation = {"index": 1, "chunk_id": chunk["chunk_id"], "doc_id": result.doc_id, "source": "expenses.pdf",
                "page": 1, "quote": "Receipts must be submitted within 30 days.", "rects": [[72, 90, 300, 102]]}
    at = AppTest.from_function(_show_citation, default_timeout=30)
    at.session_state["citation"] = citation
    at.run()
    assert not any("read by OCR" in c.value for c in at.caption)

    scan_words.save(settings, "acme", result.doc_id, {1: [(72, 90, 120, 102, "Receipts", 0, 0)]})  # as a scan leaves
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Page 1 was read by OCR (a scan, or letters drawn as shapes), so compare the quote with the image." in \
        [c.value for c in at.caption]

    # a page fed upside down was turned to be read: it is shown so, and said so
    scan_words.save(settings, "acme", result.doc_id, {1: [(72, 90, 120, 102, "Receipts", 0, 0)]}, {1: 180})
    assert scan_words.turns(settings, "acme", result.doc_id) == {1: 180}
    assert scan_words.load(settings, "acme", result.doc_id) == {1: [(72, 90, 120, 102, "Receipts", 0, 0)]}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Page 1 was read by OCR (a scan, or letters drawn as shapes), so compare the quote with the image. " \
           "It was fed upside " \
           "down or sideways and is shown turned upright." in [c.value for c in at.caption]


def test_a_quote_from_a_deck_is_cited_by_its_slide(settings, tmp_path):
    """A deck's `page` is its slide number: the citation says "slide 2", never "p. 2", and no
    page image is offered (a deck has no pages to draw)."""
    from pptx import Presentation
    from streamlit.testing.v1 import AppTest

    from core import store
    from core.documents import ingest_file

    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[0]).shapes.title.text = "Onboarding"
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Badges"
    slide.placeholders[1].text = "Visitor badges are returned at the front desk."
    deck.save(str(tmp_path / "onboarding.pptx"))
    result = ingest_file(settings, "acme", tmp_path / "onboarding.pptx")
    chunk = next(c for c in store.chunk_rows(settings, "acme", result.doc_id) if "Visitor" in c["text"])
    quote = "Visitor badges are returned at the front desk."
    at = AppTest.from_function(_show_citation, default_timeout=30)
    at.session_state["citation"] = {"index": 1, "chunk_id": chunk["chunk_id"], "doc_id": result.doc_id,
                                    "source": "onboarding.pptx", "page": chunk["page_start"], "section": "Badges",
                                    "quote": quote, "char_start": chunk["text"].index(quote),
                                    "char_end": chunk["text"].index(quote) + len(quote)}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    head = at.markdown[0].value
    assert "onboarding\\.pptx" in head and "slide 2" in head and "p. 2" not in head, head
    assert not at.image and not at.toggle


def test_add_to_eval_set_offers_the_best_scored_quote_not_the_first_shown():
    # the console QA pass: the water-tank runner-up was offered as the gold quote
    from ui.components import suggested_quote

    answer = {"citations": [
        {"index": 1, "quote": "Never give human painkillers to dogs.", "score": 0.41},
        {"index": 1, "quote": "The boiler pressure is 15 bar.", "score": 0.93},
        {"index": 2, "quote": "The water tank holds 2.4 litres.", "score": 0.52}]}
    assert suggested_quote(answer) == "The boiler pressure is 15 bar."
    assert suggested_quote({"citations": []}) == "" and suggested_quote({}) == ""


def test_the_highlighted_row_of_a_wide_table_is_also_written_out_in_full(settings, write_file):
    """A QA pass: under a refusal, the Zone 2 data price stood in a wide table's last
    column, off the page's edge; the highlighted row is now said cell by cell under it."""
    from core import store
    from core.documents import ingest_file

    assert ingest_file(settings, "acme", write_file("zones.md", (
        "# Roaming zones\n\n| Zone | Countries | Calls out | Calls in | SMS | Data per MB |\n|---|---|---|---|---|---|\n"
        "| Zone 2 | Turkey, Serbia | 0.49 | 0.19 | 0.19 | 0.05 |\n| Zone 3 | USA, Canada | 0.99 | 0.49 | 0.39 | 0.20 |\n"))
    ).status == "ready"
    chunk = next(c for c in store.chunk_rows(settings, "acme") if "| Zone 2 |" in c["text"])
    captions = _closest_captions(chunk, "zones.md", "Roaming zones", "| Zone 2 | Turkey, Serbia | 0.49 | 0.19 | 0.19 | 0.05 |",
                                 "How much is data in Zone 2?")
    captions = [c.replace("\\", "") for c in captions]  # as Markdown shows them, escapes read
    assert ("**Zone**: Zone 2 · **Countries**: Turkey, Serbia · **Calls out**: 0.49 · **Calls in**: 0.19 · "
            "**SMS**: 0.19 · **Data per MB**: 0.05") in captions, captions
