"""Citation validation, claim verification and the guard policy.

Deterministic judge (always runs; `DeterministicJudge.judge(premise, claim)`):
1. Evidence: the premise unit (sentence or table row) sharing most words with the claim.
2. Numbers: every number in the claim must appear in the premise. A number that does not,
   where the evidence holds a different number with the same unit (or no unit on either
   side), is a contradiction ("5-6 quarts" vs "5 quarts"; "30 days" vs "14 days");
   otherwise it is unsupported.
3. Identifiers (E20, 7-2, 12.4) and names (capitalised words inside a sentence) of the
   claim must appear in the premise, else unsupported.
4. Content words: at least 75% of the claim's topic words (stemmed) must be in the premise.
5. Negation: a claim and its evidence that disagree on negation ("refundable" vs
   "non-refundable") are contradicted.
6. score = 1.0 when supported; the share of passed checks otherwise (0 for contradictions).
A model judge (NLI or LLM) can be registered in JUDGES and runs after this one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from core.analysis import (
    Unit,
    has_negation,
    identifiers,
    looks_like_instruction,
    number_units,
    proper_names,
    units,
)
from core.lexical import tokenize
from core.schema import Claim

MARKER_RE = re.compile(r"\s*((?:\[\d+\])+)")
MAX_CLAIMS = 10
CONTENT_SHARE = 0.75


@dataclass
class Verdict:
    verdict: str  # supported | unsupported | contradicted
    score: float
    evidence: str = ""
    checks: list[str] = field(default_factory=list)
    reason: str = ""


class Judge(Protocol):
    def judge(self, premise: str, claim: str) -> Verdict: ...


def strip_markers(text: str) -> str:
    return MARKER_RE.sub("", text).strip()


def split_claims(answer: str) -> list[tuple[str, list[int]]]:
    """Claims = the text segments each closed by [n] markers; trailing uncited text too."""
    claims: list[tuple[str, list[int]]] = []
    pos = 0
    for m in MARKER_RE.finditer(answer):
        text = answer[pos : m.start()].strip().lstrip(".;,").strip()
        refs = [int(n) for n in re.findall(r"\d+", m.group(1))]
        if text:
            claims.append((text, refs))
        elif claims:
            claims[-1][1].extend(r for r in refs if r not in claims[-1][1])
        pos = m.end()
    rest = answer[pos:].strip().lstrip(".;,").strip()
    if rest and re.search(r"\w", rest):
        claims.append((rest, []))
    return claims[:MAX_CLAIMS]


def evidence_unit(premise: str, claim: str, heading: str = "") -> tuple[Unit | None, float]:
    """The premise unit (sentence or table row) sharing most words with the claim, and the
    share of the claim's words it holds. Text addressed to a model is never evidence."""
    claim_tokens = set(tokenize(claim))
    best, best_overlap = None, 0.0
    for unit in units(premise, heading):
        line_start = premise.rfind("\n", 0, unit.start) + 1
        line_end = premise.find("\n", unit.end)
        if unit.kind == "heading" or looks_like_instruction(
                premise[line_start:line_end if line_end >= 0 else len(premise)]):
            continue
        overlap = len(claim_tokens & set(tokenize(unit.context))) / (len(claim_tokens) or 1)
        if best is None or overlap > best_overlap:
            best, best_overlap = unit, overlap
    return best, best_overlap


def _evidence(premise: str, claim: str) -> str:
    unit, _ = evidence_unit(premise, claim)
    return unit.quote if unit else premise[:300]


def _is_unit(word: str) -> bool:
    """Short or unit-like words after a number (quart, litr, day, %, n·m, кг)."""
    return len(word) <= 8


def _norm_num(n: str) -> set[str]:
    """A number and its parts: '5-6' also yields '5' and '6'; '4.70' yields '4.7'."""
    parts = {n}
    for p in n.split("-"):
        parts.add(p)
        if "." in p:
            parts.add(p.rstrip("0").rstrip("."))
    return parts


class DeterministicJudge:
    def judge(self, premise: str, claim: str) -> Verdict:
        claim = strip_markers(claim)
        evidence = _evidence(premise, claim)
        checks: list[str] = []
        failures: list[str] = []
        contradiction: str | None = None

        premise_nums = number_units(premise)
        premise_values = {n for n, _ in premise_nums}
        evidence_nums = number_units(evidence)
        for num, unit in number_units(claim):
            checks.append("numbers")
            if num in premise_values:
                units_there = {u for n, u in premise_nums if n == num and u}
                if unit and units_there and unit not in units_there and _is_unit(unit):
                    failures.append(f"{num} {unit} (the source has {num} {sorted(units_there)[0]})")
                continue
            rivals = [n for n, u in evidence_nums if n != num and (u == unit or not u or not unit)]
            if rivals and not (_norm_num(num) & {p for r in rivals for p in _norm_num(r)} and "-" not in num):
                contradiction = f"The claim says {num} {unit}".rstrip() + f" but the source says {rivals[0]}."
            else:
                failures.append(f"{num} {unit}".strip())

        low_premise = premise.lower()
        for ident in identifiers(claim):
            checks.append("identifiers")
            if ident not in low_premise:
                failures.append(ident.upper())
        premise_tokens = set(tokenize(premise, keep_stopwords=True))
        for name in proper_names(claim):
            checks.append("entities")
            if not set(tokenize(name, keep_stopwords=True)) <= premise_tokens:
                failures.append(name)

        words = [t for t in tokenize(claim) if len(t) >= 4 and not t[0].isdigit()]
        if words:
            checks.append("content")
            share = sum(1 for t in words if t in premise_tokens) / len(words)
            if share < CONTENT_SHARE:
                failures.append(f"{round((1 - share) * 100)}% of its words")

        checks.append("negation")
        if has_negation(claim) != has_negation(evidence):
            contradiction = contradiction or "The claim and the source disagree on negation."

        checks = sorted(set(checks))
        if contradiction:
            return Verdict("contradicted", 0.0, evidence, checks, contradiction)
        if failures:
            score = round(1 - len(failures) / (len(failures) + len(checks)), 3)
            return Verdict(
                "unsupported", score, evidence, checks, "Not in the cited text: " + ", ".join(failures) + "."
            )
        return Verdict("supported", 1.0, evidence, checks, "")


JUDGES: dict[str, type] = {"deterministic": DeterministicJudge}


def verify_pair(premise: str, claim: str, judge: Judge | None = None) -> Verdict:
    """Check one claim against one premise (the `verify --batch` CLI)."""
    return (judge or DeterministicJudge()).judge(premise, claim)


def validate_citations(answer: str, n_passages: int) -> list[str]:
    """Problems with the markers: sentences without one, markers out of range. Empty = valid."""
    problems = []
    for text, refs in split_claims(answer):
        if not refs:
            problems.append(f"no citation: {text[:60]}")
        problems.extend(f"marker [{r}] points to no passage" for r in refs if not 1 <= r <= n_passages)
    return problems


def verify_answer(answer: str, passages: list[str], judge: Judge | None = None) -> list[Claim]:
    """Split an answer into claims and check each against the passage(s) it cites."""
    judge = judge or DeterministicJudge()
    claims: list[Claim] = []
    for text, refs in split_claims(answer):
        cited = [passages[r - 1] for r in refs if 1 <= r <= len(passages)]
        if not cited:
            claims.append(Claim(text, refs, "unsupported", 0.0, "", ["citation"], "No valid citation."))
            continue
        verdicts = [judge.judge(p, text) for p in cited]
        best = max(verdicts, key=lambda v: (v.verdict == "supported", v.score))
        claims.append(Claim(text, refs, best.verdict, best.score, best.evidence, best.checks, best.reason))
    return claims


@dataclass
class GuardDecision:
    status: str  # answered | narrowed | refused | fallback
    answer: str
    claims: list[Claim]
    reason: str | None = None


def guard(answer: str, claims: list[Claim], strict_mode: bool, quotes_only: str = "") -> GuardDecision:
    """0 unsupported -> answered; 1 -> drop it, narrowed if something is left;
    2+ or nothing left -> refused, or quotes only (fallback) in strict mode."""
    bad = [c for c in claims if c.verdict != "supported"]
    good = [c for c in claims if c.verdict == "supported"]
    if not bad and good:
        return GuardDecision("answered", answer, claims)
    if len(bad) == 1 and good:
        text = " ".join(f"{c.text} " + "".join(f"[{r}]" for r in c.citations) for c in good)
        return GuardDecision("narrowed", text, good, f"Dropped an unsupported claim: {bad[0].text[:80]}")
    reason = f"{len(bad)} claim(s) were not supported by the cited passages."
    if strict_mode and quotes_only:
        return GuardDecision("fallback", quotes_only, [], reason)
    return GuardDecision("refused", "", claims, reason)
