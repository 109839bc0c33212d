"""The token reader: does this unit say what the question asks? Read word by word.

The unit model's signals compare whole texts (one e5 vector each) and words (overlap);
an answer that paraphrases the question's ask, or an on-topic sentence that answers
another ask, looks the same to them. The reader compares e5's contextual token states
(tokens.py here), as late-interaction retrievers do (ColBERT's MaxSim):

1. Question and unit token states are centred on the mean unit token and normalised.
2. Each is projected to `dim` by a learned matrix (`pq` for the question, `pk` for the
   unit) and normalised; each question token's best cosine over the unit's tokens is its
   match (`best`), and the same on the unprojected states is its raw match (`raw`).
3. A learned importance over question tokens (a softmax of a linear score of the token's
   state) weighs the matches: the ask's words count, the scene's less.
4. A logistic unit reads the weighted match, the weakest token's match and the weighted
   raw match.

About 74k weights at dim 96, trained by fit.py on
the development sets' labelled units. Numpy, no framework. An experiment: the
answer step does not use it (docs/quality.md says why).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def centred(states: np.ndarray, mean: np.ndarray) -> np.ndarray:
    x = np.asarray(states, np.float32) - mean
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def _unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class Reader:
    mean: np.ndarray  # (384,) the mean unit token state
    pq: np.ndarray  # (dim, 384)
    pk: np.ndarray  # (dim, 384)
    importance: np.ndarray  # (384,)
    importance_bias: float
    out: np.ndarray  # (3,)
    out_bias: float

    def features(self, q: np.ndarray, u: np.ndarray) -> np.ndarray:
        """The three inputs of the logistic unit, from centred-normalised token states of
        the question (nq, 384) and of one unit (nu, 384)."""
        if not len(q) or not len(u):
            return np.zeros(3, np.float32)
        best = (_unit_rows(q @ self.pq.T) @ _unit_rows(u @ self.pk.T).T).max(1)
        raw = (q @ u.T).max(1)
        z = q @ self.importance + self.importance_bias
        weight = np.exp(z - z.max())
        weight /= weight.sum()
        return np.array([best @ weight, best.min(), raw @ weight], np.float32)

    def logit(self, q_states: np.ndarray, u_states: np.ndarray) -> float:
        """The reader's log-odds that the unit answers the question, from raw token states."""
        f = self.features(centred(q_states, self.mean), centred(u_states, self.mean))
        return float(f @ self.out + self.out_bias)

    def proba(self, q_states: np.ndarray, u_states: np.ndarray) -> float:
        return float(1.0 / (1.0 + np.exp(-np.clip(self.logit(q_states, u_states), -30, 30))))
