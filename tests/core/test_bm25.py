import random

import bm25s
import numpy as np
import pytest

from core.bm25 import MERGE_FACTOR, Segment, merge_tiers, scores, tier

WORDS = [f"w{i}" for i in range(60)]


def corpus(seed: int, docs: int = 12) -> list[tuple[str, list[str]]]:
    rng = random.Random(seed)
    return [(f"d{d}:{c:04d}", rng.choices(WORDS[: rng.randint(5, 60)], k=rng.randint(1, 30)))
            for d in range(docs) for c in range(rng.randint(1, 4))]


def reference(chunks: list[tuple[str, list[str]]], query: list[str]) -> np.ndarray:
    index = bm25s.BM25()  # the library this index replaced, "lucene" variant, k1 1.5, b 0.75
    index.index([tokens for _, tokens in chunks], show_progress=False)
    return index.get_scores([t for t in query if t in index.vocab_dict] or ["w0"])


def df_of(segments: list[Segment]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in segments:
        for t, n in zip(s.vocab, s.df().tolist()):
            out[t] = out.get(t, 0) + n
    return out


@pytest.mark.parametrize("seed", range(5))
def test_scores_over_segments_equal_bm25s_over_the_whole_corpus(seed: int) -> None:
    chunks = corpus(seed)
    rng = random.Random(seed)
    cut = sorted({c.split(":")[0] for c, _ in chunks})[: rng.randint(1, 6)]
    parts = [[c for c in chunks if c[0].split(":")[0] in cut], [c for c in chunks if c[0].split(":")[0] not in cut]]
    segments = [Segment.build([c for c, _ in p], [t for _, t in p]) for p in parts]
    order = [c for p in parts for c in p]
    for query in (["w1"], ["w3", "w7", "w3"], rng.choices(WORDS, k=5)):
        got = scores(segments, query, df_of(segments))
        want = reference(order, query)
        assert np.allclose(got, want, atol=1e-4), query


def test_a_merged_or_trimmed_segment_is_the_one_built_from_its_chunks() -> None:
    chunks = corpus(7)
    # cut at a document boundary, as segments are
    boundary = next(i for i in range(len(chunks) // 2, len(chunks)) if chunks[i][0][:3] != chunks[i - 1][0][:3])
    halves = [chunks[:boundary], chunks[boundary:]]
    merged = Segment.merge([Segment.build([c for c, _ in h], [t for _, t in h]) for h in halves])
    whole = Segment.build([c for c, _ in chunks], [t for _, t in chunks])
    assert merged.chunk_ids == whole.chunk_ids and merged.vocab == whole.vocab
    assert np.array_equal(merged.ptr, whole.ptr) and np.array_equal(merged.chunks, whole.chunks)
    assert np.array_equal(merged.tf, whole.tf) and np.array_equal(merged.doc_df, whole.doc_df)
    trimmed = whole.without({"d0", "d5"})
    rest = [c for c in chunks if c[0].split(":")[0] not in {"d0", "d5"}]
    direct = Segment.build([c for c, _ in rest], [t for _, t in rest])
    assert trimmed.chunk_ids == direct.chunk_ids and trimmed.vocab == direct.vocab
    assert np.array_equal(trimmed.ptr, direct.ptr) and np.array_equal(trimmed.chunks, direct.chunks)
    assert np.array_equal(trimmed.doc_df, direct.doc_df)


def test_doc_df_counts_documents_not_chunks() -> None:
    s = Segment.build(["a:0", "a:1", "b:0"], [["x", "y"], ["x"], ["x", "x"]])
    assert dict(zip(s.vocab, s.doc_df.tolist())) == {"x": 2, "y": 1}
    assert dict(zip(s.vocab, s.df().tolist())) == {"x": 3, "y": 1}


def test_segments_merge_by_tier_and_stay_few() -> None:
    segments: list[Segment] = []
    for n in range(200):  # 200 uploads of one small document each
        segments = merge_tiers([*segments, Segment.build([f"d{n}:0"], [["w1", f"w{n % 50}"]])])
        assert len(segments) <= (MERGE_FACTOR - 1) * (tier(n + 1) + 1)  # at most 7 a tier: O(log n)
    assert sum(s.size for s in segments) == 200
    assert sorted(c for s in segments for c in s.chunk_ids) == sorted(f"d{n}:0" for n in range(200))


def test_a_segment_round_trips_through_its_file(tmp_path) -> None:
    s = Segment.build(["a:0", "b:0"], [["ошибк", "e20"], ["oil", "e20"]])
    s.save(tmp_path / "seg.npz")
    back = Segment.load(tmp_path / "seg.npz")
    assert back.vocab == s.vocab and back.chunk_ids == s.chunk_ids and back.name == "seg.npz"
    assert np.array_equal(back.ptr, s.ptr) and np.array_equal(back.tf, s.tf)
