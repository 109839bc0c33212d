"""Shared rendering helpers for the Streamlit console (pages stay thin).

`ui.safe` escapes untrusted text, `ui.components` renders the recurring pieces (status
badge, citation pills, verdict colours, highlighted quote), `ui.state` holds the cached
settings and the sidebar, `ui.services` wraps the `core`/`evals` calls pages make, and
`ui.charts`, `ui.pdf`, `ui.quality` are pure helpers (no Streamlit) the tests call directly.
"""
