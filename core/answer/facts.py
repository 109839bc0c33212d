"""Language-level facts of a text that a model cannot learn from a few hundred questions:
identifiers, numbers, amounts of money, lengths of time, dates, clock times, negation.

Words come from the language modules (core/lang/): whole words only, never substrings
("may" in "You may return it" is no month, «ма» no part of «мае»).
"""

from __future__ import annotations

import re
from functools import cache

from core.answer.references import APPENDIX_RE, PAGE_REF_RE, SECTION_REF_RE
from core.ingest.sentences import split_sentences
from core.lang import LANGUAGES
from core.lexical import STOPWORDS, expand_contractions, tokenize

ID_RE = re.compile(
    r"(?<![\w.])(?:[A-Za-zА-Яа-яЁё]{1,5}-?\d+[A-Za-z\d]*|\d+-\d+(?:-\d+)*|\d+\.\d+(?:\.\d+)*|\d{3,})(?![\w])"
)
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+(?:[.,]\d+)?)?(?![\d])")
TOKEN_RE = re.compile(r"[€$£₽]|\d+(?:[.,:]\d+)*|[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)
MONEY_SIGNS = frozenset("€$£₽")
CAPITAL_RE = re.compile(r"\b[A-ZА-ЯЁ][a-zа-яё]+(?:[A-ZА-ЯЁ][a-zа-яё]+)*\b")
NUM_UNIT_RE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+(?:[.,]\d+)?)?)\s*(%|[A-Za-zА-Яа-яЁё°€$£·\.]+)?"
)
MODEL_NAME_RE = re.compile(r"\b([A-ZА-ЯЁ][\w-]*[a-zа-яё][\w-]*)\s+(\d{1,4})\b(?![.,]\d|\s*[%°])")


@cache
def _words(attribute: str) -> frozenset[str]:
    """The union over all languages of one word list (a unit may be in any language)."""
    out: set[str] = set()
    for lang in LANGUAGES.values():
        value = getattr(lang, attribute)
        out |= set(value) if not isinstance(value, dict) else set(value)
    return frozenset(out)


def identifiers(text: str) -> set[str]:
    """Codes and reference numbers: ERR-20, 7-2, 12.4.1, ISO9001 (lowercased); a plural "s"
    after the digits is English, not code ("the AB-12s" names the AB-12)."""
    return {re.sub(r"(?<=\d)s$", "", m.group(0)).lower() for m in ID_RE.finditer(text)
            if any(ch.isdigit() for ch in m.group(0))}


def is_value(identifier: str) -> bool:
    """A plain number (digits, at most one decimal point): an amount or a year, not a code."""
    whole, _, fraction = identifier.partition(".")
    return whole.isdigit() and (not fraction or fraction.isdigit())


THOUSANDS_SPACES = " \u00a0\u202f"  # "50 000", as Russian and French texts group thousands


# thousands grouped by commas ("1,200", "2,000,000"): a first group of one to three digits,
# not a lone 0, then groups of exactly three; "3,5" and "0,125" are decimals
COMMA_GROUPS_RE = re.compile(r"(?<![\d.,])[1-9]\d{0,2}(?:,\d{3})+(?!\d|,\d)")


def join_thousands(text: str) -> str:
    """The text with thousands grouped by a space or a comma written whole: "штраф 50 000
    рублей" -> "штраф 50000 рублей", "1,200 EUR" -> "1200 EUR". Read apart, "50" stood in
    the text and supported a claim of 50 roubles (a QA pass); read as a decimal comma,
    "1,200 EUR" was 1.2 EUR, and "1200 EUR" of a question was missing from a row's
    "1,200" (a reliability pass). A space is left out between a group of one to three
    digits (the first of its number, or a group of three after such a space) and exactly
    three digits that end the number: "between 2019 2020", "8 30" and "2.5 000" stay apart."""
    if "," in text:
        text = COMMA_GROUPS_RE.sub(lambda m: m.group(0).replace(",", ""), text)
    # every text has spaces: the char-by-char reading below runs only where a number stands
    # right after another (it is on every unit's number reading)
    words = text.split()  # splits at no-break spaces too
    if not any(a[-1].isdigit() and b[0].isdigit() for a, b in zip(words, words[1:])):
        return text
    out: list[str] = []
    groups: list[int] = []  # the digits of each group of the number being read
    for i, ch in enumerate(text):
        if ch.isdigit():
            if i and text[i - 1].isdigit():
                groups[-1] += 1
            elif not (i and text[i - 1] in THOUSANDS_SPACES and out and out[-1].isdigit()):
                groups = [1] if not (i and text[i - 1] in ".,") else [99]  # "2.5": a decimal, never grouped
            else:
                groups.append(1)
            out.append(ch)
            continue
        nxt = text[i + 1:i + 4]
        if ch in THOUSANDS_SPACES and i and text[i - 1].isdigit() and len(nxt) == 3 and nxt.isdigit() \
                and not text[i + 4:i + 5].isdigit() and groups and groups[0] <= 3 \
                and all(g == 3 for g in groups[1:]):
            continue  # the space groups thousands: left out
        out.append(ch)
    return "".join(out)


def numbers(text: str) -> list[str]:
    """Numbers as written, normalised: decimal comma -> point, dash ranges -> a-b, thousands
    grouped by spaces joined."""
    return [re.sub(r"\s*[-–]\s*", "-", m.group(0)).replace(",", ".") for m in NUMBER_RE.finditer(join_thousands(text))]


def tokens(text: str) -> list[str]:
    return [t.lower() for t in TOKEN_RE.findall(text)]


CLAUSE_ENDS = str.maketrans({";": ",", ":": ","})


def outside_conditions(text: str) -> str:
    """The text without its conditional clauses: from a word that opens one ("if",
    «если») to the clause's end (the next comma, colon or semicolon). "Follow these steps if
    your name does not match your ID:" denies nothing; "If you leave, you will not be paid"
    still does, after the comma."""
    markers = _words("conditionals")
    kept = []
    for clause in text.translate(CLAUSE_ENDS).split(","):
        words = clause.split()
        cut = next((i for i, w in enumerate(words) if w.strip("\"'«»()[]").casefold() in markers), len(words))
        kept.append(" ".join(words[:cut]))
    return ", ".join(kept)


# how many words after an excluding phrase its object may stand: "instead of THE main door"
EXCLUSION_SCOPE = 3


def excluded_stems(text: str) -> frozenset[str]:
    """Stems the text names only to leave them out: the first content word within
    EXCLUSION_SCOPE words after an excluding phrase in the same clause ("enter by the side
    door INSTEAD OF the main door", «все дни, КРОМЕ субботы»), when it stands nowhere else in the
    text. Only the first: in "all staff except contractors RECEIVE a laptop" the verb is
    the statement's."""
    phrases = [phrase.split() for phrase in _words("excluding")]
    inside: set[str] = set()
    outside: set[str] = set()
    for clause in text.replace(". ", ", ").translate(CLAUSE_ENDS).split(","):
        words = tokens(clause)
        reached = set()
        for i in range(len(words)):
            for phrase in phrases:
                if words[i:i + len(phrase)] == phrase:
                    after = range(i + len(phrase), min(i + len(phrase) + EXCLUSION_SCOPE, len(words)))
                    reached.update(next(([j] for j in after if words[j] not in STOPWORDS), []))
        for i, word in enumerate(words):
            (inside if i in reached else outside).update(tokenize(word))
    return frozenset(inside - outside)


def excludes(text: str) -> bool:
    """Does the text hold an excluding phrase ("instead of", «кроме»)?"""
    said = " " + " ".join(tokens(text)) + " "
    return any(f" {phrase} " in said for phrase in _words("excluding"))


# how many words after a negation it reaches: "are not ABLE to DELETE", «не может ИЗМЕНИТЬ»
NEGATION_SCOPE = 4


def says_no(text: str, about: frozenset[str] | None = None) -> bool:
    """Does the text say no, outside its conditional clauses and its bounds? "Follow these
    steps if your name does not match" names a case; "paid as overtime, but not less than 2
    hours" («не менее 2 часов») bounds an amount; neither denies anything. With `about`
    (stems, as the index makes them), only a no about one of them counts: one of them stands
    within NEGATION_SCOPE words after the negation ("non-transferable" for "transferable"). «Как
    передать данные дочернему компоненту?» is not denied by «дочерний компонент не может
    изменить привязку»: that no is about changing, not passing."""
    said = " " + " ".join(tokens(expand_contractions(outside_conditions(text)))) + " "
    for phrase in _words("bounds"):
        said = said.replace(f" {phrase} ", " ")
    toks = said.split()
    if about is None:
        return _negated(toks)
    negations = _words("negations")
    for i, t in enumerate(toks):
        if t in negations:
            reach = toks[i + 1:i + 1 + NEGATION_SCOPE]
        elif t.startswith("non-"):
            reach = [t[4:]]
        else:
            continue
        if any(about.intersection(tokenize(word)) for word in reach):
            return True
    return False


def has_negation(text: str) -> bool:
    return _negated(tokens(expand_contractions(text)))


def _negated(toks: list[str]) -> bool:
    negations = _words("negations")
    return any(t in negations or t.startswith("non-") for t in toks)


class Reading:
    """What kinds of value one text holds, read once."""

    def __init__(self, text: str) -> None:
        toks = tokens(text)
        numeric = [i for i, t in enumerate(toks) if t[0].isdigit()]
        words = set(toks)
        number_words = _words("number_words")
        self.number = bool(numeric) or bool(words & number_words)
        self.money = bool(words & MONEY_SIGNS) or (bool(numeric) and bool(words & _words("money_words")))
        units = _words("time_units")
        # a length of time: a number (or a number word) right before a time unit ("14 days")
        # ("10 business days"; not a rate, "$4.99 per month")
        stop = _words("stopwords")
        self.duration = any(
            (t[0].isdigit() or t in number_words) and (
                toks[i + 1:i + 2] and toks[i + 1] in units
                or toks[i + 2:i + 3] and toks[i + 2] in units and toks[i + 1] not in stop)
            for i, t in enumerate(toks))
        self.time = any(":" in toks[i] and toks[i].replace(":", "").isdigit() for i in numeric)
        self.date = bool(words & (_words("months") | _words("weekdays"))) or any(
            len(toks[i]) == 4 and toks[i].isdigit() and toks[i][:2] in ("19", "20") for i in numeric)
        self.negated = has_negation(text)
        # a capitalised word after the first of its sentence: a name (person, place, body)
        self.name = bool(proper_names(text))

    def matches(self, answer_type: str | None) -> float:
        """1 when the text holds the kind of value asked for, 0 when it does not, 0.5 when
        the question asks for no particular kind."""
        need = {"number": self.number, "amount": self.number or self.money, "money": self.money or self.number,
                "duration": self.duration, "frequency": self.number or self.duration,
                "date": self.date or self.number, "time": self.time or self.number,
                "person": self.name, "place": self.name}
        if answer_type not in need:
            return 0.5
        return 1.0 if need[answer_type] else 0.0


def proper_names(text: str) -> set[str]:
    """Capitalised words that are not the first word of a sentence (likely names)."""
    names = set()
    for s, e in split_sentences(text.replace("\n", " ")) or [(0, len(text))]:
        sent = text.replace("\n", " ")[s:e]
        for m in CAPITAL_RE.finditer(sent):
            if m.start() == 0 or sent[: m.start()].strip() in ('"', "«", "“", "("):
                continue
            if m.group(0).lower() in STOPWORDS:
                continue  # "under My account": a capitalised label word, not a name
            names.add(m.group(0))
    return names


def number_units(text: str) -> list[tuple[str, str]]:
    """(number, unit-word) pairs; the unit is the word right after the number (may be '')."""
    out = []
    for m in NUM_UNIT_RE.finditer(join_thousands(text)):
        num = re.sub(r"\s*[-–]\s*", "-", m.group(1)).replace(",", ".")
        unit = (m.group(2) or "").lower().strip(".")
        stems = tokenize(unit, keep_stopwords=True)
        out.append((num, stems[0] if stems else unit))  # the unit word as the index stems it
    return out


def identifier_shape(identifier: str) -> str:
    """"x20" -> "a9", "ab-12" -> "a-9", "7-2" -> "9-9": letters and digits, runs merged."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", identifier.lower())))


def model_names(question: str) -> list[str]:
    """A name followed by a number ("Model X 10", "Series 5"): a product or model the
    documents must name exactly. Months are dates; "section 14" / "page 12" are references."""
    out = []
    for m in MODEL_NAME_RE.finditer(question):
        if m.group(1).lower() in _words("months") or SECTION_REF_RE.match(m.group(0)) \
                or APPENDIX_RE.match(m.group(0)) or PAGE_REF_RE.match(m.group(0)):
            continue
        out.append(f"{m.group(1)} {m.group(2)}")
    return out
