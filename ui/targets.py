"""The Settings page's quality-targets form: rates typed as percentages, latencies in ms."""

from __future__ import annotations

import streamlit as st

from core.config import Settings
from ui import services
from ui.quality import HELP, label
from ui.safe import escape_md

LIVE_LABELS = {"refusal_rate": "Refused (live asks)", "share_up": "Thumbs up (live asks)"}


def form(settings: Settings, tenant: str) -> None:
    targets = services.quality_targets(settings, tenant)
    with st.form("quality_targets"):
        cols = st.columns(3)
        typed = {}
        for i, (metric, target) in enumerate(targets.items()):
            name = LIVE_LABELS.get(metric) or label(metric)
            sign = "at least" if target.higher_is_better else "at most"
            if metric.endswith("_ms"):
                typed[metric] = cols[i % 3].number_input(f"{name}, {sign} (ms)", min_value=1.0, max_value=600_000.0,
                                                         value=float(target.value), step=50.0, format="%.0f",
                                                         key=f"target_{metric}",
                                                         help=HELP.get(metric))
            else:
                typed[metric] = cols[i % 3].number_input(f"{name}, {sign} (%)", min_value=0.0, max_value=100.0,
                                                         value=round(100 * target.value, 1), step=1.0,
                                                         key=f"target_{metric}", help=HELP.get(metric)) / 100
        if st.form_submit_button("Save targets"):
            try:
                services.save_quality_targets(settings, tenant, typed)
            except ValueError as exc:
                st.error(escape_md(str(exc), inline=True))
            else:
                st.success("Targets saved; the Quality page colours its cards by them.")
