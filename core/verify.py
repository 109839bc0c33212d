"""Citation validation, claim verification and the guard policy.

Deterministic judge (always runs; `DeterministicJudge.judge(premise, claim)`). A claim is
checked against its evidence span, never against the whole passage: a number, code or name
that the passage states only about another subject supports nothing.
1. Units: the passage's sentences and table rows. A unit's scope is the unit with what
   gives it its subject: the passage's heading (its first line when that is a title) and,
   for a row, the table's header row. Text addressed to a model is never evidence.
2. A claim is supported when one unit's scope passes every check below (so a verbatim
   sentence or a row quoted as "Header: value; Header: value" always is), else when a
   sentence and the next one of its paragraph do together, the next one taking its subject
   from it ("It does not apply to renewals."), and neither disagrees with the claim (step 4);
   or when the claim is consecutive sentences of one paragraph, word for word (a step of
   a procedure: "2. Open the form. Sign the last page.").
3. Checks, against the scope:
   - Numbers: every number of the claim must be there, with the claim's unit. A number
     that is not, where the scope holds a different number with the same unit (or no unit
     on either side), is a contradiction ("5-6 hours" vs "5 hours"; "30 days" vs
     "14 days"); otherwise it is unsupported.
   - Identifiers (ERR-20, 7-2, 12.4) and names (capitalised words inside a sentence) of the
     claim must be there, else unsupported.
   - Content: at least 75% of the claim's topic words (stemmed; not the words that only
     give a sentence its form: means, takes, has) must be there, and a
     missing one may not come from another unit that disagrees with the claim (the claim
     took its subject from there: "Contractors" from "Contractors are not eligible"), nor
     stand where the unit has other words, the rest of the sentence the unit's
     ("ADMINISTRATORS are locked out ..." of "STANDARD USERS are locked out ...").
   - Negation: a claim and the unit's own words that disagree on negation ("eligible"
     vs "not eligible") are contradicted.
4. Disagreement (for step 2 and the content check): a rival number with the claim's unit,
   a code of the claim's shape other than the claim's (ERR-20 for ERR-30),
   and, for a single unit, negation.
5. Not supported: the verdict and evidence of the unit sharing most words with the claim;
   score = the share of passed checks (0 for contradictions); 1.0 when supported.
A model judge (NLI or LLM) can be registered in JUDGES and runs after this one, reading
`Verdict.focus` (the evidence span; a row with its header).

Answers are verified up to MAX_CLAIMS claims (DESIGN, Ask step 5); a claim past the limit is
not checked and counts as unsupported, so the guard narrows (one) or refuses (two or more).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Protocol

from core.answer.facts import (
    TOKEN_RE,
    excluded_stems,
    excludes,
    has_negation,
    identifiers,
    join_thousands,
    number_units,
    proper_names,
    says_no,
    tokens,
)
from core.answer.safety import looks_like_instruction
from core.answer.units import Unit, units
from core.lang import DEFAULT, LANGUAGES, Language
from core.lexical import tokenize
from core.schema import Claim

MARKER_RE = re.compile(r"\s*((?:\[\d+\])+)")
ONE_MARKER_RE = re.compile(r"\[(\d+)\]")
# A word joiner inside a document's own bracketed number ("see note [12]", ":red[1200]")
# keeps it as the document wrote it on screen and out of reach of the marker patterns:
# quoted as it stands, "[12]" would be read as a citation of passage 12.
_JOINER = "\u2060"
MAX_CLAIMS = 10
# words of asking, not of content: a claim need not find them in its source
_FILLER = frozenset(tokenize(" ".join(w for lang in LANGUAGES.values() for w in lang.filler), keep_stopwords=True))
CONTENT_SHARE = 0.75
HEADING_WORDS = 12  # a passage's first line longer than this is text, not its heading
# a sentence that takes its subject from the one before: "It does not apply to renewals."
ANAPHORA_RE = re.compile(
    r"^(?:it|its|they|their|them|this|these|those|that|such|he|she|his|her|both|either|neither|"
    r"он|она|оно|они|его|её|ее|их|это|этот|эта|эти|этого|этой|такой|такая|такие|там|тогда)\b",
    re.IGNORECASE)


@dataclass
class Verdict:
    verdict: str  # supported | unsupported | contradicted
    score: float
    evidence: str = ""
    checks: list[str] = field(default_factory=list)
    reason: str = ""
    focus: str = ""  # the evidence span as a model judge should read it (a row with its header)
    # unsupported only because its words are not the passage's (a paraphrase may be right):
    # no number, unit, identifier, name or negation disagrees, so a model judge may decide
    soft: bool = False


class Judge(Protocol):
    def judge(self, premise: str, claim: str) -> Verdict: ...


def quotable(text: str) -> str:
    """Document text as it may stand in an answer: its bracketed numbers are not markers."""
    return ONE_MARKER_RE.sub(lambda m: f"[{_JOINER}{m.group(1)}]", text)


def strip_markers(text: str) -> str:
    return MARKER_RE.sub("", text).strip()


def split_claims(answer: str) -> list[tuple[str, list[int]]]:
    """Claims = the text segments each closed by [n] markers; trailing uncited text too.
    All of them: `verify_answer` applies the MAX_CLAIMS limit."""
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
    return claims


def reattribute_markers(answer: str, passages: list[str]) -> tuple[str, int]:
    """A model's answer with each claim's markers moved to the passage that states it, when
    none of the passages it cites does and another one does (the deterministic checks decide
    both); (the answer, how many claims were moved). A small model often cites the passage
    next to the right one; that is a wrong marker, not a wrong answer."""
    judge = DeterministicJudge()

    def states(n: int, claim: str) -> bool:
        return 1 <= n <= len(passages) and judge.judge(passages[n - 1], claim).verdict == "supported"

    out, pos, moved = [], 0, 0
    for m in MARKER_RE.finditer(answer):
        claim = answer[pos : m.start()].strip().lstrip(".;,").strip()
        refs = [int(n.group(1)) for n in ONE_MARKER_RE.finditer(m.group(1))]
        marker = m.group(0)
        if claim and not any(states(r, claim) for r in refs):
            holder = next((n for n in range(1, len(passages) + 1) if states(n, claim)), None)
            if holder is not None:
                marker, moved = f" [{holder}]", moved + 1
        out.append(answer[pos : m.start()] + marker)
        pos = m.end()
    out.append(answer[pos:])
    return "".join(out), moved


def evidence_unit(premise: str, claim: str, heading: str = "") -> tuple[Unit | None, float]:
    """The premise unit (sentence or table row) sharing most words with the claim, and the
    share of the claim's words it holds. Text addressed to a model is never evidence."""
    claim_tokens = set(tokenize(claim))
    best, best_overlap = None, 0.0
    for unit in units(premise, heading):
        if unit.kind == "heading" or looks_like_instruction(_line(premise, unit)):
            continue
        overlap = len(claim_tokens & set(tokenize(unit.context))) / (len(claim_tokens) or 1)
        if best is None or overlap > best_overlap:
            best, best_overlap = unit, overlap
    return best, best_overlap


def _line(text: str, unit: Unit) -> str:
    start = text.rfind("\n", 0, unit.start) + 1
    end = text.find("\n", unit.end)
    return text[start : end if end >= 0 else len(text)]


def passage_heading(premise: str) -> str:
    """The passage's first line when it is a title (chunks begin with their section's
    heading): short, not a table row, not ending like a sentence, with text after it."""
    first, _, rest = premise.partition("\n")
    first = first.strip()
    if (not first or not rest.strip() or first.startswith("|") or len(first.split()) > HEADING_WORDS
            or (first[-1] in ".!?;:," and not first.startswith("#"))):
        return ""
    return first


def _is_unit(word: str) -> bool:
    """Short or unit-like words after a number (hour, day, %, eur, кг)."""
    return len(word) <= 8


def _norm_num(n: str) -> set[str]:
    """A number and its parts: '5-6' also yields '5' and '6'; '4.70' yields '4.7'."""
    parts = {n}
    for p in n.split("-"):
        parts.add(p)
        if "." in p:
            parts.add(p.rstrip("0").rstrip("."))
    return parts


def _id_shape(ident: str) -> str:
    return re.sub(r"\d+", "0", ident)


@dataclass
class _Span:
    """Evidence: one unit, or two adjacent sentences, with what gives them their subject."""

    scope: str  # heading (+ table header) + the unit(s): what the checks read
    said: str  # the unit(s)' own words: negation is read here, not in a heading
    quote: str  # exact substring of the premise
    focus: str  # what a model judge reads
    start: int
    end: int
    paragraph: int  # index of the premise line; -1 for a table row
    kind: str

    def __post_init__(self) -> None:
        self.tokens = set(tokenize(self.scope, keep_stopwords=True))
        self.nums = number_units(self.scope)
        self.ids = identifiers(join_thousands(self.scope))  # "50 000" is no code "000"
        self.low = join_thousands(self.scope).lower()


@dataclass
class _Facts:
    """What the claim asserts, computed once."""

    text: str
    tokens: set[str]
    nums: list[tuple[str, str]]
    ids: set[str]
    names: set[str]
    words: list[str]
    negated: bool

    @classmethod
    def of(cls, claim: str) -> _Facts:
        return cls(claim, set(tokenize(claim)), number_units(claim), identifiers(join_thousands(claim)),
                   proper_names(claim),
                   [t for t in tokenize(claim) if len(t) >= 4 and not t[0].isdigit() and t not in _FILLER],
                   has_negation(claim))


def _spans(premise: str) -> list[_Span]:
    heading = passage_heading(premise)
    out = []
    for unit in units(premise, heading):
        if looks_like_instruction(_line(premise, unit)):
            continue
        paragraph = premise.count("\n", 0, unit.start)
        if unit.kind == "row":
            out.append(_Span(f"{unit.context}\n{unit.text}", unit.text, unit.quote, unit.context,
                             unit.start, unit.end, -1, "row"))
        else:
            out.append(_Span(unit.context, unit.text, unit.quote, unit.text, unit.start, unit.end,
                             paragraph, unit.kind))
    return out


def _joined(premise: str, a: _Span, b: _Span) -> _Span:
    heading = passage_heading(premise)
    said = premise[a.start : b.end]
    return _Span(f"{heading}\n{said}", said, said, said, a.start, b.end, a.paragraph, "sentences")


def _overlap(facts: _Facts, span: _Span) -> float:
    return len(facts.tokens & span.tokens) / (len(facts.tokens) or 1)


def _rival_number(facts: _Facts, span: _Span, num: str, unit: str) -> str | None:
    """A different number with the claim's unit (or no unit on either side) in the span."""
    rivals = [n for n, u in span.nums if n != num and (u == unit or not u or not unit)]
    if rivals and not (_norm_num(num) & {p for r in rivals for p in _norm_num(r)} and "-" not in num):
        return rivals[0]
    return None


def _disagreement(facts: _Facts, span: _Span, negation: bool) -> str | None:
    """Step 4 of the module docstring: why the span says something else than the claim."""
    values = {n for n, _ in span.nums}
    for num, unit in facts.nums:
        if num not in values:
            rival = _rival_number(facts, span, num, unit)
            if rival:
                return f"The claim says {as_written(facts.text, num, unit)} but the source says {rival}."
    for ident in facts.ids:
        if ident not in span.low:
            rival = next((i for i in sorted(span.ids) if _id_shape(i) == _id_shape(ident)
                          and i not in facts.ids), None)
            if rival:
                return f"The claim names {ident.upper()} but the source's sentence is about {rival.upper()}."
    if negation and facts.negated != has_negation(span.said):
        return "The claim and the source disagree on negation."
    return None


def as_written(text: str, num: str, unit: str) -> str:
    """A number and its unit as the text writes them ("30 дней", not the stem "30 дне"; "4 GB",
    not "4 gb")."""
    written = TOKEN_RE.findall(text)
    words = [w.lower() for w in written]
    for i, word in enumerate(words[:-1]):
        if word == num and (tokenize(words[i + 1], keep_stopwords=True)[:1] or [words[i + 1]])[0] == unit:
            return f"{num} {written[i + 1]}"
    return f"{num} {unit}".strip()


SWAP_WORDS = 3  # words on either side of a swap: a longer difference is a rewording


def swapped_words(claim: str, said: str, missing: set[str]) -> tuple[str, str] | None:
    """(the claim's words, the source's) where the claim says the source's sentence with a
    few words swapped for others, one of them a `missing` content stem: "ADMINISTRATORS
    are locked out after 5 failed attempts" of "STANDARD USERS are locked out ...", «в
    ПОСЛЕДНИЙ рабочий день» of «в ПЕРВЫЙ рабочий день». Three content words in four
    passed the content share, so a swapped subject or qualifier read as supported; the
    words around the swap must be the source's and the source's words missing from the
    claim altogether, so a rewording ("the tank holds 40 litres of water" of "the water
    volume is 40 litres") is not called one."""
    claim_words, said_words = tokens(claim), tokens(said)
    stems = [tokenize(w, keep_stopwords=True)[:1] or [w] for w in claim_words]
    said_stems = [tokenize(w, keep_stopwords=True)[:1] or [w] for w in said_words]
    matcher = SequenceMatcher(None, [s[0] for s in stems], [s[0] for s in said_stems], autojunk=False)
    blocks = matcher.get_opcodes()
    for n, (op, i1, i2, j1, j2) in enumerate(blocks):
        if op != "replace" or i2 - i1 > SWAP_WORDS or j2 - j1 > SWAP_WORDS:
            continue
        if not any(stems[i][0] in missing for i in range(i1, i2)):
            continue
        claimed = {st[0] for st in stems}
        if any(said_stems[j][0] in claimed for j in range(j1, j2)):
            continue  # the source's words stand elsewhere in the claim: reordered, not swapped
        if not any(len(t) >= 4 for j in range(j1, j2) for t in tokenize(said_words[j])):
            continue  # a verb for "is": no content of the source's was swapped
        beside = [b for b in (blocks[n - 1] if n else None, blocks[n + 1] if n + 1 < len(blocks) else None) if b]
        if any(b[0] == "equal" for b in beside):
            return " ".join(claim_words[i1:i2]), " ".join(said_words[j1:j2])
    return None


def _check(facts: _Facts, span: _Span, others: list[_Span]) -> tuple[str | None, list[str], list[str], bool]:
    """(contradiction, failures, checks, hard) of the claim against one span (step 3); `hard`:
    a failure beyond wording (a number, unit, identifier, name, or a word borrowed from
    another sentence)."""
    checks: list[str] = []
    failures: list[str] = []
    contradiction: str | None = None
    wording_failures = 0

    values = {n for n, _ in span.nums}
    for num, unit in facts.nums:
        checks.append("numbers")
        if num in values:
            units_there = {u for n, u in span.nums if n == num and u}
            if unit and units_there and unit not in units_there and _is_unit(unit):
                failures.append(f"{as_written(facts.text, num, unit)} (the source has "
                                f"{as_written(span.scope, num, sorted(units_there)[0])})")
            continue
        rival = _rival_number(facts, span, num, unit)
        if rival:
            contradiction = contradiction or f"The claim says {as_written(facts.text, num, unit)} but the source says {rival}."
        else:
            failures.append(as_written(facts.text, num, unit))

    for ident in sorted(facts.ids):
        checks.append("identifiers")
        if ident not in span.low:
            rival = next((i for i in sorted(span.ids) if _id_shape(i) == _id_shape(ident)
                          and i not in facts.ids), None)
            failures.append(ident.upper() + (f" (the sentence is about {rival.upper()})" if rival else ""))
    for name in sorted(facts.names):
        checks.append("entities")
        if not set(tokenize(name, keep_stopwords=True)) <= span.tokens:
            failures.append(name)

    share = 1.0
    if facts.words:
        checks.append("content")
        missing = [t for t in facts.words if t not in span.tokens]
        share = 1 - len(missing) / len(facts.words)
        if share < CONTENT_SHARE:
            failures.append(f"{round((1 - share) * 100)}% of its words")
            wording_failures += 1
        elif missing and (swap := swapped_words(facts.text, span.said, set(missing))):
            failures.append(f"“{swap[0]}” where the source says “{swap[1]}”")
            wording_failures += 1
        if not excludes(facts.text) and (left_out := excluded_stems(span.said) & facts.tokens):
            # "enter by the main door" of "enter by the side door instead of the main door"
            word = next(w for w in TOKEN_RE.findall(facts.text) if set(tokenize(w)) & left_out)
            failures.append(f"“{word}”, which the source names only to leave it out")
            wording_failures += 1
        lender = next(((t, o) for t in missing for o in others
                       if t in o.tokens and _disagreement(facts, o, negation=True)), None)
        if lender:
            failures.append(f"“{lender[0]}”, which the passage says of something else")
            if not _disagreement(facts, lender[1], negation=False):
                wording_failures += 1  # only its polarity differs: as weak as any negation mismatch

    checks.append("negation")
    span_negated = has_negation(span.said)
    if span_negated and not facts.negated:
        # only a no about what the claim says: "valid for a maximum of 8 hours" of "... 8 hours
        # and never past the end of the shift" leaves a clause out, it flips nothing (QA pass)
        span_negated = says_no(span.said, frozenset(facts.tokens))
    if facts.negated != span_negated:
        if share >= CONTENT_SHARE:  # the same words with the polarity flipped: "X is (not) Y"
            contradiction = contradiction or "The claim and the source disagree on negation."
        else:  # a rewording ("may not be used" said as "is forbidden"): no evidence either way
            failures.append("its negation")
            wording_failures += 1
    return contradiction, failures, sorted(set(checks)), len(failures) > wording_failures


class DeterministicJudge:
    def judge(self, premise: str, claim: str) -> Verdict:
        claim = strip_markers(claim)
        facts = _Facts.of(claim)
        spans = _spans(premise)
        if not spans:
            return Verdict("unsupported", 0.0, premise[:300], ["content"], "The cited text states nothing.")
        spans.sort(key=lambda s: -_overlap(facts, s))  # stable: ties keep the passage's order
        results = []
        for span in spans:  # step 2: one unit that states it all
            others = [o for o in spans if o is not span]
            contradiction, failures, checks, hard = _check(facts, span, others)
            if not contradiction and not failures:
                return Verdict("supported", 1.0, span.quote, checks, "", span.focus)
            results.append((span, contradiction, failures, checks, hard))
        ordered = sorted(spans, key=lambda s: s.start)
        for a, b in zip(ordered, ordered[1:]):  # two adjacent sentences of one paragraph
            if (a.kind != "sentence" or b.kind != "sentence" or a.paragraph != b.paragraph
                    or not ANAPHORA_RE.match(b.said.lstrip("\"'“«( "))):
                continue
            if _disagreement(facts, a, negation=False) or _disagreement(facts, b, negation=False):
                continue
            pair = _joined(premise, a, b)
            others = [o for o in spans if o is not a and o is not b]
            contradiction, failures, checks, _ = _check(facts, pair, others)
            if not contradiction and not failures:
                return Verdict("supported", 1.0, pair.quote, checks, "", pair.focus)
        claim_words = " ".join(claim.split())
        for i, a in enumerate(ordered):  # consecutive sentences of one paragraph, verbatim
            for b in ordered[i + 1:]:
                if a.kind != "sentence" or b.kind != "sentence" or b.paragraph != a.paragraph:
                    break
                if " ".join(premise[a.start:b.end].split()) == claim_words:
                    run = _joined(premise, a, b)
                    contradiction, failures, checks, _ = _check(facts, run, [o for o in spans if o.end <= a.start
                                                                             or o.start >= b.end])
                    if not contradiction and not failures:
                        return Verdict("supported", 1.0, run.quote, checks, "", run.focus)
        # step 5: the verdict of the closest unit (the first: sorted by overlap)
        span, contradiction, failures, checks, hard = results[0]
        if contradiction:
            return Verdict("contradicted", 0.0, span.quote, checks, contradiction, span.focus)
        score = round(1 - len(failures) / (len(failures) + len(checks)), 3)
        return Verdict("unsupported", score, span.quote, checks,
                       "Not in the cited text: " + ", ".join(failures) + ".", span.focus, soft=not hard)


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
    """Split an answer into claims and check each against the passage(s) it cites; claims
    past MAX_CLAIMS are not checked and count as unsupported (the guard then narrows or
    refuses: nothing reaches the user unchecked)."""
    judge = judge or DeterministicJudge()
    claims: list[Claim] = []
    for i, (text, refs) in enumerate(split_claims(answer)):
        if i >= MAX_CLAIMS:
            claims.append(Claim(text, refs, "unsupported", 0.0, "", ["limit"],
                                f"Not checked: an answer is verified up to {MAX_CLAIMS} claims."))
            continue
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


def guard(answer: str, claims: list[Claim], strict_mode: bool, quotes_only: str = "",
          lang: Language | None = None) -> GuardDecision:
    """0 unsupported -> answered; 1 -> drop it, narrowed if something is left;
    2+ or nothing left -> refused, or quotes only (fallback) in strict mode. The reason is
    said in `lang`, the question's (English when None)."""
    lang = lang or LANGUAGES[DEFAULT]
    bad = [c for c in claims if c.verdict != "supported"]
    good = [c for c in claims if c.verdict == "supported"]
    if not bad and good:
        return GuardDecision("answered", answer, claims)
    if len(bad) == 1 and good:
        text = " ".join(f"{c.text} " + "".join(f"[{r}]" for r in c.citations) for c in good)
        return GuardDecision("narrowed", text, good, lang.say("dropped_claim", claim=bad[0].text[:80]))
    reason = lang.say("unsupported_claims", count=len(bad))
    if strict_mode and quotes_only:
        return GuardDecision("fallback", quotes_only, [], reason)
    return GuardDecision("refused", "", claims, reason)
