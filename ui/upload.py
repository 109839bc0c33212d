"""Uploading many files at once: per-file progress, then a per-file result or error.

Files are indexed one after another (the embedder is the bottleneck and core takes a
per-tenant lock anyway). Results are kept in the session so they survive the rerun that
clears the uploader.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from core.config import Settings
from ui import services
from ui.safe import clean, clip, escape_md

STAGES = {"parse": "parsing", "chunk": "chunking", "embed": "embedding", "index": "indexing", "done": "done"}
STATUS_ICON = {"ready": "indexed", "unchanged": "unchanged", "failed": "failed"}


def _results_key(tenant: str) -> str:
    return f"upload_results::{tenant}"


def uploader_key(tenant: str) -> str:
    """The uploader's key; bumped after indexing so the same files are not indexed twice."""
    n = st.session_state.get(f"uploader_n::{tenant}", 0)
    return f"uploader::{tenant}::{n}"


def _reset_uploader(tenant: str) -> None:
    st.session_state[f"uploader_n::{tenant}"] = st.session_state.get(f"uploader_n::{tenant}", 0) + 1


def index_files(settings: Settings, tenant: str, files: list[Any], uploaded_by: str) -> list[dict[str, Any]]:
    """Index each uploaded file with its own progress bar; returns the results as dicts."""
    results = []
    overall = st.progress(0.0, text=f"0 of {len(files)} files")
    for n, upload in enumerate(files, start=1):
        box = st.container(border=True)
        box.markdown(f"**{escape_md(upload.name, inline=True)}** · {upload.size / 1024:,.0f} KB")
        bar = box.progress(0.0, text="waiting")

        def report(stage: str, fraction: float, bar: Any = bar) -> None:
            bar.progress(min(max(float(fraction), 0.0), 1.0), text=STAGES.get(stage, "working"))

        try:
            result = services.ingest_upload(settings, tenant, upload.name, upload.getvalue(),
                                            uploaded_by, progress=report).to_dict()
        except Exception as exc:  # noqa: BLE001 - core never raises for bad files; keep going anyway
            result = {"file_name": upload.name, "status": "failed", "chunks": 0, "pages": None,
                      "error": f"Unexpected error ({type(exc).__name__}): {exc}", "seconds": 0.0}
        bar.progress(1.0, text=STATUS_ICON.get(result["status"], result["status"]))
        _result_line(box, result)
        results.append(result)
        overall.progress(n / len(files), text=f"{n} of {len(files)} files")
    return results


def _result_line(where: Any, r: dict[str, Any]) -> None:
    name = escape_md(r.get("file_name", ""), inline=True)
    if r["status"] == "ready":
        pages = f"{r['pages']} page{'s' if r['pages'] != 1 else ''}, " if r.get("pages") else ""
        replaced = " (replaced the previous version)" if r.get("replaced") else ""
        where.success(f"**{name}**: indexed {pages}{r.get('chunks', 0)} chunk{'s' if r.get('chunks') != 1 else ''} in "
                      f"{r.get('seconds', 0):.1f} s{replaced}.", icon=":material/check_circle:")
    elif r["status"] == "unchanged":
        where.info(f"**{name}**: already indexed with the same content; nothing to do.",
                   icon=":material/radio_button_checked:")
    else:
        where.error(f"**{name}**: " + escape_md(r.get("error") or "failed.", inline=True),
                    icon=":material/error:")


def upload_panel(settings: Settings, tenant: str) -> None:
    """The uploader, the index button, and the last batch's results."""
    files = st.file_uploader(
        "Upload documents (PDF, DOCX, Markdown, HTML, text)", accept_multiple_files=True,
        type=services.supported_suffixes(), key=uploader_key(tenant),
        help=f"Up to {settings.max_file_mb} MB a file. Re-uploading identical bytes is a no-op; "
             "a new version of a file name replaces the old one.",
    )
    by_col, button_col = st.columns([3, 1], vertical_alignment="bottom")
    uploaded_by = by_col.text_input("Uploaded by", key="uploaded_by", value="console", max_chars=80)
    go = button_col.button(f"Index {len(files)} file{'s' if len(files) != 1 else ''}" if files else "Index files",
                           type="primary", disabled=not files, key="index_files", width="stretch")
    if go and files:
        results = index_files(settings, tenant, list(files), uploaded_by.strip() or "console")
        st.session_state[_results_key(tenant)] = results
        _reset_uploader(tenant)
        st.rerun()

    results = st.session_state.get(_results_key(tenant))
    if results:
        ok = sum(r["status"] != "failed" for r in results)
        st.markdown(f"**Last upload:** {ok} of {len(results)} files indexed or unchanged.")
        for r in results:
            _result_line(st, r)
        frame = pd.DataFrame([{
            "file": clean(r.get("file_name")), "result": STATUS_ICON.get(r["status"], r["status"]),
            "pages": r.get("pages"), "chunks": r.get("chunks"), "seconds": round(r.get("seconds") or 0, 2),
            "error": clip(clean(r.get("error") or ""), 300),
        } for r in results])
        with st.expander("Upload results as a table"):
            st.dataframe(frame, hide_index=True, width="stretch")
        if st.button("Dismiss results", key="dismiss_results"):
            st.session_state.pop(_results_key(tenant), None)
            st.rerun()
