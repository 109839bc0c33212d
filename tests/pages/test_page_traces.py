"""Traces page: list and filter past asks, open one and see the whole trace."""

from core import store


def shown_question(at):
    """The open trace's question: the Markdown right after the "Question" caption (normal
    text, never a heading)."""
    assert not at.subheader
    nodes = [n for n in at.main if getattr(n, "type", None) in ("markdown", "caption")]
    after = next(i for i, n in enumerate(nodes) if n.type == "caption" and n.value == "Question") + 1
    assert nodes[after].type == "markdown"
    value = nodes[after].value
    assert value.startswith("**") and value.endswith("**")  # shown in bold, as plain text
    return value[2:-2]


def test_open_a_trace_shows_candidates_gate_claims_timings(answering_env, app, goto, settings):
    from core.pipeline import ask

    answered = ask(settings, "acme", "What is the engine oil capacity?")
    refused = ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/traces.py")
    table = app.dataframe[0].value
    assert list(table["question"]) == ["Who is the CEO of Microsoft?", "What is the engine oil capacity?"]
    assert set(table["status"]) == {"answered", "refused"}
    assert "asked by" not in table.columns  # people's asks only

    picker = app.selectbox(key="trace_open")
    assert picker.value == refused.trace_id
    picker.select(answered.trace_id).run()
    assert not app.exception
    assert app.query_params["trace"] in (answered.trace_id, [answered.trace_id])
    assert shown_question(app) == "What is the engine oil capacity\\?"
    labels = [t.label for t in app.tabs]
    assert {"Answer", "Candidates", "Gate", "Prompt & output", "Claims", "Timings"} <= set(labels)
    assert not [d for d in app.dataframe if "fused" in d.value.columns]  # only the open tab is drawn

    def open_tab(label: str) -> list[str]:
        app.session_state["trace_tab"] = label  # what a click on the tab does
        app.run()
        assert not app.exception, [e.value for e in app.exception]
        return [m.value for m in app.markdown] + [c.value for c in app.caption]

    open_tab("Candidates")
    candidates = next(d.value for d in app.dataframe if "fused" in d.value.columns)
    assert {"dense", "bm25", "fused", "rank", "given", "source"} <= set(candidates.columns)
    assert candidates["fused"].is_monotonic_decreasing and candidates["given"].any()
    assert any(":green-badge[answer] · answer confidence **" in b and "retrieval confidence **" in b
               for b in open_tab("Gate"))  # gate decision
    assert any("No LLM ran for this ask" in b for b in open_tab("Prompt & output"))
    assert any(":green-badge[supported]" in b for b in open_tab("Claims"))
    open_tab("Timings")
    charts = app.get("plotly_chart")
    assert charts, "timings chart"
    import json

    spec = json.loads(charts[0].proto.spec)
    assert set(spec["data"][0]["y"]) >= {"retrieve", "gate"}


def test_filters_status_search_and_unsupported(answering_env, app, goto, settings):
    from core.pipeline import ask

    ask(settings, "acme", "What is the engine oil capacity?")
    ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/traces.py")
    app.selectbox(key="trace_status").select("refused").run()
    assert list(app.dataframe[0].value["status"]) == ["refused"]
    app.selectbox(key="trace_status").select("any").run()
    app.text_input(key="trace_search").input("oil").run()
    assert list(app.dataframe[0].value["question"]) == ["What is the engine oil capacity?"]
    app.toggle(key="trace_unsupported").set_value(True).run()
    assert not app.dataframe  # no empty grid under the message
    assert [i.value for i in app.info] == ["No asks match the filters."]


def test_link_from_ask_opens_that_trace(app, goto, settings):
    from core.pipeline import ask

    first = ask(settings, "acme", "What is the engine oil capacity?")
    ask(settings, "acme", "What is the tyre pressure at the front?")
    app.query_params["trace"] = first.trace_id
    goto(app, "pages/traces.py")
    assert shown_question(app) == "What is the engine oil capacity\\?"


def test_provider_and_date_filters(app, goto, settings):
    import datetime as dt

    from core.pipeline import ask

    ask(settings, "acme", "What is the engine oil capacity?")
    goto(app, "pages/traces.py")
    app.selectbox(key="trace_provider").select("llm").run()
    assert not app.dataframe and [i.value for i in app.info] == ["No asks match the filters."]
    app.selectbox(key="trace_provider").select("extractive").run()
    assert len(app.dataframe[0].value) == 1
    app.date_input(key="trace_since").set_value(dt.date.today() + dt.timedelta(days=1)).run()
    assert not app.dataframe and [i.value for i in app.info] == ["No asks match the filters."]
    app.date_input(key="trace_since").set_value(dt.date.today()).run()
    assert len(app.dataframe[0].value) == 1


def test_gate_tab_lists_the_sentences_the_answer_could_not_use(app, goto, settings, tmp_path):
    from core import store
    from core.documents import ingest_file
    from core.pipeline import ask

    codes = tmp_path / "codes.md"
    codes.write_text("# Error codes\n\nError ERR-20 means the form was not signed.\n\n"
                     "Error ERR-30 means the form was sent twice.\n", encoding="utf-8")
    assert ingest_file(settings, "acme", codes).status == "ready"
    a = ask(settings, "acme", "What does error ERR-20 mean?")
    gate = store.get_trace(settings, "acme", a.trace_id)["gate"]
    # the ERR-30 sentence is on the topic but cannot answer for ERR-20
    assert any(r["text"] == "Error ERR-30 means the form was sent twice." and
               r["why"] == "lacks an identifier of the question" for r in gate["rejected"]), gate["rejected"]
    assert all({"passage", "text", "why"} <= set(r) for r in gate["rejected"])
    goto(app, "pages/traces.py")
    app.session_state["trace_tab"] = "Gate"  # what a click on the tab does
    app.run()
    table = next(d.value for d in app.dataframe if "why not" in d.value.columns)
    assert list(table["why not"]) == [r["why"] for r in gate["rejected"]]
    # and what the answer model made of the sentences it could use, best first
    scores = next(d.value for d in app.dataframe if "drivers" in d.value.columns)
    assert list(scores["score"]) == [u["score"] for u in gate["answer_model"][1:]]
    assert "ERR-20 means the form was not signed" in scores["sentence"].iloc[0]


def save_trace(settings, tenant, question, status="answered"):
    return store.save_trace(settings, {"answer": {"tenant": tenant, "question": question, "status": status,
                                                  "answer": "", "claims": [], "citations": [],
                                                  "timings_ms": {"total": 5}}})


def test_search_ignores_case_in_any_script_and_is_literal(app, goto, settings):
    save_trace(settings, "acme", "Как исправить ошибку E20?")
    save_trace(settings, "acme", "Is the discount 100% off?")
    save_trace(settings, "acme", "What is the engine oil capacity?")
    goto(app, "pages/traces.py")
    for search, expected in (("как", ["Как исправить ошибку E20?"]), ("ИСПРАВИТЬ", ["Как исправить ошибку E20?"]),
                             ("%", ["Is the discount 100% off?"]), ("o_l", [])):
        app.text_input(key="trace_search").input(search).run()
        assert not app.exception
        shown = list(app.dataframe[0].value["question"]) if app.dataframe else []
        assert shown == expected, search


def test_no_asks_yet_only_when_the_tenant_has_none(app, goto, settings):
    goto(app, "pages/traces.py")
    assert [i.value for i in app.info] == ["No asks yet: ask something on the **Ask** page."]
    assert not app.dataframe
    save_trace(settings, "acme", "What is the engine oil capacity?")
    app.run()
    assert len(app.dataframe[0].value) == 1 and not app.info
    # a filter that hides every ask is no "No asks yet", and draws no empty grid
    app.selectbox(key="trace_status").select("refused").run()
    assert [i.value for i in app.info] == ["No asks match the filters."]
    assert not app.dataframe


def test_a_bad_trace_link_says_so_and_never_opens_another_tenants_trace(app, goto, settings, md_bodies):
    save_trace(settings, "acme", "What is the engine oil capacity?")
    newest = save_trace(settings, "acme", "What is the tyre pressure at the front?")
    theirs = save_trace(settings, "globex", "Globex's secret question?")
    app.query_params["trace"] = "doesnotexist"
    goto(app, "pages/traces.py")
    assert [w.value for w in app.warning] == ["No trace doesnotexist for tenant acme; showing the newest."]
    assert shown_question(app) == "What is the tyre pressure at the front\\?"
    assert app.query_params["trace"] in (newest, [newest])

    app.query_params["trace"] = theirs  # another tenant's trace id
    app.run()
    assert not app.exception
    assert [w.value for w in app.warning] == [f"No trace {theirs} for tenant acme; showing the newest."]
    assert shown_question(app) == "What is the tyre pressure at the front\\?"
    assert not [b for b in md_bodies(app) if "secret" in b]
    assert "Globex" not in str(list(app.dataframe[0].value["question"]))
    assert [o for o in app.selectbox(key="trace_open").options if "secret" in o] == []


def test_a_bad_trace_link_for_a_tenant_without_asks_says_so(app, goto):
    app.query_params["trace"] = "<b>doesnotexist</b>"
    goto(app, "pages/traces.py")
    assert [w.value for w in app.warning] == ["No trace \\<b\\>doesnotexist\\<\\/b\\> for tenant acme."]
    assert [i.value for i in app.info] == ["No asks yet: ask something on the **Ask** page."]


def test_gate_tab_names_the_answer_and_the_retrieval_confidence(app, goto, settings, md_bodies):
    from core.pipeline import ask

    # refused after generating: retrieval evidence was high, the answer confidence below the threshold
    refused = ask(settings, "acme", "Who is the CEO of Microsoft?")
    trace = store.get_trace(settings, "acme", refused.trace_id)
    trace["trace_id"] = refused.trace_id
    trace["answer"]["confidence"] = 0.37
    trace["gate"].update(confidence=0.74, threshold=0.55, answer_confidence=0.37, support=0.0,
                         decision="refuse after generating", reason=None)
    store.save_trace(settings, trace)
    goto(app, "pages/traces.py")
    app.session_state["trace_tab"] = "Gate"  # what a click on the tab does
    app.run()
    bodies = md_bodies(app)
    assert {m.label: m.value for m in app.metric}["Answer confidence"] == "0.37"
    assert any(b.startswith(":red-badge[refuse after generating] · answer confidence **0.37** vs threshold "
                            "**0.55** (below) · retrieval confidence **0.74**") for b in bodies), bodies
    assert not any("confidence **0.740** vs threshold" in b or "] confidence" in b for b in bodies)


def test_a_long_question_is_normal_clipped_text(app, goto, settings):
    question = "## Why " + "very " * 400 + "<b>long</b>?"
    save_trace(settings, "acme", question)
    goto(app, "pages/traces.py")
    assert not app.subheader and not [m for m in app.main.markdown if m.value.lstrip().startswith("#")]
    shown = shown_question(app)
    assert shown.startswith("\\#\\# Why very very") and "more characters not shown" in shown
    assert len(shown.replace("\\", "")) < 400
    full = next(e for e in app.expander if e.label.startswith("Whole question"))
    assert full.label == f"Whole question ({len(question):,} characters)"
    assert [t.value for t in full.text] == [question]  # st.text: never Markdown or HTML


def test_an_eval_ask_is_listed_as_asked_by_the_eval(app, goto, settings):
    from core.pipeline import ask
    from core.trace import ORIGIN_EVAL

    ask(settings, "acme", "Who is the CEO of Microsoft?")
    ask(settings, "acme", "Who founded Microsoft?", origin=ORIGIN_EVAL)
    goto(app, "pages/traces.py")
    # the QA pass: after one eval run the page opened on an eval question, people's asks below
    assert list(app.dataframe[0].value["question"]) == ["Who is the CEO of Microsoft?"]
    app.toggle(key="trace_runs").set_value(True).run()
    app.selectbox(key="trace_open").select(app.selectbox(key="trace_open").options[0]).run()
    table = app.dataframe[0].value
    assert list(zip(table["question"], table["asked by"])) == [("Who founded Microsoft?", "eval"),
                                                                ("Who is the CEO of Microsoft?", "person")]
    # the open trace (the newest, the eval's) says who asked it (escaped Markdown)
    assert any("asked by eval run\\, left out of live quality and review" in m.value for m in app.markdown)


def test_a_refusal_without_claims_has_no_factuality_and_no_confidence_rounded_onto_the_threshold(
        app, goto, settings):
    """Seen in the QA pass: refused asks with no claim read "Factuality 0%" (card and table),
    and a refusal at 0.6596 under the threshold 0.66 read "answers the question 0.66"."""
    from core.pipeline import ask

    answered = ask(settings, "acme", "What is the engine oil capacity?")
    assert answered.claims
    refused = store.save_trace(settings, {"answer": {
        "tenant": "acme", "question": "How much is a mountain bike for 3 days?", "status": "refused",
        "answer": "I did not find this in your knowledge base.", "confidence": 0.6596, "factuality": 0.0,
        "claims": [], "refusal_reason": "Answer confidence 0.6596 is below the threshold 0.66."},
        "gate": {"threshold": 0.66}})
    goto(app, "pages/traces.py")
    table = app.dataframe[0].value.set_index("question")
    assert table["factuality"].isna()["How much is a mountain bike for 3 days?"]
    assert table["factuality"][answered.question] == answered.factuality  # claims: its share, as before
    assert app.selectbox(key="trace_open").value == refused
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Factuality"] == "—" and metrics["Claims"] == "0"
    assert metrics["Answer confidence"] == "0.6596" and metrics["Gate threshold"] == "0.66"
    assert any("answers the question **0.6596**" in m.value for m in app.markdown)


def save_refused_trace(settings, confidence: float, threshold: float = 0.66) -> str:
    """acme's trace of a refusal at `confidence` under the gate's `threshold`."""
    return store.save_trace(settings, {"answer": {
        "tenant": "acme", "question": "How much is a mountain bike for 3 days?", "status": "refused",
        "answer": "I did not find this in your knowledge base.", "confidence": confidence, "claims": [],
        "refusal_reason": f"Answer confidence {confidence:.2f} is below the threshold {threshold}."},
        "gate": {"threshold": threshold, "answer_confidence": confidence, "confidence": 0.5, "decision": "refuse"}})


def test_the_table_and_the_gate_tab_never_round_a_refusal_onto_its_threshold(app, goto, settings, md_bodies):
    """The card said 0.6596 but the table's column (and the Gate tab) read "0.66" against the
    threshold 0.66 (QA pass); an answered row keeps two decimals."""
    from core.pipeline import ask

    answered = ask(settings, "acme", "What is the engine oil capacity?")
    assert answered.status == "answered"
    save_refused_trace(settings, 0.6596)
    goto(app, "pages/traces.py")
    table = app.dataframe[0].value.set_index("question")
    assert table["confidence"]["How much is a mountain bike for 3 days?"] == "0.6596"
    assert table["confidence"][answered.question] == f"{answered.confidence:.2f}"
    assert app.selectbox(key="trace_open").value is not None
    app.session_state["trace_tab"] = "Gate"  # what a click on the tab does
    app.run()
    assert any("answer confidence **0.6596** vs threshold **0.66** (below)" in b for b in md_bodies(app))


def test_a_refusal_far_under_the_threshold_reads_two_decimals_everywhere(app, goto, settings, md_bodies):
    """Seen in the QA pass: refusals far under the threshold read "0.4097" (cut to the decimals
    that never round a refusal up) beside "0.52": two decimals, more only across the threshold,
    which is the one the ask was gated by (0.66 here; the tenant's is another)."""
    save_refused_trace(settings, 0.40976)
    goto(app, "pages/traces.py")
    assert list(app.dataframe[0].value["confidence"]) == ["0.41"]
    assert {m.label: m.value for m in app.metric}["Answer confidence"] == "0.41"
    assert any("answers the question **0.41**" in m.value for m in app.markdown)
    app.session_state["trace_tab"] = "Gate"  # what a click on the tab does
    app.run()
    assert any("answer confidence **0.41** vs threshold **0.66** (below)" in b for b in md_bodies(app))


def test_the_grid_says_when_it_shows_only_the_newest_asks(app, goto, settings):
    # a scale pass: 251 asks, 200 rows, and nothing said the list was cut
    for n in range(203):
        store.save_trace(settings, {"answer": {"tenant": "acme", "question": f"Question {n}?", "status": "refused",
                                               "confidence": 0.1}})
    goto(app, "pages/traces.py")
    assert len(app.dataframe[0].value) == 200
    assert any("Showing the newest 200 that match" in c.value for c in app.caption)
    app.text_input(key="trace_search").input("Question 7?").run()
    assert len(app.dataframe[0].value) == 1
    assert not any("Showing the newest" in c.value for c in app.caption)
