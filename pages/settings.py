"""Settings (admins): the tenant's thresholds, k, strict mode and provider, validated by core."""

import streamlit as st

from ui import services
from ui.safe import escape_md
from ui.state import base_settings, ensure_navigation, require_tenant

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings, tenant = require_tenant()
defaults = base_settings()

st.title("Settings")
st.caption(f"Per-tenant settings for **{escape_md(tenant, inline=True)}**. They apply to the next ask; "
           "chunk size applies to documents indexed (or re-indexed) after the change.")

with st.form("tenant_settings"):
    left, right = st.columns(2)
    gate = left.number_input(
        "Gate threshold (confidence below it: refuse)", min_value=0.0, max_value=1.0, step=0.01,
        value=float(settings.gate_threshold), format="%.2f",
        help="Higher refuses more. The Quality page shows the trade-off; `evals.calibrate` recommends one.")
    top_k = left.number_input("Passages given to the answer (top-k)", min_value=1, max_value=20,
                              value=int(settings.top_k), step=1)
    candidates = left.number_input("Candidates retrieved before fusion", min_value=5, max_value=100,
                                   value=int(settings.candidates), step=1)
    provider = right.selectbox("Answer provider", ["extractive", "llm"],
                               index=0 if settings.provider != "llm" else 1,
                               help="extractive: verbatim sentences, offline. llm: the configured endpoint.")
    judge = right.number_input(
        "Model judge threshold (llm provider)", min_value=0.0, max_value=1.0, step=0.05,
        value=float(settings.judge_threshold), format="%.2f",
        help="The model judge's P(supported) a claim of an LLM answer needs; below it the claim is unsupported.")
    strict = right.toggle("Strict mode (quotes only when a claim fails)", value=bool(settings.strict_mode))
    chunk_tokens = right.number_input("Chunk size in tokens (new ingests)", min_value=60, max_value=500,
                                      value=int(settings.chunk_tokens), step=10)
    saved = st.form_submit_button("Save settings", type="primary")

if saved:
    values = {"gate_threshold": gate, "top_k": top_k, "candidates": candidates, "provider": provider,
              "strict_mode": strict, "chunk_tokens": chunk_tokens, "judge_threshold": judge}
    try:
        services.save_tenant_settings(defaults, tenant, values)
    except ValueError as exc:
        st.error(escape_md(str(exc), inline=True), icon=":material/error:")
    else:
        st.success("Saved. The next ask uses these settings.", icon=":material/check_circle:")
        if provider == "llm" and not defaults.llm_configured:
            st.warning("No LLM endpoint is configured (GROUNDWORK\\_LLM\\_BASE\\_URL, GROUNDWORK\\_LLM\\_MODEL): "
                       "answers will use the extractive fallback.")

st.subheader("In effect")
st.dataframe(services.settings_rows(defaults, services.tenant_overrides(defaults, tenant)),
             hide_index=True, width="stretch")
st.caption("Environment-level settings (GROUNDWORK_* variables) are read at start-up; the API key is never shown.")
