"""Plotly figures for the console (pure: data in, figure out; no Streamlit).

Plotly understands a few HTML tags in labels and hover text, so every label that comes from
data (categories, run ids) is HTML-escaped first.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from ui.quality import fmt_value, is_latency, label
from ui.safe import escape_html

PALETTE = ["#1f6feb", "#2da44e", "#bf8700", "#cf222e", "#8250df", "#1b7c83", "#9a6700", "#57606a"]
_LAYOUT = dict(margin=dict(l=10, r=10, t=40, b=10), legend=dict(orientation="h", y=-0.2),
               template="plotly_white", height=340)


def timings_bar(timings: dict[str, float]) -> go.Figure:
    steps = [k for k in timings if k != "total"]
    fig = go.Figure(go.Bar(x=[timings[k] for k in steps], y=[escape_html(k) for k in steps],
                           orientation="h", marker_color=PALETTE[0],
                           text=[f"{timings[k]:.0f} ms" for k in steps], textposition="auto"))
    total = timings.get("total")
    fig.update_layout(title=f"Time per step (total {total:.0f} ms)" if total is not None else "Time per step",
                      xaxis_title="ms", **{**_LAYOUT, "height": 60 + 40 * max(len(steps), 1)})
    fig.update_yaxes(autorange="reversed")
    return fig


def group_bars(rows: list[dict[str, Any]], title: str) -> go.Figure:
    """Grouped bars: x = kind/category, one bar per metric (rates as %)."""
    fig = go.Figure()
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    for i, m in enumerate(metrics):
        mine = [r for r in rows if r["metric"] == m]
        fig.add_bar(name=escape_html(label(m)), x=[escape_html(r["group"], 60) for r in mine],
                    y=[100 * r["value"] for r in mine], marker_color=PALETTE[i % len(PALETTE)],
                    customdata=[[r.get("n")] for r in mine],
                    hovertemplate="%{x}: %{y:.1f}%<extra>" + escape_html(label(m)) + "</extra>")
    fig.update_layout(title=title, barmode="group", yaxis=dict(title="%", range=[0, 105]), **_LAYOUT)
    return fig


def history_lines(rows: list[dict[str, Any]], drifted: set[str] | None = None) -> go.Figure:
    """One line per metric across runs; metrics that drifted get a red marker on the last run."""
    drifted = drifted or set()
    fig = go.Figure()
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    for i, m in enumerate(metrics):
        mine = [r for r in rows if r["metric"] == m]
        scale = 1 if is_latency(m) else 100
        fig.add_scatter(
            name=escape_html(label(m)) + (" ⚠" if m in drifted else ""), mode="lines+markers",
            x=[r["when"] for r in mine], y=[scale * r["value"] for r in mine],
            line=dict(color=PALETTE[i % len(PALETTE)], dash="dot" if m in drifted else "solid"),
            text=[escape_html(r["run_id"]) for r in mine],
            hovertemplate="run %{text}<br>%{y:.1f}<extra>" + escape_html(label(m)) + "</extra>",
        )
        if m in drifted and mine:
            fig.add_scatter(x=[mine[-1]["when"]], y=[scale * mine[-1]["value"]], mode="markers",
                            marker=dict(color="#cf222e", size=14, symbol="x"), showlegend=False,
                            hoverinfo="skip")
    fig.update_layout(title="Metric history across runs", yaxis_title="%" if not any(is_latency(m) for m in metrics) else "",
                      xaxis_title="run", **_LAYOUT)
    return fig


CURVE_SERIES = (("grounded_only", PALETTE[0]), ("answer_correct", PALETTE[1]), ("refusal_correct", PALETTE[5]),
                ("hallucination", PALETTE[3]), ("too_conservative", PALETTE[2]))


def calibration(points: list[dict[str, Any]], threshold: float | None,
                recommended: float | None = None) -> go.Figure:
    """Metrics by gate threshold (evals.calibrate's curve), the current threshold marked."""
    fig = go.Figure()
    xs = [p["threshold"] for p in points]
    for key, color in CURVE_SERIES:
        ys = [p.get(key) for p in points]
        if any(y is not None for y in ys):
            fig.add_scatter(x=xs, y=[None if y is None else 100 * y for y in ys], name=escape_html(label(key)),
                            mode="lines", line=dict(color=color, width=2.5,
                                                    dash="dot" if key in ("hallucination", "too_conservative") else "solid"))
    if threshold is not None:
        fig.add_vline(x=threshold, line=dict(color="#24292f", dash="dash", width=2),
                      annotation_text=f"current {threshold:.2f}", annotation_position="top left")
    if recommended is not None and recommended != threshold:
        fig.add_vline(x=recommended, line=dict(color="#2da44e", dash="dot", width=2),
                      annotation_text=f"recommended {recommended:.2f}", annotation_position="top right")
    fig.update_layout(title="Confidence gate: metrics by threshold",
                      xaxis=dict(title="gate threshold", range=[0, 1]),
                      yaxis=dict(title="%", range=[0, 105]), **_LAYOUT)
    return fig


def latency_hist(values_ms: list[float], p50: float | None = None, p95: float | None = None) -> go.Figure:
    fig = go.Figure(go.Histogram(x=values_ms, nbinsx=min(30, max(5, len(values_ms) // 2)),
                                 marker_color=PALETTE[0], name="asks"))
    for value, name in ((p50, "p50"), (p95, "p95")):
        if value is not None:
            fig.add_vline(x=value, line=dict(color="#cf222e" if name == "p95" else "#2da44e", dash="dash"),
                          annotation_text=f"{name} {fmt_value('latency_ms', value)}")
    fig.update_layout(title="Latency per ask", xaxis_title="ms", yaxis_title="questions",
                      showlegend=False, **{k: v for k, v in _LAYOUT.items() if k != "legend"})
    return fig
