"""Answer generation. Generators are a one-method Protocol in a plain dict registry.

- `extractive` (the embedded default, no LLM): verbatim units chosen and judged by the
  learned answer model (core/answer/extractive.py);
- `llm`: any OpenAI-compatible endpoint with the citation-mandatory prompt
  (core/llm_generate.py registers it).
"""

from __future__ import annotations

from typing import Protocol

from core.answer.extractive import LearnedExtractive
from core.answer.question import Question
from core.answer.result import Generation, Selected
from core.lexical import LexicalIndex
from core.retrieve import Candidate

__all__ = ["GENERATORS", "Generation", "Generator", "Selected", "heading_of"]


class Generator(Protocol):
    def generate(self, question: str | Question, passages: list[Candidate], lexicon: LexicalIndex) -> Generation: ...


def heading_of(passage: Candidate) -> str:
    return passage.section.split(" > ")[-1] if passage.section else ""


GENERATORS: dict[str, type] = {"extractive": LearnedExtractive}
