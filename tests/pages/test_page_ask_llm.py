"""Ask and Traces with an LLM endpoint configured: the real `openai` client over HTTP to a
scripted server on 127.0.0.1; the answer shows its provider, the trace its prompt."""

import re
from pathlib import Path

import pytest
from scripted_llm import Reply, ScriptedLLM, is_judge
from streamlit.testing.v1 import AppTest

from core.llm import reset_cool_down

ROOT = Path(__file__).resolve().parents[2]


def script(request):
    if is_judge(request):
        return Reply("SUPPORTED", first_token={"SUPPORTED": 0.95, "UNSUPPORTED": 0.05})
    prompt = request["messages"][1]["content"]
    n = next(m.group(1) for m in re.finditer(r"^\[(\d+)\] \((.*?)\)$", prompt, re.M) if "engine.md" in m.group(2))
    return f"The engine oil capacity is 4.5 litres [{n}]."


@pytest.fixture
def llm_app(data_dir, monkeypatch):
    reset_cool_down()
    with ScriptedLLM(script) as llm:
        monkeypatch.setenv("GROUNDWORK_LLM_BASE_URL", llm.base_url)
        monkeypatch.setenv("GROUNDWORK_LLM_MODEL", "scripted-model")
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        yield at, llm
    reset_cool_down()


def test_llm_answer_shows_provider_and_its_prompt_in_the_trace(llm_app, goto):
    at, llm = llm_app
    assert any(":blue-badge[:material/cloud_done: LLM] scripted\\-model" in m.value for m in at.sidebar.markdown), [m.value for m in at.sidebar.markdown]
    at.chat_input[0].set_value("What is the engine oil capacity?").run()
    assert not at.exception, [e.value for e in at.exception]
    answer = at.session_state["history"]["acme"][-1]
    assert answer["status"] == "answered" and answer["provider"] == "llm", answer.get("refusal_reason")
    assert answer["citations"][0]["quote"] == "The engine oil capacity is 4.5 litres."
    bodies = [m.value for m in at.markdown]
    assert any("llm · scripted\\-model" in b for b in bodies)
    assert len(llm.answers()) == 1
    goto(at, "pages/traces.py")
    at.session_state["trace_tab"] = "Prompt & output"  # what a click on the tab does
    at.run()
    codes = [c.value for c in at.code]
    assert any("What is the engine oil capacity?" in c and "Passages:" in c for c in codes)
    assert any(c.startswith("The engine oil capacity is 4.5 litres [") for c in codes)


def test_a_refusal_at_the_gate_shows_no_model_as_its_provider(llm_app):
    """The provider is `llm`, but the gate refused before any model ran: the answer's header
    names what produced it (extractive), not the configured model."""
    at, llm = llm_app
    at.chat_input[0].set_value("Who is the CEO of Microsoft?").run()
    assert not at.exception, [e.value for e in at.exception]
    answer = at.session_state["history"]["acme"][-1]
    assert answer["status"] == "refused" and llm.requests == []
    assert (answer["provider"], answer["model"]) == ("extractive", None)
    header = next(m.value for m in at.markdown if ":red-badge[:material/block: refused]" in m.value)
    assert "extractive" in header and "llm" not in header and "scripted" not in header
