"""`python -m evals.bench scale`: ask latency, index size and memory at 1k, 10k and 100k chunks.

1. Source: a tenant holding real text, the 18F staff handbook (`../shared/corpora/
   handbook-18f-en/`, ~2,700 chunks) unless `--source-data DIR --source-tenant T` names an
   ingested one. Built once into `--source-data` (default: a folder under the system temp
   dir, reused by later runs); its ingest is timed per stage (pages/s, chunks/s).
2. For each size N: a fresh data folder with tenant "scale" filled with copies of the
   source's chunks until N chunks. Copy c (c >= 1) is a new document of every source
   document: each chunk's text gets the tag "(copy c)" after its first line (and its section
   heading, so that line stays a heading) and its numbers shifted by c, and its vector is the source vector plus deterministic noise
   (seeded by c, norm 0.05, re-normalised): no embedding is computed again, which is what
   makes 100k chunks affordable on 2 cores, and the copies are near-duplicates as
   versions of a handbook are. Written straight into the registry, Chroma (batches of
   1,000) and one BM25 build; each store's write is timed, and so is what one more
   upload (a copy of a source document) and then its deletion cost the BM25 index at that
   size (one new segment, core/bm25.py).
3. In a subprocess per size (for a clean peak memory): one cold ask, then `--n` questions of
   `--questions` (default `evals/sets/ood_handbook.jsonl`; answerable and not), each asked
   once; p50/p95 of every stage of `timings_ms`, split by answered and refused, and the
   process's peak RSS.
4. Print one table (sizes x stages) and the disk size of each store.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT.parent / "shared" / "corpora" / "handbook-18f-en"
QUESTIONS = ROOT / "evals" / "sets" / "ood_handbook.jsonl"
STAGES = ("retrieve", "gate", "generate", "verify", "closest", "total")


def _settings(folder: Path) -> Any:
    from core.config import load_settings

    return load_settings({**os.environ, "GROUNDWORK_DATA": str(folder)})


def source(data: Path | None, tenant: str) -> tuple[Any, str, dict[str, float]]:
    """The source data folder (built from the handbook when empty) and its ingest figures."""
    from core import store
    from core.documents import ingest_files, iter_files

    folder = data or Path(tempfile.gettempdir()) / "groundwork-scale-source"
    settings = _settings(folder)
    docs = [d for d in store.list_documents(settings, tenant) if d["status"] == "ready"] \
        if store.tenant_exists(settings, tenant) else []
    if not docs:
        if not HANDBOOK.exists():
            raise RuntimeError(f"No source tenant and no corpus at {HANDBOOK}; pass --source-data and --source-tenant.")
        print(f"source: ingesting {HANDBOOK} into {folder} (once; later runs reuse it)", flush=True)
        for _ in ingest_files(settings, tenant, iter_files([HANDBOOK])):
            pass
        docs = [d for d in store.list_documents(settings, tenant) if d["status"] == "ready"]
    timings = {k: 0.0 for k in ("parse", "chunk", "embed", "index")}
    for d in docs:
        for k, v in json.loads(d.get("timings") or "{}").items():
            if k in timings:
                timings[k] += float(v)
    pages = sum(d["pages"] or 1 for d in docs)
    chunks = sum(d["chunks"] for d in docs)
    total = sum(timings.values()) or 1.0
    prepared = _prepare_source(settings, tenant)
    return settings, tenant, {"documents": len(docs), "pages": pages, "chunks": chunks, "seconds": total,
                              "pages_per_s": pages / total, "chunks_per_s": chunks / total,
                              **{f"{k}_share": v / total for k, v in timings.items()}, **prepared}


def _prepare_source(settings: Any, tenant: str) -> dict[str, float]:
    """The source's answer vectors (core/answer/prepare.py), timed the first time they are
    made (kept in a file beside the source, as the source itself is)."""
    from core.answer.prepare import prepare_answer_vectors
    from core.models import get_embedder
    from core.tenants import tenant_dir

    record = tenant_dir(settings, tenant) / "bench-prepare.json"
    if record.exists():
        return json.loads(record.read_text())
    print("source: preparing its answer vectors (once)", flush=True)
    done = prepare_answer_vectors(settings, tenant, get_embedder(num_threads=settings.embed_threads))
    out = {"prepare_texts": done.units, "prepare_embedded": done.embedded, "prepare_s": done.seconds}
    record.write_text(json.dumps(out))
    return out


def _shift_numbers(text: str, c: int) -> str:
    # no leading zero, so that shifting back gives the same digits
    return re.sub(r"\b[1-9]\d{0,3}\b", lambda m: str(int(m.group()) + c), text)


def _original_text(text: str, c: int) -> str:
    """The source text a copy's unit text was made from: tag removed, numbers shifted back
    (a five-digit source number within c of 10,000 does not find its way back)."""
    text = text.replace(f" (copy {c})", "")
    return re.sub(r"\b[1-9]\d{0,4}\b", lambda m: str(int(m.group()) - c) if 1 <= int(m.group()) - c <= 9999
                  else m.group(), text)


def build(src: Any, src_tenant: str, size: int, folder: Path) -> dict[str, float]:
    """A tenant of `size` chunks made of copies of the source tenant (see the docstring)."""
    from core import index, store
    from core.documents import ensure_tenant

    settings = _settings(folder)
    ensure_tenant(settings, "scale")
    docs = [d for d in store.list_documents(src, src_tenant) if d["status"] == "ready"]
    rows = store.chunk_rows(src, src_tenant)
    got = index.collection(src, src_tenant).get(ids=[r["chunk_id"] for r in rows], include=["embeddings"])
    vectors = dict(zip(got["ids"], np.asarray(got["embeddings"], dtype=np.float32)))
    by_doc: dict[str, list[dict]] = {}
    for r in rows:
        by_doc.setdefault(r["doc_id"], []).append(r)
    timings = {"registry": 0.0, "chroma": 0.0, "bm25": 0.0}
    col = index.collection(settings, "scale")
    made, copy = 0, 0
    while made < size:
        rng = np.random.default_rng(copy)
        doc_rows, chunk_rows, ids, embs, metas = [], [], [], [], []
        for d in docs:
            if made >= size:
                break
            doc_id = f"s{copy:04d}{d['doc_id'][1:12]}"
            file_name = d["file_name"] if copy == 0 else f"copy-{copy}-{d['file_name']}"
            parts = by_doc.get(d["doc_id"], [])[: size - made]
            for r in parts:
                head, _, rest = r["text"].partition("\n")
                text = r["text"] if copy == 0 else f"{_shift_numbers(head, copy)} (copy {copy})\n{_shift_numbers(rest, copy)}"
                chunk_id = f"{doc_id}:{r['ordinal']:04d}"
                meta = {k: v for k, v in r.items() if k != "text"}
                meta.update(chunk_id=chunk_id, doc_id=doc_id, source=file_name, tenant="scale")
                if copy and head and str(meta.get("section", "")).endswith(head):  # its first line stays its heading
                    meta["section"] = f"{_shift_numbers(meta['section'], copy)} (copy {copy})"
                chunk_rows.append((chunk_id, doc_id, "scale", r["ordinal"], text, json.dumps(meta)))
                v = vectors[r["chunk_id"]] + (0 if copy == 0 else rng.normal(0, 0.05 / 20, 384))
                ids.append(chunk_id)
                embs.append((v / np.linalg.norm(v)).tolist())
                metas.append({"tenant": "scale", "doc_id": doc_id})
            made += len(parts)
            doc_rows.append((doc_id, "scale", file_name, f"{d['sha256'][:56]}{copy:08d}", d["size"], d["pages"],
                             len(parts), "ready", None, time.time(), "bench", d["format"], d["lang"],
                             d.get("path"), d.get("timings")))
        t = time.perf_counter()
        with store.connect(settings) as conn:
            conn.executemany("INSERT INTO documents (doc_id, tenant, file_name, sha256, size, pages, chunks, status,"
                             " error, uploaded_at, uploaded_by, format, lang, path, timings)"
                             " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", doc_rows)
            conn.executemany("INSERT INTO chunks (chunk_id, doc_id, tenant, ordinal, text, meta) VALUES (?,?,?,?,?,?)",
                             chunk_rows)
        timings["registry"] += time.perf_counter() - t
        t = time.perf_counter()
        for start in range(0, len(ids), 1000):
            col.add(ids=ids[start:start + 1000], embeddings=embs[start:start + 1000],
                    metadatas=metas[start:start + 1000], documents=[r[4] for r in chunk_rows[start:start + 1000]])
        timings["chroma"] += time.perf_counter() - t
        copy += 1
    index.note_write(settings)
    t = time.perf_counter()
    index.rebuild_lexical(settings, "scale")
    timings["bm25"] = time.perf_counter() - t
    timings.update(_bm25_upload(settings, by_doc[docs[0]["doc_id"]], copy))
    t = time.perf_counter()
    timings["answer_vectors_n"] = _copy_answer_vectors(src, src_tenant, settings, rows)
    timings["answer_vectors"] = time.perf_counter() - t
    return {**timings, "chunks": made, "copies": copy}


def _bm25_upload(settings: Any, source_chunks: list[dict], copy: int) -> dict[str, float]:
    """What one more upload, and then its deletion, cost the BM25 index at this size: one
    more copy of a source document put in the registry (and taken out), the index synced."""
    from core import index, store

    doc_id = f"s{copy:04d}upload"
    rows = []
    for r in source_chunks:
        chunk_id = f"{doc_id}:{r['ordinal']:04d}"
        meta = {**{k: v for k, v in r.items() if k != "text"}, "chunk_id": chunk_id, "doc_id": doc_id, "tenant": "scale"}
        rows.append((chunk_id, doc_id, "scale", r["ordinal"], f"{r['text']} (copy {copy})", json.dumps(meta)))
    with store.connect(settings) as conn:
        conn.executemany("INSERT INTO chunks (chunk_id, doc_id, tenant, ordinal, text, meta) VALUES (?,?,?,?,?,?)", rows)
    t = time.perf_counter()
    index.rebuild_lexical(settings, "scale")
    upload = time.perf_counter() - t
    with store.connect(settings) as conn:
        conn.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
    t = time.perf_counter()
    index.rebuild_lexical(settings, "scale")
    return {"bm25_upload": upload, "bm25_upload_chunks": len(rows), "bm25_delete": time.perf_counter() - t}


def _copy_answer_vectors(src: Any, src_tenant: str, settings: Any, src_rows: list[dict]) -> int:
    """The scale tenant prepared as a real one would be: each copied chunk's unit texts
    stored with the vector of the source unit they were made from (the copies are
    near-duplicates, so their units' vectors nearly are; no embedding is computed again).
    A unit whose numbers do not shift back (a leading zero) is embedded when a question reads it."""
    from core import store
    from core.answer.prepare import texts_of
    from core.answer.vectors import model_name
    from core.answer_vectors import AnswerVectors, key_of
    from core.models import get_embedder

    model = model_name(get_embedder(num_threads=settings.embed_threads))
    source_store, target = AnswerVectors.of(src, src_tenant), AnswerVectors.of(settings, "scale")
    held = source_store.get(list({key_of(model, t) for r in src_rows for t in texts_of(r)}))
    written, batch = 0, []
    for row in store.chunk_rows(settings, "scale"):
        copy = int(row["doc_id"][1:5])
        for text in texts_of(row):
            vector = held.get(key_of(model, _original_text(text, copy) if copy else text))
            if vector is not None:
                batch.append((key_of(model, text), row["doc_id"], vector))
        if len(batch) >= 5000:
            written += target.put(batch)
            batch = []
    return written + target.put(batch)


def _disk_mb(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 1e6
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def ask_in_subprocess(folder: Path, n: int, questions: Path = QUESTIONS) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "evals.bench_scale", "--ask", str(folder), str(n), str(questions)],
                          cwd=ROOT,
                          env={**os.environ, "GROUNDWORK_DATA": str(folder)}, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"asking failed: {proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ask_here(folder: Path, n: int, questions: Path = QUESTIONS) -> dict[str, Any]:
    """Step 3, run inside the subprocess: prints one JSON line."""
    import resource

    from core.pipeline import ask
    from core.trace import ORIGIN_BENCHMARK
    from evals.metrics import percentile

    settings = _settings(folder)
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    t = time.perf_counter()
    ask(settings, "scale", rows[0]["question"], origin=ORIGIN_BENCHMARK)
    cold = time.perf_counter() - t
    times: dict[str, dict[str, list[float]]] = {"answered": {}, "refused": {}}
    for row in rows[1:n + 1]:
        a = ask(settings, "scale", row["question"], origin=ORIGIN_BENCHMARK)
        group = times["refused" if a.status == "refused" else "answered"]
        for stage in STAGES:
            if stage in a.timings_ms:
                group.setdefault(stage, []).append(float(a.timings_ms[stage]))
    out = {"cold_s": cold, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    for group, stages in times.items():
        out[group] = {s: {"n": len(v), "p50": percentile(v, 50), "p95": percentile(v, 95)} for s, v in stages.items()}
    print(json.dumps(out))
    return out


def bench_scale(sizes: list[int], n: int, source_data: Path | None, source_tenant: str, keep: bool,
                questions: Path = QUESTIONS) -> dict:
    src, tenant, ingest = source(source_data, source_tenant)
    print(f"source: {ingest['documents']} documents, {ingest['chunks']} chunks; ingest {ingest['pages_per_s']:.2f} "
          f"pages/s, {ingest['chunks_per_s']:.1f} chunks/s (parse {ingest['parse_share']:.0%}, chunk "
          f"{ingest['chunk_share']:.0%}, embed {ingest['embed_share']:.0%}, index {ingest['index_share']:.0%}); "
          f"answer vectors: {ingest['prepare_texts']:,} texts, "
          + (f"{ingest['prepare_embedded']:,} embedded in {ingest['prepare_s']:.0f} s "
             f"({ingest['prepare_embedded'] / max(ingest['prepare_s'], 1e-9):.1f} texts/s)"
             if ingest["prepare_embedded"] else "prepared before"),
          flush=True)
    results = {}
    for size in sizes:
        folder = Path(tempfile.mkdtemp(prefix=f"groundwork-scale-{size}-"))
        try:
            built = build(src, tenant, size, folder)
            asked = ask_in_subprocess(folder, n, questions)
            from core.tenants import tenant_dir

            disk = {"registry": sum(_disk_mb(f) for f in folder.glob("groundwork.db*")),
                    "chroma": _disk_mb(folder / "chroma"),
                    "bm25": _disk_mb(tenant_dir(_settings(folder), "scale"))}
            results[size] = {"build": built, "ask": asked, "disk_mb": disk}
            _print_size(size, results[size])
        finally:
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
    return {"ingest": ingest, "sizes": results}


def _print_size(size: int, r: dict) -> None:
    b, a, d = r["build"], r["ask"], r["disk_mb"]
    print(f"\n{size:,} chunks ({b['copies']} copies): built registry {b['registry']:.1f} s, Chroma {b['chroma']:.1f} s, "
          f"BM25 {b['bm25']:.1f} s (an upload of {b['bm25_upload_chunks']} chunks: {b['bm25_upload']:.2f} s, its deletion {b['bm25_delete']:.2f} s), answer vectors {b['answer_vectors']:.1f} s ({b['answer_vectors_n']:,}); "
          f"disk registry {d['registry']:.0f} MB, Chroma {d['chroma']:.0f} MB, "
          f"BM25 and answer vectors {d['bm25']:.0f} MB; cold first ask {a['cold_s']:.1f} s; "
          f"peak RSS {a['peak_rss_mb']:.0f} MB")
    print(f"  {'stage':<9} {'answered n':>10} {'p50 ms':>8} {'p95 ms':>8}   {'refused n':>9} {'p50 ms':>8} {'p95 ms':>8}")
    for stage in STAGES:
        cells = []
        for group in ("answered", "refused"):
            st = a[group].get(stage)
            cells.append(f"{st['n']:>9} {st['p50']:>8.0f} {st['p95']:>8.0f}" if st else f"{'-':>9} {'':>8} {'':>8}")
        print(f"  {stage:<9} {cells[0]}   {cells[1]}")


if __name__ == "__main__" and len(sys.argv) in (4, 5) and sys.argv[1] == "--ask":
    ask_here(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]) if len(sys.argv) == 5 else QUESTIONS)
