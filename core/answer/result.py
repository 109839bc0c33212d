"""What a generator returns: the answer text with [n] markers and the units it quotes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.answer.units import Unit


@dataclass
class Selected:
    passage: int  # 1-based index into the passages given
    unit: Unit
    score: float


@dataclass
class Generation:
    text: str  # answer with [n] markers; empty when refusing
    selected: list[Selected] = field(default_factory=list)
    refusal_reason: str | None = None
    prompt: str | None = None
    raw_output: str | None = None
    provider: str = "extractive"
    model: str | None = None
    tokens: dict[str, int] = field(default_factory=dict)
    support: float = 0.0  # the answer confidence of the generator, 0..1
    rejected: list[dict[str, Any]] = field(default_factory=list)  # units a hard filter dropped, and why
    candidates: list[dict[str, Any]] = field(default_factory=list)  # top units: score and the signals behind it
    correction: str | None = None  # why the quoted unit contradicts the question's premise
    amended: str | None = None  # another document changes the section read out (core/reference.py)
    # rows two documents give different values for, or rows out of force (core/answer/differing.py)
    differences: list[dict[str, Any]] = field(default_factory=list)
    ranked: list[Any] = field(default_factory=list, repr=False)  # every scored unit, best first
