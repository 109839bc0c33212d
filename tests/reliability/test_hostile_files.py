"""Every hostile or odd file gets a result a person can act on, the stores stay
consistent, and nothing outside the tenant's folder is written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hostile_files import ODD_NAMES, kinds

from core import doctor, store
from core.config import Settings
from core.documents import ingest_file
from core.tenants import tenant_dir

pytestmark = pytest.mark.slow
KINDS = kinds()


def test_the_suite_covers_at_least_34_kinds_of_file() -> None:
    assert len(KINDS) + len(ODD_NAMES) >= 34


@pytest.mark.parametrize("name,data,outcome,text", KINDS, ids=[k[0] for k in KINDS])
def test_a_hostile_file_is_indexed_or_refused_in_one_sentence(
        settings: Settings, tmp_path: Path, name: str, data: bytes, outcome: str, text: str | None) -> None:
    path = tmp_path / "upload" / name
    path.parent.mkdir()
    path.write_bytes(data)
    result = ingest_file(settings, "t", path)
    assert result.status in ("ready", "failed")
    if outcome != "either":
        assert result.status == outcome, result.error
    if result.status == "failed":
        assert result.error and "\n" not in result.error and len(result.error) < 400
        assert "Traceback" not in result.error and "Recursion" not in result.error
        assert not store.chunk_rows(settings, "t")  # nothing of a refused file is kept
    chunks = " ".join(r["text"] for r in store.chunk_rows(settings, "t"))
    if text:
        assert text in chunks
    # markup is dropped or kept as inert text, never as markup (the console escapes text too)
    for never in ("<script", "document.cookie", "onerror", "ATTACHED-SECRET-CANARY", "root:x:0", "steal()"):
        assert never not in chunks
    assert doctor.check(settings, "t").consistent


def test_odd_file_names_are_kept_as_given_and_stored_inside_the_tenant(settings: Settings, tmp_path: Path) -> None:
    source = tmp_path / "plain.md"
    for n, name in enumerate(ODD_NAMES):
        source.write_text(f"# Note {n}\n\nThis is note number {n} of the odd names.\n", encoding="utf-8")
        assert ingest_file(settings, "t", source, file_name=name).status == "ready"
    docs = store.list_documents(settings, "t")
    assert sorted(d["file_name"] for d in docs) == sorted(ODD_NAMES)
    files = tenant_dir(settings, "t") / "files"
    assert sorted(p.name for p in files.iterdir()) == sorted(Path(d["path"]).name for d in docs)
    assert all(re.fullmatch(r"d[0-9a-f]{15}\.md", p.name) for p in files.iterdir())
    written = {p.relative_to(settings.data_dir).parts[0] for p in Path(settings.data_dir).rglob("*")}
    assert written <= {"groundwork.db", "groundwork.db-wal", "groundwork.db-shm", "chroma", "chroma.written", "tenants"}
    assert not (tmp_path / "etc").exists()
    assert doctor.check(settings, "t").consistent


def test_the_same_bytes_twice_are_indexed_once(settings: Settings, tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    for p in (a, b):
        p.write_text("# Same\n\nIdentical content in two files.\n", encoding="utf-8")
    assert ingest_file(settings, "t", a).status == "ready"
    again = ingest_file(settings, "t", b)
    assert again.status == "unchanged" and again.same_as == "a.md"
    assert len(store.list_documents(settings, "t")) == 1
    assert json.dumps(doctor.check(settings, "t").to_dict())  # serialisable for the CLI
