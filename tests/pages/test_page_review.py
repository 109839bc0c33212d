"""Review page: the queue of refused and doubtful asks, and each way of resolving one."""

import json


def test_empty_queue_says_so(app, goto):
    goto(app, "pages/review.py")
    assert any("Nothing to review" in i.value for i in app.info)
    assert [m.label for m in app.metric][:2] == ["Open", "Refused"]


def test_a_refused_ask_is_resolved_into_an_answerable_row_with_its_quote(app, goto, settings, data_dir):
    from core.pipeline import ask

    answer = ask(settings, "acme", "Who is the CEO of Microsoft?")
    assert answer.status == "refused"
    goto(app, "pages/review.py")
    assert app.metric[0].value == "1"
    table = app.dataframe[0].value
    assert list(table["question"]) == ["Who is the CEO of Microsoft?"] and list(table["why"]) == ["refused: names something the documents never mention"]
    assert table["trace"][0].startswith("traces?trace=" + answer.trace_id)
    tab_labels = [t.label for t in app.tabs]
    assert tab_labels == ["The passage that answers it", "Should be refused", "Teach a word"]

    # a quote edited so it is no longer the passage's words is refused with one sentence
    app.text_area[0].input("The CEO is someone.")  # form widgets: sent with the submit
    next(b for b in app.button if b.label == "This passage answers it").click().run()
    assert any("copied exactly" in e.value for e in app.error)
    assert not (data_dir / "eval_sets" / "acme-feedback.jsonl").exists()

    from core.review import passages

    passage = passages(settings, "acme", answer.trace_id)[0]["text"]  # the first form's passage
    first_sentence = passage.split(". ")[0].strip()
    first_sentence = first_sentence if first_sentence.endswith(".") else first_sentence + "."
    quote = first_sentence if first_sentence in passage else passage
    app.text_area[0].input(quote)
    next(b for b in app.button if b.label == "This passage answers it").click().run()
    assert not app.exception
    rows = [json.loads(line) for line in (data_dir / "eval_sets" / "acme-feedback.jsonl").read_text().splitlines()]
    assert len(rows) == 1 and rows[0]["kind"] == "answerable" and rows[0]["gold_quote"]
    assert rows[0]["gold_quote"] in " ".join(passage.split())
    assert any("answerable eval row" in s.value for s in app.success)
    assert app.metric[0].value == "0"  # decided: off the open queue


def test_marking_unanswerable_and_showing_decided_asks(app, goto, settings, data_dir):
    from core.pipeline import ask

    answer = ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/review.py")
    next(b for b in app.button if b.label == "Truly unanswerable").click().run()
    row = json.loads((data_dir / "eval_sets" / "acme-feedback.jsonl").read_text().splitlines()[0])
    assert row["kind"] == "unanswerable" and row["expected_answer"] is None
    assert any("Nothing to review" in i.value for i in app.info)
    app.toggle(key="review_show_resolved").set_value(True).run()
    assert list(app.dataframe[0].value["decision"]) == ["unanswerable"]
    next(b for b in app.button if b.label == "Reopen").click().run()
    app.toggle(key="review_show_resolved").set_value(False).run()
    assert list(app.dataframe[0].value["question"]) == [answer.question]


def test_teaching_a_word_saves_a_synonym(app, goto, settings):
    from core.config import load_tenant_overrides
    from core.pipeline import ask

    ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/review.py")
    app.text_input[-2].input("boss")
    app.text_input[-1].input("oil capacity")
    next(b for b in app.button if b.label == "Teach the synonym").click().run()
    assert not app.exception
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"boss": "oil capacity"}


def test_teach_a_word_starts_with_the_word_the_refusal_named(app, goto, settings):
    """Seen in the QA pass: for a refusal over an unknown word the "User's word" field
    started blank, the word to be retyped from the reason above it."""
    from core.config import load_tenant_overrides
    from core.pipeline import ask

    answer = ask(settings, "acme", "What is the lubricant capacity?")
    assert answer.refusal_code == "unknown_word" and answer.refusal_subject == "lubricant"
    goto(app, "pages/review.py")
    field = next(t for t in app.text_input if t.label == "User's word")
    assert field.value == "lubricant"
    app.text_input[-1].input("engine oil")
    next(b for b in app.button if b.label == "Teach the synonym").click().run()
    assert load_tenant_overrides(settings, "acme")["synonyms"] == {"lubricant": "engine oil"}


def test_the_passages_of_one_document_are_told_apart_by_their_section(app, goto, settings):
    """Seen in the QA pass: six passages read "1. built-ins__keep-alive.md" ...
    "6. built-ins__keep-alive.md", nothing telling them apart until each was opened."""
    from core.pipeline import ask

    ask(settings, "acme", "What does the engine manual say about tyre pressure and oil?")
    goto(app, "pages/review.py")
    labels = [e.label for e in app.expander if e.label[:1].isdigit()]
    engine = [label for label in labels if "engine.md" in label]
    assert engine and all(" · § " in label for label in engine), labels
    assert len(set(engine)) == len(engine)


def test_a_long_section_path_keeps_its_end_in_the_passage_label():
    """A PDF's passages were labelled "§ GENERAL CONDITIONS OF CARRIAGE > Passengers and
    Baggage > Article 6 — Check … [16 more characters not shown]": the cut took the article,
    the one part telling them apart (QA pass)."""
    from ui.review import LABEL_CHARS, passage_label

    label = passage_label({"source": "general-conditions-of-carriage.pdf", "page": 2,
                           "section": "GENERAL CONDITIONS OF CARRIAGE > Passengers and Baggage > "
                                      "Article 6 — Check-in and boarding and other long headings"})
    assert label.endswith("Article 6 — Check-in and boarding and other long headings"), label
    assert label.startswith("general-conditions-of-carriage.pdf, p. 2 · § … > ")
    assert "not shown" not in label and len(label) <= LABEL_CHARS
    assert passage_label({"source": "engine.md", "section": "Engine manual > Tyres"}) == "engine.md · § Engine manual > Tyres"


def test_a_refused_ask_says_refused_once_beside_its_badge(app, goto, settings):
    """The opened ask's line read "(refused badge) refused · confidence 0.00": the badge's
    word said again as the reason (QA pass)."""
    from core.pipeline import ask
    from ui.format import status_badge_md

    assert ask(settings, "acme", "Who is the CEO of Microsoft?").status == "refused"
    goto(app, "pages/review.py")
    badge = status_badge_md("refused")
    line = next(m.value for m in app.markdown if m.value.startswith(badge))
    assert not line[len(badge):].strip().startswith("refused"), line
    assert "confidence" in line


def test_a_refusal_just_under_the_threshold_is_never_shown_on_it(app, goto, settings):
    """A refusal at 0.6596 under the threshold 0.66 read "0.66" in the queue and on the opened
    ask's line (QA pass): refused, its confidence is cut, never rounded up onto the threshold."""
    from core import store
    from ui.format import status_badge_md

    store.save_trace(settings, {"answer": {
        "tenant": "acme", "question": "How much is a mountain bike for 3 days?", "status": "refused",
        "answer": "I did not find this in your knowledge base.", "confidence": 0.6596, "claims": [],
        "refusal_reason": "Answer confidence 0.6596 is below the threshold 0.66."}, "gate": {"threshold": 0.66}})
    goto(app, "pages/review.py")
    assert list(app.dataframe[0].value["confidence"]) == ["0.6596"]
    line = next(m.value for m in app.markdown if m.value.startswith(status_badge_md("refused")))
    assert "confidence 0.6596" in line, line


def test_a_follow_up_shows_what_it_was_read_as(app, goto, settings):
    # a QA pass: Review showed only "а в Екатеринбург?", the reading only on Traces
    from core import store

    store.save_trace(settings, {"answer": {
        "tenant": "acme", "question": "а в Екатеринбург?", "asked_as": "Сколько стоит доставка в Екатеринбург?",
        "status": "refused", "answer": "I did not find this in your knowledge base.", "confidence": 0.3,
        "claims": []}, "gate": {"threshold": 0.66}})
    goto(app, "pages/review.py")
    assert "Read as a follow-up: Сколько стоит доставка в Екатеринбург\\?" in [c.value for c in app.caption]


def test_a_refusal_far_under_the_threshold_reads_two_decimals(app, goto, settings):
    """Seen in the QA pass: the queue read "0.4097" and "0.2087" beside "0.52" and "0.47": two
    decimals, more only when two would read on or over the threshold the ask was refused under."""
    from core import store
    from ui.format import status_badge_md

    for question, confidence in (("How much is a tandem for a week?", 0.2087),
                                 ("How much is a mountain bike for 3 days?", 0.40976)):
        store.save_trace(settings, {"answer": {
            "tenant": "acme", "question": question, "status": "refused", "claims": [],
            "answer": "I did not find this in your knowledge base.", "confidence": confidence,
            "refusal_reason": "Answer confidence is below the threshold 0.66."}, "gate": {"threshold": 0.66}})
    goto(app, "pages/review.py")
    assert list(app.dataframe[0].value["confidence"]) == ["0.41", "0.21"]
    line = next(m.value for m in app.markdown if m.value.startswith(status_badge_md("refused")))
    assert line.endswith("confidence 0.41"), line


def test_each_card_counts_the_open_asks_waiting_for_its_reason(app, goto, settings):
    """Seen in a QA pass: an answer rated down on the Ask page left the Rated down card at 0,
    counted under the first of its reasons. Each card counts every open ask waiting for its
    reason; Open counts each ask once."""
    from core import review, store

    def saved(question, status, confidence, route="auto"):
        return store.save_trace(settings, {"answer": {
            "tenant": "acme", "question": question, "status": status, "confidence": confidence, "claims": [],
            "answer": "I did not find this." if status == "refused" else "It is so [1].", "route": route}})

    saved("Who is the CEO?", "refused", 0.2, "human")
    store.add_feedback(settings, "acme", saved("Who founded it?", "refused", 0.3, "human"), -1)  # two reasons
    saved("How much oil?", "answered", review.review_below(settings) - 0.01, "human")
    saved("How much coolant?", "narrowed", 0.99, "human")  # routed to a person only
    saved("Which tyres?", "answered", 0.99, "human")  # routed to a person only
    goto(app, "pages/review.py")
    cards = {m.label: int(m.value) for m in app.metric if m.label != "Oldest waiting"}
    assert cards == {"Open": 5, "Refused": 2, "Near the threshold": 1, "Rated down": 1, "Routed to a person": 2,
                     "Spot checks": 0}
    assert "routed to a person" in list(app.dataframe[0].value["why"])  # the table still says each reason


def test_an_answer_rated_down_is_shown_open_for_the_reviewer(app, goto, settings):
    # a QA pass: the answer to judge sat in a collapsed "The answer given" for every item
    from core import store

    trace = store.save_trace(settings, {"answer": {
        "tenant": "acme", "question": "What is the learning budget?", "status": "answered", "confidence": 0.9,
        "claims": [], "answer": "Learning budget of 800 EUR per calendar year. [1]", "route": "auto"}})
    store.add_feedback(settings, "acme", trace, -1, "only the basic tier")
    goto(app, "pages/review.py")
    given = next(e for e in app.expander if e.label == "The answer given")
    assert given.proto.expanded
    assert any("800 EUR" in t.value for t in given.text)


def test_one_question_asked_twice_is_one_row_saying_so(app, goto, settings):
    from core import store

    for _ in range(2):
        store.save_trace(settings, {"answer": {
            "tenant": "acme", "question": "Who is the CEO?", "status": "refused", "confidence": 0.2, "claims": [],
            "answer": "I did not find this in your knowledge base."}})
    goto(app, "pages/review.py")
    assert list(app.dataframe[0].value["question"]) == ["Who is the CEO? (asked 2 times)"]
    assert {m.label: int(m.value) for m in app.metric if m.label == "Open"} == {"Open": 1}


def test_confident_answers_drawn_for_a_spot_check_wait_under_their_own_card(app, goto, settings, monkeypatch):
    # a QA pass: wrong answers at 0.85 showed nowhere a manager looks until someone rated them down
    from core import store

    monkeypatch.setenv("GROUNDWORK_REVIEW_SAMPLE", "1")  # every confident answer drawn
    for question in ("Which tyres?", "How much coolant?"):
        store.save_trace(settings, {"answer": {"tenant": "acme", "question": question, "status": "answered",
                                               "confidence": 0.99, "claims": [], "answer": "It is so [1].",
                                               "route": "auto"}})
    goto(app, "pages/review.py")
    cards = {m.label: int(m.value) for m in app.metric if m.label != "Oldest waiting"}
    assert cards["Spot checks"] == 2 and cards["Open"] == 2
    assert list(app.dataframe[0].value["why"]) == ["spot check", "spot check"]


def test_a_long_queue_is_filtered_by_the_words_typed(app, goto, settings):
    from core import store

    for n in range(10):
        topic = "parking" if n % 3 == 0 else "leave"
        store.save_trace(settings, {"answer": {
            "tenant": "acme", "question": f"Question {n} about {topic}?", "status": "refused", "confidence": 0.2,
            "claims": [], "answer": "I did not find this in your knowledge base."}})
    goto(app, "pages/review.py")
    assert len(app.dataframe[0].value) == 10
    app.text_input(key="review_filter").input("PARKING question").run()
    questions = list(app.dataframe[0].value["question"])
    assert sorted(questions) == ["Question 0 about parking?", "Question 3 about parking?",
                                 "Question 6 about parking?", "Question 9 about parking?"]
    assert any("4 of 10 asks match" in c.value for c in app.caption)
    # the ask opened below the grid is one of the matches, not the newest of all
    assert any("about parking" in m.value for m in app.markdown)
    app.text_input(key="review_filter").input("nothing like this").run()
    assert any("0 of 10 asks match" in c.value for c in app.caption) and not app.dataframe


def test_a_short_queue_has_no_filter(app, goto, settings):
    from core.pipeline import ask

    ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/review.py")
    assert not [t for t in app.text_input if t.key == "review_filter"]
