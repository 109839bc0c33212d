"""Uploading many files at once: per-file progress, then a per-file result or error.

Files are indexed one after another (the embedder is the bottleneck and core takes a
per-tenant lock anyway). Results are kept in the session so they survive the rerun that
clears the uploader. Files cut off by leaving the page are also noted in the registry
(`store.record_interrupted_uploads`), so a later session, after a reload, still says so until
the file is uploaded again or the note dismissed.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import streamlit as st

from core.config import Settings
from core.schema import SUPPORTED_FORMATS
from ui import auth, services
from ui.format import count_of, fmt_time, is_deck, plural
from ui.safe import clean, clip, escape_md

STAGES = {"parse": "parsing", "chunk": "chunking", "embed": "embedding", "index": "indexing", "done": "done"}
STATUS_ICON = {"ready": "indexed", "unchanged": "unchanged", "failed": "failed", "skipped": "skipped (same name)",
               "interrupted": "interrupted"}


def _results_key(tenant: str) -> str:
    return f"upload_results::{tenant}"


def forget_results(tenant: str, doc_ids: list[str]) -> None:
    """Drop the last upload's lines for documents deleted since: "indexed" no longer holds."""
    rows = [r for r in st.session_state.get(_results_key(tenant)) or [] if r.get("doc_id") not in set(doc_ids)]
    if rows:
        st.session_state[_results_key(tenant)] = rows
    else:
        st.session_state.pop(_results_key(tenant), None)


def uploader_key(tenant: str) -> str:
    """The uploader's key; bumped after indexing so the same files are not indexed twice."""
    n = st.session_state.get(f"uploader_n::{tenant}", 0)
    return f"uploader::{tenant}::{n}"


def _reset_uploader(tenant: str) -> None:
    st.session_state[f"uploader_n::{tenant}"] = st.session_state.get(f"uploader_n::{tenant}", 0) + 1


def _just_uploaded_key(tenant: str) -> str:
    return f"just_uploaded::{tenant}"


def last_document(results: list[dict[str, Any]]) -> str | None:
    """The id of the batch's last file that is a document now (indexed, unchanged or failed;
    a skipped or interrupted one is none), or None."""
    return next((r["doc_id"] for r in reversed(results) if r.get("doc_id")), None)


def take_just_uploaded(tenant: str) -> str | None:
    """The document the upload that just ended asks to open (its last file), once: the
    Documents page's picker stayed on the document opened before the upload (QA pass)."""
    return st.session_state.pop(_just_uploaded_key(tenant), None)


def _indexing_key(tenant: str) -> str:
    return f"indexing::{tenant}"


def _ask_to_index(tenant: str) -> None:
    """The index button's callback: runs before the script, so the run that indexes draws the
    button and the uploader disabled before its long loop starts (QA pass: both stayed live)."""
    st.session_state[_indexing_key(tenant)] = uploader_key(tenant)


def _indexing_this_run(tenant: str) -> bool:
    """Whether this run is the one the click started, with the files still picked. The flag is
    taken as it is read, before the loop: a failure, a stop or leaving the page mid-run can
    never leave it behind, and a flag from a run cut off before this panel (the files of that
    uploader gone since, or the uploader reset) draws nothing disabled."""
    asked = st.session_state.pop(_indexing_key(tenant), None)
    return asked == uploader_key(tenant) and bool(st.session_state.get(asked))


def duplicate_names(files: list[Any]) -> dict[str, int]:
    """File names that appear more than once in one upload, with how often."""
    counts: dict[str, int] = {}
    for upload in files:
        counts[upload.name] = counts.get(upload.name, 0) + 1
    return {name: n for name, n in counts.items() if n > 1}


def _times(n: int) -> str:
    return "twice" if n == 2 else f"{n} times"


def _skipped(name: str, count: int) -> dict[str, Any]:
    return {"file_name": name, "status": "skipped", "chunks": 0, "pages": None, "seconds": 0.0,
            "error": f"{name} appears {_times(count)} in this upload; only the first was indexed — "
                     "rename one and upload it again."}


def _interrupted(name: str, started: bool) -> dict[str, Any]:
    why = ("indexing stopped because the page was left or reloaded; nothing of it was kept" if started
           else "the upload stopped before this file")
    return {"file_name": name, "status": "interrupted", "chunks": 0, "pages": None, "seconds": 0.0,
            "error": f"Not indexed: {why} — upload it again."}


def current_text(done: int, total: int, name: str, stage: str) -> str:
    """The whole upload's bar while a file is indexed: "3 of 20 files · now leave.md: embedding"
    (Markdown; the name escaped)."""
    return (f"{done:,} of {total:,} files · now **{escape_md(clip(clean(name), 80), inline=True)}**: "
            f"{STAGES.get(stage, 'working')}")


UPLOADED_BY = "uploaded_by_name"  # the name last typed in "Uploaded by", for this session


def index_files(settings: Settings, tenant: str, files: list[Any], uploaded_by: str) -> list[dict[str, Any]]:
    """Index each uploaded file with its own progress bar; returns the results as dicts.

    A second file of the same name in the batch is skipped (it would silently replace the
    first). Leaving the page stops this script mid-file (Streamlit raises its stop/rerun
    exception inside the next progress update); core undoes the half-indexed file, and the
    results so far plus an "interrupted" row for every file not indexed are kept in the
    session, so the Documents page says so when the user comes back, and noted in the
    registry, so it still says so after a reload. A file that gets a result here (indexed,
    unchanged or failed) was uploaded again: its earlier note goes."""
    results: list[dict[str, Any]] = []
    dupes = duplicate_names(files)
    seen: set[str] = set()
    overall = st.progress(0.0, text=f"0 of {len(files)} files")
    n = 0
    try:
        for n, upload in enumerate(files, start=1):
            if upload.name in seen:
                results.append(_skipped(upload.name, dupes[upload.name]))
                _result_line(st, results[-1])
                overall.progress(n / len(files), text=f"{n} of {len(files)} files")
                continue
            seen.add(upload.name)
            box = st.container(border=True)
            box.markdown(f"**{escape_md(upload.name, inline=True)}** · {upload.size / 1024:,.0f} KB")
            bar = box.progress(0.0, text="waiting")

            def report(stage: str, fraction: float, bar: Any = bar, name: str = upload.name, done: int = n - 1) -> None:
                bar.progress(min(max(float(fraction), 0.0), 1.0), text=STAGES.get(stage, "working"))
                # the file's own box is soon below the fold (boxes of the files done pile up
                # above it): the bar at the top names the file and its stage too (QA pass)
                overall.progress(done / len(files), text=current_text(done, len(files), name, stage))

            try:
                result = services.ingest_upload(settings, tenant, upload.name, upload.getvalue(),
                                                uploaded_by, progress=report).to_dict()
            except Exception as exc:  # noqa: BLE001 - core never raises for bad files; keep going anyway
                result = {"file_name": upload.name, "status": "failed", "chunks": 0, "pages": None,
                          "error": f"Unexpected error ({type(exc).__name__}): {exc}", "seconds": 0.0}
            results.append(result)
            services.clear_interrupted_uploads(settings, tenant, [upload.name])
            bar.progress(1.0, text=STATUS_ICON.get(result["status"], result["status"]))
            _result_line(box, result)
            overall.progress(n / len(files), text=f"{n} of {len(files)} files")
    except BaseException:  # Streamlit's StopException/RerunException: the user left or reran the page
        live = _live_result(settings, tenant, files[len(results)]) if len(results) < len(files) else None
        rows = results + interrupted_rows(files, len(results), dupes, live)
        st.session_state[_results_key(tenant)] = rows
        _note_interrupted(settings, tenant, rows)
        raise
    return results


def _live_result(settings: Settings, tenant: str, upload: Any) -> dict[str, Any] | None:
    """The file cut off, as a result, if core had already committed it (the stop came in the
    last progress update); else None."""
    try:
        sha = hashlib.sha256(upload.getvalue()).hexdigest()
        doc = next((d for d in services.list_documents(settings, tenant)
                    if d["file_name"] == upload.name and d["sha256"] == sha and d["status"] == "ready"), None)
    except Exception:  # noqa: BLE001 - recording the interruption must not fail; assume nothing was kept
        return None
    if doc is None:
        return None
    return {"file_name": upload.name, "status": "ready", "doc_id": doc["doc_id"], "pages": doc.get("pages"),
            "chunks": doc.get("chunks") or 0, "seconds": 0.0, "error": None}


def _note_interrupted(settings: Settings, tenant: str, rows: list[dict[str, Any]]) -> None:
    """The interrupted rows, noted in the registry for later sessions (best effort: the user
    is leaving, and this session's note is already kept)."""
    names = [r["file_name"] for r in rows if r["status"] == "interrupted"]
    if not names:
        return
    try:
        services.record_interrupted_uploads(settings, tenant, names)
    except Exception:  # noqa: BLE001 - recording the interruption must not fail the stop
        pass


def interrupted_note(names: list[str], at: float | None) -> str:
    """One sentence for the files of one interrupted upload (Markdown, names escaped)."""
    shown = [f"**{escape_md(n, inline=True)}**" for n in names[:5]]
    if len(names) > 5:
        shown.append(count_of(len(names) - 5, "more file"))
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    when = f" at {fmt_time(at)}" if at else ""
    it = plural(len(names), "it", "them")
    return f"The upload of {listed} was interrupted{when}; nothing of {it} was kept — upload {it} again."


def interrupted_notice(settings: Settings, tenant: str) -> None:
    """Uploads cut off in an earlier session (the page was left or reloaded), one sentence per
    interrupted upload, until the file is uploaded again or the note dismissed. Files this
    session's "Last upload" already lists as interrupted are not said twice."""
    said = {r["file_name"] for r in st.session_state.get(_results_key(tenant)) or [] if r["status"] == "interrupted"}
    notes = [u for u in services.interrupted_uploads(settings, tenant) if u["file_name"] not in said]
    if not notes:
        return
    batches: dict[float, list[str]] = {}
    for u in notes:  # the files of one upload share its time
        batches.setdefault(u["interrupted_at"], []).append(u["file_name"])
    for at, names in batches.items():
        st.warning(interrupted_note(names, at), icon=":material/warning:")
    if st.button(plural(len(batches), "Dismiss this note", "Dismiss these notes"), key="dismiss_interrupted",
                 help="Forget the note; the files stay not indexed until they are uploaded again."):
        services.clear_interrupted_uploads(settings, tenant, [u["file_name"] for u in notes])
        st.rerun()


def interrupted_rows(files: list[Any], done: int, dupes: dict[str, int],
                     live: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """Result rows for the files of a batch not finished when it stopped: `done` files have a
    result; the next one was being indexed (`live` if core had committed it already); the
    rest had not started (or were duplicates of a name before them)."""
    seen = {u.name for u in files[:done]}
    rows = []
    for i, upload in enumerate(files[done:]):
        if upload.name in seen:
            rows.append(_skipped(upload.name, dupes.get(upload.name, 2)))
            continue
        seen.add(upload.name)
        rows.append(live if i == 0 and live else _interrupted(upload.name, started=i == 0))
    return rows


def _result_line(where: Any, r: dict[str, Any]) -> None:
    name = escape_md(r.get("file_name", ""), inline=True)
    if r["status"] == "ready":
        unit = "slide" if is_deck(r.get("file_name")) else "page"
        pages = f"{count_of(r['pages'], unit)}, " if r.get("pages") else ""
        if r.get("pages") and r.get("pages_left_out"):  # the warnings below say which and why
            pages = f"{r['pages'] - r['pages_left_out']} of {count_of(r['pages'], unit)}, "
        replaced = " (replaced the previous version)" if r.get("replaced") else ""
        where.success(f"**{name}**: indexed {pages}{count_of(r.get('chunks', 0), 'chunk')} in "
                      f"{r.get('seconds', 0):.1f} s{replaced}.", icon=":material/check_circle:")
        carried = services.exclusions_note(r)
        if carried:  # a new version: the passages kept out of answers, found again by their text or not
            (where.warning if r.get("exclusions_dropped") else where.info)(
                f"**{name}**: " + escape_md(carried, inline=True), icon=":material/visibility_off:")
        warnings = r.get("warnings") or []
        if warnings:  # indexed, but not all of it: a damaged PDF, a skipped page
            more = f" (and {len(warnings) - 3} more notes)" if len(warnings) > 3 else ""
            where.warning(f"**{name}**: " + escape_md(" ".join(warnings[:3]) + more, inline=True),
                          icon=":material/warning:")
    elif r["status"] == "unchanged":
        same_as = r.get("same_as")
        if r.get("warnings"):  # its kept original had gone missing: this upload restored it
            where.info(f"**{name}**: " + escape_md(" ".join(r["warnings"]), inline=True),
                       icon=":material/restore_page:")
        elif same_as and same_as != r.get("file_name"):
            where.info(f"**{name}**: same content as '{escape_md(same_as, inline=True)}', already indexed; "
                       "nothing to do.", icon=":material/radio_button_checked:")
        else:
            where.info(f"**{name}**: already indexed with the same content; nothing to do.",
                       icon=":material/radio_button_checked:")
    elif r["status"] in ("skipped", "interrupted"):
        where.warning(_named(r, "not indexed."), icon=":material/warning:")
    else:  # failed
        where.error(_named(r, "failed."), icon=":material/error:")


def _named(r: dict[str, Any], fallback: str) -> str:
    """The file's name in bold, then its sentence; a sentence that opens with the name has it
    bolded there, not said twice ("huge.txt: huge.txt is too long to index")."""
    raw, text = r.get("file_name", ""), r.get("error") or fallback
    name = escape_md(raw, inline=True)
    if raw and text.startswith(raw):
        text = text[len(raw):]
        # escaping trims the sentence's leading space: put it back after the bold name
        return f"**{name}**{' ' if text[:1].isspace() else ''}" + escape_md(text, inline=True)
    return f"**{name}**: " + escape_md(text, inline=True)


def upload_panel(settings: Settings, tenant: str) -> None:
    """Notes of uploads interrupted earlier, the uploader, the index button, and the last
    batch's results."""
    interrupted_notice(settings, tenant)
    indexing = _indexing_this_run(tenant)  # the button and the uploader stay disabled until the run ends
    files = st.file_uploader(
        # no `type=` filter: the browser would mark another type with a bare red icon, while
        # the ingest says in a sentence what is wrong ("Unsupported file type '.exe'; ...")
        f"Upload documents ({SUPPORTED_FORMATS})", accept_multiple_files=True, key=uploader_key(tenant),
        help=f"Up to {settings.max_file_mb} MB a file. Re-uploading identical bytes is a no-op; "
             "a new version of a file name replaces the old one.", disabled=indexing,
    )
    for name, count in duplicate_names(files or []).items():  # said before indexing, once per name
        st.warning(f"**{escape_md(name, inline=True)}** appears {_times(count)} in this upload; only the first will "
                   "be indexed — rename one and upload it again.", icon=":material/warning:")
    to_index = len({f.name for f in files or []})
    by_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    signed_in = auth.signed_in_name()
    if signed_in is not None:  # who uploaded is the account, not a free field another name can be typed in
        by_col.text_input("Uploaded by", value=signed_in, key="uploaded_by_account", disabled=True,
                          help="Documents you upload are recorded under your account.")
        uploaded_by = signed_in
    else:
        # kept beyond the widget: its state went when the page was left, and "console" was back (QA pass)
        uploaded_by = by_col.text_input("Uploaded by", key="uploaded_by", max_chars=80, disabled=indexing,
                                        value=st.session_state.get(UPLOADED_BY, "console"))
        st.session_state[UPLOADED_BY] = uploaded_by
    # keyed widgets: a new label or `disabled` keeps their id, so the picked files stay picked
    label = "Indexing…" if indexing else f"Index {count_of(to_index, 'file')}" if files else "Index files"
    button_col.button(label, type="primary", disabled=indexing or not files, key="index_files", width="stretch",
                      on_click=_ask_to_index, args=(tenant,))
    if indexing and files:
        results = index_files(settings, tenant, list(files), uploaded_by.strip() or "console")
        st.session_state[_results_key(tenant)] = results
        st.session_state[_just_uploaded_key(tenant)] = last_document(results)
        _reset_uploader(tenant)
        st.rerun()

    results = st.session_state.get(_results_key(tenant))
    if results:
        ok = sum(r["status"] in ("ready", "unchanged") for r in results)
        st.markdown(f"**Last upload:** {ok} of {len(results)} files indexed or unchanged.")
        for r in results:
            _result_line(st, r)
        frame = pd.DataFrame([{
            "file": clean(r.get("file_name")), "result": STATUS_ICON.get(r["status"], r["status"]),
            "pages": r.get("pages"), "chunks": r.get("chunks"), "seconds": round(r.get("seconds") or 0, 2),
            "error": clip(clean(r.get("error") or ""), 300),
        } for r in results])
        with st.expander("Upload results as a table"):
            st.dataframe(frame, hide_index=True, placeholder="—", width="stretch")
        if st.button("Dismiss results", key="dismiss_results"):
            st.session_state.pop(_results_key(tenant), None)
            services.clear_interrupted_uploads(settings, tenant,
                                               [r["file_name"] for r in results if r["status"] == "interrupted"])
            st.rerun()
