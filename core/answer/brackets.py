"""Table rows for a range of a quantity: keep the ones whose range holds the asked value.

A price list names its rows by brackets ("Parcel under 20 kg" / "Parcel 20 kg and
over"). Asked "My parcel weighs 32 kg. What does it cost?", quoting both rows leaves the
reader to do the matching (a QA pass: "returns both 340 and 420"). So, after the answer's
units are chosen:

1. The question (its scene too: the weight is usually said there) states exactly one
   number with a unit ("32 kg"); else nothing changes.
2. Each chosen table row's first cell may bound a number with that unit: a bound word of
   the language before it ("under 20 kg", «от 20 кг»; `Language.lower_bounds` /
   `upper_bounds`, as premise.py reads them) or after it ("20 kg and over", «20 кг и
   более»; `Language.lower_after` / `upper_after`), or a span ("20-40 kg", both ends held);
   else its fields may ("Weight from, kg: 0; Weight to, kg: 50": `field_range`). A word
   in `Language.strict_bounds` ("under", "over", «свыше») leaves the number itself out;
   the others hold it ("up to", "from", "and over").
3. A row whose bound excludes the value is dropped, only when at least one chosen row
   bounds the value and admits it: no bracket fits, nothing is dropped.
"""

from __future__ import annotations

from core.answer.facts import join_thousands, number_units, tokens
from core.answer.result import Selected
from core.answer.units import row_cells
from core.lang import Language, language_of
from core.lexical import STOPWORDS, expand_contractions, tokenize

BOUND_REACH = 3  # words between a bound word and its number: "under 20 kg", "from the age of 3"


def _value(number: str) -> float | None:
    try:
        return float(number.replace(",", "."))
    except ValueError:
        return None


def asked_value(question_text: str) -> tuple[float, str] | None:
    """Step 1: the question's one number with a unit, as (value, unit)."""
    found = {(n, u) for n, u in number_units(question_text) if u and not u[0].isdigit() and u not in STOPWORDS}
    if len(found) != 1:
        return None
    number, unit = found.pop()
    value = _value(number)
    return (value, unit) if value is not None else None


def bounds(cell: str, unit: str, lang: Language) -> list[tuple[str, float, bool]]:
    """Step 2: ("lower" | "upper", number, strict) for each number with `unit` in the cell."""
    words = tokens(expand_contractions(join_thousands(cell)))
    with_unit = {n for n, u in number_units(cell) if u == unit}
    out = []
    for span in (n for n in with_unit if "-" in n):  # "20-40 kg": both ends held
        low, high = (_value(end) for end in span.split("-", 1))
        if low is not None and high is not None:
            out += [("lower", low, False), ("upper", high, False)]
    for low, high in _word_spans(words, with_unit, lang):  # "500 to 2,000 EUR": both ends held
        out += [("lower", low, False), ("upper", high, False)]
    for i, word in enumerate(words):
        value = _value(word) if word.replace(",", ".") in with_unit else None
        if value is None:
            continue
        before = [" ".join(words[j:i]) for j in range(max(0, i - BOUND_REACH), i)] + \
                 [words[j] for j in range(max(0, i - BOUND_REACH), i)]
        after = [" ".join(words[i + 1:k]) for k in range(i + 2, min(len(words), i + 2 + BOUND_REACH) + 1)]
        for side, before_words, after_words in (("lower", lang.lower_bounds, lang.lower_after),
                                                ("upper", lang.upper_bounds, lang.upper_after)):
            hit = next((p for p in before if p in before_words), None) or \
                next((p.split(" ", 1)[1] for p in after if " " in p and p.split(" ", 1)[1] in after_words), None)
            if hit:
                out.append((side, value, hit in lang.strict_bounds))
    return out


def _word_spans(words: list[str], with_unit: set[str], lang: Language) -> list[tuple[float, float]]:
    """(low, high) of each span in words whose upper end has the unit ("500 to 2000 eur")."""
    out = []
    for i in range(1, len(words) - 1):
        if words[i] in lang.span_words and words[i + 1].replace(",", ".") in with_unit:
            low, high = _value(words[i - 1]), _value(words[i + 1])
            if low is not None and high is not None:
                out.append((low, high))
    return out


def admits(found: list[tuple[str, float, bool]], value: float) -> bool:
    for side, bound, strict in found:
        if side == "lower" and (value < bound or (strict and value == bound)):
            return False
        if side == "upper" and (value > bound or (strict and value == bound)):
            return False
    return True


def within(number: str, unit: str, text: str, lang: Language) -> bool:
    """Does the text hold the number inside a range it states? A span ("0-50 kg",
    "10–20"), or a table row's pair of fields whose names bound a quantity of the number's
    unit ("Weight from, kg: 0; Weight to, kg: 50", «Вес от, кг: 0; Вес до, кг: 50»). A
    question's "40 kg" stands in such a tariff row though "40" is written nowhere (a QA
    pass: its row highlighted, the question refused at 0.30, every number "missing")."""
    value = _value(number)
    if value is None:
        return False
    read = number_units(text)
    for n, _ in read:
        ends = [_value(end) for end in n.split("-", 1)] if "-" in n else []
        if len(ends) == 2 and None not in ends and ends[0] <= value <= ends[1]:
            return True
    # a span in words: "500 to 2,000 EUR", «с 5 по 10 кг» (a reliability pass: the approver's
    # row of "500 to 2,000 EUR" held a claim of 1,200 EUR, which was counted missing)
    with_unit = {n for n, u in read if u == unit}
    if any(low <= value <= high for low, high in _word_spans(tokens(join_thousands(text)), with_unit, lang)):
        return True
    found = field_range(text, unit, lang)
    return found is not None and found[0] <= value <= found[1]


def field_range(text: str, unit: str, lang: Language) -> tuple[float, float] | None:
    """(from, to) of a table row whose field names bound a quantity of `unit` ("Weight
    from, kg: 0; Weight to, kg: 50"), both held; None when the row names no such pair."""
    low = high = None
    for field in text.split("; "):
        name, _, cell = field.rpartition(": ")
        bound = _value(cell.strip())
        words = tokens(name)
        if bound is None or not name or (unit and unit not in {t for w in words for t in tokenize(w)}):
            continue
        if any(w in lang.lower_bounds for w in words):
            low = bound
        elif any(w in lang.upper_bounds for w in words):
            high = bound
    return (low, high) if low is not None and high is not None else None


def in_bracket(question_text: str, chosen: list[Selected]) -> list[Selected]:
    """Step 3: the chosen units without the rows whose bracket excludes the asked value."""
    asked = asked_value(question_text)
    if asked is None or sum(s.unit.kind == "row" for s in chosen) < 2:
        return chosen
    value, unit = asked
    lang = language_of(question_text)
    verdicts = []
    for s in chosen:
        found = bounds(row_cells(s.unit.quote)[0], unit, lang) if s.unit.kind == "row" else []
        fields = field_range(s.unit.text, unit, lang) if s.unit.kind == "row" and not found else None
        if fields:
            found = [("lower", fields[0], False), ("upper", fields[1], False)]
        verdicts.append(None if not found else admits(found, value))
    if True not in verdicts or False not in verdicts:
        return chosen
    return [s for s, fits in zip(chosen, verdicts) if fits is not False]
