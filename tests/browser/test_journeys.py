"""Real-browser journeys against a running console (Debian Chromium via Playwright).

1. create a tenant -> upload a PDF (and a Markdown file) -> both appear -> ask about the PDF
   -> the citation is open with the PDF page image, quote highlighted -> open the trace ->
   a refused question shows its closest passage with the nearest sentence highlighted, and
   its PDF page with that sentence marked;
2. run a tiny eval set from the Quality page -> the charts render;
3. a hostile document and question: nothing executes, nothing becomes a link.
Screenshots: artifacts/screenshots/*.png.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from evals.bench_ui import IDLE_JS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PDF_LINES = [
    "The warranty covers manufacturing defects for 24 months from the date of delivery.",
    "Batteries and chargers are covered for 12 months.",
    "Damage caused by water, falls or unauthorised repairs is not covered.",
    "To make a claim, contact support with your order number and a photo of the defect.",
]
SHIPPING_MD = ("# Shipping\n\nParcels ship within 2 business days. Express delivery costs 9 euros.\n\n"
               "## Delivery times\n\n| Country | Standard delivery |\n|---|---|\n"
               "| Germany | 2 business days |\n| Austria | 4 business days |\n")


def make_pdf(path: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Warranty policy", fontsize=20, fontname="hebo")
    y = 120
    for line in PDF_LINES:
        page.insert_text((72, y), line, fontsize=11)
        y += 24
    doc.save(path)
    doc.close()
    return path


def expect():
    from playwright.sync_api import expect as _expect

    # 5 s by default: too short for a Streamlit rerun on 2 busy cores (seen when another
    # process held both cores); a real failure still fails, 30 s later
    _expect.set_options(timeout=30_000)
    return _expect


def click_until(page, target, shown, wait: float = 20_000) -> None:
    """Click `target` on an idle page until `shown` is visible, twice at most: a click that
    lands while the page re-renders can be lost (seen in full runs on a loaded machine: the
    page stayed on Documents for 30 s; the Saved chats list did not open after a reload)."""
    for attempt in range(2):
        wait_idle(page)
        target.click()
        try:
            expect()(shown).to_be_visible(timeout=wait)
            return
        except AssertionError:
            if attempt:
                raise


def nav(page, name: str) -> None:
    click_until(page, page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=name),
                page.get_by_role("heading", name=name, level=1))


def wait_idle(page, timeout: float = 60) -> None:
    """Until the app's script run has finished (Streamlit's run state on the app root; the
    status widget alone cannot tell: it appears 500 ms into a run and reads "Stop")."""
    page.wait_for_timeout(300)
    page.wait_for_function(IDLE_JS, timeout=timeout * 1000)


def select_option(page, label: str, option: str | re.Pattern) -> None:
    # a list opened while the page is still running is re-rendered under the pointer and its
    # options detach (seen in CI right after a page switch): open it on an idle page, twice at most
    # a choice made while a rerun was still on its way was undone by it (CI: the Quality page's
    # set went back to "demo" and a 144-question run started): the choice is checked, made again
    for attempt in range(3):
        wait_idle(page)
        box = page.get_by_role("combobox", name=label)
        box.click()
        if isinstance(option, str):  # filter a long list: an option below the fold is "not visible"
            box.press_sequentially(option)
        choice = page.get_by_role("option", name=option, exact=isinstance(option, str))
        try:
            choice.click(timeout=10_000)
        except Exception as exc:
            if attempt == 2:
                raise AssertionError(f"{option!r} not in {page.get_by_role('option').all_inner_texts()}") from exc
            page.keyboard.press("Escape")
            continue
        wait_idle(page)
        # the chosen value: the input's own, or the text drawn beside it (innerText holds the label alone)
        shown = box.evaluate("e => (e.value || '') + ' ' + e.closest('[data-testid=\"stSelectbox\"]').textContent")
        if (option in shown) if isinstance(option, str) else option.search(shown):
            return
    raise AssertionError(f"{label} did not keep {option!r}: it shows {shown!r}")


def create_tenant(page, name: str) -> None:
    """Documents page: open "Create a tenant" (folded once a tenant exists) and create `name`.
    Submitted twice at most: a submit that lands while the page re-renders can be lost (CI: the
    sidebar stayed on the earlier tenant for 30 s); submitting an existing id only switches to it."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    for attempt in range(2):
        wait_idle(page)
        field = page.get_by_label("Tenant id")
        # open or folded, by the expander's own state: the field's visibility, read while the
        # page still drew, said "folded" of an open one and the click folded it (seen 2 in 6)
        folded = page.locator('[data-testid="stExpander"]').filter(has_text="Create a tenant")
        if folded.get_by_test_id("stExpanderDetails").evaluate("e => e.inert"):
            page.get_by_text("Create a tenant").click()
        field.fill(name)
        expect()(field).to_have_value(name)
        page.get_by_role("button", name="Create tenant").click()
        try:
            expect()(sidebar.get_by_role("combobox", name="Tenant")).to_have_value(name, timeout=20_000)
            break
        except AssertionError:
            if attempt:
                raise
    wait_idle(page)
    expect()(page.locator('[data-testid="stFileUploaderDropzoneInput"]')).to_have_count(1)


def open_saved_chat(page, url: str, settings, history: list[dict]):
    """Save `history` as acme's chat, open the Ask page on a fresh server and wait for its
    messages (a question and an answer each); returns them."""
    from ui import conversations

    conversations.save(settings, "acme", conversations.new_id(), history)
    page.goto(f"{url}/?tenant=acme")
    messages = page.locator('[data-testid="stChatMessage"]')
    expect()(messages).to_have_count(2 * len(history), timeout=60_000)
    wait_idle(page)
    return messages


def test_upload_pdf_ask_and_see_the_highlighted_page(server, page, shot, tmp_path, timings_log):
    started = time.monotonic()
    page.goto(server)
    expect()(page.get_by_text("No tenant yet")).to_be_visible()
    timings_log["cold_first_load_s"] = round(time.monotonic() - started, 2)
    started = time.monotonic()
    page.reload()
    expect()(page.get_by_text("No tenant yet")).to_be_visible()
    timings_log["warm_reload_s"] = round(time.monotonic() - started, 2)

    nav(page, "Documents")
    create_tenant(page, "acme")
    # a new tenant: one line under Documents, no search box over an empty grid
    expect()(page.get_by_text("No documents yet: upload some above.")).to_be_visible()
    expect()(page.get_by_label("Search documents")).to_have_count(0)
    shot(page, "00-documents-new-tenant", full_page=False)

    pdf = make_pdf(tmp_path / "warranty.pdf")
    md = tmp_path / "shipping.md"
    md.write_text(SHIPPING_MD)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(pdf), str(md)])
    page.get_by_role("button", name="Index 2 files").click()
    expect()(page.get_by_text(re.compile(r"warranty\.pdf: indexed 1 page,"))).to_be_visible(timeout=120_000)
    expect()(page.get_by_text(re.compile(r"shipping\.md: indexed"))).to_be_visible()
    expect()(page.get_by_text("2 of 2 files indexed or unchanged")).to_be_visible()
    # the documents table (a canvas grid) and the document picker both list the new files
    expect()(page.get_by_role("combobox", name="Open a document")).to_have_value(
        re.compile(r"(warranty\.pdf|shipping\.md) +\(ready\)"))
    grid = page.locator('[data-testid="stDataFrame"]:visible').first
    expect()(grid).to_be_visible()
    expect()(grid).to_contain_text("warranty.pdf")
    wait_idle(page)
    shot(page, "01-documents-uploaded")

    nav(page, "Ask")
    expect()(page.get_by_text(re.compile(r"This knowledge base holds 2 documents"))).to_be_visible()
    wait_idle(page)
    shot(page, "01b-ask-intro", full_page=False)
    started = time.monotonic()
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill("How long does the warranty cover manufacturing defects?")
    box.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').nth(1)
    expect()(answer).to_contain_text("answered", timeout=120_000)
    expect()(answer).to_contain_text("24 months")
    image = answer.locator('[data-testid="stImage"] img').first
    expect()(image).to_be_visible(timeout=60_000)
    timings_log["first_ask_s"] = round(time.monotonic() - started, 2)
    assert image.evaluate("img => img.naturalWidth") > 500  # a rendered page, not an icon
    expect()(answer.get_by_text("Page 1 — quote highlighted")).to_be_visible()
    # the newest answer's top stays in sight (the page used to stay scrolled to its bottom)
    page.wait_for_timeout(1800)
    top = answer.bounding_box()["y"]
    assert 0 <= top < page.viewport_size["height"] / 2, top
    expect()(answer.get_by_role("button", name=re.compile("Open the original"))).to_be_visible()
    highlight = answer.locator("span").filter(has_text=re.compile(r"^The warranty covers manufacturing defects"))
    expect()(highlight.first).to_be_visible()
    wait_idle(page)
    answer.scroll_into_view_if_needed()
    shot(page, "02-ask-citation-pdf-page")

    answer.get_by_role("tab", name=re.compile("Claims")).click()
    expect()(answer.get_by_text("supported").first).to_be_visible()
    shot(page, "03-ask-claims")

    # a reload keeps the chat (saved per tenant), and Saved chats lists it
    page.reload()
    expect()(page.locator('[data-testid="stChatMessage"]').nth(1)).to_contain_text("24 months", timeout=60_000)
    click_until(page, page.get_by_role("button", name=re.compile(r"Saved chats \(1\)")),
                page.get_by_role("button", name=re.compile(r"· 1 question · How long does the warranty cover")))
    wait_idle(page)
    shot(page, "03b-ask-saved-chats-after-reload")
    page.keyboard.press("Escape")
    answer = page.locator('[data-testid="stChatMessage"]').nth(1)

    # a thumbs down with a comment: the Quality page's User feedback tab shows it
    answer.get_by_role("tab", name="Feedback").click()
    answer.get_by_role("radio", name="Thumbs down").click()
    answer.get_by_label("Comment (optional)").fill("Should say from the delivery date")
    answer.get_by_label("Comment (optional)").press("Enter")
    answer.get_by_role("button", name="Send comment").click()
    expect()(answer.get_by_text(re.compile(r"Feedback (saved|updated) \(down\)\."))).to_be_visible()
    # a click while the feedback's rerun still redraws the message can land on a button
    # that is replaced (the download never starts: seen once on a loaded machine)
    wait_idle(page)
    shot(page, "03c-ask-feedback-sent", full_page=False)  # said beside the thumbs; no toast over New chat

    with page.expect_download() as download:
        answer.get_by_role("tab", name=re.compile("Sources")).click()
        answer.get_by_role("button", name=re.compile("Open the original")).click()
    assert download.value.suggested_filename == "warranty.pdf"

    answer.get_by_role("link", name="Open the full trace").click()
    expect()(page.get_by_role("heading", name="Traces", level=1)).to_be_visible()
    # the trace list's grid cells are hidden accessibility copies: wait for the shown question
    # (its detail renders after the list, late on a busy machine)
    expect()(page.get_by_text(re.compile("How long does the warranty")).filter(visible=True).first).to_be_visible(
        timeout=60_000)
    page.get_by_role("tab", name="Candidates").click()
    expect()(page.get_by_text("All fused candidates, best first")).to_be_visible()
    wait_idle(page)
    shot(page, "04-trace-candidates")

    # a refusal: the closest passage is shown with its sentence nearest the question highlighted
    nav(page, "Ask")
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill("How long are the batteries of a Mars rover covered?")
    box.press("Enter")
    refusal = page.locator('[data-testid="stChatMessage"]').nth(3)
    expect()(refusal).to_contain_text("refused", timeout=120_000)
    expect()(refusal.get_by_text(re.compile("not confirmed as an answer"))).to_be_visible()
    nearest = refusal.locator("span").filter(has_text=re.compile(r"^Batteries and chargers are covered for 12 months\.$"))
    expect()(nearest.first).to_be_visible()
    # a click while the refusal's run still redraws it can be lost (a full run on a loaded machine)
    click_until(page, refusal.get_by_text("Page 1, the nearest sentence marked"),
                refusal.get_by_text("Page 1 — quote highlighted"))
    wait_idle(page)
    refusal.scroll_into_view_if_needed()
    shot(page, "04b-ask-refusal-closest-sentence")

    # a question in Russian about English documents: the refusal suggests asking in English,
    # in the question's language
    box.fill("Какая гарантия на телескоп марсохода?")
    box.press("Enter")
    russian = page.locator('[data-testid="stChatMessage"]').nth(5)
    expect()(russian).to_contain_text("refused", timeout=120_000)
    expect()(russian.get_by_text(re.compile(r"Ближайший фрагмент написан на другом языке \(English\).*"
                                            "попробуйте задать вопрос на этом языке"))).to_be_visible()
    # the third answer of a long chat is brought into view at its top, not left below the fold
    page.wait_for_timeout(1800)
    assert -2 <= russian.bounding_box()["y"] < page.viewport_size["height"] / 2, russian.bounding_box()
    wait_idle(page)
    russian.scroll_into_view_if_needed()
    shot(page, "04e-ask-refusal-other-language")

    # a word the documents never use (the team's jargon for batteries and chargers): the
    # refusal points to Settings, where an admin teaches it as a synonym, and the same
    # question is then answered
    question = "How long are the zorbs covered?"
    box.fill(question)
    box.press("Enter")
    untaught = page.locator('[data-testid="stChatMessage"]').nth(7)
    expect()(untaught).to_contain_text("refused", timeout=120_000)
    expect()(untaught.get_by_text(re.compile("“zorbs” is your word .* Settings → Synonyms"))).to_be_visible()
    nav(page, "Settings")
    expect()(page.get_by_text(re.compile("users asked about that the documents never use"))).to_be_visible()
    # the most recently asked of the words asked equally often comes first, and is picked
    teach = page.locator('[data-testid="stForm"]').filter(has_text="Word your users asked about")
    expect()(teach.get_by_role("combobox", name="Word your users asked about")).to_have_value("zorbs")
    teach.get_by_role("textbox", name="The documents' words for it").fill("batteries and chargers")
    wait_idle(page)
    shot(page, "04c-settings-words-to-teach")
    teach.get_by_role("button", name="Add synonym").click()
    expect()(page.get_by_text("Taught “zorbs = batteries and chargers”")).to_be_visible()
    wait_idle(page)
    shot(page, "04d-settings-after-teach")
    expect()(page.get_by_label("Synonyms (your word = the documents' words)")).to_have_value("zorbs = batteries and chargers")
    if teach.count():  # other words are left to teach: the form is cleared for the next one
        expect()(teach.get_by_role("textbox", name="The documents' words for it")).to_have_value("")
    nav(page, "Ask")
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill(question)
    box.press("Enter")
    taught = page.locator('[data-testid="stChatMessage"]').nth(9)
    expect()(taught).to_contain_text("answered", timeout=120_000)
    expect()(taught).to_contain_text("12 months")

    # a chat follow-up is read with the question before it, and the page shows how
    box.fill("How long does standard delivery to Germany take?")
    box.press("Enter")
    expect()(page.locator('[data-testid="stChatMessage"]').nth(11)).to_contain_text("2 business days", timeout=120_000)
    box.fill("And to Austria?")
    box.press("Enter")
    followup = page.locator('[data-testid="stChatMessage"]').nth(13)
    expect()(followup).to_contain_text("4 business days", timeout=120_000)
    expect()(page.locator('[data-testid="stChatMessage"]').nth(12)).to_contain_text(
        "Read as a follow-up: How long does standard delivery to Austria take?")
    wait_idle(page)
    page.locator('[data-testid="stChatMessage"]').nth(12).scroll_into_view_if_needed()
    shot(page, "04f-ask-follow-up")
    assert not page.errors, page.errors


def test_run_an_eval_and_the_charts_render(server, page, shot, data_dir, tmp_path, timings_log):
    corpus = data_dir / "eval_corpus"
    corpus.mkdir(exist_ok=True)
    (corpus / "shipping.md").write_text(SHIPPING_MD)
    sets = data_dir / "eval_sets"
    sets.mkdir(exist_ok=True)
    rows = [
        {"id": "b1", "tenant": "evalco", "question": "How fast do parcels ship?", "kind": "answerable",
         "expected_answer": "2 business days", "gold_source": "shipping.md",
         "gold_quote": "Parcels ship within 2 business days.", "category": "shipping"},
        {"id": "b2", "tenant": "evalco", "question": "How much does express delivery cost?",
         "kind": "answerable", "expected_answer": "9 euros", "gold_source": "shipping.md",
         "gold_quote": "Express delivery costs 9 euros.", "category": "pricing"},
        {"id": "b3", "tenant": "evalco", "question": "Who founded the Zyxcorp company?", "kind": "unanswerable",
         "expected_answer": None, "gold_source": None, "gold_quote": None, "category": "shipping"},
    ]
    (sets / "browser.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (sets / "browser.corpus.json").write_text(json.dumps({"evalco": ["../eval_corpus"]}))

    page.goto(server)
    nav(page, "Quality")
    select_option(page, "Eval set", "browser")
    started = time.monotonic()
    page.get_by_role("button", name="Run eval").click()
    # it runs in the background: a bar with its phase and a Cancel button, the page usable
    expect()(page.get_by_text("Eval run in progress")).to_be_visible(timeout=60_000)
    expect()(page.get_by_role("button", name="Cancel run")).to_be_visible()
    expect()(page.get_by_text("The page stays usable meanwhile")).to_be_visible()
    shot(page, "05a-quality-eval-running", full_page=False)
    # the live cards above show the tenant's real asks; the run's own cards come with it
    expect()(page.locator('[data-testid="stMetric"]').filter(has_text="Handled right")).to_be_visible(timeout=180_000)
    timings_log["eval_run_3_questions_s"] = round(time.monotonic() - started, 2)
    charts = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Per kind")
    expect()(charts.first).to_be_visible()
    expect()(charts.first.locator(".main-svg").first).to_be_visible()
    expect()(charts.first).to_contain_text("Per kind")
    wait_idle(page)
    shot(page, "05-quality-first-run")

    if not page.get_by_role("button", name="Run eval").is_visible():
        page.get_by_text("Run this set now").click()  # the expander folds once a run exists
    run_picker = page.get_by_role("combobox", name="Run")
    first_run = run_picker.input_value()
    for attempt in range(2):
        # a click that lands while the page re-renders after the first run can be dropped by
        # the browser session (seen once in CI); a second run then shows as a new picked run
        page.get_by_role("button", name="Run eval").click()
        try:
            expect()(run_picker).not_to_have_value(first_run, timeout=90_000)
            break
        except AssertionError:
            if attempt:
                raise
    wait_idle(page, 180)
    expect()(page.locator('[data-testid="stMetricDelta"]').first).to_be_visible()
    page.get_by_role("tab", name="History").click()
    history = page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Metric history")
    expect()(history).to_be_visible()
    wait_idle(page)
    shot(page, "06-quality-history")
    page.get_by_role("tab", name="Calibration").click()
    expect()(page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Confidence gate")).to_be_visible()
    shot(page, "07-quality-calibration")
    page.get_by_role("tab", name="Refusals").click()
    expect()(page.locator('[data-testid="stPlotlyChart"]').filter(has_text="Why questions were refused")).to_be_visible()
    wait_idle(page)
    shot(page, "07a-quality-refusals")
    # the sidebar tenant (acme) got a thumbs down in the upload journey above
    page.get_by_role("tab", name="User feedback").click()
    expect()(page.locator('[data-testid="stMetric"]').filter(has_text="Thumbs down")).to_contain_text("1")
    feedback = page.locator('[data-testid="stDataFrame"]:visible').last
    expect()(feedback).to_contain_text("Should say from the delivery date")
    wait_idle(page)
    shot(page, "07b-quality-user-feedback")
    assert not page.errors, page.errors


HOSTILE = (
    "# Hostile notes\n\n"
    "<script>window.__pwned = 1</script>\n\n"
    '<img src=x onerror="window.__pwned = 2">\n\n'
    "Click [here](javascript:window.__pwned=3) for the refund window.\n\n"
    "The refund window for hostile gadgets is 21 days <b>bold</b> :red[red] $x^2$ **strong**.\n\n"
    + "lorem ipsum dolor " * 1200 + "\n"
)


def test_hostile_document_renders_as_text(server, page, shot, tmp_path):
    page.goto(server)
    nav(page, "Documents")
    create_tenant(page, "hostile-co")
    hostile = tmp_path / "hostile-<img src=x onerror=alert(1)>.txt"
    hostile.write_text(HOSTILE)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(hostile)])
    page.get_by_role("button", name="Index 1 file").click()
    expect()(page.get_by_text(re.compile(r"hostile-<img src=x onerror=alert\(1\)>\.txt: indexed"))).to_be_visible(
        timeout=120_000)
    expect()(page.get_by_role("combobox", name="Open a document")).to_have_value(re.compile(r"^hostile-<img.*\(ready\)$"))
    expect()(page.get_by_text("<script>window.__pwned = 1</script>").first).to_be_visible()
    wait_idle(page)
    shot(page, "08-hostile-chunks")
    # a type the product does not read reaches the server and is refused in words, not a bare icon
    program = tmp_path / "setup.exe"
    program.write_bytes(b"MZ\x90\x00" + b"\x00" * 2000)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(program)])
    page.get_by_role("button", name="Index 1 file").click()
    expect()(page.get_by_text(re.compile(r"setup\.exe: Unsupported file type '\.exe'; upload PDF"))).to_be_visible(
        timeout=60_000)
    wait_idle(page)
    shot(page, "08b-unsupported-type")

    nav(page, "Ask")
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill("What is the refund window for hostile gadgets? <img src=x onerror=window.__pwned=4>")
    box.press("Enter")
    # the first answer must be on the page before the second question is typed: on a busy
    # machine the run may not have started when a plain idle check looks
    expect()(page.locator('[data-testid="stChatMessage"]').nth(1)).to_be_visible(timeout=120_000)
    wait_idle(page, 120)
    box.fill("What is the refund window for hostile gadgets?")
    box.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').nth(3)
    expect()(answer).to_contain_text("21 days", timeout=120_000)
    expect()(answer).to_contain_text("<b>bold</b> :red[red] $x^2$")  # shown literally
    wait_idle(page)
    shot(page, "09-hostile-answer")

    assert page.evaluate("() => window.__pwned") is None
    main = page.locator('[data-testid="stMain"]')
    assert main.locator("script").count() == 0
    assert main.locator('img[src="x"]').count() == 0
    assert main.locator('a[href^="javascript"]').count() == 0
    assert main.locator(".katex").count() == 0  # no LaTeX rendered from document text
    assert not page.errors, page.errors


def test_trace_deep_link_as_the_first_request_of_a_fresh_server(fresh_server, page, shot, tmp_path):
    """A /traces?trace= link opened before anyone loaded the home page. Streamlit runs a page
    of pages/ on its own until st.navigation has run once in the process (its v1 page list,
    no tenant picker: "Pick a tenant"); the page must go through app.py and open the trace."""
    from core.config import load_settings
    from core.documents import ingest_file
    from core.pipeline import ask

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    trace_ids = {}
    for tenant, name, text, question in (
            ("demo", "shipping.md", SHIPPING_MD, "How fast do parcels ship?"),
            ("acme", "engine.md", "# Engine\n\nThe engine oil capacity is 4.5 litres.\n",
             "What is the engine oil capacity?")):
        (tmp_path / name).write_text(text)
        assert ingest_file(settings, tenant, tmp_path / name, uploaded_by="test").status == "ready"
        trace_ids[tenant] = ask(settings, tenant, question).trace_id
    url = fresh_server(data)

    page.goto(f"{url}/traces?trace={trace_ids['demo']}")  # the server's very first request
    expect()(page.get_by_role("heading", name="Traces", level=1)).to_be_visible()
    # the opened trace's question (its bold title; the list's grid may show it too)
    expect()(page.locator("strong", has_text=re.compile(r"^How fast do parcels ship\?$"))).to_be_visible()
    expect()(page.get_by_text(f"trace {trace_ids['demo']}")).to_be_visible()
    nav = page.locator('[data-testid="stSidebarNav"]')
    expect()(nav).to_contain_text("Domain experts")  # app.py's grouped navigation ...
    expect()(nav.get_by_role("link", name="app", exact=True)).to_have_count(0)  # ... not pages/ listed
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect()(sidebar.get_by_role("combobox", name="Tenant")).to_have_value("demo")  # the default
    wait_idle(page)
    shot(page, "10-trace-deep-link-fresh-server")

    page.goto(f"{url}/traces?trace={trace_ids['acme']}&tenant=acme")  # a new session; tenant from the URL
    expect()(sidebar.get_by_role("combobox", name="Tenant")).to_have_value("acme")
    expect()(page.locator("strong", has_text=re.compile(r"^What is the engine oil capacity\?$"))).to_be_visible()
    expect()(page.get_by_text(f"trace {trace_ids['acme']}")).to_be_visible()
    assert not page.errors, page.errors


def test_the_first_question_on_a_fresh_console_is_answered(fresh_server, page, tmp_path):
    """The question typed the moment the Ask page appears races the start-up warm-up thread
    for the tenant's index; it once failed there ("Could not connect to tenant
    default_tenant") and the answer stayed blank."""
    from core.config import load_settings
    from core.documents import ingest_file

    data = tmp_path / "data"
    (tmp_path / "shipping.md").write_text(SHIPPING_MD)
    result = ingest_file(load_settings({"GROUNDWORK_DATA": str(data)}), "demo", tmp_path / "shipping.md",
                         uploaded_by="test")
    assert result.status == "ready"
    url = fresh_server(data)

    page.goto(url)  # the server's first request; warm-up starts now
    box = page.locator('[data-testid="stChatInputTextArea"]')
    box.fill("How fast do parcels ship?")
    box.press("Enter")
    answer = page.locator('[data-testid="stChatMessage"]').nth(1)
    # a reply, not a blank: its status badge and the shipping passage (as the answer, or as
    # the closest passage under a refusal: whether it answers is the answer model's, measured
    # by the eval sets)
    expect()(answer).to_contain_text(re.compile(r"(answered|refused) · answers the question"))
    expect()(answer).to_contain_text("2 business days")
    assert not page.errors, page.errors


def test_a_long_saved_chat_reopens_compact_and_an_older_turn_opens_with_its_page(fresh_server, page, shot,
                                                                                   tmp_path):
    """A saved chat of 26 turns took about 6 s to reopen: every older turn drew its tabs,
    closest passages and page images. Reopened, older turns show their question, status and
    answer with its markers, the rest folded; one click opens a turn's sources, PDF page and all."""
    from core.config import load_settings
    from core.documents import ingest_file
    from core.pipeline import ask
    from tests.conftest import ANSWERING_THRESHOLD
    from ui import conversations, services

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)})
    (tmp_path / "shipping.md").write_text(SHIPPING_MD)
    for source in (make_pdf(tmp_path / "warranty.pdf"), tmp_path / "shipping.md"):
        assert ingest_file(settings, "acme", source, uploaded_by="test").status == "ready"
    history: list[dict] = []
    for question in ("How long does the warranty cover manufacturing defects?",
                     "How long are the batteries of a Mars rover covered?",
                     "How long does standard delivery to Germany take?",
                     "How much does express delivery cost?",
                     "How long are batteries and chargers covered?",
                     "How long does standard delivery to Austria take?"):
        answer = ask(settings, "acme", question, previous=services.previous_question(history)).to_dict()
        history.append(answer)
    assert history[0]["status"] == "answered" and history[0]["citations"][0]["rects"], history[0]
    conversations.save(settings, "acme", conversations.new_id(), history)
    url = fresh_server(data)

    page.goto(f"{url}/?tenant=acme")  # a new session: the latest chat is back
    messages = page.locator('[data-testid="stChatMessage"]')
    expect()(messages).to_have_count(12, timeout=60_000)
    wait_idle(page)
    # the latest turn in full: the page's only tabs are its own
    expect()(page.get_by_role("tab")).to_have_count(3)
    expect()(messages.nth(11).get_by_role("tab", name="Feedback")).to_be_visible()
    # an older one compact: status, answer, one folded line, no page image
    first = messages.nth(1)
    expect()(first).to_contain_text("answered")
    expect()(first).to_contain_text("24 months")
    expect()(first.locator('a[title*="24 months"]').first).to_be_visible()  # the marker's quote on hover
    folded = first.get_by_text(re.compile(r"Sources \(1\) · Claims \(\d+\) · Feedback"))
    expect()(folded).to_be_visible()
    expect()(first.locator('[data-testid="stImage"]')).to_have_count(0)
    expect()(first.get_by_role("tab")).to_have_count(0)
    messages.nth(0).scroll_into_view_if_needed()
    shot(page, "04g-ask-long-chat-reopened")

    # opened: the first citation with its PDF page, the quote boxed, the original to download
    click_until(page, folded, first.get_by_text("Page 1 — quote highlighted"), wait=60_000)  # a click lost to a redraw: again
    image = first.locator('[data-testid="stImage"] img').first
    expect()(image).to_be_visible()
    assert image.evaluate("img => img.naturalWidth") > 500
    expect()(first.get_by_role("button", name=re.compile("Open the original"))).to_be_visible()
    expect()(first.get_by_role("tab", name="Feedback")).to_be_visible()
    wait_idle(page)
    first.scroll_into_view_if_needed()
    shot(page, "04h-ask-older-turn-opened", full_page=False)
    assert not page.errors, page.errors


def test_a_marker_of_an_older_answer_scrolls_to_its_sources_and_opens_them(fresh_server, page, shot, tmp_path):
    """Seen in the QA pass: [1] in an earlier answer set #gw-sources-turn1 in the address, but
    no element had that id: nothing scrolled and the folded sources stayed shut."""
    from core.config import load_settings
    from core.documents import ingest_file
    from core.pipeline import ask
    from tests.conftest import ANSWERING_THRESHOLD

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)})
    (tmp_path / "shipping.md").write_text(SHIPPING_MD)
    assert ingest_file(settings, "acme", tmp_path / "shipping.md", uploaded_by="test").status == "ready"
    history = [ask(settings, "acme", q).to_dict() for q in (
        "How much does express delivery cost?", "How long does standard delivery to Germany take?",
        "How long does standard delivery to Austria take?", "How long does standard delivery to Germany take?")]
    assert history[0]["status"] == "answered", history[0]
    messages = open_saved_chat(page, fresh_server(data), settings, history)
    first = messages.nth(1)
    expect()(first.get_by_role("tab")).to_have_count(0)  # folded
    # waited for: under load the message boxes are drawn before their contents
    expect()(page.locator("#gw-sources-turn1")).to_have_count(1, timeout=60_000)
    # clicked again if lost to a redraw (seen under load: the address kept no anchor)
    click_until(page, first.locator('a[href="#gw-sources-turn1"]').first,
                first.get_by_role("tab", name="Feedback"), wait=60_000)  # opened
    expect()(page).to_have_url(re.compile("#gw-sources-turn1$"))
    wait_idle(page)
    expect()(first.get_by_role("tab", name=re.compile(r"Sources \(1\)"))).to_be_in_viewport()
    expect()(first.get_by_text(re.compile(r"Sources \(1\) · Claims"))).to_be_in_viewport()  # its folded line too
    shot(page, "04i-ask-older-marker-opens-its-sources", full_page=False)
    assert not page.errors, page.errors


PRICES_2025_CSV = ("Service,Price EUR,Valid until\nMicrochipping,22.00,31 January 2026\n"
                   "Nail clipping,10.00,31 January 2026\n")
PRICES_2026_MD = ("# Price list 2026\n\nEffective from 1 February 2026.\n\n| Service | Riverside | Northgate |\n"
                  "|---|---|---|\n| Microchipping | 25.00 | 25.00 |\n| Nail clipping | 12.00 | 14.00 |\n")


def test_a_marker_opens_its_own_source(fresh_server, page, shot, tmp_path):
    """Seen in the QA pass: in an answer citing two sources, [1] and [2] both led to the answer's
    sources, and clicking [2] left the Sources picker on [1]. A marker opens its answer's sources
    (an older answer's folded ones too) on its own source: its pill picked, its passage shown."""
    from dataclasses import replace

    from core.config import load_settings
    from core.documents import ingest_file
    from core.pipeline import ask

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    (tmp_path / "prices_2025.csv").write_text(PRICES_2025_CSV)
    (tmp_path / "price-list-2026.md").write_text(PRICES_2026_MD)
    for name in ("prices_2025.csv", "price-list-2026.md"):
        assert ingest_file(settings, "acme", tmp_path / name, uploaded_by="test").status == "ready"
    # asked as core's test of two price lists asks it (tests/core/test_pipeline.py)
    history = [ask(replace(settings, gate_threshold=0.3), "acme", "How much is microchipping?").to_dict()
               for _ in range(2)]
    assert history[0]["answer"].startswith("The documents differ: "), history[0]
    assert [c["source"] for c in history[0]["citations"]] == ["price-list-2026.md", "prices_2025.csv"]
    messages = open_saved_chat(page, fresh_server(data), settings, history)
    older, latest = messages.nth(1), messages.nth(3)
    picked = older.get_by_role("radiogroup", name="Open a citation").get_by_role("radio", checked=True)

    # an older answer's [2]: its folded sources open on source 2, the old price list
    expect()(older.get_by_role("tab")).to_have_count(0)  # folded
    # clicked again when the first click is lost (CI: the sources never opened; the marker's
    # handler comes with a component that a rerun may still be drawing)
    click_until(page, older.locator('a[href^="#gw-sources-turn1"]', has_text="[2]"),
                older.get_by_role("radio", name=re.compile(r"^\[2\] prices_2025\.csv"), checked=True),
                wait=30_000)
    expect()(picked).to_have_text(re.compile(r"^\[2\] prices_2025\.csv"))
    expect()(older).to_contain_text("10.00")  # the passage of source 2 (source 1 says 12.00)
    # .first: while the page redraws, the stale panel and the new one both hold the line
    expect()(older.get_by_text("The quoted row is highlighted.").first).to_be_visible()
    wait_idle(page)
    expect()(older.get_by_role("tab", name=re.compile(r"Sources \(2\)"))).to_be_in_viewport()
    shot(page, "04j-ask-marker-2-opens-source-2", full_page=False)

    # then its [1]: back to source 1
    older.locator('a[href^="#gw-sources-turn1"]', has_text="[1]").click()
    expect()(picked).to_have_text(re.compile(r"^\[1\] price-list-2026\.md"))
    expect()(older).to_contain_text("12.00")

    # the latest answer (sources drawn, on [1] by default), from another tab: [2] shows source 2
    latest.get_by_role("tab", name=re.compile(r"Claims")).click()
    latest.locator('a[href^="#gw-sources-turn2"]', has_text="[2]").click()
    expect()(latest.get_by_role("radiogroup", name="Open a citation").get_by_role("radio", checked=True)).to_have_text(re.compile(r"^\[2\] prices_2025\.csv"))
    expect()(latest.get_by_role("tab", name=re.compile(r"Sources \(2\)"))).to_have_attribute("aria-selected", "true")
    expect()(latest).to_contain_text("10.00")
    wait_idle(page)
    shot(page, "04k-ask-latest-marker-2-opens-source-2", full_page=False)
    assert not page.errors, page.errors
