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
    todo = [k for k in dict.fromkeys(keys) if k not in _cache]
    if todo and stored is not None:
        _cache.update(stored.get(todo))
        todo = [k for k in todo if k not in _cache]
    if todo:
        first = {k: i for i, k in reversed(list(enumerate(keys)))}
        fresh = as_stored(embedder.embed_passages([texts[first[k]] for k in todo]))
        _cache.update(zip(todo, fresh))
        if stored is not None:
            stored.put((k, owners[first[k]] if owners else "", v) for k, v in zip(todo, fresh))
    return np.vstack([_cache[k] for k in keys])
