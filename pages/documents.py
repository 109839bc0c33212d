"""Documents (admins): upload, the documents table, the chunks each became, delete, re-index."""

import hashlib

import streamlit as st

from ui import auth, components, services
from ui.deletion import confirm_deletion
from ui.docs import (
    document_notes,
    documents_frame,
    drawn_by_page,
    filter_documents,
    newest_first,
    status_counts,
    tenant_summary,
)
from ui.format import count_of, plural
from ui.preparing import preparation_note
from ui.safe import escape_md
from ui.state import base_settings, current_tenant, ensure_navigation, select_tenant_next_run, tenant_settings
from ui.upload import take_just_uploaded, upload_panel

ensure_navigation()  # a deep link on a fresh server must still go through app.py
st.title("Documents")
tenant = current_tenant()

with st.expander("Create a tenant", expanded=tenant is None, icon=":material/domain_add:"):
    # not cleared on submit: an id refused with an error stays to be corrected (QA pass)
    with st.form("create_tenant", border=False):
        new_tenant = st.text_input("Tenant id", max_chars=128, placeholder="e.g. acme", key="new_tenant_id")
        if st.form_submit_button("Create tenant"):
            try:
                created = services.create_tenant(base_settings(), new_tenant, owner=auth.signed_in_name())
            except ValueError as exc:
                st.error(escape_md(str(exc), inline=True))
            else:
                st.session_state.pop("new_tenant_id", None)  # created: the field is empty next time
                select_tenant_next_run(created)
                st.rerun()

if tenant is None:
    st.stop()
settings = tenant_settings(tenant)
st.caption(f"Tenant **{escape_md(tenant, inline=True)}** · the originals are kept so answers can show the page.")

for level, text in st.session_state.pop("doc_flash", []):
    getattr(st, level)(text)
    icon = {"success": "check_circle", "info": "info", "warning": "warning"}.get(level, "error")
    st.toast(text, icon=f":material/{icon}:")  # in view

st.subheader("Upload")
upload_panel(settings, tenant)
just_uploaded = take_just_uploaded(tenant)  # taken this run, so a later run never jumps to it

st.subheader("Documents")
preparation_note(settings, tenant)
docs = services.list_documents(settings, tenant)
if not docs:  # no search box and no empty grid over nothing
    st.info("No documents yet: upload some above.", icon=":material/upload_file:")
    st.stop()
st.caption(tenant_summary(docs))
find, which = st.columns([3, 2], vertical_alignment="bottom")
search = find.text_input("Search documents", key="doc_search", placeholder="part of a file name")
counts = status_counts(docs)
status = None
if len(counts) > 1:  # one status everywhere filters nothing
    status = which.pills("Status", list(counts), key="doc_status", format_func=lambda s: f"{s} ({counts[s]:,})")
shown = newest_first(filter_documents(docs, search, status))
if not shown:
    st.caption("No document matches the search.")
    st.stop()
if len(shown) < len(docs):
    st.caption(f"Showing {len(shown):,} of {len(docs):,}.")
# a grid per list of documents shown: one grid kept across an upload or a filter kept its columns'
# widths, so a failed file's error, uploaded beside documents without one, read "The file is"
grid = "docs_grid_" + hashlib.sha256("\n".join(d["doc_id"] for d in shown).encode()).hexdigest()[:16]
withdrawn = services.out_of_force(settings, tenant, {d["doc_id"] for d in shown})
picked_row = st.dataframe(documents_frame(shown, withdrawn), hide_index=True, width="stretch", placeholder="—",  # no "None"
                          column_config={"size KB": st.column_config.NumberColumn(format="%.1f"),
                                         # wide enough to read what to do ("This file" alone said
                                         # nothing), when there is an error to read
                                         **({"error": st.column_config.TextColumn(width="medium")}
                                            if any(d.get("error") for d in shown) else {}),
                                         # "Out of force: ..." read as "Out of force: retenti" (QA pass)
                                         **({"notes": st.column_config.TextColumn(width="medium")}
                                            if withdrawn or any(d.get("notes") for d in shown) else {})},
                          key=grid, on_select="rerun", selection_mode="single-row")
clicked_rows = picked_row.selection.rows if picked_row is not None else []
clicked = shown[clicked_rows[0]]["doc_id"] if clicked_rows and clicked_rows[0] < len(shown) else None
st.caption("Failed uploads first, then the newest. Click a row to open that document below.")
if withdrawn:  # an old edition kept beside the new one was quoted as in force (QA pass)
    names = ", ".join(d["file_name"] for d in shown if d["doc_id"] in withdrawn)
    st.caption(f":material/history: Out of force (by their own words, or replaced by a newer edition): "
               f"{escape_md(names, inline=True)}. They answer only when no other document does, with a note.")

by_id = {d["doc_id"]: d for d in shown}
with st.expander("Delete several documents", icon=":material/delete_sweep:"):
    picked = st.multiselect("Documents to delete", list(by_id), key="bulk_pick", placeholder="pick documents",
                            format_func=lambda i: by_id[i]["file_name"])
    if picked and st.button(f"Delete {count_of(len(picked), 'document')}…", key="bulk_delete", icon=":material/delete:"):
        st.session_state["confirm_bulk"] = picked
    if not picked and len(shown) < len(docs) and st.button(  # what the search or the status narrowed to
            f"Delete the {count_of(len(shown), 'document')} shown…", key="bulk_shown", icon=":material/delete:"):
        st.session_state["confirm_bulk"] = list(by_id)
    doomed = {i: by_id[i]["file_name"] for i in st.session_state.get("confirm_bulk", []) if i in by_id}
    if doomed:
        confirm_deletion(settings, tenant, doomed, f"Delete {count_of(len(doomed), 'document')}? Their chunks leave both "
                         "indexes and the kept originals are removed. This cannot be undone.",
                         drop=("confirm_bulk", "bulk_pick"), yes_key="bulk_confirm", no_key="bulk_cancel",
                         yes_label="Yes, delete them")

# a row click counts once: afterwards the selectbox may move on while the row stays selected
if clicked in by_id and st.session_state.get("_doc_clicked") != clicked:
    st.session_state["doc_open"] = clicked
elif just_uploaded in by_id:  # the file just uploaded opens, not the one opened before
    st.session_state["doc_open"] = just_uploaded
st.session_state["_doc_clicked"] = clicked
doc_id = st.selectbox("Open a document", list(by_id), key="doc_open",
                      format_func=lambda i: f"{by_id[i]['file_name']}  ({by_id[i]['status']})")
doc = by_id[doc_id]

st.markdown(f"#### {escape_md(doc['file_name'], inline=True)}")
if doc.get("error"):
    st.error(escape_md(doc["error"], inline=True), icon=":material/error:")
if doc_id in withdrawn:
    st.warning(f"Out of force: {escape_md(withdrawn[doc_id], inline=True)}. Its passages answer "
               "only when no other document does, and such an answer says so; delete it to keep it out of answers "
               "altogether.", icon=":material/history:")
notes = document_notes(doc)
if notes:  # what the upload panel said once, kept with the document
    st.info("Noted when it was indexed:\n" + "\n".join(f"- {escape_md(n, inline=True)}" for n in notes),
            icon=":material/info:")
act = st.container(horizontal=True)  # buttons as wide as their labels, wrapping when narrow
if act.button("Re-index", key=f"reindex_{doc_id}", icon=":material/refresh:", disabled=doc["status"] == "failed"):
    with st.spinner("Re-indexing…"):
        result = services.reindex_document(settings, tenant, doc_id).to_dict()
    count = result["chunks"]
    flash = [("success", f"Re-indexed: {count_of(count, 'chunk')}.") if result["status"] != "failed"
             else ("error", escape_md(result.get("error") or "Re-index failed.", inline=True))]
    carried = services.exclusions_note(result)
    if carried:  # chunk ids changed: say which exclusions found their passage again
        flash.append(("warning" if result.get("exclusions_dropped") else "info", escape_md(carried, inline=True)))
    st.session_state["doc_flash"] = flash
    st.rerun()
if act.button("Delete…", key=f"delete_{doc_id}", icon=":material/delete:"):
    st.session_state["confirm_delete"] = doc_id
original = services.original_path(settings, tenant, doc_id)
if original is not None:
    act.download_button("Original", data=lambda p=original: p.read_bytes(), file_name=doc["file_name"],
                        key=f"orig_{doc_id}", icon=":material/download:", on_click="ignore")

if st.session_state.get("confirm_delete") == doc_id:
    with st.container(border=True):
        count = doc.get("chunks") or 0
        its = "It has no chunks in the indexes" if not count else (
            f"Its {count_of(count, 'chunk')} {plural(count, 'leaves', 'leave')} both indexes")
        confirm_deletion(settings, tenant, {doc_id: doc["file_name"]},
                         f"Delete **{escape_md(doc['file_name'], inline=True)}**? {its} and the kept original is "
                         "removed. This cannot be undone.", drop=("confirm_delete",),
                         yes_key=f"confirm_{doc_id}", no_key=f"cancel_{doc_id}")

def _use_in_answers(chunk_id: str, excluded: bool) -> None:
    services.exclude_chunk(settings, tenant, chunk_id, excluded)
    st.toast("Passage kept out of answers." if excluded else "Passage used in answers again.",
             icon=":material/visibility_off:" if excluded else ":material/visibility:")
    st.rerun()  # the count of excluded passages above the cards changes


paged = drawn_by_page(original)
components.chunk_viewer(services.chunk_rows(settings, tenant, doc_id), key=doc_id, on_toggle=_use_in_answers,
                        original=paged, turns=services.page_turns(settings, tenant, doc_id) if paged else None)
