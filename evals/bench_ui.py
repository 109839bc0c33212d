"""`python -m evals.bench ui [--question Q] [--think S] [--keep]` — how fast the console is in a real browser.

Prints figures only; nothing here asserts a timing (the numbers depend on the machine and
on whatever else runs on it).

  1. Make a fresh temporary folder (removed at exit unless --keep) holding the data folder
     and the server log; ingest data/demo into tenant "demo" with
     `python -m core.cli ingest --tenant demo data/demo` in a subprocess (timed).
  2. Start `python -m streamlit run app.py` headless on a free 127.0.0.1 port, file watcher
     off, with GROUNDWORK_DATA set to that folder and every other GROUNDWORK_* variable and
     OPENAI_API_KEY removed; time from the process start until GET /_stcore/health says "ok".
  3. Launch Debian's Chromium headless through Playwright (viewport 1440x1000; Playwright
     never downloads a browser here).
  4. Start-up to first answer: open the app root (the Ask page), wait until it is ready (see
     below), type --question into the chat input, press Enter and wait until the second chat
     message shows an answer status (answered, narrowed, refused or fallback). Report each
     mark in seconds from the server process start, and the ask itself (Enter to answer).
  5. For every page of app.py's st.navigation, in sidebar order: cold load = first visit of
     the page in this server process (the Ask page's cold load is its first open in step 4),
     warm load = 3 more visits after every page had its cold visit, reported as the median.
     Every visit is a full navigation to http://127.0.0.1:PORT/<url path> (a new Streamlit
     session), timed until the page is ready: its title heading (h1) is visible AND the
     script run has finished: the app root's data-test-script-state is "notRunning" (the
     status-widget test of tests/browser's wait_idle is checked too; see IDLE_JS).
     Then, as a user moves between pages, WARM_VISITS rounds of clicks on each page's link
     in the sidebar (one Streamlit session, no page load), timed from the click until the
     same readiness, reported as the median.
  6. Close the browser; stop the server (terminate, kill after 10 s); print a summary.
"""

from __future__ import annotations

import ast
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1440, "height": 1000}
DEFAULT_QUESTION = "What is the oil capacity?"
WARM_VISITS = 3
ANSWER_STATUS = re.compile(r"\b(answered|narrowed|refused|fallback)\b")
# True once the app's script run is over. Streamlit's run state on the app root decides: it
# turns "running" as soon as a run starts. The status-widget check of tests/browser wait_idle
# is kept, but alone it cannot see a run: the widget only appears 500 ms into a run and then
# reads "Stop" ("Running..." is only its icon's aria-label; seen in Streamlit 1.67).
IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const widget = document.querySelector('[data-testid="stStatusWidget"]');
  return !widget || !widget.innerText.includes('Running');
}"""


def app_pages(app: Path = ROOT / "app.py") -> list[tuple[str, str]]:
    """(title, url path) of every page in app.py's PAGES, in sidebar order (what single-user
    mode shows). PAGES maps a group to (file stem, title, icon) tuples; a page's url path is
    its stem, the first page is the default, served at the root, path ""."""
    tree = ast.parse(app.read_text(encoding="utf-8"))
    found = next((n.value for n in tree.body if isinstance(n, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "PAGES" for t in n.targets)), None)
    if found is None:
        raise RuntimeError(f"no PAGES in {app}")
    groups = ast.literal_eval(found)
    pages = [(title, stem) for specs in groups.values() for stem, title, _icon in specs]
    if not pages:
        raise RuntimeError(f"no page in {app}'s PAGES")
    return [(pages[0][0], ""), *pages[1:]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, proc: subprocess.Popen, log: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}:\n{_tail(log)}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"streamlit did not become healthy in {timeout:.0f} s:\n{_tail(log)}")


def _tail(log: Path, chars: int = 3000) -> str:
    return log.read_text(errors="replace")[-chars:] if log.exists() else "(no log)"


def console_command(port: int) -> list[str]:
    """`streamlit run app.py`, headless on 127.0.0.1:port (the README's run command)."""
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
            "--server.address", "127.0.0.1", "--server.port", str(port),
            "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


def clean_env(data: Path) -> dict[str, str]:
    """This environment minus any GROUNDWORK_* / OPENAI_API_KEY, with GROUNDWORK_DATA=data."""
    env = {k: v for k, v in os.environ.items() if not (k.startswith("GROUNDWORK_") or k == "OPENAI_API_KEY")}
    env.update(GROUNDWORK_DATA=str(data), PYTHONUNBUFFERED="1")
    return env


def stop(proc: subprocess.Popen) -> None:
    """Terminate, then kill after 10 s."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_ready(tab: Any, title: str, timeout: float = 120) -> None:
    """Until the page's h1 `title` is visible and the script run is over."""
    from playwright.sync_api import expect

    expect(tab.get_by_role("heading", name=title, level=1)).to_be_visible(timeout=timeout * 1000)
    tab.wait_for_function(IDLE_JS, timeout=timeout * 1000)


def visit(tab: Any, url: str, title: str) -> float:
    """Seconds from navigating to `url` until the page is ready."""
    started = time.perf_counter()
    tab.goto(url)
    wait_ready(tab, title)
    return time.perf_counter() - started


def click(tab: Any, title: str) -> float:
    """Seconds from clicking the page's sidebar link until the page is ready."""
    link = tab.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title, exact=True)
    started = time.perf_counter()
    link.click()
    wait_ready(tab, title)
    return time.perf_counter() - started


def _ingest(data: Path) -> float:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "core.cli", "ingest", "--tenant", "demo", "data/demo"],
                          cwd=ROOT, env=clean_env(data), capture_output=True, text=True)
    seconds = time.perf_counter() - t
    failed = [line for line in proc.stdout.splitlines() if line.startswith("failed")]
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ingest failed: {(proc.stderr or proc.stdout).strip()[-500:]}")
    print(f"ingested data/demo into tenant demo in {seconds:.1f} s (subprocess)"
          + (f"; {len(failed)} files failed" if failed else ""), flush=True)
    return seconds


def bench_ui(question: str | None = None, keep: bool = False, think: float = 0.0) -> dict[str, Any]:
    question = DEFAULT_QUESTION if question is None else question
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is not installed.")
    if not question.strip():
        raise ValueError("--question must not be empty.")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright

    pages = app_pages()
    folder = Path(tempfile.mkdtemp(prefix="groundwork-bench-ui-"))
    data, log = folder / "data", folder / "streamlit.log"
    data.mkdir()
    out: dict[str, Any] = {"folder": str(folder), "question": question}
    with contextlib.ExitStack() as stack:
        if keep:
            stack.callback(print, f"kept {folder} (data/ and streamlit.log)")
        else:
            stack.callback(shutil.rmtree, folder, True)  # registered first, so it runs last

        # 1. data
        out["ingest_s"] = _ingest(data)

        # 2. server
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with log.open("w") as sink:
            t0 = time.perf_counter()
            proc = subprocess.Popen(console_command(port), cwd=ROOT, env=clean_env(data), stdout=sink, stderr=subprocess.STDOUT)
        stack.callback(stop, proc)
        wait_healthy(base, proc, log)
        out["server_healthy_s"] = time.perf_counter() - t0
        print(f"streamlit healthy {out['server_healthy_s']:.2f} s after the process start (port {port})", flush=True)

        try:
            # 3. browser
            t = time.perf_counter()
            pw = stack.enter_context(sync_playwright())
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            stack.callback(browser.close)
            context = browser.new_context(viewport=VIEWPORT)
            tab = context.new_page()
            tab.set_default_timeout(120_000)
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            out["browser_launch_s"] = time.perf_counter() - t
            print(f"chromium launched in {out['browser_launch_s']:.2f} s", flush=True)

            # 4. start-up to first answer
            first_title, first_path = pages[0]
            cold: dict[str, float] = {}
            cold[first_path] = visit(tab, f"{base}/{first_path}", first_title)
            out["ask_page_ready_s"] = time.perf_counter() - t0
            box = tab.locator('[data-testid="stChatInputTextArea"]')
            tab.wait_for_timeout(think * 1000)  # a user reading the page and typing
            box.fill(question)
            t = time.perf_counter()
            box.press("Enter")
            answer = tab.locator('[data-testid="stChatMessage"]').nth(1)
            expect(answer).to_contain_text(ANSWER_STATUS, timeout=300_000)
            now = time.perf_counter()
            out["ask_s"], out["first_answer_s"] = now - t, now - t0
            found = ANSWER_STATUS.search(answer.inner_text())
            out["answer_status"] = found.group(1) if found else "?"
            tab.wait_for_function(IDLE_JS, timeout=120_000)
            out["ask_idle_s"] = time.perf_counter() - t
            out["first_answer_without_browser_launch_s"] = out["first_answer_s"] - out["browser_launch_s"]
            print(f"first answer ({out['answer_status']}) {out['first_answer_s']:.2f} s after the server start; "
                  f"the ask itself {out['ask_s']:.2f} s", flush=True)

            # 5. every page: cold, then warm rounds
            for title, path in pages[1:]:
                cold[path] = visit(tab, f"{base}/{path}", title)
                print(f"  cold {title:<10} {cold[path]:6.2f} s", flush=True)
            warm: dict[str, list[float]] = {path: [] for _, path in pages}
            for _ in range(WARM_VISITS):
                for title, path in pages:
                    warm[path].append(visit(tab, f"{base}/{path}", title))
            clicked: dict[str, list[float]] = {path: [] for _, path in pages}
            for _ in range(WARM_VISITS):  # from the last page visited, around the sidebar
                for title, path in pages:
                    clicked[path].append(click(tab, title))
            out["pages"] = [{"page": title, "path": "/" + path, "cold_s": cold[path],
                             "warm_s": statistics.median(warm[path]), "warm_runs_s": warm[path],
                             "click_s": statistics.median(clicked[path]), "click_runs_s": clicked[path]}
                            for title, path in pages]
            out["page_errors"] = errors
        except PlaywrightError as exc:
            raise RuntimeError(f"browser step failed: {exc}\n--- streamlit log ---\n{_tail(log)}") from exc

        # 6. shut down (browser, then server, then the folder) before the summary
        t = time.perf_counter()
        stack.pop_all().close()
        out["shutdown_s"] = time.perf_counter() - t

    _print_summary(out)
    return out


def _print_summary(out: dict[str, Any]) -> None:
    print()
    print("start-up to first answer (seconds since `streamlit run` started)")
    print(f"  server healthy        {out['server_healthy_s']:7.2f}")
    print(f"  chromium launched     {out['server_healthy_s'] + out['browser_launch_s']:7.2f}"
          f"   (launch took {out['browser_launch_s']:.2f})")
    print(f"  Ask page ready        {out['ask_page_ready_s']:7.2f}")
    print(f"  first answer shown    {out['first_answer_s']:7.2f}"
          f"   ({out['first_answer_without_browser_launch_s']:.2f} without the browser launch)")
    print(f"  ask itself            {out['ask_s']:7.2f}   Enter to answer ({out['answer_status']}); "
          f"{out['ask_idle_s']:.2f} until the run finished")
    print(f"  question: {out['question']!r}")
    print()
    print(f"page loads (navigate by URL until the h1 shows and the run is over; warm = median of {WARM_VISITS})")
    print(f"  {'page':<10} {'path':<11} {'cold s':>7} {'warm s':>7} {'click s':>8}   warm runs s | click runs s")
    for p in out["pages"]:
        runs = " ".join(f"{v:.2f}" for v in p["warm_runs_s"])
        clicks = " ".join(f"{v:.2f}" for v in p["click_runs_s"])
        print(f"  {p['page']:<10} {p['path']:<11} {p['cold_s']:>7.2f} {p['warm_s']:>7.2f} {p['click_s']:>8.2f}"
              f"   {runs} | {clicks}")
    print("  (the Ask page's cold load is its first open in the start-up run above; click = the page's"
          " sidebar link in the same session, median)")
    print()
    print(f"ingest {out['ingest_s']:.1f} s; shutdown {out['shutdown_s']:.2f} s; "
          f"browser page errors: {len(out['page_errors'])}")
    for err in out["page_errors"][:5]:
        print(f"  ! {err[:200]}")


# ---- reopening a saved chat ------------------------------------------------------------------
#
# `python -m evals.bench ui-chat [--turns 26] [--rounds 3] [--screenshot PATH] [--keep]`
#
#   1. A fresh temporary folder and data/demo ingested into tenant "demo" (as above).
#   2. In a subprocess, `--turns` questions of evals/sets/demo.jsonl, spread evenly over it
#      (answered, refused and follow-up alike), asked one after another as the Ask page asks
#      them (each with the question before it, origin "benchmark"), kept as one saved chat
#      of tenant demo the way the page saves it (ui.conversations.save).
#   3. The console and Chromium as above. Two ways of reopening the chat, each timed until
#      the page is ready (h1 visible, script run over, see wait_ready), all 2 x turns chat
#      messages are on the page and the browser has painted twice more (two animation frames):
#      - reload: a full navigation to /?tenant=demo (a new session: the latest chat is back);
#        the first is cold (the server's first Ask page run), then --rounds more, median;
#      - saved chats: in one session, "New chat", then "Saved chats (1)" and the chat's own
#        button, timed from that click; --rounds times, median.
#      The floor beside them: "New chat" (the empty Ask page, same session), timed alike.
#   4. What the reopened page holds: chat messages, tabs, expanders, forms, buttons and DOM
#      elements under the main area, and its height (not its images: the browser mounts an
#      image of a collapsed expander only when it opens, so their count varies); a
#      full-page screenshot (at most 16,000 px tall) with --screenshot.

CHAT_TURNS = 26
CHAT_SET = ROOT / "evals" / "sets" / "demo.jsonl"
PAGE_COUNTS_JS = """() => {
  const main = document.querySelector('[data-testid="stAppScrollToBottomContainer"]') || document.body;
  const n = (sel) => main.querySelectorAll(sel).length;
  return {messages: n('[data-testid="stChatMessage"]'), tabs: n('[role="tab"]'), expanders: n('[data-testid="stExpander"]'),
          forms: n('[data-testid="stForm"]'), buttons: n('button'), elements: n('*'), height: main.scrollHeight};
}"""
PAINTED_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def chat_questions(turns: int, path: Path = CHAT_SET) -> list[str]:
    """`turns` questions of the set, spread evenly over it (its rows mix kinds and sources)."""
    import json

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not 0 < turns <= len(rows):
        raise ValueError(f"--turns must be between 1 and {len(rows)}.")
    return [rows[i * len(rows) // turns]["question"] for i in range(turns)]


def build_chat(turns: int, tenant: str = "demo") -> None:
    """In this process (GROUNDWORK_DATA set): ask the questions as the Ask page does and save
    them as one conversation; prints what the turns are (statuses, citations, PDF pages)."""
    from core.config import load_settings
    from core.pipeline import ask
    from core.trace import ORIGIN_BENCHMARK
    from ui import conversations, services

    settings = load_settings()
    history: list[dict[str, Any]] = []
    for question in chat_questions(turns):
        previous = services.previous_question(history)
        result = ask(settings, tenant, question, previous=previous, origin=ORIGIN_BENCHMARK).to_dict()
        result["unplaced_followup"] = services.unplaced_followup(question, previous, result)
        history.append(result)
    conversations.save(settings, tenant, conversations.new_id(), history)
    statuses: dict[str, int] = {}
    for turn in history:
        statuses[turn.get("status", "?")] = statuses.get(turn.get("status", "?"), 0) + 1
    cited = sum(len(t.get("citations") or []) for t in history)
    paged = sum(1 for t in history for c in [*(t.get("citations") or []), *(t.get("closest") or [])]
                if c.get("rects") and c.get("page") not in (None, -1))
    print(f"chat of {len(history)} turns: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
          + f"; {cited} citations; {paged} passages on a PDF page with their quote's boxes", flush=True)


def _chat_shown(tab: Any, messages: int, timeout: float = 120) -> None:
    tab.wait_for_function(f"() => document.querySelectorAll('[data-testid=\"stChatMessage\"]').length >= {messages}",
                          timeout=timeout * 1000)
    tab.wait_for_function(IDLE_JS, timeout=timeout * 1000)
    tab.evaluate(PAINTED_JS)


def _build_chat_in_subprocess(data: Path, turns: int) -> None:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "import sys; from evals.bench_ui import build_chat; "
                           "build_chat(int(sys.argv[1]))", str(turns)],
                          cwd=ROOT, env=clean_env(data), capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"building the chat failed: {(proc.stderr or proc.stdout).strip()[-1500:]}")
    print(proc.stdout.strip().splitlines()[-1], f"(asked in {time.perf_counter() - t:.1f} s)", flush=True)


def bench_chat(turns: int = CHAT_TURNS, rounds: int = WARM_VISITS, keep: bool = False,
               screenshot: Path | None = None, data: Path | None = None) -> dict[str, Any]:
    """With `data`, a data folder a --keep run left (tenant demo and its saved chat of
    `turns` turns): steps 1 and 2 are skipped, so before and after compare the same chat."""
    if not CHROMIUM.exists():
        raise RuntimeError(f"{CHROMIUM} is not installed.")
    if rounds < 1:
        raise ValueError("--rounds must be at least 1.")
    chat_questions(turns)  # a bad --turns fails before anything starts
    from playwright.sync_api import Error as PlaywrightError

    reuse = data is not None
    if reuse and not (data / "conversations").is_dir():
        raise ValueError(f"{data} holds no saved chat (a data/ folder kept by --keep is expected).")
    folder = Path(tempfile.mkdtemp(prefix="groundwork-bench-chat-"))
    log = folder / "streamlit.log"
    data = data if reuse else folder / "data"
    out: dict[str, Any] = {"turns": turns}
    messages = 2 * turns
    with contextlib.ExitStack() as stack:
        if keep:
            stack.callback(print, f"kept {folder} (data/ and streamlit.log)")
        else:
            stack.callback(shutil.rmtree, folder, True)
        if reuse:
            print(f"the chat and tenant of {data}", flush=True)
        else:
            data.mkdir()
            _ingest(data)
            _build_chat_in_subprocess(data, turns)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with log.open("w") as sink:
            server = subprocess.Popen(console_command(port), cwd=ROOT, env=clean_env(data), stdout=sink,
                                      stderr=subprocess.STDOUT)
        stack.callback(stop, server)
        wait_healthy(base, server, log)
        try:
            from playwright.sync_api import sync_playwright

            pw = stack.enter_context(sync_playwright())
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
            stack.callback(browser.close)
            tab = browser.new_context(viewport=VIEWPORT).new_page()
            tab.set_default_timeout(120_000)
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))

            reloads = []
            for n in range(1 + rounds):
                started = time.perf_counter()
                tab.goto(f"{base}/?tenant=demo")
                wait_ready(tab, "Ask")
                _chat_shown(tab, messages)
                reloads.append(time.perf_counter() - started)
                print(f"  reload {'cold' if n == 0 else n:>4}: {reloads[-1]:6.2f} s", flush=True)
            out["counts"] = tab.evaluate(PAGE_COUNTS_JS)

            opened, emptied = [], []
            for n in range(rounds):
                started = time.perf_counter()
                tab.get_by_role("button", name="New chat").click()
                tab.wait_for_function("() => !document.querySelector('[data-testid=\"stChatMessage\"]')")
                tab.wait_for_function(IDLE_JS)
                tab.evaluate(PAINTED_JS)
                emptied.append(time.perf_counter() - started)
                tab.get_by_role("button", name=re.compile(r"Saved chats \(1\)")).click()
                item = tab.get_by_role("button", name=re.compile(rf" · {turns} · "))
                item.wait_for()
                started = time.perf_counter()
                item.click()
                _chat_shown(tab, messages)
                opened.append(time.perf_counter() - started)
                print(f"  saved chats {n + 1}: {opened[-1]:6.2f} s", flush=True)
            if screenshot is not None:
                screenshot.parent.mkdir(parents=True, exist_ok=True)
                height = tab.evaluate(PAGE_COUNTS_JS)["height"]  # Streamlit scrolls inside its main area
                tab.set_viewport_size({"width": VIEWPORT["width"], "height": min(int(height) + 40, 16000)})
                tab.wait_for_timeout(800)
                tab.screenshot(path=str(screenshot), full_page=True)
                tab.set_viewport_size(VIEWPORT)
                print(f"  screenshot: {screenshot}", flush=True)
            out.update(reload_cold_s=reloads[0], reload_runs_s=reloads[1:],
                       reload_s=statistics.median(reloads[1:]), open_runs_s=opened,
                       open_s=statistics.median(opened), new_chat_s=statistics.median(emptied),
                       page_errors=errors)
        except PlaywrightError as exc:
            raise RuntimeError(f"browser step failed: {exc}\n--- streamlit log ---\n{_tail(log)}") from exc
        stack.pop_all().close()

    c = out["counts"]
    print()
    print(f"reopening a saved chat of {turns} turns ({messages} chat messages), seconds until every message "
          "is shown and the run is over")
    print(f"  reload (new session)   cold {out['reload_cold_s']:6.2f}   warm median {out['reload_s']:6.2f}"
          f"   ({' '.join(f'{v:.2f}' for v in out['reload_runs_s'])})")
    print(f"  Saved chats → open                  warm median {out['open_s']:6.2f}"
          f"   ({' '.join(f'{v:.2f}' for v in out['open_runs_s'])})")
    print(f"  (the floor: \"New chat\", the empty Ask page in the same session, median {out['new_chat_s']:.2f})")
    print(f"  on the page: {c['messages']} messages, {c['tabs']} tabs, "
          f"{c['expanders']} expanders, {c['forms']} forms, {c['buttons']} buttons, {c['elements']} DOM elements; "
          f"{c['height']:,} px tall")
    print(f"  browser page errors: {len(out['page_errors'])}")
    return out
