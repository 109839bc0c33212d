"""Settings (admins): the tenant's thresholds, k, strict mode, provider and synonyms, validated by
core; API keys, quality targets, and deleting the tenant."""

import streamlit as st

from ui import keys as ui_keys
from ui import services
from ui import targets as ui_targets
from ui.deletion import tenant_section
from ui.format import count_of
from ui.safe import escape_md
from ui.state import base_settings, ensure_navigation, require_tenant

ensure_navigation()  # a deep link on a fresh server must still go through app.py
settings, tenant = require_tenant()
defaults = base_settings()
_RESET_FLASH = "settings_reset_flash"
_SYNONYM_FLASH = "settings_synonym_flash"  # (kind, text) shown after the rerun that saved
_SAVED_FLASH = "settings_saved_flash"  # the same for the settings form

st.title("Settings")
st.caption(f"Per-tenant settings for **{escape_md(tenant, inline=True)}**. They apply to the next ask; "
           "chunk size applies to documents indexed (or re-indexed) after the change.")

with st.form("tenant_settings"):
    left, right = st.columns(2)
    # No min/max on the inputs: the browser would only turn an out-of-range field red and
    # submit nothing; core's validation answers every value with one sentence instead.
    gate = left.number_input(
        "Gate threshold (confidence below it: refuse)", step=0.01,
        value=float(settings.gate_threshold), format="%.2f",
        help="Higher refuses more. The Quality page shows the trade-off; `evals.calibrate` recommends one.")
    top_k = left.number_input("Passages given to the answer (top-k)", value=int(settings.top_k), step=1,
                              help="1 to 20, and not more than the candidates.")
    candidates = left.number_input("Candidates retrieved before fusion", value=int(settings.candidates), step=1,
                                   help="5 to 100.")
    provider = right.selectbox("Answer provider", ["extractive", "llm"],
                               index=0 if settings.provider != "llm" else 1,
                               help="extractive: verbatim sentences, offline. llm: the configured endpoint.")
    judge = right.number_input(
        "Model judge threshold (llm provider)", step=0.05,
        value=float(settings.judge_threshold), format="%.2f",
        help="The model judge's P(supported) a claim of an LLM answer needs; below it the claim is unsupported.")
    strict = right.toggle("Strict mode (quotes only when a claim fails)", value=bool(settings.strict_mode),
                          wrap=True)
    chunk_tokens = right.number_input("Chunk size in tokens (new ingests)", value=int(settings.chunk_tokens),
                                      step=10, help="60 to 500.")
    max_chunks = right.number_input(
        "Maximum chunks per document (new ingests)", value=int(settings.max_chunks_per_doc), step=100,
        help="A longer file is refused before it is embedded, which takes about a quarter of a second a chunk.")
    saved = st.form_submit_button("Save settings", type="primary")

if saved:
    form = {"gate_threshold": gate, "top_k": top_k, "candidates": candidates, "provider": provider,
            "strict_mode": strict, "chunk_tokens": chunk_tokens, "judge_threshold": judge,
            "max_chunks_per_doc": max_chunks}
    # only what the admin changed: a field left as it was keeps following the server's default
    # (saving top-k alone pinned all eight, so a new default gate never reached this tenant)
    values = {name: value for name, value in form.items() if value != getattr(settings, name)}
    try:
        services.save_tenant_settings(defaults, tenant, values)
    except ValueError as exc:  # out of range or contradictory: one sentence, nothing saved
        st.error(escape_md(str(exc), inline=True), icon=":material/error:")
    else:
        flash = [("success", "Saved. The next ask uses these settings.")]
        if provider == "llm" and not defaults.llm_configured:
            flash.append(("warning", "No LLM endpoint is configured (GROUNDWORK\\_LLM\\_BASE\\_URL, "
                                     "GROUNDWORK\\_LLM\\_MODEL): answers will use the extractive fallback."))
        st.session_state[_SAVED_FLASH] = flash
        st.rerun()  # the sidebar's provider box was drawn before the save: draw it again


def _show_flash(key: str) -> None:
    """The (kind, text) messages a save left for this run (it reran the page), then none."""
    for kind, text in st.session_state.pop(key, []):
        (st.success if kind == "success" else st.warning)(text, icon=":material/check_circle:" if kind == "success"
                                                          else ":material/warning:")


_show_flash(_SAVED_FLASH)

def _unused_notes(synonyms: dict[str, str]) -> list[str]:
    """One warning for the synonyms whose documents' words the documents never use."""
    unused = services.unused_synonyms(defaults, tenant, synonyms)
    if not unused:
        return []
    shown = ", ".join(f"“{escape_md(p, inline=True)} = {escape_md(synonyms[p], inline=True)}”" for p in unused[:5])
    return [f"The documents never use the words on the right of {shown}{' and more' if len(unused) > 5 else ''}: "
            "such a synonym changes nothing until they do. Check the spelling, or use a word the documents use."]


def _warn_unused(synonyms: dict[str, str]) -> None:
    for text in _unused_notes(synonyms):
        st.warning(text, icon=":material/warning:")


st.subheader("Synonyms")
st.caption("Your users' words for what the documents call otherwise, one a line: “holiday = annual leave”. "
           "A question using the word is searched and checked with the documents' words; a refusal "
           "saying the knowledge base never mentions a word is the cue to add one.")
with st.form("tenant_synonyms"):
    stored = services.tenant_overrides(defaults, tenant).get("synonyms", {})
    lines = st.text_area("Synonyms (your word = the documents' words)", value=services.synonym_lines(stored),
                         height=140, placeholder="holiday = annual leave\nthe portal = Employee Self-Service")
    saved_synonyms = st.form_submit_button("Save synonyms")
if saved_synonyms:
    try:
        parsed = services.parse_synonyms(lines)
        services.save_tenant_settings(defaults, tenant, {"synonyms": parsed})
    except ValueError as exc:  # a malformed line or entry: one sentence, nothing saved
        st.error(escape_md(str(exc), inline=True), icon=":material/error:")
    else:
        st.success(f"Saved {count_of(len(parsed), 'synonym')}. The next ask reads them.",
                   icon=":material/check_circle:")
        _warn_unused(parsed)

_show_flash(_SYNONYM_FLASH)

to_teach = services.words_to_teach(defaults, tenant)
if to_teach:
    st.caption(f"Words {escape_md(tenant, inline=True)}'s users asked about that the documents never use "
               "(from the refused asks' traces, most asked first; taught ones are left out). Pick one below, "
               "or add a line above, for each that the documents call otherwise.")
    st.dataframe(to_teach[:50], hide_index=True, width="stretch")
    with st.form("teach_word", clear_on_submit=True):
        pick, said = st.columns(2)
        word = pick.selectbox("Word your users asked about", [w["word"] for w in to_teach[:50]])
        doc_words = said.text_input("The documents' words for it", placeholder="warranty",
                                    help="What the documents say instead, e.g. “warranty” for “guarantee”.")
        taught = st.form_submit_button("Add synonym", icon=":material/add:")
    if taught:
        try:
            merged = services.add_synonym(defaults, tenant, word, doc_words)
        except ValueError as exc:  # an empty or malformed entry: one sentence, nothing saved
            st.error(escape_md(str(exc), inline=True), icon=":material/error:")
        else:
            flash = [("success", f"Taught “{escape_md(word, inline=True)} = {escape_md(doc_words.strip(), inline=True)}”"
                                 ". The next ask reads it.")]
            flash += [("warning", text) for text in _unused_notes(merged)]
            st.session_state[_SYNONYM_FLASH] = flash
            st.rerun()  # the synonym lines above and the list of words to teach change

st.subheader("API keys")
ui_keys.section(defaults, tenant)

st.subheader("Quality targets")
st.caption("What counts as good on the **Quality** page: each card there turns green on target and red off it.")
ui_targets.form(defaults, tenant)

for text in st.session_state.pop(_RESET_FLASH, []):
    st.success(text, icon=":material/restart_alt:")

overrides = services.tenant_overrides(defaults, tenant)
st.subheader("In effect")
rows = services.settings_rows(defaults, overrides)
# tall enough for every row: a manager reads the whole table without scrolling inside it
st.dataframe(rows, hide_index=True, placeholder="—", width="stretch", height=35 * (len(rows) + 1) + 3)
if st.button("Reset to defaults", icon=":material/restart_alt:", disabled=not overrides,
             help="Remove this tenant's overrides: every setting goes back to the default column above."):
    services.save_tenant_settings(defaults, tenant, {}, replace_all=True)
    removed = ", ".join(escape_md(k, inline=True) for k in sorted(overrides))
    st.session_state[_RESET_FLASH] = [f"Reset to defaults: removed {count_of(len(overrides), 'override')} "
                                      f"of **{escape_md(tenant, inline=True)}** "
                                      f"({removed}); the next ask uses the defaults."]
    st.rerun()  # the form above shows the defaults
if not overrides:
    st.caption(f"**{escape_md(tenant, inline=True)}** uses the defaults: it has no overrides.")
st.caption("Environment-level settings (GROUNDWORK_* variables) are read at start-up; the API key is never shown.")

tenant_section(defaults, tenant)
