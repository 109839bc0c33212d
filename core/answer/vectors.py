"""e5 vectors of answer units: from the tenant's stored vectors (core/answer_vectors.py)
when it has them, else embedded now (and stored for the next question); cached per process
either way (chunks recur across questions)."""

from __future__ import annotations

from typing import Any

import numpy as np

from core.answer_vectors import DIM, AnswerVectors, as_stored, key_of

MAX_CACHED = 50000
_cache: dict[str, np.ndarray] = {}


def model_name(embedder: Any) -> str:
    return str(getattr(embedder, "model_name", type(embedder).__name__))


def fill(embedder: Any, wanted: dict[str, tuple[str, str]],
         stored: AnswerVectors | None) -> tuple[dict[str, np.ndarray], int]:
    """Vectors for `wanted` (key -> (document, text)): the stored ones, the rest embedded in
    one call and stored; and how many were embedded. The one way a unit vector is made, at
    question time or ahead of it (core/answer/prepare.py)."""
    found = stored.get(list(wanted)) if stored is not None else {}
    todo = [k for k in wanted if k not in found]
    if todo:
        fresh = as_stored(embedder.embed_passages([wanted[k][1] for k in todo]))
        found.update(zip(todo, fresh))
        if stored is not None:
            stored.put((k, wanted[k][0], found[k]) for k in todo)
    return found, len(todo)


def unit_vectors(embedder: Any, texts: list[str], stored: AnswerVectors | None = None,
                 owners: list[str] | None = None) -> np.ndarray:
    """Passage vectors for sentences and rows, one row per text. `owners` names the
    document of each text, for the rows stored."""
    if not texts:
        return np.zeros((0, DIM), dtype=np.float32)
    model = model_name(embedder)
    keys = [key_of(model, t) for t in texts]
    if len(_cache) + len(keys) > MAX_CACHED:
        _cache.clear()
    wanted: dict[str, tuple[str, str]] = {}
    for i, (k, text) in enumerate(zip(keys, texts)):
        if k not in _cache and k not in wanted:
            wanted[k] = (owners[i] if owners else "", text)
    if wanted:
        _cache.update(fill(embedder, wanted, stored)[0])
    return np.vstack([_cache[k] for k in keys])
