"""Real-browser fixtures: `streamlit run app.py` on a free 127.0.0.1 port with GROUNDWORK_DATA
in a temporary folder, and Debian's Chromium driven by Playwright (the browser comes from Debian, Playwright never downloads one).

Screenshots go to artifacts/screenshots/ (git-ignored). Without /usr/bin/chromium every test
here is skipped with a clear reason.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# One copy of the server and browser plumbing, shared with `python -m evals.bench ui`.
from evals.bench_ui import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    clean_env,
    console_command,
    free_port,
    stop,
    wait_healthy,
)
from tests.conftest import ANSWERING_THRESHOLD

SHOTS = ROOT / "artifacts" / "screenshots"
PASSWORD = "correct horse battery"


def console_with_user(fresh_server: Callable[[Path], str], tmp_path: Path, name: str, role: str,
                      tenants: tuple[str, ...] = ("acme",)) -> str:
    """A fresh console over a data folder holding `tenants` and one account, `name` with
    `role` in the first tenant: its URL."""
    from core import users
    from core.config import load_settings
    from core.documents import ensure_tenant

    data = tmp_path / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    for tenant in tenants:
        ensure_tenant(settings, tenant)
    users.add_user(settings, name, PASSWORD, tenants[0], role)
    return fresh_server(data)


def sign_in(page: object, name: str) -> None:
    """Fill the sign-in form and submit it."""
    page.get_by_label("User name").fill(name)
    page.get_by_role("textbox", name="Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason="/usr/bin/chromium is not installed (scripts/test.sh installs it as root)")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("browser-data")


@contextlib.contextmanager
def console(data: Path, log: Path, port: int | None = None, args: tuple[str, ...] = ()) -> Iterator[str]:
    """A new console process on GROUNDWORK_DATA=data (output to `log`), with extra `streamlit
    run` options `args`; yields its base URL."""
    port = port or free_port()
    with log.open("w") as out:
        # the journeys follow an answer through the console: the plain questions they type
        # are answered at the lower test threshold (tests/conftest.py `answering`)
        env = {**clean_env(data), "GROUNDWORK_GATE_THRESHOLD": str(ANSWERING_THRESHOLD)}
        proc = subprocess.Popen([*console_command(port), *args], cwd=ROOT, env=env, stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, log)
        yield url
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def server(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A running console shared by a module's tests; yields its base URL."""
    with console(data_dir, tmp_path_factory.mktemp("server") / "streamlit.log") as url:
        yield url


@pytest.fixture
def fresh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[Path], str]]:
    """fresh_server(data) -> base URL of a console started for this test alone, so its first
    request is the test's own (some bugs only show on a new server process)."""
    with contextlib.ExitStack() as stack:
        yield lambda data: stack.enter_context(console(data, tmp_path_factory.mktemp("server") / "streamlit.log"))


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, accept_downloads=True)
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.errors = errors
    yield tab
    context.close()


@pytest.fixture
def shot():
    """shot(page, "name"): a full-page screenshot under artifacts/screenshots/."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def _shot(tab, name: str, full_page: bool = True) -> Path:
        """Streamlit scrolls inside its main container, so "full page" means: grow the
        viewport to the container's scroll height, shoot, and restore the viewport."""
        path = SHOTS / f"{name}.png"
        size = tab.viewport_size
        if full_page:
            height = tab.evaluate(
                "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
                "[data-testid=\"stAppScrollToBottomContainer\"], section')].map(e => e.scrollHeight), "
                "document.body.scrollHeight)")
            tab.set_viewport_size({"width": size["width"], "height": min(max(int(height) + 40, size["height"]), 7000)})
            tab.wait_for_timeout(600)  # let charts re-layout
        tab.screenshot(path=str(path), full_page=True)
        tab.set_viewport_size(size)
        return path

    return _shot


@pytest.fixture(scope="session")
def timings_log():
    """Collects measured load times; written to artifacts/screenshots/timings.json."""
    found: dict[str, float] = {}
    yield found
    if found:
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "timings.json").write_text(json.dumps(found, indent=2))
