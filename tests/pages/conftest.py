"""AppTest fixtures: a tiny tenant (two Markdown files and one PDF) built once per session,
copied into a fresh GROUNDWORK_DATA for every test so tests cannot see each other's writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from core.config import load_settings

ROOT = Path(__file__).resolve().parents[2]
TENANT = "acme"

REFUNDS_MD = """# Refund policy

Monthly plans can be refunded within 14 days of purchase. Annual plans can be refunded
within 30 days of purchase.

## How to ask for a refund

Write to billing@example.com with your order number.
"""

ENGINE_MD = """# Engine manual

## Oil

The engine oil capacity is 4.5 litres. Change the oil every 10,000 km.

## Tyres

| Axle | Pressure |
|---|---|
| Front | 2.4 bar |
| Rear | 2.2 bar |
"""

TINY_SET = [
    {"id": "t1", "tenant": TENANT, "question": "What is the engine oil capacity?", "kind": "answerable",
     "expected_answer": "4.5 litres", "gold_source": "engine.md",
     "gold_quote": "The engine oil capacity is 4.5 litres.", "category": "maintenance"},
    {"id": "t2", "tenant": TENANT, "question": "Within how many days can monthly plans be refunded?",
     "kind": "answerable", "expected_answer": "14 days", "gold_source": "refunds.md",
     "gold_quote": "Monthly plans can be refunded within 14 days of purchase.", "category": "billing"},
    {"id": "t3", "tenant": TENANT, "question": "Who is the CEO of Microsoft?", "kind": "unanswerable",
     "expected_answer": None, "gold_source": None, "gold_quote": None, "category": "billing"},
]


def make_pdf(path: Path, lines: list[str], title: str = "Warranty policy") -> Path:
    """A small real PDF with a bold heading and one paragraph per line."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), title, fontsize=18, fontname="hebo")
    y = 110
    for line in lines:
        page.insert_text((72, y), line, fontsize=11)
        y += 22
    doc.save(path)
    doc.close()
    return path


@pytest.fixture(scope="session", autouse=True)
def _navigation_like_the_server():
    """AppTest builds a new PagesManager per run and resets its class flag, so with a pages/
    folder next to app.py it falls back to the v1 multipage mode and runs a page without the
    entry script. The real server clears the flag once st.navigation has run; do the same."""
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    PagesManager.__init__ = init
    yield
    PagesManager.__init__ = original


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GROUNDWORK_DATA holding tenant `acme` (refunds.md, engine.md, warranty.pdf) + a tiny eval set."""
    from core.documents import ingest_file

    root = tmp_path_factory.mktemp("tiny")
    files = root / "files"
    files.mkdir()
    (files / "refunds.md").write_text(REFUNDS_MD, encoding="utf-8")
    (files / "engine.md").write_text(ENGINE_MD, encoding="utf-8")
    make_pdf(files / "warranty.pdf", [
        "The warranty covers manufacturing defects for 24 months from delivery.",
        "Batteries are covered for 12 months.",
    ])
    data = root / "data"
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    for name in ("refunds.md", "engine.md", "warranty.pdf"):
        result = ingest_file(settings, TENANT, files / name, uploaded_by="fixture")
        assert result.status == "ready", result
    sets = data / "eval_sets"
    sets.mkdir(parents=True, exist_ok=True)
    (sets / "tiny.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TINY_SET), encoding="utf-8")
    return data


@pytest.fixture
def data_dir(tiny_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the tiny data folder, set as GROUNDWORK_DATA (no LLM configured)."""
    data = tmp_path / "data"
    shutil.copytree(tiny_data, data)  # kept originals are named relative to the folder: the copy finds its own
    monkeypatch.setenv("GROUNDWORK_DATA", str(data))
    for var in ("GROUNDWORK_LLM_BASE_URL", "GROUNDWORK_LLM_MODEL", "GROUNDWORK_LLM_API_KEY",
                "OPENAI_API_KEY", "GROUNDWORK_CHROMA_URL", "GROUNDWORK_PROVIDER"):
        monkeypatch.delenv(var, raising=False)
    return data


@pytest.fixture
def settings(data_dir: Path):
    return load_settings()


@pytest.fixture
def app(data_dir: Path) -> AppTest:
    """The console, first run done, on the Ask page with tenant `acme` selected."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture
def goto():
    """goto(at, "pages/x.py"): switch page, run, and fail on any exception."""

    def _goto(at: AppTest, path: str) -> AppTest:
        at.switch_page(path).run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    return _goto


def markdown_bodies(at: AppTest) -> list[str]:
    """Every Markdown-rendered string in the tree: markdown, captions, alerts, labels."""
    out = [m.value for m in at.markdown] + [c.value for c in at.caption]
    for kind in ("error", "warning", "info", "success"):
        out += [a.value for a in getattr(at, kind)]
    out += [e.label for e in at.expander] + [t.label for t in at.tabs]
    out += [b.label for b in at.button]
    return out


@pytest.fixture
def md_bodies():
    return markdown_bodies


@pytest.fixture
def answering_env(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages showing what becomes of an answer need plain questions answered: a lower
    default threshold (tests/conftest.py `answering`); the eval sets measure the shipped one."""
    from tests.conftest import ANSWERING_THRESHOLD

    monkeypatch.setenv("GROUNDWORK_GATE_THRESHOLD", str(ANSWERING_THRESHOLD))
