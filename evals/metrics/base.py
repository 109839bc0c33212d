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
# A refusal is the pipeline's deliberate "not in the documents". The runner records an ask
# that raised as status "error": neither an answer nor a refusal, and never a success.
REFUSED_STATUSES = ("refused",)
CORRECTED_STATUS = "corrected"
ERROR_STATUS = "error"


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


def declines(answer: Mapping[str, Any]) -> bool:
    """Does the answer decline what an unanswerable or misleading question asks: a
    refusal, or a correction (`corrected`: the cited passage contradicts the question's
    premise, "The documents say annual plans are non-refundable [1]")?"""
    return is_refused(answer) or answer.get("status") == CORRECTED_STATUS


def is_refused(answer: Mapping[str, Any]) -> bool:
    """`refused` is a refusal; answered, narrowed and fallback are answers; `error` is neither."""
    return answer.get("status") in REFUSED_STATUSES


def is_error(answer: Mapping[str, Any]) -> bool:
    """The ask raised instead of returning an Answer (recorded by the runner)."""
    return answer.get("status") == ERROR_STATUS


def is_answer(answer: Mapping[str, Any]) -> bool:
    """A reply that states something: neither a refusal nor an error."""
    return not is_refused(answer) and not is_error(answer)


def is_answerable(question: Mapping[str, Any]) -> bool:
    return question.get("kind") == "answerable"
