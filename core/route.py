"""The route verdict on every answer: what should happen to it next.

- `auto`: it can go out as is: answered (or premise corrected) with confidence at or above
  the review line (gate threshold + review margin) and every claim supported; or refused
  at a hard stop (no passage, an identifier or name no document holds, unknown tenant),
  which no person could answer from these documents either.
- `human`: a person should look (the review queue): refused for low confidence, failed
  checks or an unknown word; narrowed (a claim dropped); answered under the review line.
- `retry`: the model endpoint failed and quotes were given instead; asking again later
  may get the model's answer.
- `error`: the ask raised instead of returning an answer (set by callers that record it,
  e.g. the CLI's batch mode).
"""

from __future__ import annotations

from core.config import Settings
from core.schema import Answer

ROUTES = ("auto", "human", "retry", "error")
HARD_STOPS = frozenset({"no_passages", "missing_reference", "missing_identifier", "unknown_name", "unknown_tenant"})


def route_of(answer: Answer, settings: Settings, model_failed: bool = False) -> str:
    if model_failed:
        return "retry"
    if answer.status == "refused":
        return "auto" if answer.refusal_code in HARD_STOPS else "human"
    if answer.status in ("narrowed", "fallback"):
        return "human"
    if any(c.verdict != "supported" for c in answer.claims):
        return "human"
    review_line = min(1.0, settings.gate_threshold + settings.review_margin)
    return "auto" if answer.confidence >= review_line else "human"
