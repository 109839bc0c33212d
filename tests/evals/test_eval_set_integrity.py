"""The bundled eval sets against their corpora (scripts/check_sets.py): gold quotes stand in
their gold sources, ids are unique, kinds, languages and the calib/test split are valid."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted((ROOT / "evals" / "sets").glob("*.jsonl")) + sorted((ROOT / "evals" / "blind").glob("*.jsonl"))


def _missing_outside_corpus(set_path: Path) -> str | None:
    """A corpus folder outside the repository (../shared/corpora/, real documents that are
    not bundled) that this machine does not have."""
    manifest = json.loads(set_path.with_name(set_path.stem + ".corpus.json").read_text(encoding="utf-8"))
    for folders in manifest.values():
        for folder in [folders] if isinstance(folders, str) else folders:
            path = (ROOT / folder).resolve()
            if ROOT not in path.parents and not path.exists():
                return str(folder)
    return None


def _checker():
    spec = importlib.util.spec_from_file_location("check_sets", ROOT / "scripts" / "check_sets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("set_path", SETS, ids=[p.name for p in SETS])
def test_bundled_set_passes_every_integrity_check(set_path):
    missing = _missing_outside_corpus(set_path)
    if missing:
        pytest.skip(f"its corpus {missing} is not on this machine")
    assert _checker().check_set(set_path) == []


def test_the_checker_catches_a_quote_that_is_not_in_its_source(tmp_path):
    demo = ROOT / "evals" / "sets" / "demo.jsonl"
    rows = [json.loads(line) for line in demo.read_text(encoding="utf-8").splitlines() if line.strip()]
    row = next(r for r in rows if r["kind"] == "answerable")
    broken = dict(row, gold_quote=row["gold_quote"] + " and 30 days")
    bad = tmp_path / "demo.jsonl"
    bad.write_text(json.dumps(broken, ensure_ascii=False) + "\n" + json.dumps(row, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    (tmp_path / "demo.corpus.json").write_text((ROOT / "evals" / "sets" / "demo.corpus.json").read_text())
    problems = _checker().check_set(bad)
    assert any("gold_quote" in p for p in problems) and any("id" in p for p in problems), problems
