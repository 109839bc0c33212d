"""Answer generation. Generators are a one-method Protocol in a plain dict registry.

The embedded default is `extractive`: no model, the answer is verbatim sentences (or table
rows shown with their header) from the passages, each followed by its [n] marker.

Extractive algorithm:
1. From the question take its topic words (IDF-weighted), its identifiers (E20, 7-2) and
   the kind of answer it asks for (duration, money, number, date, person, or free-form).
2. Split every passage into units: sentences, and table rows paired with their header.
3. A unit is eligible only if its context (section path + table header + unit) holds every
   identifier of the question, the unit itself holds the asked kind of thing (a "how many
   days" question needs a number with a time unit), the context covers at least
   `MIN_COVERAGE` of the question's topic weight, and it misses at most one in four of
   the question's topic words that the knowledge base does contain (a sentence about the
   washing-machine motor does not answer a question about oil capacity of that motor),
   and it names no rival of a question's qualifier in its place (monthly vs annual).
4. Lexical score = 0.55 * context coverage + 0.25 * unit coverage + 0.20 * passage prior
   (1/rank). The best `SEMANTIC_POOL` eligible units are then re-scored with their dense
   similarity to the question (e5, rescaled to [0, 1]) so paraphrases count:
   score = 0.40 * context coverage + 0.15 * unit coverage + 0.30 * similarity + 0.15 * prior.
5. Answer with the best unit plus up to two more that score within 85% of it (or that
   continue a list the best unit introduces), in document order; no eligible unit means
   refusing: a nearby fact is not an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from core.analysis import Unit, content_terms, contrast_conflict, expected_type, identifiers, matches_type, units
from core.gate import coverage, term_weights
from core.lexical import LexicalIndex, tokenize
from core.retrieve import Candidate

MIN_COVERAGE = 0.5
RUNNER_UP = 0.85
MAX_UNITS = 3
SEMANTIC_POOL = 12
LIST_ITEMS = 4  # items taken after a unit that introduces a list
SIM_FLOOR, SIM_CEIL = 0.76, 0.90


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


class Generator(Protocol):
    def generate(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> Generation: ...


def heading_of(passage: Candidate) -> str:
    return passage.section.split(" > ")[-1] if passage.section else ""


class ExtractiveGenerator:
    """Verbatim sentences from the passages; see the module docstring for the algorithm."""

    def __init__(self, min_coverage: float = MIN_COVERAGE, embedder: Any = None,
                 missing_per: int = 4) -> None:
        self.min_coverage = min_coverage
        self.missing_per = missing_per  # one known topic word may be missing per this many
        self.embedder = embedder  # optional: adds the semantic term to the score

    def score_units(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> list[Selected]:
        weights = term_weights(content_terms(question), lexicon)
        ids = identifiers(question)
        kind = expected_type(question)
        scored: list[Selected] = []
        parts: dict[int, tuple[float, float, float]] = {}
        for number, passage in enumerate(passages, start=1):
            prior = 1.0 / max(passage.rank, 1)
            for unit in units(passage.text, heading_of(passage)):
                if unit.kind == "heading":
                    continue
                context = f"{passage.section}\n{unit.context}"
                if any(i not in context.lower() for i in ids):
                    continue
                if not matches_type(unit.text, kind):
                    continue
                ctx_tokens = set(tokenize(context, keep_stopwords=True))
                ctx_cov = coverage(weights, ctx_tokens)
                if weights and ctx_cov < self.min_coverage:
                    continue
                if contrast_conflict(question, context):
                    continue
                missing_known = [t for t in weights if t not in ctx_tokens and lexicon.df.get(t, 0) > 0]
                if len(missing_known) > len(weights) // self.missing_per:
                    continue
                unit_cov = coverage(weights, set(tokenize(unit.text, keep_stopwords=True)))
                score = 0.55 * ctx_cov + 0.25 * unit_cov + 0.20 * prior
                parts[id(unit)] = (ctx_cov, unit_cov, prior)
                scored.append(Selected(number, unit, round(score, 4)))
        scored.sort(key=lambda s: s.score, reverse=True)
        if self.embedder is not None and len(scored) > 1:
            pool = scored[:SEMANTIC_POOL]
            q = self.embedder.embed_query(question)
            vecs = self.embedder.embed_passages([s.unit.text for s in pool])
            for sel, sim in zip(pool, vecs @ q):
                ctx_cov, unit_cov, prior = parts[id(sel.unit)]
                sim01 = min(max((float(sim) - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR), 0.0), 1.0)
                sel.score = round(0.40 * ctx_cov + 0.15 * unit_cov + 0.30 * sim01 + 0.15 * prior, 4)
            scored = sorted(pool, key=lambda s: s.score, reverse=True)
        return scored

    def generate(self, question: str, passages: list[Candidate], lexicon: LexicalIndex) -> Generation:
        scored = self.score_units(question, passages, lexicon)
        if not scored:
            return Generation("", refusal_reason="No passage states what the question asks.")
        best = scored[0]
        chosen = [best]
        for cand in scored[1:]:
            if len(chosen) >= MAX_UNITS:
                break
            if cand.unit.text not in {c.unit.text for c in chosen} and cand.score >= RUNNER_UP * best.score:
                chosen.append(cand)
        for sel in list(chosen):  # "Steps:" alone answers nothing: take the items that follow
            if sel.unit.text.rstrip().endswith(":"):
                passage = passages[sel.passage - 1]
                after = [u for u in units(passage.text, heading_of(passage))
                         if u.start > sel.unit.start and u.kind != "heading"]
                have = {(c.passage, c.unit.start) for c in chosen}
                chosen += [Selected(sel.passage, u, sel.score) for u in after[:LIST_ITEMS]
                           if (sel.passage, u.start) not in have]
        chosen.sort(key=lambda s: (s.passage != best.passage, s.passage, s.unit.start))
        text = " ".join(f"{s.unit.text.rstrip()} [{s.passage}]" for s in chosen)
        return Generation(text, chosen)


GENERATORS: dict[str, type] = {"extractive": ExtractiveGenerator}
