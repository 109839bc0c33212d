"""e5 vectors of answer units, cached per process (chunks recur across questions)."""

from __future__ import annotations

from typing import Any

import numpy as np

MAX_CACHED = 50000
_cache: dict[str, np.ndarray] = {}


def unit_vectors(embedder: Any, texts: list[str]) -> np.ndarray:
    """Passage vectors for sentences and rows, one row per text."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    todo = [t for t in dict.fromkeys(texts) if t not in _cache]
    if todo:
        if len(_cache) + len(todo) > MAX_CACHED:
            _cache.clear()
        for text, vec in zip(todo, embedder.embed_passages(todo)):
            _cache[text] = vec
    return np.vstack([_cache[t] for t in texts])
