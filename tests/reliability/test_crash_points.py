"""SIGKILL a real ingest, replacement or delete at each step boundary; afterwards the four
stores agree and the same questions get the answers a clean run of the same change gets.

The crashed write runs in a child process (crash_child.py); this process plays "the next
process touching the tenant": its first question settles what the crash left half-done.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from core import doctor, journal, store
from core.config import Settings, load_settings
from core.documents import delete_document, ingest_file
from core.pipeline import ask

pytestmark = pytest.mark.slow

CHILD = Path(__file__).with_name("crash_child.py")
TENANT = "acme"
POLICY = "# Travel policy\n\nEmployees book flights through the travel desk at least 14 days before departure.\n\n" \
         "Hotel costs are reimbursed up to 180 euros per night.\n"
POLICY_NEW = POLICY.replace("180 euros", "210 euros")
EQUIPMENT = "# Equipment\n\nEvery new employee receives a laptop and a headset on the first day.\n\n" \
            "Broken equipment is reported to the IT service desk on extension 4455.\n"
PARKING = "# Parking\n\nStaff park on garage level minus two, and the gate code changes every 30 days.\n"
QUESTIONS = ("How much is reimbursed for a hotel night?", "What extension does the IT service desk have?",
             "How often does the parking gate code change?")

# step -> (the change the child makes, whether the registry had committed it when it died)
STEPS = {
    "parse": ("add", False), "embed": ("add", False), "keep": ("add", False), "chroma-add": ("add", False),
    "registry": ("add", True), "bm25": ("add", True),
    "replace": ("replace", True),
    "delete-registry": ("delete", True), "delete-vectors": ("delete", True),
}

# steps after which, unsettled, some store disagrees with the registry (after "bm25" of a
# new document only the record itself is left; before "keep" nothing was written)
LEAVES_DISAGREEMENT = ("keep", "chroma-add", "registry", "replace", "delete-registry", "delete-vectors")


def _settings(data: Path) -> Settings:
    return replace(load_settings({"GROUNDWORK_DATA": str(data)}), gate_threshold=0.3)


def _files(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, text in (("policy.md", POLICY), ("equipment.md", EQUIPMENT), ("parking.md", PARKING)):
        out[name] = folder / name
        out[name].write_text(text, encoding="utf-8")
    out["policy-new"] = folder / "new" / "policy.md"  # the same file name, new content
    out["policy-new"].parent.mkdir(exist_ok=True)
    out["policy-new"].write_text(POLICY_NEW, encoding="utf-8")
    return out


def _base(settings: Settings, files: dict[str, Path]) -> None:
    for name in ("policy.md", "equipment.md"):
        assert ingest_file(settings, TENANT, files[name]).status == "ready"


def _change(settings: Settings, files: dict[str, Path], change: str) -> None:
    if change == "add":
        assert ingest_file(settings, TENANT, files["parking.md"]).status == "ready"
    elif change == "replace":
        assert ingest_file(settings, TENANT, files["policy-new"]).status == "ready"
    else:
        assert delete_document(settings, TENANT, _doc_id(settings, "equipment.md"))


def _doc_id(settings: Settings, file_name: str) -> str:
    return next(d["doc_id"] for d in store.list_documents(settings, TENANT) if d["file_name"] == file_name)


def _answers(settings: Settings) -> list[tuple[str, str]]:
    return [(a.status, a.answer) for a in (ask(settings, TENANT, q) for q in QUESTIONS)]


def _state(settings: Settings) -> list[tuple[str, str]]:
    return sorted((d["file_name"], d["sha256"]) for d in store.list_documents(settings, TENANT))


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], tuple[list, list]]:
    """(change, committed) -> (registry state, answers) of a clean run: the base before
    the change (not committed) or after it (committed)."""
    out = {}
    files = _files(tmp_path_factory.mktemp("ref-files"))
    base = _settings(tmp_path_factory.mktemp("ref-base"))
    _base(base, files)
    before = (_state(base), _answers(base))
    for change in ("add", "replace", "delete"):
        out[(change, False)] = before
        settings = _settings(tmp_path_factory.mktemp(f"ref-{change}"))
        _base(settings, files)
        _change(settings, files, change)
        out[(change, True)] = (_state(settings), _answers(settings))
    return out


@pytest.mark.parametrize("step", list(STEPS))
def test_a_write_killed_at_each_step_is_settled_by_the_next_process(step: str, tmp_path: Path, references: dict) -> None:
    change, committed = STEPS[step]
    files = _files(tmp_path / "files")
    data = tmp_path / "data"
    settings = _settings(data)
    _base(settings, files)
    target = {"add": str(files["parking.md"]), "replace": str(files["policy-new"]),
              "delete": _doc_id(settings, "equipment.md")}[change]
    child = subprocess.run(
        [sys.executable, str(CHILD), step, "delete" if change == "delete" else "ingest", TENANT, target],
        env={**os.environ, "GROUNDWORK_DATA": str(data)}, capture_output=True, text=True, timeout=300)
    assert child.returncode == -9, (child.returncode, child.stdout, child.stderr[-2000:])

    # what the crash left: a write-ahead record once the write had begun changing stores
    assert (journal.pending(settings, TENANT) is not None) == (step not in ("parse", "embed"))
    state, answers = references[(change, committed)]
    assert _state(settings) == state  # the registry is all or nothing by itself
    if step in LEAVES_DISAGREEMENT:  # the stores really were left disagreeing
        assert not doctor.check(settings, TENANT).consistent

    assert _answers(settings) == answers  # the first question settles the record
    assert journal.pending(settings, TENANT) is None
    found = doctor.check(settings, TENANT)
    assert found.consistent and not found.missing_files, found.to_dict()
