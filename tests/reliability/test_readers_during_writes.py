"""Questions asked while another process ingests, replaces and deletes documents of the
same tenant get the old state or the new one: never an exception."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from core import doctor
from core.config import load_settings
from core.documents import ingest_file
from core.pipeline import ask

pytestmark = pytest.mark.slow

TENANT = "shared"
QUESTIONS = ("How many days of notice does a shift swap need?", "Who approves overtime?",
             "What is the night shift allowance?", "Where are the first aid kits kept?")
STABLE = ("# Safety\n\nFirst aid kits are kept beside every loading dock door.\n\n"
          "Overtime is approved by the shift lead before the shift starts.\n")
ROTA = "# Rota\n\nA shift swap needs {days} days of notice.\n\nThe night shift allowance is {pay} euros per night.\n"


def test_asks_in_threads_never_fail_while_another_process_writes(tmp_path: Path) -> None:
    data = tmp_path / "data"
    settings = replace(load_settings({"GROUNDWORK_DATA": str(data)}), gate_threshold=0.3)
    files = tmp_path / "files"
    for version, days, pay in (("v1", 3, 40), ("v2", 5, 45)):
        (files / version).mkdir(parents=True)
        (files / version / "rota.md").write_text(ROTA.format(days=days, pay=pay), encoding="utf-8")
    (files / "safety.md").write_text(STABLE, encoding="utf-8")
    assert ingest_file(settings, TENANT, files / "safety.md").status == "ready"

    writer = subprocess.Popen([sys.executable, str(Path(__file__).with_name("writer_child.py")), TENANT,
                               str(files), "4"], env={**os.environ, "GROUNDWORK_DATA": str(data)},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    statuses: list[str] = []
    lock = threading.Lock()

    def asker(offset: int) -> None:
        n = offset
        while writer.poll() is None:
            try:
                answer = ask(settings, TENANT, QUESTIONS[n % len(QUESTIONS)])
                with lock:
                    statuses.append(answer.status)
            except Exception as exc:  # noqa: BLE001 - counted: any exception fails the test
                with lock:
                    errors.append(f"{type(exc).__name__}: {exc}")
            n += 1

    threads = [threading.Thread(target=asker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    out, err = writer.communicate(timeout=600)
    for t in threads:
        t.join()
    assert writer.returncode == 0, err[-2000:]
    assert out.count("cycle") == 4
    assert errors == []
    assert len(statuses) >= 8  # the asks really overlapped the writes
    assert set(statuses) <= {"answered", "narrowed", "refused", "corrected"}
    # afterwards the stores agree and hold only the stable document, which is still found
    assert doctor.check(settings, TENANT).consistent
    final = ask(settings, TENANT, "Where are the first aid kits kept?")
    assert [r["source"] for r in final.retrieved][:1] == ["safety.md"]
