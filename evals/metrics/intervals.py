"""How sure a figure is: a 95 % interval for each rate, and whether two runs of one set
differ beyond chance.

A set of 60 questions measures grounded_only to within about ±0.12; a change of one or two
questions between two runs is not evidence. These two computations say so in numbers.

wilson — the 95 % Wilson score interval of a rate k / n:
  1. p = k / n, z = 1.96;
  2. centre = (p + z² / 2n) / (1 + z² / n);
  3. half width = z · sqrt(p (1 − p) / n + z² / 4n²) / (1 + z² / n);
  4. interval = [centre − half width, centre + half width], which stays inside [0, 1].
  Chosen over the normal approximation (p ± z · sqrt(p (1 − p) / n)) because that one
  collapses to a zero-width interval at 0 % and 100 % (a set with no hallucination would
  claim certainty) and is too narrow for the small sets an eval uses.

rate_intervals — the interval of every rate metric whose value is a count over a count
(numerator and denominator whole numbers): answer_correct, hallucination, grounded_only and
the like. Latencies, MRR and means of fractional scores get none.

sign_test — is the difference between two runs of the same questions beyond chance?
  1. Pair the questions by id; keep those whose outcome changed: `improved` got better,
     `regressed` got worse (questions that did not change say nothing about the change).
  2. Under "no real difference" each changed question is equally likely to go either way:
     the count improved is Binomial(improved + regressed, 1/2).
  3. p = min(1, 2 · P(X ≤ min(improved, regressed))), the exact two-sided sign test
     (McNemar's exact test on the paired outcomes).
  A p below 0.05 is reported as beyond chance; otherwise the change is within noise.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from evals.metrics.base import MetricResult

Z95 = 1.959964
SIGNIFICANT = 0.05
NOT_COUNTS = frozenset({"mrr", "faithfulness", "latency_p50_ms", "latency_p95_ms"})


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of k successes in n trials (None when n is 0)."""
    if n <= 0:
        return None
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def rate_intervals(results: Mapping[str, MetricResult]) -> dict[str, list[float]]:
    """metric -> [low, high] for the rates that count questions (see the module docstring)."""
    out = {}
    for name, r in results.items():
        if name in NOT_COUNTS or r.value is None or not float(r.numerator).is_integer():
            continue
        bounds = wilson(r.numerator, r.denominator)
        if bounds is not None:
            out[name] = [round(bounds[0], 4), round(bounds[1], 4)]
    return out


def sign_test(improved: int, regressed: int) -> float:
    """Two-sided exact sign test p-value for `improved` against `regressed` changed pairs."""
    n = improved + regressed
    if n == 0:
        return 1.0
    low = min(improved, regressed)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def verdict(improved: int, regressed: int) -> dict[str, Any]:
    """The sign test's p-value and a sentence a manager can read."""
    p = sign_test(improved, regressed)
    changed = improved + regressed
    if changed == 0:
        sentence = "No question changed outcome: the two runs agree."
    elif p < SIGNIFICANT:
        direction = "better" if improved > regressed else "worse"
        sentence = (f"{improved} questions improved and {regressed} regressed (sign test p = {p:.3f}): "
                    f"B is {direction} beyond chance.")
    else:
        sentence = (f"{improved} questions improved and {regressed} regressed (sign test p = {p:.2f}): "
                    "within noise, not evidence of a change.")
    return {"p_value": round(p, 4), "beyond_chance": changed > 0 and p < SIGNIFICANT, "sentence": sentence}


def fmt_interval(bounds: list[float] | tuple[float, float] | None) -> str:
    """"41–65%" for a rate interval; "" without one."""
    if not bounds:
        return ""
    return f"{100 * bounds[0]:.0f}–{100 * bounds[1]:.0f}%"
