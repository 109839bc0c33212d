"""The answer model: two small logistic regressions read from `model.json` (written by
`python -m evals.train`, seeded and deterministic).

- `unit`: P(this unit states the answer | the unit's signals, core/answer/signals.py);
- `answer`: P(the best unit answers the question | the question-level signals below),
  the answer confidence the tenant's threshold is compared with.

A logistic regression is chosen over trees because its score splits into one
contribution per signal (weight x standardised value), which the trace shows, and
because with a few hundred questions per domain it held up best in leave-one-domain-out
validation (evals/train.py reports it).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).with_name("model.json")

ANSWER_FEATURES = (
    "p_best", "p_gap", "p_second", "sim_unit", "sim_passage", "lex_context", "ask_context",
    "lex_passage", "rare_context", "rare_passage", "unknown_share", "type_match", "typed",
    "numbers_missing", "cross_language", "sim_window", "lex_unit", "rank_prior", "dense_prior",
    "bm25_prior", "n_strong", "typed_match", "ask_unknown", "unknown_same_language", "rare_terms_context",
    "focus_context", "focus_passage", "focus_unknown", "focus_any_passage", "row_key_match",
)


@dataclass(frozen=True)
class Logistic:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def from_dict(cls, d: dict) -> Logistic:
        return cls(tuple(d["features"]), np.asarray(d["mean"], float), np.asarray(d["scale"], float),
                   np.asarray(d["coef"], float), float(d["intercept"]))

    def to_dict(self) -> dict:
        return {"features": list(self.features), "mean": _round(self.mean), "scale": _round(self.scale),
                "coef": _round(self.coef), "intercept": round(self.intercept, 6)}

    def matrix(self, rows: list[dict[str, float]]) -> np.ndarray:
        return np.asarray([[r[f] for f in self.features] for r in rows], float).reshape(len(rows), -1)

    def proba(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def contributions(self, row: dict[str, float], top: int = 5) -> dict[str, float]:
        """The signals that moved this score most, as log-odds contributions."""
        x = self.matrix([row])[0]
        parts = ((x - self.mean) / self.scale) * self.coef
        order = np.argsort(-np.abs(parts))[:top]
        return {self.features[i]: round(float(parts[i]), 3) for i in order}


@dataclass(frozen=True)
class AnswerModel:
    unit: Logistic
    answer: Logistic
    threshold: float  # recommended answer-confidence threshold (leave-one-domain-out)
    runner_up: float  # a second unit is quoted when its probability is this share of the best
    meta: dict
    # ...and, from another passage than the best unit's, when it is this share too: a unit
    # from elsewhere reads as a rival answer (evals/train.py `choose_knobs`)
    runner_up_other_passage: float = 0.0
    # the least answer confidence of a verbatim lookup (core/answer/lookup.py): the share of
    # the development sets' lookups whose quote held the answer; 0 leaves the model's alone
    lookup_confidence: float = 0.0

    @classmethod
    def from_dict(cls, d: dict) -> AnswerModel:
        return cls(Logistic.from_dict(d["unit"]), Logistic.from_dict(d["answer"]), float(d["threshold"]),
                   float(d["runner_up"]), d.get("meta", {}), float(d.get("runner_up_other_passage", 0.0)),
                   float(d.get("lookup_confidence", 0.0)))

    def to_dict(self) -> dict:
        return {"unit": self.unit.to_dict(), "answer": self.answer.to_dict(), "threshold": self.threshold,
                "runner_up": self.runner_up, "runner_up_other_passage": self.runner_up_other_passage,
                "lookup_confidence": self.lookup_confidence, "meta": self.meta}


@cache
def load_model(path: Path = MODEL_PATH) -> AnswerModel:
    return AnswerModel.from_dict(json.loads(path.read_text(encoding="utf-8")))


def _round(a: np.ndarray) -> list[float]:
    return [round(float(v), 6) for v in a]


def fit_logistic(x: np.ndarray, y: np.ndarray, w: np.ndarray, features: tuple[str, ...],
                 l2: float = 1.0, iterations: int = 50) -> Logistic:
    """L2-regularised logistic regression by Newton's method (IRLS) on standardised
    signals; `w` weighs the rows (rescaled to average 1, so that `l2` means the same
    whatever the weights' scale). Deterministic: no random start, no sampling."""
    w = w * (len(w) / w.sum())
    mean = (x * w[:, None]).sum(0) / w.sum()
    scale = np.sqrt(((x - mean) ** 2 * w[:, None]).sum(0) / w.sum())
    scale[scale < 1e-6] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], l2)
    reg[-1] = 0.0  # the intercept is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ beta, -30, 30)))
        grad = z.T @ (w * (p - y)) + reg * beta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(reg) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta -= step
        if math.sqrt(float(step @ step)) < 1e-8:
            break
    return Logistic(features, mean, scale, beta[:-1], float(beta[-1]))
