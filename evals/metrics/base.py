"""What every metric module shares: the row type, the result object, refusal and rate helpers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

# A scored question: (eval-set row, Answer.to_dict() of the pipeline's reply).
Row = tuple[Mapping[str, Any], Mapping[str, Any]]
ChunkTexts = Mapping[str, str]  # chunk_id -> chunk text, for checking citation quotes

KINDS = ("answerable", "unanswerable", "misleading")
NOT_ANSWERABLE = ("unanswerable", "misleading")
# Statuses that are not an answer. "error" is the runner's record of an ask that raised.
REFUSED_STATUSES = ("refused", "error")


@dataclass
class MetricResult:
    """A metric's value plus the evidence a manager can check it against.

    `value` is a fraction in [0, 1] for rates (milliseconds for latencies) and None when
    the denominator is empty. `hits` lists the ids counted in the numerator; `evidence`
    maps each id in the denominator to what was decided about it and why.
    """

    name: str
    value: float | None
    numerator: float = 0
    denominator: int = 0
    hits: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def rate(name: str, numerator: int, denominator: int, hits: list[str], evidence: dict[str, Any],
         warnings: list[str] | None = None) -> MetricResult:
    value = numerator / denominator if denominator else None
    return MetricResult(name, value, numerator, denominator, hits, evidence, warnings or [])


def qid(question: Mapping[str, Any]) -> str:
    return str(question.get("id", ""))


def is_refused(answer: Mapping[str, Any]) -> bool:
    """`refused` is a refusal; answered, narrowed and fallback are answers."""
    return answer.get("status") in REFUSED_STATUSES


def is_answerable(question: Mapping[str, Any]) -> bool:
    return question.get("kind") == "answerable"
