"""The Settings page's API keys: create (shown once), list, revoke (core/keys.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.config import Settings
from ui import services
from ui.format import fmt_time
from ui.safe import clean, escape_md

_NEW_KEY = "api_key_created"
_CONFIRM = "api_key_revoke_confirm"  # the key id a Revoke click asked about
_REVOKED = "api_key_revoked"  # the key id just revoked, said on the next run


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
    revoked = st.session_state.pop(_REVOKED, None)
    if revoked:  # said after the rerun that lists it as revoked (a toast before st.rerun was lost)
        st.success(f"Revoked {escape_md(revoked, inline=True)}: requests with it now get 401.",
                   icon=":material/key_off:")
    live = {r["key_id"]: clean(r["label"] or "") for r in rows if not r["revoked_at"]}
    if live:
        pick = st.selectbox("Revoke a key", list(live), key="api_key_revoke_pick",
                            format_func=lambda k: f"{k} ({live[k]})" if live[k] else k)
        if st.session_state.get(_CONFIRM) != pick:
            if st.button("Revoke", icon=":material/key_off:", key="api_key_revoke"):
                st.session_state[_CONFIRM] = pick  # one click asks; revoking cannot be undone
                st.rerun()
            return
        st.warning(f"Revoke {escape_md(pick, inline=True)}? Every integration using it gets 401 at once, and a "
                   "revoked key cannot be brought back (create a new one instead).", icon=":material/warning:")
        yes, no = st.columns(2)
        if yes.button("Yes, revoke", type="primary", key="api_key_revoke_yes"):
            services.revoke_api_key(settings, tenant, pick)
            st.session_state.pop(_CONFIRM, None)
            st.session_state[_REVOKED] = pick
            st.rerun()
        if no.button("Cancel", key="api_key_revoke_no"):
            st.session_state.pop(_CONFIRM, None)
            st.rerun()
