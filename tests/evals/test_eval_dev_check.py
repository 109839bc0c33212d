"""The development-question check: outcomes and the files' shape."""

from pathlib import Path

import pytest

from evals.dev_check import load_rows, outcome

DEV = Path(__file__).resolve().parents[2] / "evals" / "dev"


@pytest.mark.parametrize("expected, status, answer, result", [
    (None, "refused", "", "refused_ok"),
    (None, "answered", "Anything [1]", "hallucinated"),
    ("€28", "refused", "", "too_conservative"),
    ("€28", "answered", "The allowance is € 28 per day. [1]", "correct"),
    ("€28", "narrowed", "The allowance is €14 per day. [1]", "wrong"),
])
def test_outcomes(expected, status, answer, result):
    assert outcome(expected, status, answer) == result


def test_dev_files_are_well_formed():
    files = sorted(DEV.glob("*.jsonl"))
    assert files
    for path in files:
        rows = load_rows(path)
        assert rows, path
        for row in rows:
            assert row["q"].strip() and row["kind"] in ("answerable", "unanswerable", "misleading")
            assert (row["exp"] is None) == (row["kind"] != "answerable"), row


def test_an_empty_expected_text_is_refused(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"q": "Is there a fee?", "exp": "", "kind": "unanswerable"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="row 1"):
        load_rows(bad)
