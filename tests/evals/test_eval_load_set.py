"""Loading and validating eval sets and manifests; selecting rows; pinned settings."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from core.config import save_tenant_overrides
from evals.run import EvalSetError, load_manifest, load_set, pin_settings, select_rows

GOOD = {"id": "q1", "tenant": "acme", "question": "How long is the warranty?", "kind": "answerable",
        "expected_answer": "2 years", "gold_source": "w.md", "gold_quote": "2 years", "category": "policy",
        "lang": "en", "split": "calib"}
UNANSWERABLE = {"id": "q2", "tenant": "acme", "question": "Who won in 1954?", "kind": "unanswerable",
                "expected_answer": None, "gold_source": None, "gold_quote": None, "split": "test"}


def _write(tmp_path, lines: list) -> str:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return str(path)


def test_a_valid_set_loads(tmp_path):
    rows = load_set(_write(tmp_path, [GOOD, "", UNANSWERABLE]))
    assert [r["id"] for r in rows] == ["q1", "q2"]


@pytest.mark.parametrize("lines, message", [
    (["{not json"], "line 1: not valid JSON"),
    ([GOOD, ["a", "list"]], "line 2: expected a JSON object"),
    ([{k: v for k, v in GOOD.items() if k != "question"}], "missing field 'question'"),
    ([dict(GOOD, kind="trick")], "kind 'trick' is not one of"),
    ([dict(GOOD, split="train")], "split 'train' is not one of"),
    ([GOOD, dict(GOOD, question="again?")], "id 'q1' already used on line 1"),
    ([dict(GOOD, gold_quote=None)], "answerable question needs 'gold_quote'"),
    ([dict(GOOD, tenant=7)], "'tenant' must be a non-empty string"),
    ([dict(GOOD, question="x" * 2001)], "longer than 2000"),
    ([""], "holds no questions"),
])
def test_bad_sets_say_where_and_why(tmp_path, lines, message):
    with pytest.raises(EvalSetError, match=message):
        load_set(_write(tmp_path, lines))


def test_missing_file(tmp_path):
    with pytest.raises(EvalSetError, match="does not exist"):
        load_set(tmp_path / "nope.jsonl")


def test_select_rows():
    rows = [GOOD, UNANSWERABLE, dict(GOOD, id="q3", split="test")]
    assert [r["id"] for r in select_rows(rows, split="test")] == ["q2", "q3"]
    mapped = select_rows(rows, tenant="other", limit=2)
    assert [r["tenant"] for r in mapped] == ["other", "other"] and GOOD["tenant"] == "acme"
    with pytest.raises(EvalSetError, match="No questions"):
        select_rows([UNANSWERABLE], split="calib")
    with pytest.raises(EvalSetError, match="split must be"):
        select_rows(rows, split="dev")


def test_manifest(tmp_path):
    set_path = _write(tmp_path, [GOOD])
    with pytest.raises(EvalSetError, match="No corpus manifest"):
        load_manifest(set_path)
    (tmp_path / "corpus").mkdir()
    (tmp_path / "set.corpus.json").write_text(json.dumps({"acme": ["corpus"]}))
    assert load_manifest(set_path) == {"acme": [tmp_path / "corpus"]}
    (tmp_path / "set.corpus.json").write_text(json.dumps({"acme": ["no/such/folder"]}))
    with pytest.raises(EvalSetError, match="'no/such/folder' for tenant 'acme' does not exist"):
        load_manifest(set_path)


def test_pinned_settings_win_over_tenant_overrides(settings):
    save_tenant_overrides(settings, "acme", {"gate_threshold": 0.7, "top_k": 3})
    assert settings.for_tenant("acme").gate_threshold == 0.7
    pinned = pin_settings(settings, {"gate_threshold": 0.0})
    effective = pinned.for_tenant("acme")
    assert effective.gate_threshold == 0.0 and effective.top_k == 3
    assert effective.for_tenant("acme").gate_threshold == 0.0
    changed = replace(pinned, top_k=4)
    assert changed.top_k == 4 and changed.for_tenant("acme").gate_threshold == 0.0
    assert pinned.public_dict()["gate_threshold"] == 0.0
    assert pin_settings(settings, None) is settings
