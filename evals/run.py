"""`python -m evals.run --set FILE [--tenant T] [--split calib|test|all] [--ingest] [--out report.json] [--limit N] [--owner T] [--progress-file JOB.json]`

Asks every question of an eval set through `core.pipeline.ask`, scores the answers with
`evals.metrics`, prints a table, writes the JSON report and stores the run in SQLite.

An eval set is JSON lines: {"id", "tenant", "question", "kind", "expected_answer",
"gold_source", "gold_quote", "category", "lang", "split"}. Beside it, NAME.corpus.json maps
each tenant to the corpus folders (relative to the repository root) `--ingest` indexes.

Tenants:
  1. Each question is asked as its row's tenant, or as --tenant T for every row.
  2. With --ingest, that tenant is replaced by an eval tenant `eval-<set>-<tenant>`
     (`eval_tenant`), emptied and filled afresh from the manifest's corpora. An eval
     never writes a user's tenant; a set that needs two tenants (the cross-tenant probes)
     gets two eval tenants.
  3. The run belongs to one tenant, whose Quality page shows it: --owner (the console
     passes the tenant picked in the sidebar), else --tenant, else the one tenant asked.
     A run asking several tenants without --owner belongs to none (command line only).
     A run stored for a tenant may read only that tenant or the eval tenants it built.

With --progress-file (the console's and the API's background runs, `core/eval_jobs.py`) the run writes its
phase, files indexed, questions answered, outcome and run id to that job record instead of
drawing a progress bar.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from core.config import Settings, load_settings, load_tenant_overrides, save_tenant_overrides
from core.eval_rows import EVAL_SPLITS
from core.tenants import EVAL_TENANT_PREFIX, is_eval_tenant
from evals.crossing import crossing
from evals.metrics import LOWER_IS_BETTER, score
from evals.metrics.intervals import fmt_interval

ROOT = Path(__file__).resolve().parents[1]
REQUIRED = ("id", "tenant", "question", "kind")
ANSWERABLE_REQUIRED = ("expected_answer", "gold_source", "gold_quote")
KINDS = ("answerable", "unanswerable", "misleading")
SPLITS = EVAL_SPLITS
MAX_QUESTION_CHARS = 2000
EVAL_UPLOADER = "evals"

Progress = Callable[[int, int], None]
Log = Callable[[str], None]


class EvalSetError(ValueError):
    """An eval set or its manifest that cannot be used; the message says where and why."""


# ---- loading ---------------------------------------------------------------------------------


def load_set(path: str | Path) -> list[dict[str, Any]]:
    """Read and validate an eval set; raise EvalSetError naming the line and the problem."""
    path = Path(path)
    if not path.is_file():
        raise EvalSetError(f"Eval set {path} does not exist.")
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name} line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvalSetError(f"{where}: not valid JSON ({exc.msg}).") from None
        if not isinstance(row, dict):
            raise EvalSetError(f"{where}: expected a JSON object, got {type(row).__name__}.")
        _validate_row(row, where)
        row["id"] = str(row["id"])
        if row["id"] in seen:
            raise EvalSetError(f"{where}: id '{row['id']}' already used on line {seen[row['id']]}.")
        seen[row["id"]] = number
        rows.append(row)
    if not rows:
        raise EvalSetError(f"Eval set {path} holds no questions.")
    return rows


def _validate_row(row: dict[str, Any], where: str) -> None:
    missing = [f for f in REQUIRED if row.get(f) in (None, "")]
    if missing:
        raise EvalSetError(f"{where}: missing field {', '.join(repr(m) for m in missing)}.")
    for f in ("tenant", "question"):
        if not isinstance(row[f], str) or not row[f].strip():
            raise EvalSetError(f"{where}: '{f}' must be a non-empty string.")
    if len(row["question"]) > MAX_QUESTION_CHARS:
        raise EvalSetError(f"{where}: the question is longer than {MAX_QUESTION_CHARS} characters.")
    if row.get("previous") is not None and not isinstance(row["previous"], str):
        raise EvalSetError(f"{where}: 'previous' (the question asked before a follow-up) must be a string.")
    if row["kind"] not in KINDS:
        raise EvalSetError(f"{where}: kind '{row['kind']}' is not one of {', '.join(KINDS)}.")
    if row.get("split") not in (None, *SPLITS):
        raise EvalSetError(f"{where}: split '{row['split']}' is not one of {', '.join(SPLITS)}.")
    if row["kind"] == "answerable":
        missing = [f for f in ANSWERABLE_REQUIRED if not row.get(f)]
        if missing:
            raise EvalSetError(f"{where}: an answerable question needs {', '.join(repr(m) for m in missing)}.")


def manifest_path(set_path: str | Path) -> Path:
    set_path = Path(set_path)
    return set_path.with_name(set_path.name.removesuffix(".jsonl") + ".corpus.json")


def _manifest_data(set_path: str | Path) -> tuple[Path, dict[str, Any]]:
    path = manifest_path(set_path)
    if not path.is_file():
        raise EvalSetError(f"No corpus manifest {path.name} beside the set; --ingest needs one.")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise EvalSetError(f"{path.name}: not valid JSON ({exc.msg}).") from None
    if not isinstance(data, dict):
        raise EvalSetError(f"{path.name}: expected an object {{tenant: [folders]}}.")
    return path, data


def load_manifest(set_path: str | Path) -> dict[str, list[Path]]:
    """{tenant: [corpus folders]} from NAME.corpus.json; folders relative to the repo root
    (or, failing that, to the manifest's own folder). A tenant's entry is its folders, or
    {"folders": [...], "knobs": {...}} when its documents need settings of their own
    (`manifest_knobs`)."""
    path, data = _manifest_data(set_path)
    out: dict[str, list[Path]] = {}
    for tenant, entry in data.items():
        folders = entry.get("folders", []) if isinstance(entry, dict) else entry
        if isinstance(folders, str):
            folders = [folders]
        resolved = []
        for folder in folders:
            candidates = [Path(folder), ROOT / folder, path.parent / folder]
            found = next((c for c in candidates if c.is_absolute() and c.exists()), None)
            if found is None:
                raise EvalSetError(f"{path.name}: corpus folder '{folder}' for tenant '{tenant}' does not exist.")
            resolved.append(found)
        out[tenant] = resolved
    return out


def manifest_knobs(set_path: str | Path) -> dict[str, dict[str, Any]]:
    """{tenant: settings overrides} of the manifest's tenants that carry knobs (a real PDF of
    1,911 chunks needs `max_chunks_per_doc` above the default), applied to the eval tenant
    before its documents are read."""
    _, data = _manifest_data(set_path)
    return {tenant: dict(entry["knobs"]) for tenant, entry in data.items()
            if isinstance(entry, dict) and entry.get("knobs")}


def select_rows(rows: Sequence[dict[str, Any]], *, split: str = "all", tenant: str | None = None,
                limit: int | None = None) -> list[dict[str, Any]]:
    """Rows of a split ("all" keeps every row), each mapped to `tenant` if given, first `limit`."""
    if split not in ("all", *SPLITS):
        raise EvalSetError(f"split must be one of all, {', '.join(SPLITS)}.")
    out = [dict(r) for r in rows if split == "all" or r.get("split") == split]
    if tenant:
        for r in out:
            r["tenant"] = tenant
    if limit is not None:
        out = out[: max(limit, 0)]
    if not out:
        raise EvalSetError(f"No questions in split '{split}'.")
    return out


# ---- settings pinned for a run ----------------------------------------------------------------


@dataclass(frozen=True)
class PinnedSettings(Settings):
    """Settings whose pinned values win over the tenant's stored overrides.

    The pipeline applies `settings.for_tenant(tenant)`; a calibration run must keep
    gate_threshold = 0 whatever the tenant has stored, so pinned knobs are re-applied.
    """

    pins: tuple[tuple[str, Any], ...] = ()

    def for_tenant(self, tenant: str) -> Settings:
        tenant_settings = Settings.for_tenant(self, tenant)
        return replace(tenant_settings, **dict(self.pins)) if self.pins else tenant_settings


def pin_settings(settings: Settings, pins: Mapping[str, Any] | None) -> Settings:
    """These settings with `pins` applied and kept over any tenant override."""
    if not pins:
        return settings
    base = {f: getattr(settings, f) for f in Settings.__dataclass_fields__}
    return PinnedSettings(**{**base, **pins}, pins=tuple(sorted(dict(pins).items())))


# ---- running ----------------------------------------------------------------------------------


@dataclass
class Collected:
    """The raw material of a report: what was asked and what came back."""

    set_name: str
    set_path: str
    split: str
    tenant: str | None  # the tenant the run belongs to (its owner)
    settings: Settings
    rows: list[tuple[dict[str, Any], dict[str, Any]]]
    chunk_texts: dict[str, str]
    ingest: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tenant_map: dict[str, str] = field(default_factory=dict)  # set's tenant -> tenant asked
    limit: int | None = None


def eval_tenant(set_name: str, tenant: str) -> str:
    """The tenant an --ingest run builds for `tenant` of set `set_name`: `eval-<set>-<tenant>`."""
    return f"{EVAL_TENANT_PREFIX}{set_name}-{tenant}"


def reset_eval_tenant(settings: Settings, tenant: str, log: Log | None = None) -> int:
    """Empty an eval tenant (documents, vectors, lexical index, kept files, settings
    overrides) so it is built afresh; returns the documents removed. Refuses a tenant that
    is not named like an eval tenant or holds a document an eval did not put there."""
    from core.config import tenant_settings_path
    from core.documents import delete_documents, list_documents

    if not is_eval_tenant(tenant):
        raise EvalSetError(f"Tenant '{tenant}' is not an eval tenant; an eval only empties tenants "
                           f"named {EVAL_TENANT_PREFIX}<set>-<tenant>.")
    docs = list_documents(settings, tenant)
    foreign = [d["file_name"] for d in docs if d.get("uploaded_by") != EVAL_UPLOADER]
    if foreign:
        raise EvalSetError(f"Tenant '{tenant}' holds documents not added by an eval ({', '.join(foreign[:3])}), "
                           "so it is left alone; rename that tenant or run without --ingest.")
    delete_documents(settings, tenant, [d["doc_id"] for d in docs])
    tenant_settings_path(settings, tenant).unlink(missing_ok=True)
    if log and docs:
        log(f"emptied   {tenant}: {len(docs)} documents")
    return len(docs)


def ingest_corpora(settings: Settings, set_path: str | Path, tenant_map: Mapping[str, str],
                   tenant: str | None = None, log: Log | None = None, prepare: bool = False) -> dict[str, Any]:
    """Empty the eval tenants of `tenant_map` (set's tenant -> eval tenant) and index the
    manifest's corpora into them (every corpus into the one of `tenant` if given).
    `prepare`: then store their answer vectors, as the CLI and the console do after an
    ingest, so the run's latencies are a prepared tenant's (else each ask embeds the units
    it reads: about ten times slower a question)."""
    from core.documents import ingest_file, iter_files

    manifest = load_manifest(set_path)
    for target in sorted(set(tenant_map.values())):
        reset_eval_tenant(settings, target, log)
    for corpus_tenant, knobs in manifest_knobs(set_path).items():
        target = tenant_map.get(tenant or corpus_tenant)
        if target is not None:
            try:
                save_tenant_overrides(settings, target, knobs)
            except ValueError as exc:
                raise EvalSetError(f"{manifest_path(set_path).name}: the knobs of tenant '{corpus_tenant}': {exc}") from None
            if log:
                log(f"settings  {target}: {', '.join(f'{k}={v}' for k, v in sorted(knobs.items()))}")
    summary: dict[str, Any] = {"ready": 0, "unchanged": 0, "failed": [], "tenants": sorted(set(tenant_map.values()))}
    for corpus_tenant, folders in manifest.items():
        target = tenant_map.get(tenant or corpus_tenant)
        if target is None:
            continue
        for path in iter_files(folders):
            result = ingest_file(settings, target, path, uploaded_by=EVAL_UPLOADER)
            if result.status == "failed":
                summary["failed"].append({"tenant": target, "file": str(path), "error": result.error})
            else:
                summary[result.status] = summary.get(result.status, 0) + 1
            if log:
                log(f"{result.status:<9} {target}: {path.name}" + (f" — {result.error}" if result.error else ""))
    if prepare:
        from core.answer.prepare import prepare_answer_vectors
        from core.models import get_embedder

        embedder = get_embedder(num_threads=settings.embed_threads)
        for target in summary["tenants"]:
            done = prepare_answer_vectors(settings, target, embedder)
            summary.setdefault("prepared", {})[target] = done.units
            if log:
                log(f"prepared  {target}: {done.embedded:,} of {done.units:,} unit texts embedded in {done.seconds:.0f} s")
    return summary


def ingest_file_names(set_path: str | Path, *, split: str = "all", tenant: str | None = None,
                      owner: str | None = None, limit: int | None = None) -> list[str]:
    """The names of the files `ingest_corpora` indexes for this run, in its order."""
    from core.documents import iter_files

    set_path = Path(set_path)
    rows = select_rows(load_set(set_path), split=split, tenant=tenant, limit=limit)
    tenant_map, _ = plan_tenants(set_path.name.removesuffix(".jsonl"), rows, tenant=tenant, ingest=True,
                                 owner=owner)
    return [p.name for corpus_tenant, folders in load_manifest(set_path).items()
            if tenant_map.get(tenant or corpus_tenant) is not None for p in iter_files(folders)]


def file_announcer(names: Sequence[str], on_file: Callable[[int, int, str], None]) -> Log:
    """A `log` hook for `ingest_corpora` calling on_file(n, total, name) as file n of `names`
    starts indexing: file 1 at once, each next one after the line of the one before
    ("ready", "unchanged" or "failed"; "emptied ..." lines are no files)."""
    done = [0]
    if names:
        on_file(1, len(names), names[0])

    def log(line: str) -> None:  # "ready     eval-demo-demo: a.pdf"
        if line.split(" ", 1)[0] not in ("ready", "unchanged", "failed"):
            return
        done[0] += 1
        if done[0] < len(names):
            on_file(done[0] + 1, len(names), names[done[0]])

    return log


def ask_rows(settings: Settings, rows: Sequence[dict[str, Any]], progress: Progress | None = None,
             ) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[str]]:
    """Ask every question; an ask that raises is recorded as status "error" (not an answer)."""
    from core.pipeline import ask
    from core.trace import ORIGIN_EVAL

    out, warnings = [], []
    total = len(rows)
    if progress:
        progress(0, total)
    for done, row in enumerate(rows, start=1):
        started = time.perf_counter()
        try:
            # "previous": the chat question a follow-up row comes after
            answer = ask(settings, row["tenant"], row["question"], previous=row.get("previous"), origin=ORIGIN_EVAL).to_dict()
        except Exception as exc:  # noqa: BLE001 - one broken question must not sink the run
            answer = {"question": row["question"], "tenant": row["tenant"], "status": "error",
                      "answer": "", "citations": [], "claims": [], "confidence": 0.0,
                      "refusal_reason": f"{type(exc).__name__}: {exc}", "retrieved": [],
                      "timings_ms": {"total": round((time.perf_counter() - started) * 1000, 2)}}
            warnings.append(f"Question {row['id']} failed: {type(exc).__name__}: {exc}")
        out.append((row, answer))
        if progress:
            progress(done, total)
    return out, warnings


def cited_chunk_texts(settings: Settings, rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]],
                      ) -> dict[str, str]:
    """chunk_id -> text from the store for every chunk an answer cites."""
    from core import store

    wanted: dict[str, set[str]] = {}
    for _, answer in rows:
        for cit in answer.get("citations") or []:
            if cit.get("chunk_id"):
                wanted.setdefault(answer.get("tenant") or "", set()).add(cit["chunk_id"])
    out: dict[str, str] = {}
    for tenant, ids in wanted.items():
        if tenant:
            out.update({cid: row["text"] for cid, row in store.get_chunks(settings, tenant, sorted(ids)).items()})
    return out


def plan_tenants(set_name: str, rows: Sequence[dict[str, Any]], *, tenant: str | None = None,
                 ingest: bool = False, owner: str | None = None) -> tuple[dict[str, str], str | None]:
    """({set's tenant: tenant asked}, the tenant the run belongs to): steps 1-3 of the module
    docstring. Raises EvalSetError when a run stored for `owner` would read another tenant."""
    wanted = sorted({r["tenant"] for r in rows})
    tenant_map = {t: eval_tenant(set_name, t) if ingest else t for t in wanted}
    asked = sorted(set(tenant_map.values()))
    owner = owner or tenant or (asked[0] if len(asked) == 1 else None)
    others = [t for t in asked if t != owner]
    if owner and others and not ingest:
        raise EvalSetError(f"This set asks tenant {', '.join(others)} besides '{owner}', and a run stored for "
                           f"'{owner}' may read only its own documents: ask every question as '{owner}' "
                           "or run the set on its own corpus in eval tenants (--ingest).")
    return tenant_map, owner


def collect(settings: Settings, set_path: str | Path, *, split: str = "all", tenant: str | None = None,
            ingest: bool = False, progress: Progress | None = None, limit: int | None = None,
            pins: Mapping[str, Any] | None = None, log: Log | None = None, owner: str | None = None,
            prepare: bool = False) -> Collected:
    """Load, (optionally) ingest, ask and look up cited chunks: everything but the scoring.
    With `ingest`, its eval tenants are held from the ingest to the last ask."""
    from core import store

    started = time.perf_counter()
    set_path = Path(set_path)
    set_name = set_path.name.removesuffix(".jsonl")
    rows = select_rows(load_set(set_path), split=split, tenant=tenant, limit=limit)
    tenant_map, owner = plan_tenants(set_name, rows, tenant=tenant, ingest=ingest, owner=owner)
    for r in rows:
        r["tenant"] = tenant_map[r["tenant"]]
    tenants = sorted(set(tenant_map.values()))
    settings = pin_settings(settings, pins)
    with eval_tenants_held(settings, tenants, log) if ingest else nullcontext():
        ingest_summary = ingest_corpora(settings, set_path, tenant_map, tenant, log, prepare) if ingest else {}
        warnings = [f"Ingest failed for {f['file']} ({f['tenant']}): {f['error']}"
                    for f in ingest_summary.get("failed", [])]
        for t in tenants:
            if not any(d["status"] == "ready" for d in store.list_documents(settings, t)):
                warnings.append(f"Tenant '{t}' has no indexed documents; run with --ingest.")
        if owner is None:
            warnings.append(f"This run asks several tenants ({', '.join(tenants)}) and belongs to none of them, so "
                            "no tenant's Quality page shows it; --owner T stores it for tenant T.")
        for t in tenants:
            documents = store.list_documents(settings, t)
            for r in rows:
                if r["tenant"] == t:
                    r["crossing"] = crossing(r, documents)
        answered, ask_warnings = ask_rows(settings, rows, progress)
    return Collected(
        set_name=set_name, set_path=str(set_path), split=split, tenant=owner, settings=settings,
        rows=answered, chunk_texts=cited_chunk_texts(settings, answered), ingest=ingest_summary,
        warnings=warnings + ask_warnings, seconds=time.perf_counter() - started,
        tenant_map=tenant_map, limit=limit,
    )


@contextmanager
def eval_tenants_held(settings: Settings, tenants: Sequence[str], log: Log | None = None) -> Iterator[None]:
    """Hold the eval tenants a run with --ingest empties, fills and asks, for the whole run:
    a second run over the same ones (another tenant's run of the same set from the console
    or the API, which share `eval-<set>-<tenant>`) waits instead of emptying them mid-run.
    One lock file a tenant (`flock`, released when the process ends), taken in sorted order."""
    from core.tenants import tenant_key

    folder = Path(settings.data_dir) / "eval-locks"
    folder.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        for t in sorted(tenants):
            handle = stack.enter_context(open(folder / f"{tenant_key(t)}.lock", "a"))
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if log:
                    log(f"waiting   {t}: another eval run is using it")
                fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def build_report(collected: Collected) -> dict[str, Any]:
    """The runner's JSON report (see docs/architecture.md, "Eval sets and metrics")."""
    scored = score(collected.rows, collected.chunk_texts)
    questions = []
    for (question, answer), judged in zip(collected.rows, scored["questions"], strict=True):
        set_fields = {k: question.get(k) for k in ("expected_answer", "gold_source", "gold_quote", "split")}
        questions.append({**judged, **set_fields, **answer})
    tenants = sorted({q["tenant"] for q, _ in collected.rows})
    settings = collected.settings
    return {
        "set": collected.set_name,
        "set_path": collected.set_path,
        "run_id": None,
        "split": collected.split,
        "tenant": collected.tenant,
        "tenants_asked": tenants,
        "tenant_map": collected.tenant_map,
        "mode": "run",
        "limit": collected.limit,
        "settings": {**settings.public_dict(),
                     "pins": dict(getattr(settings, "pins", ())),
                     "tenant_overrides": {t: load_tenant_overrides(settings, t) for t in tenants}},
        "git_commit": git_commit(),
        "created_at": time.time(),
        "duration_s": round(collected.seconds, 2),
        "overall": scored["overall"],
        "by_kind": scored["by_kind"],
        "by_category": scored["by_category"],
        "by_tenant": scored["by_tenant"],
        "by_lang": scored["by_lang"],
        "by_crossing": scored["by_crossing"],
        "intervals": scored["intervals"],
        "retrieval_k": settings.top_k,
        "ingest": collected.ingest,
        "warnings": collected.warnings + scored["warnings"],
        "questions": questions,
    }


def run_set(settings: Settings, set_path: str | Path, *, split: str = "all", tenant: str | None = None,
            ingest: bool = False, progress: Progress | None = None, limit: int | None = None,
            pins: Mapping[str, Any] | None = None, save: bool = True, log: Log | None = None,
            owner: str | None = None, prepare: bool = False) -> dict[str, Any]:
    """Run an eval set end to end and return the report (stored via store.save_eval_run).

    progress(done, total) is called before the first and after every question.
    `pins` fixes settings for the run over any tenant override (e.g. {"gate_threshold": 0}).
    `owner` is the tenant the run belongs to (see the module docstring, "Tenants").
    """
    from core import store

    collected = collect(settings, set_path, split=split, tenant=tenant, ingest=ingest,
                        progress=progress, limit=limit, pins=pins, log=log, owner=owner, prepare=prepare)
    report = build_report(collected)
    if save:
        report["run_id"] = store.save_eval_run(settings, report)
    return report


def git_commit(root: Path = ROOT) -> str | None:
    """The checked-out commit, read from .git without running git (None outside a checkout)."""
    git = root / ".git"
    try:
        if git.is_file():  # a worktree: "gitdir: <path>"
            git = Path(git.read_text().split(":", 1)[1].strip())
        head = (git / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head
        ref = head.split(":", 1)[1].strip()
        for base in (git, _common_dir(git)):
            if (base / ref).is_file():
                return (base / ref).read_text().strip()
            packed = base / "packed-refs"
            if packed.is_file():
                for line in packed.read_text().splitlines():
                    if line.endswith(" " + ref):
                        return line.split()[0]
    except (OSError, IndexError):
        return None
    return None


def _common_dir(git: Path) -> Path:
    common = git / "commondir"
    return (git / common.read_text().strip()).resolve() if common.is_file() else git


# ---- printing ---------------------------------------------------------------------------------

COLUMNS = [  # (metric, header)
    ("n", "n"), ("errors", "errors"), ("answer_correct", "correct"), ("answer_correct_lenient", "lenient"),
    ("citation_accuracy", "cited"), ("rival_quotes", "rivals"), ("refusal_correct", "refuse_ok"), ("too_conservative", "too_cons"),
    ("closest_hit", "closest"),
    ("hallucination", "halluc"), ("grounded_only", "grounded"), ("faithfulness", "faithful"),
    ("hit_rate", "hit@k"), ("mrr", "mrr"), ("latency_p50_ms", "p50 ms"), ("latency_p95_ms", "p95 ms"),
]


def fmt(metric: str, value: Any) -> str:
    if value is None:
        return "—"
    if metric in ("n", "errors"):
        return str(value)
    if metric.endswith("_ms"):
        return f"{value:.0f}"
    if metric == "mrr":
        return f"{value:.3f}"
    return f"{100 * value:.1f}%"


def format_table(report: Mapping[str, Any]) -> str:
    """Overall, per kind, category, language and tenant, one row each; — marks no data."""
    lines: list[list[str]] = [["group"] + [h for _, h in COLUMNS]]
    sections = [("overall", {"overall": report["overall"]})] + [
        (name, report.get(name) or {}) for name in ("by_kind", "by_category", "by_lang", "by_crossing", "by_tenant")]
    breaks = []
    for name, groups in sections:
        breaks.append(len(lines))
        for key, vals in groups.items():
            label = key if name == "overall" else f"{name.removeprefix('by_')}: {key}"
            lines.append([label] + [fmt(m, vals.get(m)) for m, _ in COLUMNS])
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]
    out = []
    for i, row in enumerate(lines):
        if i in breaks:
            out.append("-" * (sum(widths) + 2 * (len(widths) - 1)))
        out.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths,
                                                                                                 strict=True))))
    arrows = ", ".join(sorted(LOWER_IS_BETTER))
    out.append(f"(lower is better: {arrows}; hit@k over the top {report.get('retrieval_k', '?')} passages)")
    if line := interval_line(report):
        out.append(line)
    return "\n".join(out)


INTERVAL_COLUMNS = ("grounded_only", "answer_correct", "hallucination", "refusal_correct")


def interval_line(report: Mapping[str, Any]) -> str:
    """The overall headline rates' 95 % intervals, "" for a report stored before they were kept."""
    overall = (report.get("intervals") or {}).get("overall") or {}
    headers = dict(COLUMNS)
    parts = [f"{headers[m]} {fmt_interval(overall[m])}" for m in INTERVAL_COLUMNS if m in overall]
    if not parts:
        return ""
    return (f"95% intervals over {report['overall'].get('n', '?')} questions: " + ", ".join(parts)
            + " (correct over the answerable ones, refuse_ok over the others)")


def summary_lines(report: Mapping[str, Any], stored: bool = True) -> list[str]:
    counts: dict[str, int] = {}
    for q in report["questions"]:
        counts[q["outcome"]] = counts.get(q["outcome"], 0) + 1
    asked = ", ".join(report.get("tenants_asked") or []) or "?"
    return [
        f"set {report['set']} · split {report['split']} · {len(report['questions'])} questions · "
        f"run {report.get('run_id')} · {report.get('duration_s', 0):.1f} s",
        f"asked as {asked} · " + (f"stored for {report.get('tenant') or 'no tenant'}" if stored
                                  else "not stored (--no-store)"),
        "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
    ]


# ---- command line -----------------------------------------------------------------------------


def tqdm_progress(desc: str) -> tuple[Progress, Callable[[], None]]:
    """A progress callback drawing a tqdm bar on stderr, and a function closing it."""
    from tqdm import tqdm

    bars: list[Any] = []  # created on the first call, so ingest lines print before the bar

    def update(done: int, total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, desc=desc, file=sys.stderr, unit="q", leave=False))
        bars[0].total = total
        bars[0].n = done
        bars[0].refresh()

    def close() -> None:
        if bars:
            bars[0].close()

    return update, close


def add_common_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", required=True, type=Path, help="eval set (JSON lines)")
    p.add_argument("--tenant", help="ask every question of this tenant instead of the row's own")
    p.add_argument("--ingest", action="store_true",
                   help="build fresh eval tenants eval-<set>-<tenant> from the set's corpus manifest and ask "
                        "them (a user's tenant is never written)")
    p.add_argument("--limit", type=int, help="only the first N questions")
    p.add_argument("--owner", help="the tenant the run is stored for (default: --tenant, or the one tenant asked)")


def run_with_progress(label: str, job) -> tuple[dict | None, int]:
    """Run `job(progress, log)` under a terminal progress bar; user errors become one
    sentence on stderr. Returns (report, 0) or (None, exit code). Shared by run and calibrate."""
    progress, close = tqdm_progress(label)
    try:
        report = job(progress, lambda line: print(line, file=sys.stderr))
    except (EvalSetError, ValueError) as exc:
        close()
        print(f"error: {exc}", file=sys.stderr)
        return None, 2
    except KeyboardInterrupt:
        close()
        print("error: interrupted.", file=sys.stderr)
        return None, 130
    close()
    for w in report["warnings"]:
        print(f"warning: {w}", file=sys.stderr)
    return report, 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.run", description="Run an eval set and score it.")
    add_common_args(p)
    p.add_argument("--split", default="all", choices=["all", *SPLITS])
    p.add_argument("--out", type=Path, help="write the JSON report here too")
    p.add_argument("--no-store", action="store_true", help="do not store the run in SQLite")
    p.add_argument("--prepare", action="store_true",
                   help="with --ingest: store the eval tenants' answer vectors before asking, as the CLI and "
                        "console do after an ingest (latencies then are a prepared tenant's)")
    p.add_argument("--progress-file", type=Path,
                   help="a job record (evals/jobs.py) to write progress, outcome and run id to, as the "
                        "console's background runs do; no progress bar, table or --out then")
    args = p.parse_args(argv)
    if args.prepare and not args.ingest:
        p.error("--prepare prepares the tenants --ingest builds; add --ingest (or run `python -m core.cli "
                "prepare --tenant T` for a tenant of your own).")
    settings = load_settings()
    if args.progress_file:
        from evals.jobs import run_job

        return run_job(args.progress_file, settings, args.set, owner=args.owner, split=args.split,
                       tenant=args.tenant, ingest=args.ingest, limit=args.limit, save=not args.no_store)
    report, code = run_with_progress(
        f"asking ({args.set.name})",
        lambda progress, log: run_set(settings, args.set, split=args.split, tenant=args.tenant,
                                      ingest=args.ingest, progress=progress, limit=args.limit,
                                      save=not args.no_store, log=log, owner=args.owner, prepare=args.prepare))
    if report is None:
        return code
    print("\n".join(summary_lines(report, stored=not args.no_store)))
    print(format_table(report))
    if args.out:
        write_json(args.out, report)
        print(f"report written to {args.out}")
    return 0


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
