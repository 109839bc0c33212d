"""Quality targets per tenant: what a manager calls good for each figure, stored beside the
tenant's settings (`<tenant dir>/targets.json`) and set on the Settings page.

A target is a number and a direction: rates are fractions in [0, 1], latencies milliseconds.
Defaults are the figures docs/quality.md holds the product to (issue targets: grounded
answers ≥ 0.75 on blind out-of-domain sets, made-up answers ≤ 5 %, ask p50 ≤ 1 s in the
console)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.config import Settings


@dataclass(frozen=True)
class Target:
    metric: str
    value: float
    higher_is_better: bool

    def met(self, observed: float | None) -> bool | None:
        """True/False against the target; None when nothing was observed."""
        if observed is None:
            return None
        return observed >= self.value if self.higher_is_better else observed <= self.value

    def text(self) -> str:
        sign = "≥" if self.higher_is_better else "≤"
        shown = f"{self.value:.0f} ms" if self.metric.endswith("_ms") else f"{100 * self.value:.0f}%"
        return f"{sign} {shown}"


# metric -> (default, higher is better); eval metrics and live-traffic figures alike
DEFAULTS: dict[str, tuple[float, bool]] = {
    "grounded_only": (0.75, True),
    "answer_correct": (0.60, True),
    "citation_accuracy": (0.90, True),
    "faithfulness": (0.95, True),
    "refusal_correct": (0.90, True),
    "hallucination": (0.05, False),
    "too_conservative": (0.20, False),
    "latency_p50_ms": (1000.0, False),
    "latency_p95_ms": (3000.0, False),
    # live traffic (core/live.py)
    "refusal_rate": (0.30, False),
    "share_up": (0.80, True),
}


def _path(settings: Settings, tenant: str):
    from core.tenants import tenant_dir

    return tenant_dir(settings, tenant) / "targets.json"


def validate(values: dict[str, Any]) -> dict[str, float]:
    """Known metrics only, rates in [0, 1], latencies positive; ValueError with one sentence."""
    clean: dict[str, float] = {}
    for metric, value in values.items():
        if metric not in DEFAULTS:
            raise ValueError(f"No target can be set for '{metric}'; known: {', '.join(DEFAULTS)}.")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"The target for {metric} must be a number.") from None
        if metric.endswith("_ms"):
            if not 0 < number <= 600_000:
                raise ValueError(f"The target for {metric} must be between 1 and 600,000 ms.")
        elif not 0 <= number <= 1:
            raise ValueError(f"The target for {metric} must be a share between 0 and 1 (0.75 for 75%).")
        clean[metric] = number
    return clean


def load(settings: Settings, tenant: str) -> dict[str, Target]:
    """Every known metric's target: the tenant's own where set, else the default."""
    stored: dict[str, float] = {}
    path = _path(settings, tenant)
    if path.exists():
        try:
            stored = validate(json.loads(path.read_text(encoding="utf-8")))
        except (ValueError, json.JSONDecodeError):
            stored = {}  # a damaged file must not take the page down
    return {m: Target(m, stored.get(m, default), higher) for m, (default, higher) in DEFAULTS.items()}


def save(settings: Settings, tenant: str, values: dict[str, Any]) -> dict[str, Target]:
    """Store the tenant's targets (validated first; nothing written on error)."""
    clean = validate(values)
    path = _path(settings, tenant)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(clean, indent=2), encoding="utf-8")
    tmp.replace(path)
    return load(settings, tenant)
