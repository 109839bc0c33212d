"""Groundwork console: navigation grouped by role, tenant picker and provider status.

Every page is a thin script under pages/; shared rendering lives in ui/.
"""

from pathlib import Path

import streamlit as st

from ui.state import base_settings, sidebar, start_warm_up

# a local file: a Material icon as favicon is fetched from fonts.gstatic.com, which is offline here
st.set_page_config(page_title="Groundwork", page_icon=str(Path(__file__).parent / "ui" / "favicon.png"), layout="wide")
start_warm_up(base_settings())  # models load while the user reads the page

PAGES = {
    "Domain experts": [
        st.Page("pages/ask.py", title="Ask", icon=":material/chat:", default=True),
        st.Page("pages/traces.py", title="Traces", icon=":material/manage_search:"),
        st.Page("pages/review.py", title="Review", icon=":material/rate_review:"),
    ],
    "Admins": [
        st.Page("pages/documents.py", title="Documents", icon=":material/description:"),
        st.Page("pages/settings.py", title="Settings", icon=":material/tune:"),
    ],
    "Managers": [
        st.Page("pages/quality.py", title="Quality", icon=":material/monitoring:"),
    ],
}

page = st.navigation(PAGES)
st.sidebar.markdown("### :material/fact_check: Groundwork")
sidebar()
page.run()
