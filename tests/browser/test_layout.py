"""No label is cut short behind an ellipsis, in a wide window or a narrow one (a laptop with
the sidebar open): QA found the Traces filter "Unsupported claims" shown as "Uns…", and the
trace's metrics, the Documents buttons, the Quality and feedback cards and two toggles cut
the same way once the window narrows. Checked in the real browser, since only layout shows it.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evals.bench_ui import IDLE_JS
from tests.conftest import ANSWERING_THRESHOLD

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Text in the main area that overflows its box behind an ellipsis. The file uploader's own
# fine print ("200MB per file • PDF, DOCX, …") is Streamlit's and left out.
CUT_JS = """() => [...document.querySelectorAll('[data-testid="stMain"] *')]
  .filter(el => el.children.length <= 3 && el.clientWidth > 0 && el.textContent.trim()
          && getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1
          && !el.closest('[data-testid^="stFileUploader"]'))
  .map(el => el.textContent.trim().slice(0, 60))"""

ENGINE_MD = "# Engine\n\n## Oil\n\nThe engine oil capacity is 4.5 litres. Change the oil every 10,000 km.\n"


def eval_report(created_at: float) -> dict:
    overall = {"grounded_only": 0.8, "answer_correct": 0.7, "citation_accuracy": 0.7, "faithfulness": 0.95,
               "hallucination": 0.05, "refusal_correct": 0.9, "too_conservative": 0.1, "hit_rate": 0.9,
               "mrr": 0.8, "latency_p50_ms": 1234.0, "latency_p95_ms": 2345.0, "n": 1}
    question = {"id": "q1", "kind": "answerable", "category": "maintenance", "tenant": "demo",
                "question": "What is the engine oil capacity?", "outcome": "correct", "status": "answered",
                "confidence": 0.9, "answer": "4.5 litres [1].", "expected_answer": "4.5 litres",
                "gold_source": "engine.md", "gold_quote": None, "citations": [], "claims": [], "retrieved": [],
                "timings_ms": {"total": 1234.0}}
    return {"set": "demo", "split": "all", "tenant": "demo", "created_at": created_at,
            "settings": {"gate_threshold": 0.55}, "overall": overall,
            "by_kind": {"answerable": overall}, "by_category": {"maintenance": overall}, "questions": [question]}


def idle(tab) -> None:
    tab.wait_for_timeout(300)
    tab.wait_for_function(IDLE_JS, timeout=60_000)


def cut_labels(tab, where: str) -> list[str]:
    idle(tab)
    tab.wait_for_timeout(300)  # layout settles after the run
    return [f"{where}: {text!r}" for text in tab.evaluate(CUT_JS)]


def click_tab(tab, name: str) -> None:
    tab.get_by_role("tab", name=name).first.click()


def test_no_label_is_cut_short_in_a_wide_or_narrow_window(fresh_server, browser, tmp_path: Path):
    from core import store
    from core.config import load_settings
    from core.documents import ingest_file
    from core.pipeline import ask

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)})
    (tmp_path / "engine.md").write_text(ENGINE_MD)
    assert ingest_file(settings, "demo", tmp_path / "engine.md", uploaded_by="test").status == "ready"
    answered = ask(settings, "demo", "What is the engine oil capacity?")
    refused = ask(settings, "demo", "Who is the CEO of Microsoft?")
    assert (answered.status, refused.status) == ("answered", "refused")
    store.add_feedback(settings, "demo", answered.trace_id, 1, "right")
    for i in range(2):  # two runs: the cards show their deltas
        store.save_eval_run(settings, eval_report(time.time() - 100 + i))
    url = fresh_server(data)

    cut: list[str] = []
    errors: list[str] = []
    for width in (1440, 900):
        context = browser.new_context(viewport={"width": width, "height": 1000})
        tab = context.new_page()
        tab.set_default_timeout(60_000)
        tab.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            tab.goto(f"{url}/?tenant=demo")
            idle(tab)
            box = tab.locator('[data-testid="stChatInputTextArea"]')
            box.fill("What is the engine oil capacity?")
            box.press("Enter")
            tab.locator('[data-testid="stChatMessage"]').nth(1).get_by_text("4.5 litres").first.wait_for()
            cut += cut_labels(tab, f"{width} ask")
            for name in ("Claims", "Feedback"):  # "Claims (n)": n is what the answer quotes
                click_tab(tab, name)
                cut += cut_labels(tab, f"{width} ask, {name}")

            for answer in (answered, refused):
                tab.goto(f"{url}/traces?trace={answer.trace_id}&tenant=demo")
                tab.get_by_text(f"trace {answer.trace_id}").wait_for()
                cut += cut_labels(tab, f"{width} traces, {answer.status}")
                for name in ("Gate", "Claims"):
                    click_tab(tab, name)
                    cut += cut_labels(tab, f"{width} traces, {answer.status}, {name}")

            tab.goto(f"{url}/documents?tenant=demo")
            tab.get_by_role("button", name="Re-index").wait_for()
            cut += cut_labels(tab, f"{width} documents")

            tab.goto(f"{url}/quality?tenant=demo")
            tab.get_by_text("Answer correct").first.wait_for()
            cut += cut_labels(tab, f"{width} quality")
            tab.get_by_text("Run this set now").first.click()  # folded once runs exist: its toggle
            cut += cut_labels(tab, f"{width} quality, run this set now")
            click_tab(tab, "User feedback")
            cut += cut_labels(tab, f"{width} quality, user feedback")

            tab.goto(f"{url}/settings?tenant=demo")
            tab.get_by_role("button", name="Save settings").wait_for()
            cut += cut_labels(tab, f"{width} settings")
        finally:
            context.close()
    assert not cut, cut
    assert not errors, errors
