"""BM25 over segments: an index that an upload extends without rebuilding.

A tenant's BM25 index is a list of immutable segments, each holding the term counts of
whole documents (term -> postings of (chunk, count)), never the scores: a score depends
on the whole tenant (IDF from the document frequencies, the average chunk length), so it
is computed at query time from the segments' counts and the tenant-wide statistics.

- An upload tokenizes only its own chunks into a new small segment; a deletion rewrites
  only the segments that held the document (from their postings, no tokenizing).
- Segments are merged as Lucene's tiered policy does: when MERGE_FACTOR segments of one
  size tier (chunks, in powers of MERGE_FACTOR) exist, they become one, so a tenant keeps
  O(log n) segments and each chunk is merged O(log n) times in its life.
- Scoring is bm25s's "lucene" variant (k1 1.5, b 0.75), which this index replaced:
  idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), and per posting
  idf * tf / (tf + k1 * (1 - b + b * len / avg_len)); a query token counted as often as
  it is asked. tests/core/test_bm25.py checks the scores against bm25s's.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

K1, B = 1.5, 0.75
MERGE_FACTOR = 8


def doc_of(chunk_id: str) -> str:
    return chunk_id.split(":")[0]


@dataclass
class Segment:
    """The term counts of some whole documents' chunks (term-major postings)."""

    chunk_ids: list[str]
    lengths: np.ndarray  # tokens per chunk (int32)
    vocab: list[str]  # sorted
    ptr: np.ndarray  # postings of vocab[i] are [ptr[i], ptr[i+1]) (int64, len(vocab) + 1)
    chunks: np.ndarray  # chunk index per posting (int32)
    tf: np.ndarray  # count per posting (float32)
    doc_df: np.ndarray  # documents using each term (int32)
    name: str = ""  # its file in the index folder, once written
    _terms: dict[str, int] | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        return len(self.chunk_ids)

    @property
    def terms(self) -> dict[str, int]:
        if self._terms is None:
            self._terms = {t: i for i, t in enumerate(self.vocab)}
        return self._terms

    @cached_property
    def docs(self) -> set[str]:
        return {doc_of(c) for c in self.chunk_ids}

    def df(self) -> np.ndarray:
        return np.diff(self.ptr)

    @classmethod
    def build(cls, chunk_ids: Sequence[str], tokens: Sequence[Sequence[str]]) -> Segment:
        vocab = sorted({t for toks in tokens for t in toks})
        term_of = {t: i for i, t in enumerate(vocab)}
        term = np.fromiter((term_of[t] for toks in tokens for t in toks), np.int64)
        chunk = np.repeat(np.arange(len(tokens), dtype=np.int64), [len(t) for t in tokens])
        keys, counts = np.unique(term * max(len(tokens), 1) + chunk, return_counts=True)
        return cls._from_postings(list(chunk_ids), np.asarray([len(t) for t in tokens], np.int32), vocab,
                                  keys // max(len(tokens), 1), keys % max(len(tokens), 1), counts)

    @classmethod
    def _from_postings(cls, chunk_ids: list[str], lengths: np.ndarray, vocab: list[str], term: np.ndarray,
                       chunk: np.ndarray, tf: np.ndarray) -> Segment:
        """From postings sorted by (term, chunk); terms without postings are dropped."""
        used = np.unique(term)
        if len(used) < len(vocab):
            remap = np.full(len(vocab), -1, np.int64)
            remap[used] = np.arange(len(used))
            vocab, term = [vocab[i] for i in used], remap[term]
        ptr = np.zeros(len(vocab) + 1, np.int64)
        np.cumsum(np.bincount(term, minlength=len(vocab)), out=ptr[1:])
        docs = {d: i for i, d in enumerate(dict.fromkeys(doc_of(c) for c in chunk_ids))}
        doc = np.asarray([docs[doc_of(c)] for c in chunk_ids], np.int64)[chunk]
        pairs = np.unique(term * max(len(docs), 1) + doc)
        doc_df = np.bincount(pairs // max(len(docs), 1), minlength=len(vocab)).astype(np.int32)
        return cls(chunk_ids, lengths, vocab, ptr, chunk.astype(np.int32), tf.astype(np.float32), doc_df)

    def _terms_per_posting(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.vocab), dtype=np.int64), np.diff(self.ptr))

    def without(self, doc_ids: set[str]) -> Segment:
        """This segment less the chunks of some documents (from its postings: no tokenizing)."""
        keep = np.asarray([doc_of(c) not in doc_ids for c in self.chunk_ids], bool)
        new_index = np.cumsum(keep) - 1
        kept = keep[self.chunks]
        return Segment._from_postings([c for c, k in zip(self.chunk_ids, keep) if k], self.lengths[keep],
                                      self.vocab, self._terms_per_posting()[kept],
                                      new_index[self.chunks[kept]], self.tf[kept])

    @classmethod
    def merge(cls, segments: Sequence[Segment]) -> Segment:
        vocab = sorted(set().union(*(s.vocab for s in segments)))
        term_of = {t: i for i, t in enumerate(vocab)}
        terms, chunks, tfs, offset = [], [], [], 0
        for s in segments:
            remap = np.fromiter((term_of[t] for t in s.vocab), np.int64, len(s.vocab))
            terms.append(remap[s._terms_per_posting()])
            chunks.append(s.chunks.astype(np.int64) + offset)
            tfs.append(s.tf)
            offset += s.size
        term, chunk, tf = np.concatenate(terms), np.concatenate(chunks), np.concatenate(tfs)
        order = np.lexsort((chunk, term))
        return cls._from_postings([c for s in segments for c in s.chunk_ids],
                                  np.concatenate([s.lengths for s in segments]), vocab,
                                  term[order], chunk[order], tf[order])

    # ---- on disk: one .npz of plain arrays (no pickle); the word lists as UTF-8 JSON bytes

    def save(self, path: Path) -> None:
        def text(items: list[str]) -> np.ndarray:
            return np.frombuffer(json.dumps(items, ensure_ascii=False).encode("utf-8"), np.uint8)

        with path.open("wb") as f:
            np.savez(f, chunk_ids=text(self.chunk_ids), vocab=text(self.vocab), lengths=self.lengths,
                     ptr=self.ptr, chunks=self.chunks, tf=self.tf, doc_df=self.doc_df)
        self.name = path.name

    @classmethod
    def load(cls, path: Path) -> Segment:
        with np.load(path, allow_pickle=False) as z:
            def text(key: str) -> list[str]:
                return json.loads(z[key].tobytes().decode("utf-8"))

            return cls(text("chunk_ids"), z["lengths"], text("vocab"), z["ptr"], z["chunks"], z["tf"],
                       z["doc_df"], name=path.name)


def tier(size: int) -> int:
    return int(math.log(max(size, 1), MERGE_FACTOR))


def merge_tiers(segments: list[Segment]) -> list[Segment]:
    """Merge MERGE_FACTOR segments of one size tier into one, until no tier has that many."""
    segments = list(segments)
    while True:
        tiers: dict[int, list[int]] = {}
        for i, s in enumerate(segments):
            tiers.setdefault(tier(s.size), []).append(i)
        full = next((ix for _, ix in sorted(tiers.items()) if len(ix) >= MERGE_FACTOR), None)
        if full is None:
            return segments
        merged = Segment.merge([segments[i] for i in full])
        segments = [merged if i == full[0] else s for i, s in enumerate(segments) if i == full[0] or i not in full]


def scores(segments: Sequence[Segment], query: Iterable[str], df: dict[str, int]) -> np.ndarray:
    """BM25 scores of every chunk (segments' order) for the query tokens."""
    n = sum(s.size for s in segments)
    out = np.zeros(n, np.float64)
    if not n:
        return out
    avg_len = float(sum(int(s.lengths.sum()) for s in segments)) / n
    query = [t for t in query if df.get(t)]
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in set(query)}
    offset = 0
    for s in segments:
        norm = K1 * (1 - B + B * s.lengths / avg_len)
        for t in query:
            i = s.terms.get(t)
            if i is not None:
                lo, hi = s.ptr[i], s.ptr[i + 1]
                c, tf = s.chunks[lo:hi], s.tf[lo:hi]
                out[offset + c] += idf[t] * tf / (tf + norm[c])  # a chunk once per term
        offset += s.size
    return out
