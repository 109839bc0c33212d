"""The Settings page's API keys: create (shown once), list, revoke (core/keys.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.config import Settings
from ui import services
from ui.format import fmt_time
from ui.safe import clean, escape_md

_NEW_KEY = "api_key_created"


def section(settings: Settings, tenant: str) -> None:
    created = st.session_state.pop(_NEW_KEY, None)
    if created:
        st.success("Key created. Copy it now: it is shown only once and stored only as a hash.",
                   icon=":material/key:")
        st.code(created, language=None)
    rows = services.api_keys(settings, tenant)
    if rows:
        st.dataframe(pd.DataFrame([{
            "key id": r["key_id"], "label": clean(r["label"] or ""), "state": "revoked" if r["revoked_at"] else "live",
            "created": fmt_time(r["created_at"]), "last used": fmt_time(r["last_used_at"]) or "never",
        } for r in rows]), hide_index=True, width="stretch")
    else:
        st.caption("No API keys yet. A key lets an integration call the HTTP API "
                   "(started with python -m core.api) for this tenant only.")
    with st.form("api_key_create", border=False, clear_on_submit=True):
        label = st.text_input("Label (who or what uses the key)", max_chars=80)
        if st.form_submit_button("Create key", icon=":material/add:"):
            st.session_state[_NEW_KEY] = services.create_api_key(settings, tenant, label)
            st.rerun()
    live = [r["key_id"] for r in rows if not r["revoked_at"]]
    if live:
        pick = st.selectbox("Revoke a key", live, key="api_key_revoke_pick")
        if st.button("Revoke", icon=":material/key_off:", key="api_key_revoke"):
            services.revoke_api_key(settings, tenant, pick)
            st.toast(f"Revoked {escape_md(pick, inline=True)}: requests with it now get 401.")
            st.rerun()
