"""`python -m evals.bench ingest|ask|ui|ui-chat|scale|vectors|ocr` — speed benchmarks on a fresh temporary data folder.

ingest [--path data/demo] [--keep] [--no-ahead]
  1. Point GROUNDWORK_DATA at a new temporary folder; load the embedder (timed apart).
  2. Ingest every supported file under --path into tenant "bench", one at a time, as the
     CLI does: the next file parsed while the current one embeds (`--no-ahead`: not).
  3. Print per file and overall: pages/s, chunks/s, and the split of the time into
     parse / chunk / embed / index (IngestResult.timings). A document without pages
     (Markdown, HTML, text) counts as one page.

ask [--set evals/sets/demo.jsonl] [--n 50] [--corpus PATH] [--keep]
  1. Fresh temporary data folder; ingest the set's corpus (its manifest, else data/demo)
     into tenant "demo" in a subprocess, so this process is still cold afterwards.
  2. Time the import of the pipeline and the first ask (cold: models, indexes, clients).
  3. Ask N questions of the set (cycled if the set is shorter) in the now warm process.
  4. Print p50/p95 of every stage in timings_ms (retrieve, gate, generate, verify,
     closest — a refusal's closest sentences, so only refusals have it — and total),
     questions per second, each stage's share of the median total, and cold/warm.

ui [--question Q] [--think S] [--keep]
  Start-up to first answer and per-page cold/warm load times in a real browser; the
  algorithm is in evals/bench_ui.py.

ui-chat [--turns 26] [--rounds 3] [--screenshot PATH] [--keep] [--data DIR]
  Reopening a saved chat of --turns turns in a real browser (a reload, and Saved chats),
  and what the reopened page holds; the algorithm is in evals/bench_ui.py (bench_chat).

scale [--sizes 1000 10000 100000] [--n 40] [--source-data DIR --source-tenant T] [--keep]
  Ask latency per stage (answered and refused apart), index size on disk and peak memory
  at each size, tenants built from copies of a real corpus; algorithm in evals/bench_scale.py.

vectors [--docs 16] [--chunks 16] [--rounds 5]
  Vectors never returned again after documents are deleted and indexed again, Chroma's
  in-place delete against the rebuild core.index uses; algorithm in evals/bench_vectors.py.

ocr [PDF ...] [--scan-dpi 200] [--turn 0|90|180|270]
  Scanned PDFs: seconds a page and the words and table rows OCR keeps of the digital
  original (default: the demo corpus's PDFs, scanned as a copier would); evals/bench_ocr.py.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.metrics import percentile

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("retrieve", "gate", "generate", "verify", "closest", "total")  # closest: refusals only
INGEST_STAGES = ("parse", "chunk", "embed", "index")


def _temp_settings(keep: bool) -> tuple[Any, Path]:
    from core.config import load_settings

    folder = Path(tempfile.mkdtemp(prefix="groundwork-bench-"))
    os.environ["GROUNDWORK_DATA"] = str(folder)
    if not keep:
        import atexit

        atexit.register(shutil.rmtree, folder, True)
    return load_settings(), folder


def bench_ingest(path: Path, keep: bool = False, ahead: bool = True) -> dict[str, Any]:
    settings, folder = _temp_settings(keep)
    from core.documents import ingest_file, ingest_files, iter_files
    from core.models import get_embedder

    t = time.perf_counter()
    get_embedder(num_threads=settings.embed_threads).embed_passages(["warm-up"])  # weights load lazily
    model_s = time.perf_counter() - t
    files = iter_files([path])
    if not files:
        raise ValueError(f"No supported files under {path}.")
    results = []
    started = time.perf_counter()
    done = (ingest_files(settings, "bench", files, uploaded_by="bench") if ahead  # the CLI's way
            else ((f, ingest_file(settings, "bench", f, uploaded_by="bench")) for f in files))
    for f, r in done:
        results.append(r)
        pages = r.pages or 1
        print(f"{r.status:<8} {f.name:<40} {pages:>4} p {r.chunks:>4} chunks {r.seconds:>7.2f} s"
              + (f"  {r.error}" if r.error else ""), flush=True)
    wall = time.perf_counter() - started
    ok = [r for r in results if r.status == "ready"]
    pages = sum(r.pages or 1 for r in ok)
    chunks = sum(r.chunks for r in ok)
    stages = {s: sum(r.timings.get(s, 0.0) for r in ok) for s in INGEST_STAGES}
    staged = sum(stages.values()) or 1.0
    out = {"data": str(folder), "files": len(files), "failed": len(results) - len(ok), "pages": pages,
           "chunks": chunks, "wall_s": wall, "model_load_s": model_s, "stages_s": stages,
           "pages_per_s": pages / wall if wall else None, "chunks_per_s": chunks / wall if wall else None}
    print()
    print(f"model load {model_s:.2f} s (not counted below)")
    print(f"{len(ok)}/{len(files)} files, {pages} pages, {chunks} chunks in {wall:.2f} s")
    print(f"  {out['pages_per_s']:.2f} pages/s   {out['chunks_per_s']:.2f} chunks/s   "
          f"{chunks / max(pages, 1):.2f} chunks/page   {1000 * wall / max(chunks, 1):.0f} ms/chunk")
    print("  time split: " + "   ".join(f"{s} {v:.2f} s ({100 * v / staged:.0f}%)" for s, v in stages.items()))
    return out


def _questions(set_path: Path, n: int) -> list[str]:
    from evals.run import load_set

    rows = load_set(set_path)
    return [rows[i % len(rows)]["question"] for i in range(n)]


def _corpus_for(set_path: Path, corpus: Path | None) -> list[Path]:
    if corpus:
        return [corpus]
    from evals.run import EvalSetError, load_manifest

    try:
        return [f for folders in load_manifest(set_path).values() for f in folders]
    except EvalSetError:
        return [ROOT / "data" / "demo"]


def bench_ask(set_path: Path, n: int, corpus: Path | None = None, keep: bool = False) -> dict[str, Any]:
    questions = _questions(set_path, n + 1)
    settings, folder = _temp_settings(keep)
    folders = _corpus_for(set_path, corpus)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "core.cli", "ingest", "--tenant", "demo", *map(str, folders)],
                          cwd=ROOT, env=dict(os.environ), capture_output=True, text=True)
    ingest_s = time.perf_counter() - t
    failed = [line for line in proc.stdout.splitlines() if line.startswith("failed")]
    print(f"ingested {', '.join(str(f) for f in folders)} in {ingest_s:.1f} s (subprocess)"
          + (f"; {len(failed)} failed" if failed else ""))
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"ingest failed: {proc.stderr.strip()[-500:]}")

    t = time.perf_counter()
    from core.pipeline import ask
    from core.trace import ORIGIN_BENCHMARK

    import_s = time.perf_counter() - t
    t = time.perf_counter()
    first = ask(settings, "demo", questions[0], origin=ORIGIN_BENCHMARK)
    cold_s = time.perf_counter() - t

    timings: dict[str, list[float]] = {s: [] for s in STAGES}
    statuses: dict[str, int] = {}
    started = time.perf_counter()
    for q in questions[1:]:
        a = ask(settings, "demo", q, origin=ORIGIN_BENCHMARK)
        statuses[a.status] = statuses.get(a.status, 0) + 1
        for s in STAGES:
            if s in a.timings_ms:
                timings[s].append(float(a.timings_ms[s]))
    wall = time.perf_counter() - started
    stats = {s: {"n": len(v), "p50": percentile(v, 50), "p95": percentile(v, 95)} for s, v in timings.items()}
    p50_total = stats["total"]["p50"] or 0.0
    print(f"import core.pipeline {import_s:.2f} s; cold first ask {cold_s:.2f} s "
          f"(its own total {first.timings_ms.get('total', 0):.0f} ms)")
    print(f"{n} warm asks in {wall:.2f} s = {n / wall:.2f} questions/s; statuses: "
          + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    print(f"{'stage':<9} {'n':>4} {'p50 ms':>9} {'p95 ms':>9} {'share of p50':>13}")
    for s, st in stats.items():
        if not st["n"]:
            continue
        # a share of the median ask only for stages every ask ran (closest: refusals only)
        share = f"{100 * st['p50'] / p50_total:.0f}%" if p50_total and s != "total" and st["n"] == n else ""
        print(f"{s:<9} {st['n']:>4} {st['p50']:>9.1f} {st['p95']:>9.1f} {share:>13}")
    if p50_total:
        print(f"cold first ask / warm p50 = {1000 * cold_s / p50_total:.0f}x")
    return {"data": str(folder), "import_s": import_s, "cold_first_ask_s": cold_s, "warm_wall_s": wall,
            "n": n, "stages": stats, "statuses": statuses}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.bench", description="Speed benchmarks.")
    sub = p.add_subparsers(dest="what", required=True)
    ing = sub.add_parser("ingest", help="ingest speed on a fresh data folder")
    ing.add_argument("--path", type=Path, default=ROOT / "data" / "demo")
    ing.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    ing.add_argument("--no-ahead", action="store_true", help="parse each file only when its turn comes")
    ask = sub.add_parser("ask", help="ask latency per stage, warm and cold")
    ask.add_argument("--set", type=Path, default=ROOT / "evals" / "sets" / "demo.jsonl")
    ask.add_argument("--n", type=int, default=50)
    ask.add_argument("--corpus", type=Path, help="folder to ingest instead of the set's manifest")
    ask.add_argument("--keep", action="store_true", help="keep the temporary data folder")
    ui = sub.add_parser("ui", help="console start-up and page load times in headless Chromium")
    ui.add_argument("--question", help='the first question asked (default "What is the oil capacity?")')
    ui.add_argument("--think", type=float, default=0.0,
                    help="seconds between the Ask page being ready and the question being sent (a user typing)")
    ui.add_argument("--keep", action="store_true", help="keep the temporary data folder and server log")
    chat = sub.add_parser("ui-chat", help="reopening a long saved chat in headless Chromium")
    chat.add_argument("--turns", type=int, default=26, help="questions in the saved chat")
    chat.add_argument("--rounds", type=int, default=3, help="warm reopenings of each kind (median)")
    chat.add_argument("--screenshot", type=Path, help="a full-page PNG of the reopened chat")
    chat.add_argument("--keep", action="store_true", help="keep the temporary data folder and server log")
    chat.add_argument("--data", type=Path, help="reuse the data/ folder of a --keep run (the same chat)")
    sc = sub.add_parser("scale", help="ask latency, disk and memory at 1k, 10k and 100k chunks")
    sc.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    sc.add_argument("--n", type=int, default=40, help="questions asked at each size")
    sc.add_argument("--source-data", type=Path, help="a data folder holding the source tenant (default: built once)")
    sc.add_argument("--source-tenant", default="handbook")
    sc.add_argument("--keep", action="store_true", help="keep the data folders of each size")
    sc.add_argument("--questions", type=Path, help="eval set whose questions are asked (default: ood_handbook)")
    vec = sub.add_parser("vectors", help="vectors left unsearchable by deletes, in place vs rebuild")
    vec.add_argument("--docs", type=int, default=16)
    vec.add_argument("--chunks", type=int, default=16)
    vec.add_argument("--rounds", type=int, default=5)
    ocr = sub.add_parser("ocr", help="scanned PDFs: seconds a page, words and table rows kept")
    ocr.add_argument("pdfs", type=Path, nargs="*", help="digital PDFs to scan (default: the demo corpus's)")
    ocr.add_argument("--scan-dpi", type=int, default=200)
    ocr.add_argument("--turn", type=int, choices=(0, 90, 180, 270), default=0,
                     help="feed every page turned this many degrees (180: upside down; 90, 270: sideways)")
    args = p.parse_args(argv)
    try:
        if args.what == "ingest":
            bench_ingest(args.path, keep=args.keep, ahead=not args.no_ahead)
        elif args.what == "scale":
            from evals.bench_scale import QUESTIONS, bench_scale

            if args.n < 1 or min(args.sizes) < 1:
                raise ValueError("--n and every size must be at least 1.")
            bench_scale(args.sizes, args.n, args.source_data, args.source_tenant, args.keep,
                        args.questions or QUESTIONS)
        elif args.what == "vectors":
            from evals.bench_vectors import bench_vectors

            if min(args.docs, args.chunks, args.rounds) < 1:
                raise ValueError("--docs, --chunks and --rounds must be at least 1.")
            bench_vectors(args.docs, args.chunks, args.rounds)
        elif args.what == "ocr":
            from evals.bench_ocr import DEMO_PDFS, bench_ocr, print_ocr

            print_ocr(bench_ocr(args.pdfs or DEMO_PDFS, args.scan_dpi, args.turn), args.scan_dpi, args.turn)
        elif args.what == "ui-chat":
            from evals.bench_ui import bench_chat

            bench_chat(args.turns, args.rounds, keep=args.keep, screenshot=args.screenshot, data=args.data)
        elif args.what == "ui":
            from evals.bench_ui import bench_ui

            if args.think < 0:
                raise ValueError("--think must not be negative.")
            bench_ui(args.question, keep=args.keep, think=args.think)
        else:
            if args.n < 1:
                raise ValueError("--n must be at least 1.")
            bench_ask(args.set, args.n, args.corpus, keep=args.keep)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
