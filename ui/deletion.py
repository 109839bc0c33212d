"""Deleting from the console: documents (the Documents page, one confirmation step for one
or many) and a whole tenant (the Settings page, confirmed by typing its id)."""

from __future__ import annotations

import streamlit as st

from core.config import Settings
from core.disk import DiskFull
from ui import auth, services
from ui.format import count_of, plural
from ui.safe import escape_md
from ui.state import tenant_deleted_next_run
from ui.upload import forget_results

_TENANT_TYPED = "delete_tenant_typed:"  # + the tenant: the id typed to confirm its deletion (per tenant, so
# an id typed while another tenant was picked never arms the button)


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


def tenant_section(settings: Settings, tenant: str) -> None:
    """The Settings page's danger section: what deleting `tenant` removes, and the button,
    live only once its id is typed (a mistyped tenant is never deleted by a reflex click).
    Only the tenant's admin sees it; core checks the role again."""
    if not auth.is_admin_of(settings, tenant):
        return
    held = services.tenant_footprint(settings, tenant)
    shown = escape_md(tenant, inline=True)
    st.subheader("Danger zone")
    with st.expander("Delete this tenant", icon=":material/delete_forever:"):
        st.markdown(f":material/warning: Deletes **{shown}** and everything it holds: {held.sentence()}, with "
                    "the documents' passages and kept originals, the asks' ratings and review decisions, "
                    "conversations, settings, synonyms and quality targets. Other tenants are not touched. "
                    "**This cannot be undone.**")
        typed = st.text_input("Type the tenant id to confirm", key=_TENANT_TYPED + tenant, max_chars=128)
        if not st.button("Delete this tenant", type="primary", icon=":material/delete_forever:",
                         key="delete_tenant", disabled=typed != tenant):
            return
        if typed != tenant:  # the button's state is a run old: checked again on the click
            st.error(f"Type **{shown}** exactly to delete it.")
            return
        try:
            with st.spinner(f"Deleting {shown}…"):
                services.delete_tenant(settings, tenant, auth.signed_in_name())
        except (LookupError, PermissionError, ValueError) as exc:  # gone, not its admin, an eval run going on
            st.error(escape_md(str(exc), inline=True), icon=":material/error:")
            return
    st.session_state.pop(_TENANT_TYPED + tenant, None)
    tenant_deleted_next_run(tenant)
    if auth.signed_in_name() is None and not services.any_tenant(settings):
        st.switch_page("pages/documents.py")  # nothing left: the create-tenant form
    st.rerun()
