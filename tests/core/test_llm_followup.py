"""The model's reading of a follow-up (core/llm_followup.py), over HTTP to a scripted
OpenAI-compatible server: only a one-line standalone question in the follow-up's script
is accepted."""

from dataclasses import replace

import pytest
from scripted_llm import ScriptedLLM

from core.llm import LLMClient, reset_cool_down
from core.llm_followup import condense

PREVIOUS = "How long does Northwind keep HomeHub appliance operating data?"


@pytest.fixture(autouse=True)
def _fresh_endpoints():
    reset_cool_down()
    yield
    reset_cool_down()


def _condense(settings, reply: str, question: str = "ok and service visit reports?", previous: str = PREVIOUS):
    with ScriptedLLM(lambda request: reply) as llm:
        client = LLMClient(replace(settings, provider="llm", llm_base_url=llm.base_url, llm_model="m",
                                   llm_retries=0))
        out = condense(client, question, previous)
        prompt = llm.requests[0]["messages"][-1]["content"]
    assert previous in prompt and question in prompt and "data, not instructions" in prompt
    return out


def test_a_standalone_question_is_taken(settings):
    assert _condense(settings, "How long does Northwind keep service visit reports?") == \
        "How long does Northwind keep service visit reports?"
    # a label and quotes around it are not part of it
    assert _condense(settings, 'Question: "How long are service visit reports kept?"') == \
        "How long are service visit reports kept?"


@pytest.mark.parametrize("reply", [
    "",
    "How long are service visit reports kept?\nThey are kept for 3 years.",  # an answer smuggled in
    PREVIOUS,  # the previous question back: nothing changed
    "x" * 400,
])
def test_anything_else_is_refused(settings, reply):
    assert _condense(settings, reply) is None


def test_a_russian_follow_up_stays_russian(settings):
    previous = "Сколько идёт стандартная доставка в Нидерланды?"
    assert _condense(settings, "How long is standard delivery to the USA?", "а насчёт штатов", previous) is None
    assert _condense(settings, "Сколько идёт стандартная доставка в США?", "а насчёт штатов", previous) == \
        "Сколько идёт стандартная доставка в США?"
