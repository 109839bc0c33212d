"""The Documents page's note while uploaded documents' answer vectors are prepared.

An upload is answerable as soon as it is indexed; its sentences' vectors are embedded after,
on a background thread (core/answer/prepare.py). Until that is done its first questions are
slower, so the page says it is running, how far, and that answers do not wait for it.
"""

from __future__ import annotations

import streamlit as st

from core.config import Settings
from ui import services
from ui.format import count_of

POLL_SECONDS = 2


def preparation_note(settings: Settings, tenant: str) -> None:
    """Nothing when no preparation runs; else a note refreshed every POLL_SECONDS that
    reruns the page once the preparation is over (and so disappears)."""
    if services.preparation_state(settings, tenant) is None:
        return

    @st.fragment(run_every=POLL_SECONDS)
    def _note() -> None:
        state = services.preparation_state(settings, tenant)
        if state is None:
            st.rerun()
        waiting = count_of(state.documents, "document")
        done = (f": {state.chunks_done:,} of {state.chunks_total:,} passages of the current one"
                if state.chunks_total else "")
        st.info(f"Preparing {waiting} for fast answers{done}. They answer already; "
                "their first questions are slower until this is done.", icon=":material/hourglass_top:")
        if state.chunks_total:
            st.progress(state.chunks_done / state.chunks_total)

    _note()
