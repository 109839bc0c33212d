"""Step 1 of the pair reader (project environment): the question-unit pairs it reads, and the
shipped answer step's held-out view of the same questions.

    bash evals/experiments/token_reader/build.sh /tmp/libe5tokens.so
    python -m evals.experiments.pair_reader.pairs --cache FILE --library /tmp/libe5tokens.so --out PAIRS

FILE is an `evals.train --extra` signal cache (its records keep the texts). Domains are split
once: the reader trains on the written domains' questions and is judged on the real corpora
(`HELD`), whose questions nobody here wrote. Per training question: its positive units (at
most 3) and the 5 negatives closest to it by cosine; per held-out question: its 8 units
closest by cosine. A pair is "query: {question}\\n{unit}" as e5 token ids (at most 190).
For the held-out questions the file also keeps the shipped answer step's view, from unit and
answer models trained on the written domains only: its confidence and whether the units it
would quote hold the answer.
"""

from __future__ import annotations

import argparse
import ctypes
import pickle
from pathlib import Path

import numpy as np

from evals.experiments.pair_reader.domains import HELD
from evals.experiments.token_reader.tokens import load_library
from evals.train import Record, cross_fitted, fit_answer, fit_unit, quoted, rank

MAX_TOKENS, POSITIVES, NEGATIVES, HELD_UNITS = 190, 3, 5, 8


class TokenIds:
    def __init__(self, library: Path) -> None:
        self._lib, self._m = load_library(library)

    def __call__(self, text: str, is_query: bool = True) -> list[int]:
        out = (ctypes.c_int * MAX_TOKENS)()
        n = self._lib.e5_token_ids(self._m, text.encode(), int(is_query), out, MAX_TOKENS)
        return list(out[:n])


def pairs(records: list[Record], ids: TokenIds) -> list[dict]:
    out = []
    for r in records:
        if not r.utexts:
            continue
        order = list(np.argsort(-np.asarray([s["sim_unit"] for s in r.signals]), kind="stable"))
        if r.domain in HELD:
            picked = order[:HELD_UNITS]
        else:
            picked = ([i for i in order if r.labels[i]][:POSITIVES]
                      + [i for i in order if not r.labels[i]][:NEGATIVES])
        out += [{"domain": r.domain, "qid": r.qid, "kind": r.kind, "unit": int(i), "label": int(r.labels[i]),
                 "cosine": float(r.signals[i]["sim_unit"]), "ids": ids(f"{r.qtext}\n{r.utexts[i]}")}
                for i in picked]
    return out


def shipped_view(records: list[Record], runner_up: float = 0.35) -> dict[tuple[str, str], dict]:
    train = [r for r in records if r.domain not in HELD]
    unit, answer = fit_unit(train, 1.0), fit_answer(cross_fitted(train, 1.0), runner_up, 1.0)
    view = {}
    for ranked in rank([r for r in records if r.domain in HELD], unit):
        r = ranked.record
        confidence = float(answer.proba(answer.matrix([ranked.qsig]))[0]) if ranked.qsig else 0.0
        view[(r.domain, r.qid)] = {"confidence": confidence,
                                   "quoted_right": any(r.labels[i] for i in quoted(ranked, runner_up))}
    return view


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.experiments.pair_reader.pairs")
    p.add_argument("--cache", type=Path, required=True)
    p.add_argument("--library", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    records = [Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    data = {"pairs": pairs(records, TokenIds(args.library)), "shipped": shipped_view(records)}
    args.out.write_bytes(pickle.dumps(data))
    print(f"{len(data['pairs'])} pairs, {len(data['shipped'])} held-out questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
