"""The calls pages make into `core` and `evals`, in one place (one hop from any page).

Nothing here renders; each function takes settings and a tenant explicitly.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core import eval_rows, store
from core.config import Settings
from ui.format import count_of

EVAL_KINDS = eval_rows.EVAL_KINDS


# ---- ask -----------------------------------------------------------------------------------


def ask(settings: Settings, tenant: str, question: str, previous: str | None = None) -> dict[str, Any]:
    """One ask through the whole pipeline; the Answer as a dict (what traces store too).
    `previous` is the chat's last question, so a follow-up ("and annual plans?") is read whole."""
    from core.pipeline import ask as pipeline_ask

    return pipeline_ask(settings, tenant, question, previous=previous).to_dict()


def unplaced_followup(question: str, previous: str | None, answer: dict[str, Any]) -> bool:
    """A short follow-up whose change to the previous question could not be told, or one
    that points back with a pronoun ("who else can I report it to?"): it was asked on its
    own, and the operator should know."""
    from core.followup import looks_like_followup, refers_back

    return bool(previous) and not answer.get("asked_as") and (looks_like_followup(question) or refers_back(question))


def tenant_overview(settings: Settings, tenant: str, examples: int = 3) -> dict[str, Any]:
    """What an empty Ask page says the tenant holds: ready documents, their languages, a few
    of their section topics, and questions this tenant's documents answered before (newest
    first, each once, none whose answer was rated down) as examples to click."""
    docs = [d for d in store.list_documents(settings, tenant) if d["status"] == "ready"]
    from core.lang import LANGUAGES

    languages = sorted({LANGUAGES[d["lang"]].name for d in docs if d.get("lang") in LANGUAGES})
    asked, seen = [], set()
    # a question whose answer someone rated down is no example to offer (a QA pass clicked one)
    rated_down = {f["trace_id"] for f in store.list_feedback(settings, tenant) if f["rating"] < 0}
    traces = store.list_traces(settings, tenant, status="answered", limit=100, with_reading=True)
    seen.update(store.fold(t["question"]) for t in traces if t["trace_id"] in rated_down)
    # a follow-up ("and for partners?") is no example: alone, in a new chat, it leans on nothing
    for t in traces:
        key = store.fold(t["question"])
        if key and key not in seen and len(t["question"]) <= 160 and not t["asked_as"]:
            seen.add(key)
            # one answered from a document since deleted or replaced is no example: asked now, it
            # was refused (a scale pass)
            if not _cites_what_is_gone(settings, tenant, t["trace_id"]):
                asked.append(t["question"])
        if len(asked) >= examples:
            break
    openings = [_topic(section.split(" > ")[-1]) for section in store.opening_sections(settings, tenant)]
    # a heading that opens several documents is a letterhead (the company's name), not what
    # any one of them is about
    times = Counter(openings)
    topics = [t for t in times if t and times[t] == 1][:6]
    return {"documents": len(docs), "languages": languages, "examples": asked, "topics": topics}


def _cites_what_is_gone(settings: Settings, tenant: str, trace_id: str) -> bool:
    trace = store.get_trace(settings, tenant, trace_id) or {}
    citations = (trace.get("answer") or {}).get("citations") or []
    return not citations or bool(gone_sources(settings, tenant, citations))


def _topic(heading: str) -> str:
    """A heading as a topic: without its number ("1. Purpose" is "Purpose"); none when it is a
    question (a FAQ's first entry read "topics such as ..., Do you offer ...?.")."""
    words = heading.strip().split(" ", 1)
    if len(words) == 2 and words[0].rstrip(".)").replace(".", "").isdigit():
        words = words[1:]
    topic = " ".join(words).strip()
    if topic.isupper():  # a title typed in capitals ("ACME FOODS OUTBOUND INSTRUCTION"): not shouted
        from core.lang import language_of

        small = language_of(topic).stopwords
        topic = " ".join(w.lower() if w.lower() in small and n else w if len(w) <= 3 else w.capitalize()
                         for n, w in enumerate(topic.split()))
    return "" if topic.endswith("?") else topic


def previous_question(history: list[dict[str, Any]]) -> str | None:
    """The chat's last question as it was asked (a follow-up's reading, not its two words)."""
    if not history:
        return None
    last = history[-1]
    return last.get("asked_as") or last.get("question") or None


def chunk(settings: Settings, tenant: str, chunk_id: str) -> dict[str, Any] | None:
    return store.get_chunks(settings, tenant, [chunk_id]).get(chunk_id)


def gone_sources(settings: Settings, tenant: str, citations: list[dict[str, Any]]) -> list[str]:
    """The sources of `citations` whose cited passage is no longer indexed: its document was
    deleted or replaced (a new version is new chunks: ids follow the content)."""
    ids = [c.get("chunk_id", "") for c in citations]
    present = store.get_chunks(settings, tenant, ids) if ids else {}
    return sorted({c.get("source", "") for c in citations if c.get("chunk_id", "") not in present})


def document(settings: Settings, tenant: str, doc_id: str) -> dict[str, Any] | None:
    return store.get_document(settings, tenant, doc_id)


def original_path(settings: Settings, tenant: str, doc_id: str) -> Path | None:
    from core.documents import original_path as kept

    return kept(settings, tenant, doc_id)


def page_turns(settings: Settings, tenant: str, doc_id: str) -> dict[int, int]:
    """Page -> degrees clockwise a scan fed upside down or sideways was turned to be read."""
    from core import scan_words

    return scan_words.turns(settings, tenant, doc_id)


def scanned_page(settings: Settings, tenant: str, doc_id: str, page: int) -> int | None:
    """None for a page of text; for a scan, its text read by OCR (core/scan_words.py), the
    degrees clockwise it was turned to be read (0: it was fed upright), to be shown so."""
    from core import scan_words

    kept = scan_words.read(settings, tenant, doc_id)
    return kept.turns.get(page, 0) if page in kept.words else None


def add_feedback(settings: Settings, tenant: str, trace_id: str, up: bool, comment: str) -> str:
    """The answer's one rating: "saved" the first time, "updated" when it replaced an earlier one."""
    return store.add_feedback(settings, tenant, trace_id, 1 if up else -1, comment.strip())


def feedback_given(settings: Settings, tenant: str, trace_id: str) -> dict[str, Any] | None:
    """The rating already stored for this answer (rating 1 or -1, comment, created_at), or None."""
    return store.get_feedback(settings, tenant, trace_id) if trace_id else None


def feedback_with_traces(settings: Settings, tenant: str, since: float | None = None) -> list[dict[str, Any]]:
    """The tenant's feedback joined with the asks it rates, newest first."""
    return store.list_feedback_with_traces(settings, tenant, since=since)


def feedback_set_path(settings: Settings, tenant: str) -> Path:
    return eval_rows.feedback_set_path(settings, tenant)


def eval_row(answer: dict[str, Any], kind: str, expected_answer: str, gold_source: str | None,
             gold_quote: str | None, category: str) -> dict[str, Any]:
    """A validated eval-set row (core.eval_rows.eval_row); ValueError with one sentence."""
    return eval_rows.eval_row(answer, kind, expected_answer, gold_source, gold_quote, category)


def append_eval_row(settings: Settings, tenant: str, row: dict[str, Any]) -> tuple[Path, str]:
    return eval_rows.append_eval_row(settings, tenant, row)


# ---- review queue --------------------------------------------------------------------------


def review_queue(settings: Settings, tenant: str, include_resolved: bool = False) -> list[Any]:
    from core import review

    return review.queue(settings, tenant, include_resolved=include_resolved)


def review_counts(items: list[Any]) -> dict[str, Any]:
    from core import review

    return review.counts(items)


def review_passages(settings: Settings, tenant: str, trace_id: str) -> list[dict[str, Any]]:
    from core import review

    return review.passages(settings, tenant, trace_id)


def review_answerable(settings: Settings, tenant: str, trace_id: str, chunk_id: str, quote: str,
                      expected: str | None) -> tuple[str, str]:
    from core import review

    return review.resolve_with_passage(settings, tenant, trace_id, chunk_id, quote, expected)


def review_refusal(settings: Settings, tenant: str, trace_id: str, kind: str) -> tuple[str, str]:
    from core import review

    return review.resolve_refusal_kind(settings, tenant, trace_id, kind)


def review_synonym(settings: Settings, tenant: str, trace_id: str, word: str, doc_words: str) -> dict[str, str]:
    from core import review

    return review.resolve_with_synonym(settings, tenant, trace_id, word, doc_words)


def review_dismiss(settings: Settings, tenant: str, trace_id: str) -> None:
    from core import review

    review.dismiss(settings, tenant, trace_id)


def review_reopen(settings: Settings, tenant: str, trace_id: str) -> None:
    from core import review

    review.reopen(settings, tenant, trace_id)


# ---- live quality and targets --------------------------------------------------------------


def live_quality(settings: Settings, tenant: str, days: int = 30) -> dict[str, Any]:
    from core.live import live_quality as live

    return live(settings, tenant, days)


def quality_targets(settings: Settings, tenant: str) -> dict[str, Any]:
    from core import targets

    return targets.load(settings, tenant)


def save_quality_targets(settings: Settings, tenant: str, values: dict[str, Any]) -> dict[str, Any]:
    from core import targets

    return targets.save(settings, tenant, values)


# ---- API keys ------------------------------------------------------------------------------


def api_keys(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    from core import keys

    return keys.list_keys(settings, tenant)


def create_api_key(settings: Settings, tenant: str, label: str) -> str:
    from core import keys

    return keys.create_key(settings, tenant, label)[1]


def revoke_api_key(settings: Settings, tenant: str, key_id: str) -> bool:
    from core import keys

    return keys.revoke_key(settings, tenant, key_id)


# ---- traces --------------------------------------------------------------------------------


def list_traces(settings: Settings, tenant: str, **filters: Any) -> list[dict[str, Any]]:
    """The tenant's asks, newest first. `search` matches the question literally ("%" and "_"
    are plain characters), ignoring case in any script."""
    return store.list_traces(settings, tenant, **filters)


def get_trace(settings: Settings, tenant: str, trace_id: str) -> dict[str, Any] | None:
    """One of the tenant's traces; None for an unknown id or another tenant's."""
    if not trace_id:
        return None
    return store.get_trace(settings, tenant, trace_id)


# ---- documents -----------------------------------------------------------------------------


def create_tenant(settings: Settings, tenant: str, owner: str | None = None) -> str:
    """Create a tenant (surrounding spaces dropped) and return its id; an id that already
    exists is returned as is (the sidebar then says "already exists; switched to it").
    TenantError (a ValueError) with one sentence for an id the tenancy rules refuse, one
    that differs from an existing id only in case, or one reserved for the eval harness.

    `owner` is the signed-in user creating it: they become its admin (else the tenant they
    just made is one their picker never offers), and an existing tenant they have no role in
    is refused, never handed to them; so is a case twin of one (the sentence names no
    tenant the user has no role in)."""
    from core import users
    from core.documents import ensure_tenant
    from core.tenants import (
        EVAL_TENANT_PREFIX,
        TenantBeingDeleted,
        TenantError,
        is_eval_tenant,
        validate_new_tenant,
    )

    tenant = (tenant or "").strip()
    existing = [t["id"] for t in store.list_tenants(settings)]
    if owner is None:  # single-user mode: every tenant is the user's, a case twin may be named
        validate_new_tenant(tenant, existing)
    else:
        # a case twin is named only among the user's own tenants: "differs from the existing
        # tenant 'rivals'" told an admin of another tenant that it exists
        mine = users.roles_of(settings, owner)
        validate_new_tenant(tenant, [t for t in existing if t in mine])
        # said as a reserved id is, so the form tells no one which tenants exist
        unusable = TenantError(f"The tenant id '{tenant}' cannot be used; choose another id.")
        if tenant in existing and tenant not in mine:
            raise unusable
        try:
            validate_new_tenant(tenant, existing)  # the id's rules passed above: only a twin is left
        except TenantError:
            raise unusable from None
    if tenant in existing:
        return tenant
    if is_eval_tenant(tenant):
        raise TenantError(f"Tenant ids starting with '{EVAL_TENANT_PREFIX}' are reserved for the eval harness; "
                          "choose another id.")
    try:
        ensure_tenant(settings, tenant)
    except TenantBeingDeleted:
        if owner is not None:  # said as a taken id is: the sentence names no one's tenant
            raise TenantError(f"The tenant id '{tenant}' cannot be used; choose another id.") from None
        raise  # single-user mode: the sentence says how to finish the deletion
    if owner is not None:
        users.add_user(settings, owner, None, tenant, "admin")
    return tenant


def any_tenant(settings: Settings) -> bool:
    return bool(store.list_tenants(settings))


def tenant_footprint(settings: Settings, tenant: str) -> Any:
    """What deleting the tenant would remove (core.tenant_deletion.Footprint)."""
    from core.tenant_deletion import footprint

    return footprint(settings, tenant)


def delete_tenant(settings: Settings, tenant: str, admin: str | None) -> Any:
    """Delete the tenant and everything it holds; `admin` (the signed-in user, None in
    single-user mode) must be its admin. LookupError, PermissionError or TenantBusy with one
    sentence when it cannot be deleted now."""
    from core.tenant_deletion import delete_tenant as delete

    return delete(settings, tenant, admin=admin)


def list_documents(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    from core.documents import list_documents as docs

    return docs(settings, tenant)


def out_of_force(settings: Settings, tenant: str, doc_ids: set[str]) -> dict[str, str]:
    """doc_id -> why the document is out of force ("it says so: “Status: SUPERSEDED ...”")."""
    from core.withdrawn import out_of_force as found

    return found(settings, tenant, doc_ids)


def chunk_rows(settings: Settings, tenant: str, doc_id: str) -> list[dict[str, Any]]:
    return store.chunk_rows(settings, tenant, doc_id)


def ingest_upload(settings: Settings, tenant: str, file_name: str, data: bytes, uploaded_by: str,
                  progress: Callable[[str, float], None] | None = None) -> Any:
    """Index uploaded bytes under their original name; returns core's IngestResult."""
    from core.answer.prepare import prepare_in_background
    from core.documents import ingest_bytes

    result = ingest_bytes(settings, tenant, file_name, data, uploaded_by=uploaded_by or "console", progress=progress)
    if result.status == "ready" and result.doc_id:  # its answer vectors, after the page has moved on
        prepare_in_background(settings, tenant, [result.doc_id])
    return result


def record_interrupted_uploads(settings: Settings, tenant: str, file_names: list[str]) -> None:
    """Note, beyond this session, that these files' upload stopped before they were indexed."""
    store.record_interrupted_uploads(settings, tenant, file_names)


def interrupted_uploads(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """The tenant's interrupted uploads not uploaded again since (file_name, interrupted_at)."""
    return store.list_interrupted_uploads(settings, tenant)


def clear_interrupted_uploads(settings: Settings, tenant: str, file_names: list[str]) -> None:
    store.clear_interrupted_uploads(settings, tenant, file_names)


def exclude_chunk(settings: Settings, tenant: str, chunk_id: str, excluded: bool) -> None:
    from core.documents import exclude_chunk as exclude

    exclude(settings, tenant, chunk_id, excluded)


def delete_documents(settings: Settings, tenant: str, doc_ids: list[str]) -> int:
    from core.documents import delete_documents as delete

    return delete(settings, tenant, doc_ids)


def reindex_document(settings: Settings, tenant: str, doc_id: str,
                     progress: Callable[[str, float], None] | None = None) -> Any:
    from core.answer.prepare import prepare_in_background
    from core.documents import reindex_document as reindex

    result = reindex(settings, tenant, doc_id, progress=progress)
    if result.status == "ready":  # sentences the new chunks read differently are embedded
        prepare_in_background(settings, tenant, [doc_id])
    return result


def preparation_state(settings: Settings, tenant: str) -> Any:
    """This process's background preparation of the tenant's answer vectors, or None."""
    from core.answer.prepare import background_state

    return background_state(settings, tenant)


def exclusions_note(result: dict[str, Any]) -> str | None:
    """The sentence on the exclusions an ingest or re-index result carried over, or None."""
    from core.documents import exclusions_note as note

    return note(result.get("exclusions_kept") or 0, list(result.get("exclusions_dropped") or []))


# ---- settings ------------------------------------------------------------------------------


def save_tenant_settings(settings: Settings, tenant: str, values: dict[str, Any], *,
                         replace_all: bool = False) -> dict[str, Any]:
    """Validate and store the tenant's overrides (core's checks: ranges, and top-k not above the
    candidates); `replace_all=True` with `{}` removes them all (back to the defaults)."""
    from core.config import save_tenant_overrides

    return save_tenant_overrides(settings, tenant, values, replace_all=replace_all)


def parse_synonyms(text: str) -> dict[str, str]:
    """The Settings page's synonym lines (core.config.parse_synonym_lines)."""
    from core.config import parse_synonym_lines

    return parse_synonym_lines(text)


def synonym_lines(synonyms: dict[str, str]) -> str:
    return "\n".join(f"{phrase} = {words}" for phrase, words in sorted(synonyms.items()))


def add_synonym(settings: Settings, tenant: str, word: str, doc_words: str) -> dict[str, str]:
    """The tenant's synonyms with one more (or one changed), validated by core and saved;
    ValueError with one sentence, nothing saved."""
    if not doc_words.strip():
        raise ValueError(f"Type the documents' words for “{word}” (what they say instead); nothing was saved.")
    merged = {**tenant_overrides(settings, tenant).get("synonyms", {}), word: doc_words.strip()}
    save_tenant_settings(settings, tenant, {"synonyms": merged})  # core validates every entry
    return merged


def unused_synonyms(settings: Settings, tenant: str, synonyms: dict[str, str]) -> list[str]:
    """Synonyms whose documents' words the tenant's documents never use (core.expand.unused_targets)."""
    from core import index
    from core.expand import unused_targets

    return unused_targets(synonyms, index.lexical_index(settings, tenant))


def words_to_teach(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    """Words the tenant's users asked about that its documents never use, not yet taught
    (core.trace.unknown_words), as table rows."""
    from core.trace import unknown_words
    from ui.format import fmt_time

    return [{"word": e["word"], "times asked": e["asked"], "last question": e["last_question"],
             "last asked": fmt_time(e["last_asked"])} for e in unknown_words(settings, tenant)]


def tenant_overrides(settings: Settings, tenant: str) -> dict[str, Any]:
    from core.config import load_tenant_overrides

    return load_tenant_overrides(settings, tenant)


# ---- evals ---------------------------------------------------------------------------------


def eval_sets(settings: Settings, tenant: str) -> list[Path]:
    """Bundled sets (evals/sets) and the tenant's own feedback set built in the console."""
    from core.eval_jobs import eval_sets as sets

    return sets(settings, tenant)


def set_name(path: Path) -> str:
    return Path(path).stem


def is_bundled(path: Path) -> bool:
    """A set shipped with Groundwork (evals/sets): it asks its own example documents, not the
    tenant's."""
    from core.eval_jobs import BUNDLED_SETS

    return Path(path).parent == BUNDLED_SETS


def set_splits(path: Path) -> list[str]:
    """The splits named in a set's rows (e.g. calib, test); empty when it has none."""
    splits: set[str] = set()
    try:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                split = json.loads(line).get("split")
                if split:
                    splits.add(str(split))
    except (OSError, json.JSONDecodeError):
        return []
    return sorted(splits)


def evals_available() -> str | None:
    """None when the eval harness imports; else the reason in one sentence."""
    try:
        import evals.run  # noqa: F401
    except ImportError as exc:
        return f"The eval harness is not available ({exc})."
    return None


def has_corpus_manifest(set_path: Path) -> bool:
    """Whether the set ships a NAME.corpus.json (needed to ingest its corpus before a run)."""
    from evals.run import manifest_path

    return manifest_path(set_path).is_file()


def eval_plan(set_path: Path, *, owner: str, split: str = "all", tenant: str | None = None,
              ingest: bool = False) -> dict[str, str]:
    """{set's tenant: tenant asked} for a run stored for `owner` (`evals.run.plan_tenants`):
    with `ingest`, fresh eval tenants `eval-<set>-<tenant>`. Raises ValueError with one
    sentence for a bad set or split, or when the run would read a tenant other than `owner`."""
    from evals.run import load_set, plan_tenants, select_rows

    rows = select_rows(load_set(set_path), split=split or "all", tenant=tenant)
    tenant_map, _ = plan_tenants(set_name(set_path), rows, tenant=tenant, ingest=ingest, owner=owner)
    return tenant_map


def run_eval(settings: Settings, set_path: Path, *, owner: str, split: str = "all", tenant: str | None = None,
             ingest: bool = False, progress: Callable[[int, int], None] | None = None,
             ingest_progress: Callable[[int, int, str], None] | None = None) -> dict[str, Any]:
    """Run an eval set through `evals.run.run_set` (which stores the run for `owner`, the
    tenant picked in the sidebar); returns the report. With `ingest` the set's corpus goes
    into fresh eval tenants, never into a user's tenant.

    Runs in this process until done; the Quality page runs it as a background job instead
    (`start_eval_job`). progress(done, total) follows the questions; with `ingest`,
    ingest_progress(n, total, file name) is called as file n of the corpus starts indexing
    (`evals.run.file_announcer`, from the runner's `log` hook).

    Raises ValueError (EvalSetError) with one sentence for a bad set, split or manifest.
    """
    from evals.run import file_announcer, ingest_file_names, run_set

    log = None
    if ingest and ingest_progress is not None:
        log = file_announcer(ingest_file_names(set_path, split=split or "all", tenant=tenant, owner=owner),
                             ingest_progress)
    return run_set(settings, Path(set_path), split=split or "all", tenant=tenant, ingest=ingest,
                   progress=progress, owner=owner, log=log)


def start_eval_job(settings: Settings, set_path: Path, *, owner: str, split: str = "all", tenant: str | None = None,
                   ingest: bool = False) -> dict[str, Any]:
    """Start `run_eval`'s run as a background job (`core.eval_jobs.start`: `python -m evals.run`
    in its own process, progress in a file under GROUNDWORK_DATA/eval_jobs); returns the job's
    record. ValueError with one sentence when the tenant already has a running job."""
    from core import eval_jobs as jobs

    return jobs.start(settings, set_path, owner=owner, split=split or "all", tenant=tenant, ingest=ingest)


def eval_job(settings: Settings, tenant: str, job_id: str) -> dict[str, Any] | None:
    """One of the tenant's eval jobs (a job whose process died reads as failed)."""
    from core import eval_jobs as jobs

    return jobs.get(settings, tenant, job_id)


def latest_eval_job(settings: Settings, tenant: str) -> dict[str, Any] | None:
    """The tenant's newest eval job, running or ended; None when it never started one."""
    from core import eval_jobs as jobs

    return jobs.latest(settings, tenant)


def eval_job_progress(job: dict[str, Any]) -> tuple[float, str]:
    """A running job's bar: (fraction of its phase, "12 of 40 questions · about 3 min left")."""
    from core import eval_jobs as jobs

    return jobs.fraction(job), jobs.describe(job)


def cancel_eval_job(settings: Settings, tenant: str, job_id: str) -> None:
    from core import eval_jobs as jobs

    jobs.cancel(settings, tenant, job_id)


def dismiss_eval_job(settings: Settings, tenant: str, job_id: str) -> None:
    from core import eval_jobs as jobs

    jobs.dismiss(settings, tenant, job_id)


def calibration_points(report: dict[str, Any], step: float = 0.02) -> list[dict[str, Any]]:
    """The gate's trade-off curve: the stored one for calibration runs, else simulated from
    this run's answers with `evals.calibrate` (exact above the run's own threshold; below it,
    questions the gate refused stay refused, so that part of the curve is flat)."""
    stored = (report.get("calibration") or {}).get("curve")
    if stored:
        return stored
    from evals.calibrate import calibration_curve

    rows = [(q, q) for q in report.get("questions") or []]  # each holds the set row and the answer
    if not rows:
        return []
    steps = int(round(1 / step))
    return calibration_curve(rows, [round(i * step, 4) for i in range(steps + 1)])


def compare_runs(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Metric deltas and flipped questions between two reports (`evals.compare`)."""
    from evals.compare import compare_reports

    return compare_reports(a, b)


def change_significance(settings: Settings, tenant: str, run_before: str, report: dict[str, Any]) -> dict[str, Any] | None:
    """Whether `report` differs from the stored run `run_before` beyond chance (the sign
    test of `evals.compare`), None when that run is gone."""
    before = get_eval_run(settings, tenant, run_before)
    return compare_runs(before, report).get("significance") if before else None


def list_eval_runs(settings: Settings, tenant: str, name: str | None = None) -> list[dict[str, Any]]:
    """The tenant's stored runs (of set `name`), oldest first."""
    return store.list_eval_runs(settings, name, tenant=tenant)


def get_eval_run(settings: Settings, tenant: str, run_id: str) -> dict[str, Any] | None:
    """A run's full report, if it belongs to the tenant."""
    return store.get_eval_run(settings, run_id, tenant=tenant)


def settings_rows(defaults: Settings, overrides: dict[str, Any]) -> list[dict[str, Any]]:
    """Each tenant knob: the default from the environment, the override, the value in effect."""
    from core.config import TENANT_KNOBS

    def shown(knob: str, value: Any) -> str:
        if knob == "synonyms":  # the list itself stands in the Synonyms form
            count = len(value)
            return count_of(count, "synonym") if count else "none"
        return str(value)

    rows = []
    for knob in TENANT_KNOBS:
        default = getattr(defaults, knob)
        rows.append({"setting": knob, "default": shown(knob, default),
                     "tenant override": shown(knob, overrides[knob]) if knob in overrides else "",
                     "in effect": shown(knob, overrides.get(knob, default))})
    rows.append({"setting": "llm_model", "default": str(defaults.llm_model or ""), "tenant override": "",
                 "in effect": str(defaults.llm_model or "")})
    rows.append({"setting": "data_dir", "default": str(defaults.data_dir), "tenant override": "",
                 "in effect": str(defaults.data_dir)})
    return rows
