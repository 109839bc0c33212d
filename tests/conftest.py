"""Shared fixtures: every test gets its own GROUNDWORK_DATA folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]

# confident answers are drawn for a spot check by their random trace id: in a test the review
# queue would hold one now and then. The tests of the draw set the share themselves; this
# reaches the console and API servers tests start, too.
os.environ.setdefault("GROUNDWORK_REVIEW_SAMPLE", "0")


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("GROUNDWORK_DATA", str(tmp_path / "data"))
    for var in ("GROUNDWORK_LLM_BASE_URL", "GROUNDWORK_LLM_MODEL", "GROUNDWORK_LLM_API_KEY",
                "OPENAI_API_KEY", "GROUNDWORK_CHROMA_URL", "GROUNDWORK_PROVIDER"):
        monkeypatch.delenv(var, raising=False)
    return load_settings()


@pytest.fixture
def write_file(tmp_path: Path):
    """Write a small real file under tmp_path/files and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / "files" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


@pytest.fixture(scope="session")
def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A data folder with the bundled demo corpus ingested once per test session."""
    from core.documents import ingest_file, iter_files

    data = tmp_path_factory.mktemp("demo-data")
    settings = load_settings({"GROUNDWORK_DATA": str(data)})
    failed = [r for r in (ingest_file(settings, "demo", p) for p in iter_files([ROOT / "data" / "demo"]))
              if r.status == "failed"]
    assert not failed, failed
    return settings


ANSWERING_THRESHOLD = 0.5


@pytest.fixture
def answering(demo_settings: Settings) -> Settings:
    """The demo data with a lower answer threshold. Tests of what becomes of an answer (its
    quotes, markers, citations, PDF boxes, traces, the fallbacks of the llm provider) need
    plain questions answered; whether the shipped threshold answers them is measured by
    the eval sets, not asserted question by question."""
    from dataclasses import replace

    return replace(demo_settings, gate_threshold=ANSWERING_THRESHOLD)


@pytest.fixture
def embed_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Texts embedded as passages from now on, one entry per call (the embedder is a pydantic
    model: patched on its class)."""
    from core.models import get_embedder

    calls: list[int] = []
    cls = type(get_embedder())
    original = cls.embed_passages

    def counting(self, texts):
        calls.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(cls, "embed_passages", counting)
    return calls
