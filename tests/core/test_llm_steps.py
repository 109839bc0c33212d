"""The model-driven steps (core/llm_steps.py) through the real `openai` client against a
scripted server: each changes what it should, is traced, and falls back when the model fails."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from scripted_llm import Reply, ScriptedLLM, is_judge

from core import store
from core.llm_steps import held_by_a_passage, yes_probability
from core.pipeline import ask
from tests.core.test_llm_pipeline import SUPPORTED, _fresh_endpoints, llm_settings, passage_with  # noqa: F401

pytestmark = pytest.mark.slow


def _text(request) -> str:
    return "\n".join(m["content"] for m in request["messages"])


def _kind(request) -> str:
    text = _text(request)
    if is_judge(request):
        return "judge"
    for marker, kind in (("Which passages contain information", "grade"), ("Rewrite the question once", "rewrite"),
                         ("Write three short follow-up questions", "suggest"),
                         ("Does the text answer the question?", "answers")):
        if marker in text:
            return kind
    return "answer"


def test_grading_keeps_only_the_passages_the_model_calls_relevant(answering):
    sent = []

    def script(request):
        kind = _kind(request)
        if kind == "grade":
            blocks = re.split(r"\n(?=\[\d+\] )", _text(request))
            return next(b[1:b.index("]")] for b in blocks if b.startswith("[") and "5 quarts" in b)
        if kind == "judge":
            return SUPPORTED
        sent.append(_text(request))
        return f"The engine holds 5 quarts of oil with the filter [{passage_with(request, '5 quarts')}]."

    with ScriptedLLM(script) as llm:
        a = ask(llm_settings(answering, llm, llm_grade_passages=True), "demo", "What is the oil capacity?")
    assert a.status == "answered", a.refusal_reason
    assert a.steps["grade_passages"]["kept"] == 1 and a.steps["grade_passages"]["of"] > 1
    assert len(re.findall(r"^\[\d+\] \(", sent[0], re.M)) == 1  # one passage went to the model
    assert store.get_trace(answering, "demo", a.trace_id)["answer"]["steps"]["grade_passages"]["kept"] == 1


def test_self_check_rewrites_once_and_keeps_the_better_answer(answering):
    def script(request):
        kind = _kind(request)
        if kind == "rewrite":
            return "What is the engine oil capacity with a filter change?"
        if kind == "judge":
            return SUPPORTED
        if "with a filter change" in _text(request):
            return f"The engine holds 5 quarts of oil with the filter [{passage_with(request, '5 quarts')}]."
        return "NOT_FOUND"

    with ScriptedLLM(script) as llm:
        a = ask(llm_settings(answering, llm, llm_self_check=True), "demo", "How much oil goes in?")
        rewrites = [r for r in llm.requests if _kind(r) == "rewrite"]
    assert len(rewrites) == 1
    assert a.status == "answered" and "5 quarts" in a.answer
    assert a.question == "How much oil goes in?" and a.asked_as == "What is the engine oil capacity with a filter change?"
    assert a.steps["self_check"]["kept"] == "rewritten"
    assert store.get_trace(answering, "demo", a.trace_id)["self_check"]["other_trace"]


def test_suggestions_never_promise_what_the_passages_do_not_hold(answering):
    def script(request):
        kind = _kind(request)
        if kind == "suggest":
            return ("How often should the engine oil be changed?\nWhat oil grade does the engine use?\n"
                    "Which Mars colony sells spare rockets?\nHow much oil does the engine hold with the filter?")
        if kind == "judge":
            return SUPPORTED
        return f"The engine holds 5 quarts of oil with the filter [{passage_with(request, '5 quarts')}]."

    with ScriptedLLM(script) as llm:
        a = ask(llm_settings(answering, llm, llm_suggest_followups=True), "demo", "What is the oil capacity?")
    assert a.status == "answered"
    assert 1 <= len(a.suggestions) <= 3 and not any("Mars" in s for s in a.suggestions)


def test_every_step_falls_back_when_the_model_is_dead(answering):
    dead = replace(answering, provider="llm", llm_base_url="http://127.0.0.1:9/v1", llm_model="x", llm_retries=0,
                   llm_timeout_s=2.0, llm_grade_passages=True, llm_self_check=True, llm_suggest_followups=True)
    a = ask(dead, "demo", "What is the oil capacity?")
    assert a.status == "fallback" and "5 quarts" in a.answer and a.route == "retry"
    assert a.suggestions == [] and "self_check" not in a.steps


def test_held_by_a_passage():
    from core.retrieve import Candidate

    p = Candidate("c", "d", "Change the engine oil every 10,000 km.", "m.md", "", None, None, "", "paragraph", "en", 0)
    assert held_by_a_passage("How often do I change the engine oil?", [p])
    assert not held_by_a_passage("Which colony sells rockets?", [p])


def test_hard_questions_go_to_the_strong_model(answering):
    def script(request):
        if _kind(request) == "judge":
            return SUPPORTED
        return f"The engine holds 5 quarts of oil with the filter [{passage_with(request, '5 quarts')}]."

    with ScriptedLLM(script) as llm:
        easy = ask(llm_settings(answering, llm, llm_strong_model="strong-model", gate_threshold=0.0), "demo",
                   "What is the oil capacity?")
        hard = ask(llm_settings(answering, llm, llm_strong_model="strong-model", gate_threshold=1.0), "demo",
                   "What is the oil capacity?")
        writers = [r["model"] for r in llm.requests if _kind(r) == "answer"]
    assert "strong_model" not in easy.steps
    assert hard.steps["strong_model"]["model"] == "strong-model"
    assert writers == ["scripted-model", "strong-model"]


YES = Reply("YES", first_token={"YES": 0.8, "NO": 0.2})
NO = Reply("NO", first_token={"YES": 0.1, "NO": 0.9})


def _judging(settings, llm, **kw):
    """The extractive provider with the model as answerability judge."""
    return replace(llm_settings(settings, llm, llm_judge_answers=True, **kw), provider="extractive")


def test_the_answer_judge_rescues_a_quote_the_answer_model_doubted(answering):
    asked = []

    def script(request):
        asked.append(_text(request))
        return YES

    with ScriptedLLM(script) as llm:
        # every confidence is under a threshold of 0.99: without the judge this is refused
        doubted = replace(answering, gate_threshold=0.99)
        alone = ask(doubted, "demo", "What is the oil capacity?")
        judged = ask(_judging(doubted, llm, llm_judge_floor=0.0), "demo", "What is the oil capacity?")
    assert alone.status == "refused"
    assert judged.status == "answered" and "5 quarts" in judged.answer and judged.provider == "extractive"
    assert judged.steps["judge_answer"]["p_yes"] == 0.8 and "5 quarts" in judged.steps["judge_answer"]["quote"]
    assert len(asked) == 1 and "What is the oil capacity?" in asked[0] and "5 quarts" in asked[0]
    assert store.get_trace(answering, "demo", judged.trace_id)["answer"]["steps"]["judge_answer"]["p_yes"] == 0.8


def test_the_answer_judge_vetoes_a_confident_quote_it_finds_beside_the_question(answering):
    with ScriptedLLM(lambda request: NO) as llm:
        a = ask(_judging(replace(answering, gate_threshold=0.0), llm, llm_judge_floor=0.0), "demo",
                "What is the oil capacity?")
    assert a.status == "refused" and a.refusal_code in ("low_confidence", "unknown_word")
    assert "The model judged" in a.refusal_reason and a.steps["judge_answer"]["p_yes"] == 0.1


def test_the_answer_judge_is_not_asked_under_its_floor_nor_when_it_is_off(answering):
    with ScriptedLLM(lambda request: NO) as llm:
        under = ask(_judging(replace(answering, gate_threshold=0.0), llm, llm_judge_floor=1.01), "demo",
                    "What is the oil capacity?")
        off = ask(replace(_judging(replace(answering, gate_threshold=0.0), llm), llm_judge_answers=False), "demo",
                  "What is the oil capacity?")
        assert llm.requests == []
    assert under.status == off.status == "answered" and "judge_answer" not in under.steps


def test_a_dead_answer_judge_leaves_the_answer_models_decision(answering):
    dead = replace(answering, llm_base_url="http://127.0.0.1:9/v1", llm_model="x", llm_retries=0, llm_timeout_s=2.0,
                   llm_judge_answers=True, llm_judge_floor=0.0)
    assert ask(dead, "demo", "What is the oil capacity?").status == "answered"
    assert ask(replace(dead, gate_threshold=0.99), "demo", "What is the oil capacity?").status == "refused"


def test_yes_probability_reads_the_first_tokens_alternatives():
    assert yes_probability({"YES": 0.6, "NO": 0.2, "Maybe": 0.2}, "YES") == pytest.approx(0.75)
    assert yes_probability({" yes": 0.5, "No": 0.5}, "yes") == 0.5
    assert yes_probability({}, "NO, it does not") == 0.0 and yes_probability({}, "Yes.") == 1.0


HYPOTHETICAL = "The engine holds 5 quarts of oil with the filter. Top up the oil before a long drive."


def _place_of(answer, needle: str) -> int:
    """1-based place of the first retrieved passage holding `needle`; 99 when none does."""
    return next((n for n, r in enumerate(answer.retrieved, start=1) if needle in r["text"]), 99)


def test_hyde_brings_the_passage_a_vague_question_does_not_name(answering):
    asked = []

    def script(request):
        asked.append(_text(request))
        return HYPOTHETICAL

    question = "Anything to top up first?"
    with ScriptedLLM(script) as llm:
        plain = ask(replace(_judging(answering, llm), llm_judge_answers=False), "demo", question)
        imagined = ask(replace(_judging(answering, llm), llm_judge_answers=False, llm_hyde=True), "demo", question)
    assert len(asked) == 1 and question in asked[0]  # one call, and only with the step on
    assert imagined.steps["hyde"] == {"passage": HYPOTHETICAL} and "hyde" not in plain.steps
    # among the passages the answer step reads, where the plain question's retrieval had none
    # (since numbered paragraphs share chunks, para 7-2 stands third of them, no longer first)
    assert _place_of(imagined, "5 quarts") <= answering.top_k < _place_of(plain, "5 quarts")
    # the made-up passage steers retrieval only: it is never quoted
    assert "Top up the oil before a long drive" not in imagined.answer


def test_hyde_with_a_dead_model_retrieves_as_without_it(answering):
    dead = replace(answering, llm_base_url="http://127.0.0.1:9/v1", llm_model="x", llm_retries=0, llm_timeout_s=2.0,
                   llm_hyde=True)
    a = ask(dead, "demo", "What is the oil capacity?")
    assert a.steps["hyde"] == {"passage": None} and a.status == "answered"
    assert [r["chunk_id"] for r in a.retrieved] == [r["chunk_id"] for r in ask(answering, "demo",
                                                                                "What is the oil capacity?").retrieved]
