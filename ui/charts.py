"""Plotly figures for the console (pure: data in, figure out; no Streamlit).

Plotly understands a few HTML tags in labels and hover text, so every label that comes from
data (categories, run ids) is HTML-escaped first.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from evals.metrics.intervals import fmt_interval
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


# One colour per metric everywhere: good outcomes cool, bad ones warm.
METRIC_COLORS = {
    "grounded_only": "#2da44e", "answer_correct": "#1f6feb", "citation_accuracy": "#8250df",
    "refusal_correct": "#1b7c83", "faithfulness": "#57606a", "hit_rate": "#0969da", "mrr": "#6e7781",
    "hallucination": "#cf222e", "too_conservative": "#bf8700", "answer_correct_lenient": "#54aeff",
    "latency_p50_ms": "#1f6feb", "latency_p95_ms": "#cf222e",
}


def metric_color(metric: str, i: int) -> str:
    return METRIC_COLORS.get(metric, PALETTE[i % len(PALETTE)])


def group_bars(rows: list[dict[str, Any]], title: str, metrics: list[str] | None = None, *,
               horizontal: bool = False) -> go.Figure:
    """Grouped bars, one bar per metric (rates as %) with its value on it: x = kind/category,
    or with `horizontal` one row per group (y), for many groups with long names (categories):
    names are never cut, the chart grows with the groups, and each bar has its own line for
    its label, so labels cannot run into each other."""
    fig = go.Figure()
    present = {r["metric"] for r in rows}
    order = [m for m in (metrics or []) if m in present] + sorted(present - set(metrics or []))
    groups = list(dict.fromkeys(escape_html(r["group"], 60) for r in rows))
    for i, m in enumerate(order):
        mine = {escape_html(r["group"], 60): r for r in rows if r["metric"] == m}
        values = [100 * mine[g]["value"] if g in mine else None for g in groups]
        axes = dict(y=groups, x=values, orientation="h") if horizontal else dict(x=groups, y=values)
        where, value = ("%{y}", "%{x:.1f}") if horizontal else ("%{x}", "%{y:.1f}")
        fig.add_bar(name=escape_html(label(m)), **axes, marker_color=metric_color(m, i),
                    text=[None if v is None else f"{v:.0f}%" for v in values], textposition="outside",
                    cliponaxis=False,
                    customdata=[[mine[g].get("n") if g in mine else None] for g in groups],
                    hovertemplate=f"{where}: {value}% (n=%{{customdata[0]}})<extra>" + escape_html(label(m))
                                  + "</extra>")
    if not horizontal:
        fig.update_layout(title=title, barmode="group", yaxis=dict(title="%", range=[0, 115]),
                          uniformtext=dict(minsize=9, mode="show"), **_LAYOUT)
        return fig
    # a line of about 16 px per bar plus a gap per group; the legend above, clear of the names
    per_group = 16 * max(len(order), 1) + 14
    layout = {**_LAYOUT, "height": max(260, 110 + per_group * len(groups)),
              "margin": dict(l=10, r=40, t=80, b=10),
              "legend": dict(orientation="h", yanchor="bottom", y=1.01, x=0)}
    fig.update_layout(title=title, barmode="group", bargap=0.2, bargroupgap=0.05,
                      xaxis=dict(title="%", range=[0, 112]),
                      yaxis=dict(autorange="reversed", automargin=True, ticksuffix=" "),
                      uniformtext=dict(minsize=9, mode="show"), font=dict(size=12), **layout)
    fig.update_traces(textfont=dict(size=10))
    return fig


def _error_bars(points: list[dict[str, Any]], scale: float) -> dict[str, Any] | None:
    """Asymmetric error bars from each point's `interval` (None for a run without one: no
    bar, rather than a bar of zero width that would claim certainty)."""
    if not any(p.get("interval") for p in points):
        return None
    up, down = [], []
    for p in points:
        low, high = p.get("interval") or (None, None)
        up.append(None if high is None else scale * (high - p["value"]))
        down.append(None if low is None else scale * (p["value"] - low))
    return dict(type="data", symmetric=False, array=up, arrayminus=down, thickness=1.2, width=5)


def history_lines(rows: list[dict[str, Any]], drifted: set[str] | None = None) -> go.Figure:
    """One line per metric across runs (evenly spaced, oldest left); a metric that drifted
    is dotted with a red cross on the last run. A run that kept its rates' 95 % intervals
    shows them as error bars: two runs whose bars overlap widely may differ by chance.
    With bars, each metric's points sit a little beside the run's tick, so the bars of two
    metrics at one run do not hide each other."""
    drifted = drifted or set()
    fig = go.Figure()
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    runs = list(dict.fromkeys(r["run_id"] for r in rows))
    when = {r["run_id"]: r["when"] for r in rows}
    ticks = [f"{when[run]:%m-%d %H:%M}<br>{escape_html(run[:8])}" for run in runs]
    dodge = 0.12 if len(metrics) > 1 and any(r.get("interval") for r in rows) else 0.0
    for i, m in enumerate(metrics):
        mine = {r["run_id"]: r for r in rows if r["metric"] == m}
        scale = 1 if is_latency(m) else 100
        points = [mine[run] for run in runs if run in mine]
        shift = dodge * (i - (len(metrics) - 1) / 2) / max(len(metrics) - 1, 1)
        xs = [j + shift for j, run in enumerate(runs) if run in mine]
        ys = [scale * p["value"] for p in points]
        bars = _error_bars(points, scale)
        fig.add_scatter(
            name=escape_html(label(m)) + (" ⚠" if m in drifted else ""), mode="lines+markers", x=xs, y=ys,
            line=dict(color=metric_color(m, i), width=2.5, dash="dot" if m in drifted else "solid"),
            customdata=[[ticks[j].replace("<br>", " "), fmt_interval(mine[run].get("interval"))]
                        for j, run in enumerate(runs) if run in mine],
            hovertemplate="%{customdata[0]}<br>%{y:.1f}" + ("<br>95% interval %{customdata[1]}" if bars else "")
                          + "<extra>" + escape_html(label(m)) + "</extra>",
            **({"error_y": bars} if bars else {}),
        )
        if m in drifted and xs:
            fig.add_scatter(x=[xs[-1]], y=[ys[-1]], mode="markers", showlegend=False, hoverinfo="skip",
                            marker=dict(color="#cf222e", size=14, symbol="x"))
    latency = any(is_latency(m) for m in metrics)
    # runs are evenly spaced by position (a number axis, so points can sit beside a tick),
    # labelled with their time and id
    fig.update_layout(title="Latency history across runs" if latency else "Metric history across runs",
                      yaxis=dict(title="ms" if latency else "%", rangemode="tozero"),
                      xaxis=dict(tickmode="array", tickvals=list(range(len(runs))), ticktext=ticks,
                                 range=[-0.5, len(runs) - 0.5], zeroline=False, showgrid=False), **_LAYOUT)
    return fig


CURVE_SERIES = ("grounded_only", "answer_correct", "refusal_correct", "hallucination", "too_conservative")


def calibration(points: list[dict[str, Any]], threshold: float | None,
                recommended: float | None = None) -> go.Figure:
    """Metrics by gate threshold (evals.calibrate's curve), the current threshold marked."""
    fig = go.Figure()
    xs = [p["threshold"] for p in points]
    for i, key in enumerate(CURVE_SERIES):
        color = metric_color(key, i)
        ys = [p.get(key) for p in points]
        if any(y is not None for y in ys):
            fig.add_scatter(x=xs, y=[None if y is None else 100 * y for y in ys], name=escape_html(label(key)),
                            mode="lines", line=dict(color=color, width=2.5,
                                                    dash="dot" if key in ("hallucination", "too_conservative") else "solid"))
    label_box = dict(bgcolor="rgba(255,255,255,0.9)", font=dict(size=12))
    if threshold is not None:
        fig.add_vline(x=threshold, line=dict(color="#24292f", dash="dash", width=2),
                      annotation=dict(text=f"<b>current {threshold:.2f}</b>", y=1.08, yref="paper",
                                      showarrow=False, xanchor="right", **label_box))
    if recommended is not None and recommended != threshold:
        fig.add_vline(x=recommended, line=dict(color="#2da44e", dash="dot", width=2),
                      annotation=dict(text=f"recommended {recommended:.2f}", y=1.08, yref="paper",
                                      showarrow=False, xanchor="left", **label_box))
    # the legend below the axis title: at the shared y=-0.2 "gate threshold" printed over an entry
    fig.update_layout(title="Confidence gate: metrics by threshold",
                      xaxis=dict(title="gate threshold", range=[0, 1]),
                      yaxis=dict(title="%", range=[-2, 105]),
                      **{**_LAYOUT, "legend": dict(orientation="h", yanchor="top", y=-0.3, x=0)})
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


def feedback_per_day(days: list[dict[str, Any]]) -> go.Figure:
    """Stacked bars of thumbs up (green) and down (red) per day; `days` rows hold day, up, down."""
    xs = [d["day"] for d in days]
    fig = go.Figure()
    for key, name, color in (("up", "thumbs up", "#2da44e"), ("down", "thumbs down", "#cf222e")):
        fig.add_bar(x=xs, y=[d[key] for d in days], name=name, marker_color=color,
                    hovertemplate="%{x}: %{y}<extra>" + name + "</extra>")
    fig.update_layout(title="Ratings per day", barmode="stack",
                      xaxis=dict(type="category", title="day"),
                      yaxis=dict(title="ratings", rangemode="tozero", dtick=1 if max(
                          (d["up"] + d["down"] for d in days), default=0) <= 10 else None),
                      **{**_LAYOUT, "height": 280})
    return fig


def refusal_bars(rows: list[dict[str, Any]]) -> go.Figure:
    """Horizontal stacked bars: refused questions per reason class, split into those that
    should have been answered (amber) and right refusals (green)."""
    from ui.quality import RIGHT_TO_REFUSE, SHOULD_ANSWER

    reasons = list(dict.fromkeys(r["reason"] for r in rows))
    fig = go.Figure()
    for bucket, color in ((SHOULD_ANSWER, "#bf8700"), (RIGHT_TO_REFUSE, "#2da44e")):
        mine = {r["reason"]: r["n"] for r in rows if r["bucket"] == bucket}
        fig.add_bar(y=reasons, x=[mine.get(r, 0) for r in reasons], name=bucket, orientation="h",
                    marker_color=color, hovertemplate="%{y}: %{x}<extra>" + escape_html(bucket) + "</extra>")
    most = max((sum(r["n"] for r in rows if r["reason"] == reason) for reason in reasons), default=0)
    # whole questions: integer ticks on a short axis; the legend says what is counted
    layout = {**_LAYOUT, "height": 190 + 40 * len(reasons), "margin": dict(l=10, r=10, t=80, b=10),
              "legend": dict(orientation="h", yanchor="bottom", y=1.02, x=0)}  # above: clear of the ticks
    fig.update_layout(title="Why questions were refused (number of questions)", barmode="stack",
                      xaxis=dict(rangemode="tozero", dtick=1 if most <= 10 else None),
                      yaxis=dict(autorange="reversed"), **layout)
    return fig


def live_per_day(days: list[dict[str, Any]]) -> go.Figure:
    """Asks per day as bars; the refusal and correction shares as lines on a 0–100 % axis."""
    x = [d["day"] for d in days]
    fig = go.Figure()
    fig.add_bar(x=x, y=[d["asks"] for d in days], name="asks", marker_color="#d0d7de", yaxis="y")
    # drawn largest first, so two shares on the same value (50 % answered, 50 % refused)
    # show as a ring around a dot instead of one hiding the other
    for key, name, color, size in (("answer_rate", "answered", "#2da44e", 13), ("refusal_rate", "refused", "#cf222e", 9),
                                   ("corrected_rate", "corrected", "#1f6feb", 5)):
        fig.add_scatter(x=x, y=[None if d[key] is None else 100 * d[key] for d in days], name=name,
                        mode="lines+markers", line=dict(color=color), marker=dict(size=size), yaxis="y2")
    most = max((d["asks"] for d in days), default=0)
    # asks are whole questions; the share axis keeps its own round ticks (plotly would
    # otherwise sync them to the count axis: 23.8, 47.5, ...) and draws no second grid
    # at most 7 day labels: thirty of them overlapped on a phone
    fig.update_layout(title="Real asks per day", xaxis=dict(type="category", nticks=7),
                      yaxis=dict(title="asks", rangemode="tozero", dtick=1 if most <= 10 else None),
                      yaxis2=dict(title="% of asks", overlaying="y", side="right", range=[0, 100],
                                  tickmode="linear", tick0=0, dtick=25, showgrid=False), **_LAYOUT)
    return fig
