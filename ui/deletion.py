"""Deleting documents from the Documents page: one confirmation step for one or many."""

from __future__ import annotations

import streamlit as st

from core.config import Settings
from core.disk import DiskFull
from ui import services
from ui.format import count_of, plural
from ui.safe import escape_md
from ui.upload import forget_results


def confirm_deletion(settings: Settings, tenant: str, names: dict[str, str], warning: str, *,
                     drop: tuple[str, ...], yes_key: str, no_key: str, yes_label: str = "Yes, delete") -> None:
    """The warning with Yes / Cancel for the documents `names` (doc_id -> file name). Yes
    deletes them in one index rebuild, leaves a message for the next run and reruns. Both
    buttons drop the session keys `drop` (the one that asked for this confirmation; Yes
    also the pick of documents that no longer exist)."""
    st.warning(warning)
    yes, no = st.columns([1, 5])
    if yes.button(yes_label, type="primary", key=yes_key):
        try:
            with st.spinner("Deleting… the tenant's indexes are rebuilt once without "
                            f"{plural(len(names), 'it', 'them')}."):
                count = services.delete_documents(settings, tenant, list(names))
        except DiskFull as exc:  # nothing was changed; the sentence says how much room it needs
            st.error(str(exc))
            return
        forget_results(tenant, list(names))
        for key in drop:
            st.session_state.pop(key, None)
        if not count:
            flash = ("warning", "That document was already gone." if len(names) == 1
                     else "Those documents were already gone.")
        elif len(names) == 1:
            flash = ("success", f"Deleted {escape_md(next(iter(names.values())), inline=True)}.")
        else:
            flash = ("success", f"Deleted {count_of(count, 'document')}.")
        st.session_state["doc_flash"] = [flash]
        st.rerun()
    if no.button("Cancel", key=no_key):
        st.session_state.pop(drop[0], None)
        st.rerun()
