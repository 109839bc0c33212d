"""Preparations of one tenant's answer vectors take turns (core/answer_vectors.py
`preparing`): a second `prepare` started while one runs waits for it, then finds every
text stored and embeds nothing, instead of embedding everything alongside it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from core import cli
from core.answer_vectors import AnswerVectors, preparing
from core.config import Settings
from core.documents import ingest_file
from core.models import get_embedder

ROOT = Path(__file__).resolve().parents[2]
DOC = """# Shipping

Parcels ship within 2 business days of the order. Express delivery costs 9 euros and
arrives the next working day.

# Returns

Items may be returned within 30 days of delivery. Refunds are paid within 5 business days.
"""
SAFETY_S = 120  # only so a broken test ends; nothing is asserted about time


class _Watched:
    """sys.stderr that sets `event` when the CLI says it waits for another preparation."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event
        self.text: list[str] = []

    def write(self, text: str) -> int:
        self.text.append(text)
        if "waiting for it to finish" in text:
            self.event.set()
        return len(text)

    def flush(self) -> None:
        pass


def test_two_prepares_of_one_tenant_embed_each_text_once(settings: Settings, write_file, monkeypatch, capsys) -> None:
    ingest_file(settings, "shop", write_file("shop.md", DOC))
    cls = type(get_embedder())
    original = cls.embed_passages
    calls: list[tuple[str, int]] = []  # (thread, texts) per embedding call
    first_embeds, second_arrived, release = threading.Event(), threading.Event(), threading.Event()

    def gated(self, texts):
        me = threading.current_thread().name
        calls.append((me, len(texts)))
        if me == "second":
            second_arrived.set()  # it embeds alongside the first: the defect
        elif me == "first" and not first_embeds.is_set():
            first_embeds.set()
            release.wait(SAFETY_S)  # hold the first inside its embedding until the second is in
        return original(self, texts)

    monkeypatch.setattr(cls, "embed_passages", gated)
    stderr = _Watched(second_arrived)
    monkeypatch.setattr(sys, "stderr", stderr)
    codes: dict[str, int] = {}

    def run() -> None:
        codes[threading.current_thread().name] = cli.main(["prepare", "--tenant", "shop"])

    first = threading.Thread(target=run, name="first")
    second = threading.Thread(target=run, name="second")
    try:
        first.start()
        assert first_embeds.wait(SAFETY_S)
        second.start()
        assert second_arrived.wait(SAFETY_S)  # waiting for the lock, or (before) embedding
    finally:
        release.set()
        first.join(SAFETY_S)
        second.join(SAFETY_S)

    assert codes == {"first": 0, "second": 0}
    assert [n for who, n in calls if who == "second"] == []
    assert sum(n for who, n in calls if who == "first") == AnswerVectors.of(settings, "shop").count() > 0
    assert any("another preparation of shop's answers is running" in t for t in stderr.text)
    prepared = [line for line in capsys.readouterr().out.splitlines() if line.startswith("prepared")]
    assert len(prepared) == 2 and sum("(0 new)" in line for line in prepared) == 1


CHILD = """
import sys
from core.answer_vectors import preparing
from core.config import load_settings

with preparing(load_settings(), "shop"):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_preparation_in_another_process_is_waited_for(settings: Settings) -> None:
    env = {**os.environ, "GROUNDWORK_DATA": str(settings.data_dir)}
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, env=env, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    waited, entered = threading.Event(), threading.Event()

    def second() -> None:
        with preparing(settings, "shop", on_wait=waited.set):
            entered.set()

    thread = threading.Thread(target=second)
    try:
        assert child.stdout.readline().strip() == "held"
        thread.start()
        assert waited.wait(SAFETY_S)
        assert not entered.is_set()  # the child's flock still holds it
    finally:
        child.stdin.close()
        child.wait(SAFETY_S)
        thread.join(SAFETY_S)
    assert entered.is_set()


def test_the_consoles_background_preparation_waits_for_a_running_one(settings: Settings, write_file,
                                                                     monkeypatch) -> None:
    """An upload in the console prepares in a background thread (core/answer/prepare.py);
    while `core.cli prepare` of the tenant runs, it waits and then embeds nothing twice."""
    from core.answer import prepare

    result = ingest_file(settings, "shop", write_file("shop.md", DOC))
    cls = type(get_embedder())
    original = cls.embed_passages
    calls: list[tuple[str, int]] = []

    def counted(self, texts):
        calls.append((threading.current_thread().name, len(texts)))
        return original(self, texts)

    monkeypatch.setattr(cls, "embed_passages", counted)
    with preparing(settings, "shop"):  # a preparation already running
        prepare.prepare_in_background(settings, "shop", [result.doc_id])
        prepare.prepare_answer_vectors(settings, "shop", get_embedder())
    assert prepare.wait_for_background(SAFETY_S)
    background = [n for who, n in calls if who == "prepare-answer-vectors"]
    assert background == []  # before: it embedded every text alongside the running one
    assert sum(n for _, n in calls) == AnswerVectors.of(settings, "shop").count() > 0
