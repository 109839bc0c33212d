"""The Quality page's background eval run (`core/eval_jobs.py`): starting it, its progress bar
("12 of 40 questions · about 3 min left") refreshed every few seconds by a fragment while
the rest of the page stays usable, a Cancel button, and its outcome: a finished run selected
on the page, a failed one said in one sentence until dismissed, a cancelled one noted.

Jobs are read per tenant (the sidebar's), so one tenant never sees another's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from core.config import Settings
from ui import services
from ui.format import fmt_time
from ui.safe import escape_md

REFRESH_S = 2.0
RUNNING, DONE, FAILED, CANCELLED = "running", "done", "failed", "cancelled"  # a job's status (core/eval_jobs.py)
WATCHED = "quality_job_watched"  # the job this session started or saw running: its end is announced here
RUN_ERROR = "quality_run_error"  # a start refused (one already running, a bad set): shown beside the button
PICK_RUN, PICK_SET = "quality_pick", "quality_pick_set"  # the finished job's run, selected by the page


def start(settings: Settings, set_path: Path, owner: str, split: str, tenant: str | None, ingest: bool) -> None:
    """"Run eval"'s callback: start the job, or keep the sentence saying why it did not start."""
    try:
        job = services.start_eval_job(settings, set_path, owner=owner, split=split, tenant=tenant, ingest=ingest)
    except (ValueError, OSError) as exc:
        st.session_state[RUN_ERROR] = str(exc)
        return
    st.session_state[WATCHED] = job["job_id"]  # a job whose process could not start reads as failed above


def section(settings: Settings, tenant: str) -> dict[str, Any] | None:
    """Draw the tenant's newest job; returns it while it runs (the page disables "Run eval").

    A finished job this session watched puts its set and run in `PICK_SET`/`PICK_RUN` for the
    page to select."""
    job = services.latest_eval_job(settings, tenant)
    if job is None:
        return None
    job_id, status = job["job_id"], job.get("status")
    if status == RUNNING:
        st.session_state[WATCHED] = job_id
        _progress(settings, tenant, job_id)
        return job
    watched = st.session_state.get(WATCHED) == job_id
    if watched:
        st.session_state.pop(WATCHED)
    if status == DONE and watched:
        st.session_state[PICK_SET], st.session_state[PICK_RUN] = job.get("set"), job.get("run_id")
        took = max(0.0, float(job.get("finished_at") or 0) - float(job.get("started_at") or 0))
        took_text = f"{took:.0f} s" if took < 90 else f"{took / 60:.0f} min"
        viewed = st.session_state.get("quality_set")  # the page's "Eval set" choice, kept as the user left it
        where = "shown below" if viewed in (None, job.get("set")) else "pick its set under Eval set to see it"
        st.success(f"Eval run finished in {took_text}: run {escape_md(job.get('run_id'), inline=True)} of "
                   f"set {escape_md(job.get('set'), inline=True)}, {where}.", icon=":material/task_alt:")
    elif status == FAILED and not job.get("dismissed"):
        box = st.container(border=True)
        box.error(f"Eval run of set {escape_md(job.get('set'), inline=True)} started "
                  f"{fmt_time(job.get('started_at'))} failed: " + escape_md(job.get("error") or "it stopped.", inline=True),
                  icon=":material/error:")
        box.button("Dismiss", key="quality_job_dismiss", icon=":material/close:",
                   on_click=services.dismiss_eval_job, args=(settings, tenant, job_id))
    elif status == CANCELLED and watched:
        st.info("The eval run was cancelled; no run was stored.", icon=":material/cancel:")
    return None


@st.fragment(run_every=REFRESH_S)
def _progress(settings: Settings, tenant: str, job_id: str) -> None:
    """The running job's bar and Cancel button, redrawn on their own every REFRESH_S; once the
    job has ended the whole page reruns, so `section` shows its outcome and the new run."""
    job = services.eval_job(settings, tenant, job_id)
    if job is None or job.get("status") != RUNNING:
        st.rerun()
    box = st.container(border=True)
    box.markdown(f"**Eval run in progress** · set {escape_md(job.get('set'), inline=True)} · split "
                 f"{escape_md(job.get('split'), inline=True)}" + (" · on fresh eval tenants built from its corpus" if job.get("ingest") else "")
                 + f" · started {fmt_time(job.get('started_at'))}")
    fraction, line = services.eval_job_progress(job)
    box.progress(fraction, text=escape_md(line, inline=True))
    box.button("Cancel run", key="quality_job_cancel", icon=":material/stop_circle:",
               help="Stops the run at once; nothing of it is stored.",
               on_click=services.cancel_eval_job, args=(settings, tenant, job_id))
    box.caption("The page stays usable meanwhile; when the run ends it is selected below.")
