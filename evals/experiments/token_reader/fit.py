"""Training the token reader (evals/experiments/token_reader/model.py) in numpy, seeded and deterministic.

Per question, the loss is the weighted binary cross-entropy of the reader's logit for each
candidate unit against its label (does it contain the expected answer): positives weigh
half the question, negatives the other half, and each domain weighs the same (as the unit
model in evals/train.py). Adam (lr 1e-3, L2 1e-4 added to the gradient), the gradient's
norm clipped at 1, questions in a seeded random order, `epochs` passes. The gradients are
written out by hand (tests/evals/experiments/test_token_reader.py checks them against finite differences).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evals.experiments.token_reader.model import Reader, centred

DIM, EPOCHS, LR, L2, CLIP = 96, 4, 1e-3, 1e-4, 1.0


@dataclass
class Example:
    """One question: its centred token states, its units' (padded), labels and weights."""

    domain: str
    q: np.ndarray  # (nq, H)
    u: np.ndarray  # (n, k, H)
    mask: np.ndarray  # (n, k) bool
    y: np.ndarray  # (n,)
    w: np.ndarray  # (n,) before the domain's weight
    raw: np.ndarray  # (n, nq) each question token's best raw cosine: no weight moves it


def example(domain: str, q_states: np.ndarray, unit_states: list[np.ndarray], labels: list[int],
            mean: np.ndarray) -> Example | None:
    if not len(unit_states) or not len(q_states):
        return None
    units = [centred(u, mean) for u in unit_states]
    width = max(max(len(u) for u in units), 1)
    h = len(mean)
    u_pad, mask = np.zeros((len(units), width, h), np.float32), np.zeros((len(units), width), bool)
    for i, u in enumerate(units):
        u_pad[i, :len(u)], mask[i, :len(u)] = u, True
    y = np.asarray(labels, np.float32)
    pos = y.sum()
    w = (np.where(y > 0, 0.5 / max(pos, 1), 0.5 / max(len(y) - pos, 1)) if 0 < pos < len(y)
         else np.full(len(y), 1.0 / len(y))).astype(np.float32)
    q = centred(q_states, mean)
    raw = np.where(mask[:, :, None], u_pad @ q.T, -1e4).max(1)
    return Example(domain, q, u_pad, mask, y, w, raw)


def _norm_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)
    return x / n, n


def _norm_back(g: np.ndarray, xh: np.ndarray, n: np.ndarray) -> np.ndarray:
    return (g - xh * (xh * g).sum(-1, keepdims=True)) / n


def _forward(p: dict[str, np.ndarray], ex: Example) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every unit's three features at once (as `Reader.features` for one unit), and what
    the backward pass needs."""
    q, u, m = ex.q, ex.u, ex.mask
    a, an = _norm_rows(q @ p["pq"].T)  # (nq, d)
    b, bn = _norm_rows(u @ p["pk"].T)  # (n, k, d)
    sim = np.where(m[:, :, None], b @ a.T, -1e4)  # (n, k, nq)
    at = sim.argmax(1)  # (n, nq)
    best = np.take_along_axis(sim, at[:, None, :], 1)[:, 0, :]
    z = q @ p["importance"] + p["importance_bias"][0]
    s = np.exp(z - z.max())
    s /= s.sum()
    low = best.argmin(-1)
    f = np.stack([best @ s, best[np.arange(len(best)), low], ex.raw @ s], -1)  # (n, 3)
    return f, {"a": a, "an": an, "b": b, "bn": bn, "at": at, "best": best, "s": s, "low": low}


def loss_and_grads(p: dict[str, np.ndarray], ex: Example, weight: float) -> tuple[float, dict[str, np.ndarray]]:
    """The example's weighted loss and its gradient for each parameter."""
    q, u, raw = ex.q, ex.u, ex.raw
    f, c = _forward(p, ex)
    a, an, b, bn, at, best, s, low = (c[k] for k in ("a", "an", "b", "bn", "at", "best", "s", "low"))
    logit = f @ p["out"] + p["out_bias"][0]
    w = ex.w * weight
    loss = float((w * (np.logaddexp(0, logit) - ex.y * logit)).sum())
    g = w * (1 / (1 + np.exp(-np.clip(logit, -30, 30))) - ex.y)  # (n,)
    grads = {"out": f.T @ g, "out_bias": np.array([g.sum()])}
    gf = g[:, None] * p["out"][None, :]  # (n, 3)
    gbest = gf[:, :1] * s[None, :]
    gbest[np.arange(len(best)), low] += gf[:, 1]
    gs = best.T @ gf[:, 0] + raw.T @ gf[:, 2]  # (nq,)
    gz = s * (gs - s @ gs)
    grads["importance"], grads["importance_bias"] = q.T @ gz, np.array([gz.sum()])
    # the max passes its gradient to the unit token it picked
    routed = (at[:, None, :] == np.arange(b.shape[1])[None, :, None]) * gbest[:, None, :]  # (n, k, nq)
    ga = (routed.transpose(0, 2, 1) @ b).sum(0)
    gb = routed @ a  # (n, k, d)
    grads["pq"] = _norm_back(ga, a, an).T @ q
    gbn = _norm_back(gb, b, bn)
    grads["pk"] = gbn.reshape(-1, gbn.shape[-1]).T @ u.reshape(-1, u.shape[-1])
    return loss, {k: v.astype(np.float32) for k, v in grads.items()}


def initial(h: int, dim: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    # orthogonal rows, the same projection on both sides: training starts at plain MaxSim
    basis = np.linalg.qr(rng.standard_normal((h, dim)))[0].T.astype(np.float32)
    bound = 1 / np.sqrt(h)
    return {"pq": basis.copy(), "pk": basis.copy(),
            "importance": rng.uniform(-bound, bound, h).astype(np.float32),
            "importance_bias": np.zeros(1, np.float32),
            "out": np.array([5.0, 1.0, 5.0], np.float32), "out_bias": np.array([-8.0], np.float32)}


def fit(examples: list[Example], mean: np.ndarray, seed: int = 0, dim: int = DIM, epochs: int = EPOCHS) -> Reader:
    rng = np.random.default_rng(seed)
    p = initial(len(mean), dim, rng)
    m1 = {k: np.zeros_like(v) for k, v in p.items()}
    m2 = {k: np.zeros_like(v) for k, v in p.items()}
    per_domain: dict[str, int] = {}
    for ex in examples:
        per_domain[ex.domain] = per_domain.get(ex.domain, 0) + 1
    step = 0
    for _ in range(epochs):
        for i in rng.permutation(len(examples)):
            ex = examples[i]
            _, grads = loss_and_grads(p, ex, len(examples) / (len(per_domain) * per_domain[ex.domain]))
            grads = {k: g + L2 * p[k] for k, g in grads.items()}
            total = float(np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads.values())))
            if total > CLIP:
                grads = {k: g * (CLIP / (total + 1e-6)) for k, g in grads.items()}
            step += 1
            for k, g in grads.items():
                m1[k] = 0.9 * m1[k] + 0.1 * g
                m2[k] = 0.999 * m2[k] + 0.001 * g * g
                p[k] = p[k] - LR * (m1[k] / (1 - 0.9 ** step)) / (np.sqrt(m2[k] / (1 - 0.999 ** step)) + 1e-8)
    return Reader(np.asarray(mean, np.float32), p["pq"], p["pk"], p["importance"], float(p["importance_bias"][0]),
                  p["out"], float(p["out_bias"][0]))


def params(reader: Reader) -> dict[str, np.ndarray]:
    return {"pq": reader.pq, "pk": reader.pk, "importance": reader.importance,
            "importance_bias": np.array([reader.importance_bias], np.float32)}


def logits(reader: Reader, ex: Example) -> list[float]:
    return (_forward(params(reader), ex)[0] @ reader.out + reader.out_bias).tolist()
