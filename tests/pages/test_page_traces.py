"""Traces page: list and filter past asks, open one and see the whole trace."""


def test_open_a_trace_shows_candidates_gate_claims_timings(app, goto, settings):
    from core.pipeline import ask

    answered = ask(settings, "acme", "What is the engine oil capacity?")
    refused = ask(settings, "acme", "Who is the CEO of Microsoft?")
    goto(app, "pages/traces.py")
    table = app.dataframe[0].value
    assert list(table["question"]) == ["Who is the CEO of Microsoft?", "What is the engine oil capacity?"]
    assert set(table["status"]) == {"answered", "refused"}

    picker = app.selectbox(key="trace_open")
    assert picker.value == refused.trace_id
    picker.select(answered.trace_id).run()
    assert not app.exception
    assert app.query_params["trace"] in (answered.trace_id, [answered.trace_id])
    assert app.subheader[0].value == "What is the engine oil capacity\\?"
    labels = [t.label for t in app.tabs]
    assert {"Answer", "Candidates", "Gate", "Prompt & output", "Claims", "Timings"} <= set(labels)
    candidates = next(d.value for d in app.dataframe if "fused" in d.value.columns)
    assert {"dense", "bm25", "fused", "rank", "given", "source"} <= set(candidates.columns)
    assert candidates["fused"].is_monotonic_decreasing and candidates["given"].any()
    bodies = [m.value for m in app.markdown] + [c.value for c in app.caption]
    assert any(":green-badge[answer] confidence" in b for b in bodies)  # gate decision
    assert any("No LLM ran for this ask" in b for b in bodies)
    assert any(":green-badge[supported]" in b for b in bodies)
    charts = app.get("plotly_chart")
    assert charts, "timings chart"
    import json

    spec = json.loads(charts[0].proto.spec)
    assert set(spec["data"][0]["y"]) >= {"retrieve", "gate"}


def test_filters_status_search_and_unsupported(app, goto, settings):
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
    assert app.dataframe[0].value.empty
    assert any("No asks match" in i.value for i in app.info)


def test_link_from_ask_opens_that_trace(app, goto, settings):
    from core.pipeline import ask

    first = ask(settings, "acme", "What is the engine oil capacity?")
    ask(settings, "acme", "What is the tyre pressure at the front?")
    app.query_params["trace"] = first.trace_id
    goto(app, "pages/traces.py")
    assert app.subheader[0].value == "What is the engine oil capacity\\?"


def test_provider_and_date_filters(app, goto, settings):
    import datetime as dt

    from core.pipeline import ask

    ask(settings, "acme", "What is the engine oil capacity?")
    goto(app, "pages/traces.py")
    app.selectbox(key="trace_provider").select("llm").run()
    assert app.dataframe[0].value.empty
    app.selectbox(key="trace_provider").select("extractive").run()
    assert len(app.dataframe[0].value) == 1
    app.date_input(key="trace_since").set_value(dt.date.today() + dt.timedelta(days=1)).run()
    assert app.dataframe[0].value.empty
    app.date_input(key="trace_since").set_value(dt.date.today()).run()
    assert len(app.dataframe[0].value) == 1


def test_gate_tab_lists_the_sentences_the_answer_could_not_use(app, goto, settings):
    from core import store
    from core.pipeline import ask

    a = ask(settings, "acme", "How many days does the engine oil capacity change take?")
    rejected = store.get_trace(settings, "acme", a.trace_id)["gate"]["rejected"]
    assert a.status == "refused"
    # the capacity sentence is on the topic but is no answer to "how many days"
    assert {"passage": 1, "text": "The engine oil capacity is 4.5 litres.", "why": "holds no duration"} in rejected
    assert rejected and all({"passage", "text", "why"} <= set(r) for r in rejected)
    goto(app, "pages/traces.py")
    table = next(d.value for d in app.dataframe if "why not" in d.value.columns)
    assert list(table["why not"]) == [r["why"] for r in rejected]
