"""Groundwork core: everything that is not UI. Never imports streamlit."""
