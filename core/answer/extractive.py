"""The embedded default generator: verbatim units chosen by the learned answer model.

1. Parse the question once (core/answer/question.py) and embed it.
2. Split the passages into units (sentences, table rows with their header).
3. Hard vetoes, the only rules: a unit addressing a model ("ignore previous
   instructions"), or sharing its paragraph with such text, is never quoted; a unit whose
   context lacks a code of the question (ERR-20, 7-2; a bare value is none) cannot answer it; nor can a
   unit that speaks only of another row of a table than the one the question names, nor one
   that names a sibling of a name the question asks about ("Wave Unlimited" for "Wave Max").
4. Score every other unit with the unit model over general signals (core/answer/signals.py).
5. A top-ranked unit on the question's topic that contradicts its premise (core/answer/
   premise.py) is quoted alone as a correction.
6. The answer model turns the best units' scores and signals into the answer confidence
   (`support`); the pipeline refuses below the tenant's threshold.
7. Otherwise quote the best unit, plus runners-up within `runner_up` of it (from another
   passage, within `runner_up_other_passage`; at most `MAX_UNITS`),
   plus the items of a list the best unit introduces ("...as follows:"), in document order.
8. A quoted prohibition about what the question asks (it opens with its negation) is quoted
   first (premise.denials_first); the quoted set is the same.
9. A quoted table row another document gives other values for is quoted with that row, the
   one in force first (core/answer/differing.py).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from core.answer.brackets import in_bracket
from core.answer.columns import asked_column_first
from core.answer.differing import in_force_first, rival_rows
from core.answer.lookup import is_lookup
from core.answer.model import AnswerModel, load_model
from core.answer.parallel import parallel_units
from core.answer.premise import correction, denials_first, outdated_value
from core.answer.question import Question
from core.answer.result import Generation, Selected
from core.answer.safety import looks_like_instruction
from core.answer.siblings import name_runs, names_a_sibling
from core.answer.signals import Scored, paragraph_of, signals, unit_candidates, windows
from core.answer.units import Unit, units
from core.answer.vectors import unit_vectors
from core.answer_vectors import AnswerVectors
from core.lang import LANGUAGES, Language
from core.lexical import LexicalIndex
from core.reference import quoted_section_amended, section_reading
from core.retrieve import Candidate
from core.verify import quotable

MAX_UNITS = 3
LIST_ITEMS = 6  # items quoted after a unit that introduces a list
SHOWN = 5  # top candidates kept for the trace


def answer_signals(ranked: list[Scored]) -> dict[str, float]:
    """Question-level signals for the answer model, from the ranked candidates."""
    best = ranked[0]
    second = ranked[1].score if len(ranked) > 1 else 0.0
    s = best.signals
    return {"p_best": best.score, "p_gap": best.score - second, "p_second": second,
            "sim_unit": s["sim_unit"], "sim_passage": max(r.signals["sim_passage"] for r in ranked[:5]),
            "lex_context": s["lex_context"], "ask_context": s["ask_context"],
            "lex_passage": max(r.signals["lex_passage"] for r in ranked[:5]),
            "rare_context": s["rare_context"], "rare_passage": max(r.signals["rare_passage"] for r in ranked[:5]),
            "unknown_share": s["unknown_share"], "type_match": s["type_match"], "typed": s["typed"],
            "numbers_missing": s["numbers_missing"], "cross_language": s["cross_language"],
            "sim_window": s["sim_window"], "lex_unit": s["lex_unit"], "rank_prior": s["rank_prior"],
            "dense_prior": s["dense_prior"], "bm25_prior": s["bm25_prior"],
            # several strong candidates: the question is broad or the passages disagree
            "n_strong": min(sum(1 for r in ranked if r.score >= 0.5), 5) / 5,
            "typed_match": s["typed"] * s["type_match"], "ask_unknown": s["ask_unknown"],
            "unknown_same_language": s["unknown_same_language"], "rare_terms_context": s["rare_terms_context"],
            "focus_context": s["focus_context"], "focus_passage": s["focus_passage"],
            "focus_unknown": s["focus_unknown"],
            "focus_any_passage": max(r.signals["focus_passage"] for r in ranked[:5]),
            "row_key_match": s["row_key_match"]}


def admissible_units(question: Question, passages: list[Candidate], lexicon: LexicalIndex,
                     embedder: Any, stored: AnswerVectors | None = None) -> tuple[list[Scored], list[dict[str, Any]]]:
    """Every unit that passes the hard vetoes, with its signals (not yet scored); and the
    vetoed ones with the reason. Unit vectors come from `stored` when it holds them."""
    rejected: list[dict[str, Any]] = []
    kept: list[tuple[int, Unit]] = []
    poisoned = {n for n, p in enumerate(passages, 1) if looks_like_instruction(p.text)}
    for number, unit in unit_candidates(passages):
        if number in poisoned and looks_like_instruction(paragraph_of(passages[number - 1].text, unit)):
            rejected.append({"passage": number, "text": unit.text[:200], "why": "text aimed at a model"})
            continue
        kept.append((number, unit))
    if not kept:
        return [], rejected
    owners = [passages[n - 1].doc_id for n, _ in kept]
    texts = windows(passages, kept)
    # units and their windows in one lookup (and at most one embedding call)
    both = unit_vectors(embedder, [u.text for _, u in kept] + texts, stored, owners + owners)
    admissible = []
    asked_names = name_runs(question.asking)
    for s in signals(question, passages, lexicon, both[:len(kept)], kept, both[len(kept):], texts):
        if s.signals["ids_missing"] > 0:
            rejected.append({"passage": s.passage, "text": s.unit.text[:200],
                             "why": "lacks an identifier of the question"})
        elif s.signals["row_key_match"] == 0.0:
            # the question picks one row of a table ("part-time"); this unit speaks of another
            rejected.append({"passage": s.passage, "text": s.unit.text[:200],
                             "why": "speaks of another row of its table than the question names"})
        elif names_a_sibling(asked_names, s.unit):  # "Wave Unlimited" for "Wave Max" (core/answer/siblings.py)
            rejected.append({"passage": s.passage, "text": s.unit.text[:200],
                             "why": "names another member of the family the question names"})
        else:
            admissible.append(s)
    return admissible, rejected


def rank_units(question: Question, passages: list[Candidate], lexicon: LexicalIndex, embedder: Any,
               model: AnswerModel, stored: AnswerVectors | None = None) -> tuple[list[Scored], list[dict[str, Any]]]:
    """Every admissible unit scored by the unit model, best first; and the vetoed ones."""
    admissible, rejected = admissible_units(question, passages, lexicon, embedder, stored)
    if admissible:
        probs = model.unit.proba(model.unit.matrix([s.signals for s in admissible]))
        for s, p in zip(admissible, probs):
            s.score = float(p)
    admissible.sort(key=lambda s: -s.score)
    return admissible, rejected


class LearnedExtractive:
    """Verbatim units chosen and judged by the answer model (see the module docstring)."""

    def __init__(self, embedder: Any = None, synonyms: Any = (), model: AnswerModel | None = None,
                 stored: AnswerVectors | None = None, today: date | None = None) -> None:
        self.embedder = embedder
        self.today = today  # what "valid until" is read against; None: the day of the ask
        self.stored = stored  # the tenant's prepared unit vectors (core/answer_vectors.py)
        self.synonyms = synonyms
        self.model = model or load_model()

    def generate(self, question: str | Question, passages: list[Candidate], lexicon: LexicalIndex) -> Generation:
        q = question if isinstance(question, Question) else Question.parse(question)
        if q.vector is None:
            q.vector = self.embedder.embed_query(q.text)
        reading = section_reading(q.text, passages)
        if reading is not None and reading.ambiguous:
            return Generation("", refusal_reason=q.lang.say("ambiguous_section", ref=reading.ref,
                                                             documents=", ".join(reading.ambiguous)))
        if reading is not None and not reading.narrowed and not any(looks_like_instruction(
                paragraph_of(passages[reading.passage - 1].text, u)) for u in reading.units):
            # "What does para 7-2 say?" names its answer's place: the section is read out
            # (core/reference.py); its number matched exactly, so the confidence is full
            chosen = [Selected(reading.passage, u, 1.0) for u in reading.units]
            if reading.amended_by:  # another document changed the section: its words come first
                chosen = [Selected(n, u, 1.0) for n, u in reading.amended_by] + chosen
                amender = passages[reading.amended_by[0][0] - 1].source
                return Generation(render(chosen), chosen, support=1.0, amended=q.lang.say(
                    "amended", amender=amender, ref=reading.ref, source=passages[reading.passage - 1].source))
            return Generation(render(chosen), chosen, support=1.0)
        ranked, rejected = rank_units(q, passages, lexicon, self.embedder, self.model, self.stored)
        if reading is not None and reading.narrowed:  # "what does clause 5.2 say about limits": inside 5.2
            starts = {u.start for u in reading.units}
            ranked = [s for s in ranked if s.passage == reading.passage and s.unit.start in starts] or ranked
        if not ranked:
            return Generation(text="", refusal_reason=q.lang.say("no_candidate"), rejected=rejected)
        qsig = answer_signals(ranked)
        support = float(self.model.answer.proba(self.model.answer.matrix([qsig]))[0])
        lookup = self.model.lookup_confidence > 0 and is_lookup(qsig, q.text)
        if lookup:  # every topic word in the quote: as often right as the development sets say
            support = max(support, self.model.lookup_confidence)
        fix = correction(q, ranked, [p.text for p in passages])
        differences: list[dict[str, Any]] = []
        amended = None
        if fix:  # the passage contradicts what the question takes for granted: say so
            unit, why = fix
            chosen = [Selected(unit.passage, unit.unit, round(unit.score, 4))]
        else:
            chosen = denials_first(q, in_bracket(q.text, choose(ranked, passages, self.model.runner_up,
                                                                self.model.runner_up_other_passage)))
            extra = parallel_units(q, chosen, ranked, passages)  # the same thing in each section
            if extra:  # the sections in the document's order, the best one among them
                chosen = sorted([chosen[0], *extra], key=lambda s: passages[s.passage - 1].ordinal) + chosen[1:]
            pairs = rival_rows(chosen, ranked, passages)
            today = self.today or date.today()
            outdated = outdated_value(q, pairs, passages, today)
            if outdated:  # the value taken for granted is one only a document out of force states
                chosen, fix = [outdated[0]], (outdated[0], outdated[1])
            else:
                chosen, differences = in_force_first(pairs, chosen, passages, today)
            chosen, amended = amendments_first(chosen, passages, q.lang)
        chosen = [Selected(s.passage, asked_column_first(q, s.unit), s.score) for s in chosen]  # the cell asked first
        shown = [{"passage": s.passage, "unit": s.unit.text[:200], "score": round(s.score, 4),
                  "signals": {k: round(v, 3) for k, v in s.signals.items()},
                  "drivers": self.model.unit.contributions(s.signals)} for s in ranked[:SHOWN]]
        shown.insert(0, {"answer_confidence": round(support, 4), "signals": {k: round(v, 3) for k, v in qsig.items()},
                         "drivers": self.model.answer.contributions(qsig), **({"lookup": True} if lookup else {})})
        return Generation(text=render(chosen), selected=chosen, support=support, rejected=rejected,
                          candidates=shown, correction=fix[1] if fix else None, ranked=ranked,
                          differences=differences, amended=amended)


def amendments_first(chosen: list[Selected], passages: list[Candidate],
                     lang: Language = LANGUAGES["en"]) -> tuple[list[Selected], str | None]:
    """The quote with another document's words changing one of its numbered clauses first,
    and the note saying so (core/reference.py `quoted_section_amended`); as it was, and
    None, when no other document among the passages changes a quoted clause."""
    for read in chosen:
        ref, changes = quoted_section_amended(read.unit.text, read.passage, passages)
        if changes:
            return ([Selected(n, u, read.score) for n, u in changes] + chosen,
                    lang.say("amended", amender=passages[changes[0][0] - 1].source, ref=ref,
                             source=passages[read.passage - 1].source))
    return chosen, None


def choose(ranked: list[Scored], passages: list[Candidate], runner_up: float,
           other_passage: float = 0.0) -> list[Selected]:
    """The best unit, runners-up close to it (closer still when from another passage: a
    unit from elsewhere reads as a rival answer), and the list the best one introduces."""
    best = ranked[0]
    picked = [best]
    for s in ranked[1:]:
        if len(picked) >= MAX_UNITS or s.score < runner_up * best.score:
            break
        if s.passage != best.passage and s.score < other_passage * best.score:
            continue
        if sibling_row(best.signals, best.passage, s.signals, s.passage):
            continue
        if all(s.unit.text != p.unit.text for p in picked):
            picked.append(s)
    out = [Selected(s.passage, s.unit, round(s.score, 4)) for s in picked]
    if best.unit.text.rstrip().endswith(":"):
        out += list_items(best, passages[best.passage - 1], {(s.passage, s.unit.start) for s in out})
    out.sort(key=lambda s: (s.passage != best.passage, s.passage, s.unit.start))
    return out


def sibling_row(best: dict[str, float], best_passage: int, other: dict[str, float], other_passage: int) -> bool:
    """Is the runner-up another row of the best row's table that holds less of the question?
    The words the best row alone holds pick it ("for a TRAINEE" against the rows of a fee
    table); its neighbours then speak of other cases, and quoting them padded the answer
    with their figures, one of them quoted first."""
    return bool(best.get("is_row") and other.get("is_row") and best_passage == other_passage
                and other.get("lex_context", 0.0) < best.get("lex_context", 0.0))


def list_items(head: Scored, passage: Candidate, have: set[tuple[int, int]]) -> list[Selected]:
    """The lines right after a unit ending in a colon: the list or steps it introduces."""
    items = []
    for unit in units(passage.text[head.unit.end:]):
        if len(items) >= LIST_ITEMS or unit.kind == "heading":
            break
        shifted = Unit(unit.text, unit.quote, unit.start + head.unit.end, unit.end + head.unit.end,
                       unit.context, unit.kind)
        if (head.passage, shifted.start) not in have:
            items.append(Selected(head.passage, shifted, round(head.score, 4)))
    return items


def render(selected: list[Selected]) -> str:
    """Each quoted unit followed by its marker."""
    return " ".join(f"{quotable(s.unit.text.rstrip())} [{s.passage}]" for s in selected)

