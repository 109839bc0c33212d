"""Text analysis shared by the gate, the extractive generator and the verifier.

Deterministic and language-aware (English and Russian): sentence units with offsets,
identifiers (E20, 7-2, 12.4), numbers with units, negation, proper names, and the kind
of answer a question asks for.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.ingest.sentences import split_sentences
from core.lexical import NUMBER_WORDS, STOPWORDS, tokenize

# Words that carry the question's form, not its topic. The particles ("before", "through",
# "once", "go up") are no topic an answer must repeat ("...before HomeHub prices go up?" is
# answered by "at least 6 weeks in advance"); "after", "until" and "back" stay topic words:
# they carry conditions ("look after", "until when", "paid back") answers hinge on.
QUESTION_FILLER = frozenset(
    tokenize(
        """what which who whom whose when where why how many much long often does do did is are
        tell me please say says said explain describe mean means meaning give list about
        according document documents kb knowledge base there any have has get gets take takes
        need want make happen happens exact exactly precise precisely specified
        который которая которое которые которых находится нужен нужна нужно обычно
        что какой какая какое какие каков какова кто когда где куда почему зачем как сколько
        скажите расскажите подскажите означает значит сказано говорится указано ли нужно можно
        мне именно точно точный точная насколько
        few several whole roughly approximately around about just really actually still already
        anyway ever also even quite rather basically usually normally typically currently
        let know knows today tonight yesterday tomorrow wonder wondering think seems seem woke
        примерно приблизительно около вообще уже ещё еще просто обычно сейчас вообще-то
        want wants wanted wish would like guys mine went ran bought got sometimes mind ago since
        ask asks asking asked kind kinds sort sorts
        before up through once while both only go goes going onto into
        хочу хотел хотела хотим хотят живу живём передумал передумала
        смогли смогу могу можем мой моя моё мое мои свой своя своё свои самому сама сам
        something anything everything someone anyone somebody anybody straight directly
        что-нибудь что-то что-либо кто-нибудь кто-то сразу прямо""",
        keep_stopwords=True,
    )
)

ID_RE = re.compile(
    r"(?<![\w.])(?:[A-Za-zА-Яа-яЁё]{1,5}-?\d+[A-Za-z\d]*|\d+-\d+(?:-\d+)*|\d+\.\d+(?:\.\d+)*|\d{3,})(?![\w])"
)
NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+(?:[.,]\d+)?)?(?![\d])")
NUMBER_WORD_RE = re.compile(
    r"\b(?:once|twice|one|two|three|four|five|six|seven|eight|nine|ten|twelve|"
    r"один|одна|одно|два|две|три|четыре|пять|шесть|семь|восемь|девять|десять|однажды|дважды|"
    r"двух|тр[её]х|четыр[её]х|пяти|шести|семи|восьми|девяти|десяти)\b", re.IGNORECASE)
NUM_UNIT_RE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+(?:[.,]\d+)?)?)\s*(%|[A-Za-zА-Яа-яЁё°€$£·\.]+)?"
)
NEGATION_RE = re.compile(
    r"\b(?:not|no|never|none|cannot|can't|won't|isn't|aren't|doesn't|don't|didn't|without|"
    r"non-\w+|не|нет|ни|никогда|без|нельзя)\b|\bnon\w*refundable",
    re.IGNORECASE,
)
CAPITAL_RE = re.compile(r"\b[A-ZА-ЯЁ][a-zа-яё]+(?:[A-ZА-ЯЁ][a-zа-яё]+)*\b")

MONTHS = (
    "january february march april may june july august september october november december "
    "январ феврал март апрел ма июн июл август сентябр октябр ноябр декабр"
).split()
TIME_UNITS = re.compile(
    r"\b(?:business\s+)?(?:days?|weeks?|months?|years?|hours?|minutes?|seconds?|"
    r"дн\w*|день|недел\w*|месяц\w*|год\w*|лет|час\w*|минут\w*|сутк\w*|суток)\b",
    re.IGNORECASE,
)
# a length of time: a number (or number word) and its time unit, "14 days", "14-day",
# "28 working days", "4 минут" — but not a rate such as "€4.99 per month"
DURATION_RE = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)?(?:\s?[-–]\s?\d+)?[\s-]*"
    r"(?:(?:business|working|calendar|consecutive|full|рабочих|календарных|банковских|полных)\s+)?"
    + TIME_UNITS.pattern.removeprefix(r"\b(?:business\s+)?"), re.IGNORECASE)
MONEY_RE = re.compile(r"[€$£₽]|\b(?:eur|usd|gbp|rub|руб\w*|euro?s?|dollars?|евро|долл\w*)\b", re.IGNORECASE)


@dataclass
class Unit:
    """A sentence or table row inside a chunk: the smallest thing an answer quotes."""

    text: str  # what the answer shows
    quote: str  # exact substring of the chunk text
    start: int
    end: int
    context: str  # text used for coverage: heading + table header + the unit
    kind: str  # sentence | row | heading


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def units(chunk_text: str, heading: str = "") -> list[Unit]:
    """Split a chunk into sentence and table-row units with offsets into the chunk text."""
    out: list[Unit] = []
    header: list[str] | None = None
    pos = 0
    for line in chunk_text.split("\n"):
        line_start = pos
        pos += len(line) + 1
        stripped = line.strip()
        if not stripped:
            header = None
            continue
        lead = line_start + (len(line) - len(line.lstrip()))
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = _cells(stripped)
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if header is None:
                header = cells
                continue
            shown = "; ".join(f"{h}: {v}" if h else v for h, v in zip(header, cells) if v)
            ctx = f"{heading}\n{' '.join(header)}\n{' '.join(cells)}"
            out.append(Unit(shown, stripped, lead, lead + len(stripped), ctx, "row"))
            continue
        header = None
        if heading and stripped == heading.strip():
            out.append(Unit(stripped, stripped, lead, lead + len(stripped), stripped, "heading"))
            continue
        body = line[lead - line_start :].rstrip()
        for s, e in split_sentences(body):
            sent = body[s:e]
            out.append(Unit(sent, sent, lead + s, lead + e, f"{heading}\n{sent}", "sentence"))
    return out


def identifiers(text: str) -> set[str]:
    """Codes and reference numbers: E20, 7-2, 12.4.1, ISO9001 (lowercased); a plural "s"
    after the digits is English, not code ("one of the KT-200s" asks about the KT-200)."""
    return {re.sub(r"(?<=\d)s$", "", m.group(0)).lower() for m in ID_RE.finditer(text)
            if re.search(r"\d", m.group(0))}


def numbers(text: str) -> list[str]:
    """Numbers as written, normalised: decimal comma -> point, dash ranges -> a-b."""
    out = []
    for m in NUMBER_RE.finditer(text):
        out.append(re.sub(r"\s*[-–]\s*", "-", m.group(0)).replace(",", "."))
    return out


def number_units(text: str) -> list[tuple[str, str]]:
    """(number, unit-word) pairs; the unit is the word right after the number (may be '')."""
    out = []
    for m in NUM_UNIT_RE.finditer(text):
        num = re.sub(r"\s*[-–]\s*", "-", m.group(1)).replace(",", ".")
        unit = (m.group(2) or "").lower().strip(".")
        out.append((num, tokenize(unit, keep_stopwords=True)[0] if tokenize(unit, keep_stopwords=True) else unit))
    return out


def has_negation(text: str) -> bool:
    return bool(NEGATION_RE.search(text))


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


# The dimension of a unit as tokenize() and number_units() read it ("megapascals" -> megapasc,
# "0.05-1 MPa" -> mpa, "80 N·m" -> n): a question asking IN one unit ("the cold-cranking current
# IN AMPS", «объём В ЛИТРАХ») is answered by a value in any unit of its dimension (bar for MPa,
# quarts for litres), not by "70% of the rated current". "a" (amperes) may also be "5 a week";
# such a row is no answer to a question about amps for other reasons.
UNIT_DIMENSIONS: dict[str, frozenset[str]] = {dimension: frozenset(tokens.split()) for dimension, tokens in {
    "current": "a amp amper ампер",
    "voltage": "v volt вольт",
    "power": "w kw watt kilowatt вт квт ватт",
    "volume": "l ml litr liter millilitr quart gallon л мл литр",
    "mass": "kg kilo g gram кг г грамм",
    "length": "mm cm m km metr inch мм см м км метр",
    "pressure": "bar mpa kpa psi megapasc бар мпа кпа мегапаскал атмосфер",
    "torque": "n nm lb newton н нм",
    "temperature": "c f degre celsius fahrenheit градус",
    "loudness": "db decibel дб",
}.items()}
DIMENSION_OF = {token: dimension for dimension, tokens in UNIT_DIMENSIONS.items() for token in tokens}

# Words that name the answer slot rather than the topic ("how many DAYS", "what does it COST").
SLOT_WORDS = {
    "duration": frozenset(tokenize(
        "day days week weeks month months year years hour hours minute minutes time long deadline "
        "far advance early заранее "
        "дней день дня недель недели месяцев месяца лет года часов часа минут время",
        keep_stopwords=True)),
    "money": frozenset(tokenize("cost costs price fee charge pay much стоит стоимость цена плата",
                                keep_stopwords=True)),
    "weekday": frozenset(tokenize("day days week weekday weekdays день дни недели", keep_stopwords=True)),
    "time of day": frozenset(tokenize("time clock o'clock время часу", keep_stopwords=True)),
    "place": frozenset(tokenize("city town country place located location город городе страна стране",
                                keep_stopwords=True)),
    # the unit an answer is asked in is no topic the documents must name ("in megapascals": they write MPa)
    "measure": frozenset().union(*UNIT_DIMENSIONS.values(), tokenize("expressed")),
}


def asking_part(question: str) -> str:
    """The sentences of a question that ask (end in "?"), when others only set the scene:
    "I'm moving to a new FLAT next month. Do I get paid time off for the move?" asks about
    time off for a move; the flat is the user's situation, not a topic the documents must
    name. A question of one sentence, or none ending in "?", is asked whole."""
    sentences = [s for s in re.split(r"(?<=[.!?…])\s+", question.strip()) if s]
    asking = [s for s in sentences if s.rstrip().endswith("?")]
    return " ".join(asking) if len(sentences) > 1 and asking else question


# "Can I EXTEND my contract...?", "Можно ли ПОДКЛЮЧИТЬ машину...?": a question whether one
# may do something is answered only by a text that speaks of doing it
PERMISSION_RE = re.compile(
    r"(?:^|[,;:.?!]\s*|\b(?:and|so|but|then|а|и|но|тогда)\s+)(?:(?:can|could|may|must|should)\s+(?:i|we|you|they|customers?|employees?|staff|one)"
    r"|(?:am\s+i|are\s+we|is\s+it|are\s+customers?|are\s+employees?)\s+(?:allowed|permitted|possible|ok|okay)\s+to"
    r"|(?:do|does|will|would)\s+(?:you|we|they|northwind|the\s+company)"
    r"|можно\s+ли|нельзя\s+ли|(?:могу|можем|может|должен|должна|должны)\s+ли(?:\s+(?:я|мы|он|она|они))?)"
    r"\s+(?:(?:still|also|just|already|ещё|еще|уже|сам|сама|самому)\s+)?([^\W\d_]{3,})",
    re.IGNORECASE,
)


# verbs that say little by themselves ("can I SET the washer to start later")
LIGHT_VERBS = frozenset(tokenize("set use put go come keep stay пользоваться использовать ставить оставить",
                                 keep_stopwords=True))


def _permission(question: str) -> tuple[str, str] | None:
    """(verb stem, text after the verb) of a permission question, unless its verb is a
    filler ("can I get", "можно ли узнать") or a light verb."""
    # a yes/no question opens its clause with it; "How many hours CAN I BANK" asks a number
    asked = asking_part(question).strip()
    m = PERMISSION_RE.search(asked)
    if not m:
        return None
    stems = tokenize(m.group(1))
    if not stems or stems[0] in QUESTION_FILLER | LIGHT_VERBS:
        return None
    return stems[0], asked[m.end():]


def asked_verb(question: str) -> str | None:
    """The stem of the verb a permission question asks about ("Can I extend..." -> extend)."""
    found = _permission(question)
    return found[0] if found else None


DETERMINERS = frozenset("the a an my your our their his her its this that these those".split())
_OBJECT_STOP_RE = re.compile(
    r"^(?:to|for|in|on|at|with|from|after|before|by|of|if|when|once|while|during|without|into|and|or|but|"
    r"к|в|во|на|с|со|для|при|после|до|без|если|когда|и|или)$", re.IGNORECASE)


def _object_phrase(question: str) -> list[str]:
    """The words after a permission question's verb, up to a preposition or punctuation."""
    found = _permission(question)
    if not found:
        return []
    words = []
    for word in re.findall(r"[^\W\d_]+(?:['’][a-z]+)?|[?,.;:!]", found[1]):
        if not word[0].isalpha() or _OBJECT_STOP_RE.match(word):
            break
        words.append(word)
    return words


def asked_object(question: str) -> str | None:
    """The stem of the head noun of what a permission question's verb acts on ("transfer
    the manufacturer's WARRANTY to the buyer" -> warranti); None when nothing follows."""
    words = _object_phrase(question)
    # an English object opens with its article or possessive ("the warranty", "my contract"):
    # "cancel ONLINE" has none
    if words and words[0].isascii() and words[0].lower() not in DETERMINERS:
        return None
    stems = [tokenize(word) for word in words]
    return next((s[0] for s in reversed(stems) if s), None)


WH_WORD_RE = re.compile(r"^(?:which|what|when|where|who|whom|whose|how|why|whether|что|какой|какая|какое|какие|"
                        r"когда|где|куда|кто|как|почему|сколько)$", re.IGNORECASE)


def asked_object_words(question: str) -> list[str]:
    """The words of what a permission question's verb acts on, with or without an article
    ("Do you offer GIFT WRAPPING for orders?" -> gift, wrapping)."""
    out = []
    for word in _object_phrase(question):
        if WH_WORD_RE.match(word):
            break  # "pick WHICH day DHL brings it": a clause, not the object
        if word.lower() not in DETERMINERS and word.lower() not in STOPWORDS:
            out.append(word)
    return out


# "Tell me a JOKE about...", «Расскажи АНЕКДОТ про...»: a request names what it wants
# right after its verb, as a permission question does
REQUEST_RE = re.compile(
    r"(?:^|[.!?]\s+)(?:please\s+|пожалуйста,?\s+)?(?:tell\s+me|give\s+me|show\s+me|write(?:\s+me)?|"
    r"расскажи(?:те)?(?:\s+мне)?|напиши(?:те)?(?:\s+мне)?|покажи(?:те)?(?:\s+мне)?|"
    r"дай(?:те)?(?:\s+мне)?|сочини(?:те)?(?:\s+мне)?|назови(?:те)?(?:\s+мне)?)\s+",
    re.IGNORECASE)
_REQUEST_STOP_RE = re.compile(r"^(?:про|о|об|обо|about|of|on|how|what|why|when|where|who|which)$", re.IGNORECASE)


def requested_object_words(question: str) -> list[str]:
    """The words of what a request asks for ("Tell me A JOKE about washing machines" ->
    joke; «Расскажи АНЕКДОТ про стиральную машину» -> анекдот), up to a preposition, a
    question word or punctuation; articles and stopwords left out."""
    m = REQUEST_RE.search(question.strip())
    if not m:
        return []
    out = []
    for word in re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*|[?,.;:!]", question.strip()[m.end():]):
        if not word[0].isalnum() or _OBJECT_STOP_RE.match(word) or _REQUEST_STOP_RE.match(word):
            break
        # identifiers (E20, KT-200) and "e-mail" are other checks' business
        if word.lower() not in DETERMINERS and word.lower() not in STOPWORDS and word.isalpha():
            out.append(word)
    return out


def says_verb(verb: str, tokens: set[str]) -> bool:
    """Does the text (as tokens) use the verb? A Russian verb by its first six letters:
    the stemmer keeps "подключить" and "подключайте" apart."""
    if verb in tokens:
        return True
    if verb.isascii():  # "deliv" in "deliveri": the English stemmer parts a verb from its noun
        return len(verb) >= 4 and any(t.startswith(verb) for t in tokens)
    return len(verb) >= 6 and any(t.startswith(verb[:6]) for t in tokens)


def content_terms(question: str) -> list[str]:
    """Stemmed topic words of a question (question words, fillers and the words that name
    the answer slot removed), in order."""
    slot = SLOT_WORDS.get(expected_type(question) or "", frozenset())
    seen: list[str] = []
    for tok in tokenize(question):
        if tok in QUESTION_FILLER or tok in slot or tok in seen or (len(tok) < 2 and not tok.isdigit()):
            continue
        seen.append(tok)
    return seen


# Qualifiers that exclude each other: a sentence about the MONTHLY plan does not answer a
# question about the ANNUAL one. Each group maps a canonical qualifier to the ways a text
# says it (English and Russian); "per calendar year" is annual, "up to" is a maximum.
CONTRAST_GROUPS: list[dict[str, re.Pattern[str]]] = [
    {
        "daily": re.compile(r"\b(?:daily|per day|a day|each day|ежедневн\w*|в день)\b", re.I),
        "weekly": re.compile(r"\b(?:weekly|per week|a week|еженедельн\w*|в неделю)\b", re.I),
        "monthly": re.compile(r"\b(?:monthly|per month|a month|month by month|ежемесячн\w*|в месяц)\b", re.I),
        "quarterly": re.compile(r"\b(?:quarterly|per quarter|ежеквартальн\w*)\b", re.I),
        "annual": re.compile(r"\b(?:annual|annually|yearly|per (?:calendar )?year|a year|each year|"
                             r"(?:a |one |the )?(?:whole|full|entire) year|12 months|год вперёд|за год|"
                             r"годов\w*|ежегодн\w*|в год)\b", re.I),
    },
    {
        "standard": re.compile(r"\b(?:standard|стандартн\w*)\b", re.I),
        "express": re.compile(r"\b(?:express|priority|срочн\w*|экспресс\w*)\b", re.I),
        "economy": re.compile(r"\b(?:economy|эконом\w*)\b", re.I),
    },
    {
        "business": re.compile(r"\b(?:business customers?|businesses|b2b|corporate customers?|юридическ\w*)\b", re.I),
        "private": re.compile(r"\b(?:private customers?|consumers?|частн\w* (?:лиц|клиент)\w*)\b", re.I),
    },
    {
        "full-time": re.compile(r"\bfull[- ]time\b|\bполн\w* (?:рабоч\w* )?(?:день|дня|занятост\w*)", re.I),
        "part-time": re.compile(r"\bpart[- ]time\b|\bнеполн\w* (?:рабоч\w* )?(?:день|дня|занятост\w*)", re.I),
    },
    {
        "night": re.compile(r"\bnight shifts?\b|\bnights? work\b|\bночн\w*", re.I),
        "saturday": re.compile(r"\bsaturdays?\b|\bсуббот\w*", re.I),
        "sunday": re.compile(r"\bsundays?\b|\bвоскресень\w*", re.I),
    },
    {
        "digital": re.compile(r"\b(?:digital|electronic|e-gift|электронн\w*|цифров\w*)\b", re.I),
        "physical": re.compile(r"\b(?:physical|printed|plastic|paper|пластиков\w*|бумажн\w*)\b", re.I),
    },
    {
        "domestic": re.compile(r"\b(?:domestic|внутренн\w*)\b", re.I),
        "international": re.compile(r"\b(?:international|международн\w*)\b", re.I),
    },
    {  # a mode of transport: the mileage rate for a private car is not the one for a motorbike
        "car": re.compile(r"\b(?:cars?|automobiles?|автомобил\w*|легков\w*)\b", re.I),
        "motorbike": re.compile(r"\b(?:motorbikes?|motorcycles?|scooters?|мотоцикл\w*|мопед\w*)\b", re.I),
        "bicycle": re.compile(r"\b(?:bicycles?|bikes?|e-bikes?|cycling|велосипед\w*)\b", re.I),
        "train": re.compile(r"\b(?:trains?|rail|railway|поезд\w*|ж/д)\b", re.I),
        "taxi": re.compile(r"\b(?:taxis?|cabs?|такси)\b", re.I),
        "flight": re.compile(r"\b(?:flights?|planes?|air travel|flying|самол[её]т\w*|авиа\w*|перел[её]т\w*)\b", re.I),
    },
    {
        "inlet": re.compile(r"\b(?:inlet|fill|supply) (?:hoses?|filters?|valves?)\b|\bзаливн\w*|\bналивн\w*", re.I),
        "drain": re.compile(r"\bdrain(?:age)? (?:hoses?|filters?|pumps?)\b|\bсливн\w* (?:шланг|фильтр|насос)\w*", re.I),
    },
    {  # a weight: the spec sheet's net weight is not the weight fully loaded
        "net": re.compile(r"\b(?:net|empty|unloaded|нетто|пуст\w*)\b", re.I),
        "loaded": re.compile(r"\b(?:(?:fully |when |with a full )?loaded|gross|laden|брутто|загруженн\w*|"
                             r"с (?:полной )?загрузкой)\b", re.I),
    },
    {
        "minimum": re.compile(r"\b(?:minimum|min\.?|at least|no less than|минимальн\w*|не менее|как минимум)\b", re.I),
        "maximum": re.compile(r"\b(?:maximum|max\.?|top|up to|at most|no more than|limit|highest|"
                              r"максимальн\w*|не более)\b", re.I),
    },
]


# What is done to a part: a text that only INSPECTS the hoses does not say when they are
# REPLACED. Unlike the groups above, a unit that names no action is no conflict (a schedule
# row "Hoses | every 6 months" may sit under any of them), only one that names a rival.
ACTION_GROUPS: list[dict[str, re.Pattern[str]]] = [
    {
        "inspect": re.compile(r"\b(?:inspect\w*|examin\w*|осмотр\w*|осматрива\w*|проверк\w*|проверя\w*)", re.I),
        "replace": re.compile(r"\b(?:replac\w*|renew\w*|замен\w*|меня(?:ть|ют|йте|ется|ются)\b|сменит\w*)", re.I),
        "clean": re.compile(r"\b(?:clean\w*|rins\w*|flush\w*|descal\w*|wip(?:e|es|ed|ing)\b|чистк\w*|очист\w*|"
                            r"почист\w*|чистит\w*|протир\w*|протере\w*|"
                            r"промы\w*|промыв\w*)", re.I),
    },
    # a change's direction: "Which release LENGTHENED the trial to 14 days?" is not answered by
    # the one that SHORTENED it from 14 days (verbs of change only: "lower" and "extend" name
    # places and warranties too often)
    {
        "increase": re.compile(r"\b(?:increas\w*|lengthen\w*|prolong\w*|rais(?:ed|es)\s+(?:from|to|by)\b|"
                               r"увелич\w*|продлил\w*|продлен\w*|повыс\w*|повыш\w*)", re.I),
        "decrease": re.compile(r"\b(?:decreas\w*|reduc\w*|shorten\w*|lowered\s+(?:from|to|by)\b|cut\s+(?:from|to|by)\b|"
                               r"сократ\w*|сокращ\w*|уменьш\w*|сниз\w*|сниж\w*|понизи\w*|понижен\w*)", re.I),
    },
]


# Kinds of appliance: the drain filter of the WASHING MACHINE says nothing of the dryer's,
# nor its softener advice of a dishwasher's. Checked like the actions: only a rival named
# where the asked kind is not (the title counts: a care guide for washing machines is about
# them in every sentence); a text about appliances in general is no conflict.
SUBJECT_GROUPS: list[dict[str, re.Pattern[str]]] = [
    {
        "washing machine": re.compile(r"\bwashing machines?\b|(?<!sealing )(?<!lock )(?<!flat )(?<!spring )(?<!rubber )\bwashers?\b(?!\s+fluid)|\bстиральн\w*|\bстиралк\w*", re.I),
        "dryer": re.compile(r"\b(?:tumble[- ])?dryers?\b|\bсушильн\w*|\bсушилк\w*", re.I),
        "dishwasher": re.compile(r"\bdishwashers?\b|\bпосудомо\w*", re.I),
        "fridge": re.compile(r"\b(?:fridges?|refrigerators?|freezers?)\b|\bхолодильн\w*|\bморозильн\w*", re.I),
        "oven": re.compile(r"\b(?:ovens?|cookers?|hobs?)\b|\bдухов(?:к|ой|ого)\w*|\bплит(?:а|ы|у|е|ой)\b", re.I),
        "microwave": re.compile(r"\bmicrowaves?\b|\bмикроволнов\w*|\bсвч\b", re.I),
        "vacuum cleaner": re.compile(r"\bvacuum cleaners?\b|\bhoovers?\b|\bпылесос\w*", re.I),
        "coffee machine": re.compile(r"\bcoffee (?:machines?|makers?)\b|\bкофемашин\w*|\bкофеварк\w*", re.I),
    },
]


def _rival(groups: list[dict[str, re.Pattern[str]]], question: str, text: str) -> str | None:
    for group in groups:
        asked, there = _qualifiers(group, question), _qualifiers(group, text)
        if asked and there and not (asked & there):
            return sorted(there)[0]
    return None


def action_conflict(question: str, unit_text: str) -> str | None:
    """An action the question asks about (replace) where the unit names only a rival one
    (inspect): the rival is returned."""
    return _rival(ACTION_GROUPS, question, unit_text)


def subject_conflict(question: str, text: str) -> str | None:
    """A kind of appliance the question asks about (dryer) where the text names only a
    rival one (washing machine): the rival is returned."""
    return _rival(SUBJECT_GROUPS, question, text)


def _qualifiers(group: dict[str, re.Pattern[str]], text: str) -> set[str]:
    return {name for name, pattern in group.items() if pattern.search(text)}


def contrast_conflict(question: str, unit_text: str, around: str = "") -> str | None:
    """A qualifier the question sets (annual, express, international) that the unit does
    not state: either a rival stands in its place, or the unit does not say which kind
    it is about — a general sentence is not an answer about the annual plan. Unless the
    text `around` it (its passage) names the asked kind and no rival: a passage on the
    drain filter alone need not repeat "drain" in every sentence."""
    for group in CONTRAST_GROUPS:
        asked, there = _qualifiers(group, question), _qualifiers(group, unit_text)
        if asked and not (asked & there):
            if there:
                return sorted(there)[0]
            nearby = _qualifiers(group, around)
            if not (nearby & asked) or nearby - asked:
                return "unstated"
    return None


# Units of measurement (as number_units() reads them) whose value can set a condition
MEASUREMENT_UNITS = frozenset(
    "c f kg g t km m cm mm l litr liter ml quart gallon bar mpa psi w kw kwh v hz rpm n nm db mph kmh "
    "градус кг г т км м см мм л литр мл бар вт квт в гц".split())
# the same unit written another way or in the other language
UNIT_FAMILY = {"litr": "l", "liter": "l", "л": "l", "литр": "l", "мл": "ml", "градус": "c", "кг": "kg",
               "г": "g", "т": "t", "км": "km", "м": "m", "см": "cm", "мм": "mm", "бар": "bar", "вт": "w",
               "квт": "kw", "в": "v", "гц": "hz", "nm": "n"}


def measured_values(text: str) -> list[tuple[float, str, str]]:
    """(value, unit family, as written) of each number given in a unit of measurement."""
    out = []
    for m in NUM_UNIT_RE.finditer(text):
        pairs = number_units(m.group(0))
        if not pairs or pairs[0][1] not in MEASUREMENT_UNITS or "-" in pairs[0][0]:
            continue
        try:
            out.append((float(pairs[0][0]), UNIT_FAMILY.get(pairs[0][1], pairs[0][1]), m.group(0).strip()))
        except ValueError:
            continue
    return out


def unstated_values(asking: str, passages_text: str) -> list[str]:
    """Values the question takes for granted ("why does the van need 6 LITRES of oil?")
    where the passages give that unit only with other numbers (4.7 litres): the question's
    premise is not what the documents say. A unit the passages never give is no evidence
    either way (value_conflict's rule, over the passages found rather than one sentence)."""
    given: dict[str, set[float]] = {}
    for value, family, _ in measured_values(passages_text):
        given.setdefault(family, set()).add(value)
    return [written for value, family, written in measured_values(asking)
            if given.get(family) and value not in given[family]]


# "a FOUR-YEAR contract", "the 14-day plan": a period that names which kind of thing is
# asked about (not an age: "a three-year-old machine")
PERIOD_KIND_RE = re.compile(r"\b(\d+|[^\W\d_]+)-(year|month|week|day)(?!-old)\b", re.IGNORECASE)


def period_kinds(question: str) -> list[tuple[str, str]]:
    """(number, time-unit stem) of each period naming a kind of thing ("four-year" -> 4 year)."""
    out = []
    for m in PERIOD_KIND_RE.finditer(question):
        number = NUMBER_WORDS.get(m.group(1).lower(), m.group(1))
        if number.isdigit():
            out.append((number, tokenize(m.group(2))[0]))
    return out


def value_conflict(question: str, context: str) -> str | None:
    """A condition value of the question ("at 40 °C", "over 3.5 t", "a FOUR-YEAR
    contract") that the unit's context gives only other values of, in the same unit
    ("2 h 59 min at 60 °C", "Cover ends: 3 years"): the unit is about another case. The
    rival value is returned; a context silent about that unit is no conflict."""
    there = number_units(context)
    periods = period_kinds(question)
    for number, unit in [*number_units(question), *periods]:
        if unit not in MEASUREMENT_UNITS and (number, unit) not in periods:
            continue  # "per 100 Eco 40-60 cycles": a programme's name is no condition value
        same_unit = {n for n, u in there if u == unit}
        if same_unit and number not in same_unit:
            return f"{sorted(same_unit)[0]} {unit}"
    return None


# Quantities a question can ask for ("What tyre PRESSURE...", "Какая МОЩНОСТЬ..."): the
# answer must name the quantity (or a synonym) and give a number.
MEASURE_RE = re.compile(
    r"\b(?:capacity|torque|temperature|voltage|weight|pressure|speed|power|wattage|volume|height|width|"
    r"depth|length|consumption|noise|мощност\w*|давлени\w*|скорост\w*|вес|объ[её]м\w*|[её]мкост\w*|"
    r"температур\w*|напряжени\w*|момент\w*|шум\w*|высот\w*|ширин\w*|глубин\w*|длин\w*|расход\w*)\b",
    re.IGNORECASE)


MONEY_AMOUNT = r"[€$£₽]\s?\d|\d\s?(?:€|\$|£|₽|eur\b|euros?\b|руб|евро)"

# Units that name a quantity by themselves: "при 90 °C" answers "при какой температуре".
QUANTITY_UNITS: dict[str, re.Pattern[str]] = {
    stem: re.compile(pattern, re.IGNORECASE) for stem, pattern in {
        # a rate is a percentage or an amount per something ("€0.30 per kilometre")
        "rate": r"\d\s*%|(?:" + MONEY_AMOUNT + r")[\d.,]*\s*(?:€|eur\w*\s*)?(?:per|a|an|each|/)\s",
        "percentag": r"\d\s*%", "ставк": r"\d\s*%",
        "temperatur": r"\d\s*°\s*[CF]\b", "температур": r"\d\s*°\s*[CF]\b",
        "capac": r"\d\s*(?:l|litres?|liters?|quarts?|kg)\b", "емкост": r"\d\s*(?:л|литр\w*|кг)\b",
        "weight": r"\d\s*kg\b", "вес": r"\d\s*кг\b",
        "speed": r"\d\s*(?:rpm|km/h|mph)\b", "скорост": r"\d\s*(?:об/мин|км/ч)",
        "power": r"\d\s*k?W\b", "мощност": r"\d\s*к?Вт\b",
        "pressur": r"\d\s*(?:bar|psi|kPa|MPa)\b", "давлени": r"\d\s*(?:бар|МПа|кПа)\b",
        "torqu": r"\d\s*(?:N·m|Nm|lb-ft)\b", "момент": r"\d\s*(?:Н·м|Нм|N·m)",
        "voltag": r"\d\s*V\b", "напряжени": r"\d\s*В\b",
        # an SAE grade ("5W-30") is a viscosity; an amount of money is a price or a payment
        "viscos": r"\b\d{1,2}W-?\d{2}\b", "вязкост": r"\b\d{1,2}W-?\d{2}\b",
        **{money: MONEY_AMOUNT for money in ("price", "cost", "fee", "charg", "reimburs", "allow", "money", "цен",
                                             "стоимост", "компенсац", "деньг")},
        # a time limit is named by its length: "refund within 14 days" answers "the refund WINDOW"
        **{limit: DURATION_RE.pattern for limit in ("window", "period", "deadlin", "timefram", "срок")},
    }.items()
}


def quantity_named(stem: str, tokens: set[str], text: str) -> bool:
    """Is the asked quantity named in the tokens, by a synonym, or by its unit in the text?"""
    unit = QUANTITY_UNITS.get(stem)
    return attribute_named(stem, tokens) or bool(unit and unit.search(text))


def measures(question: str) -> list[str]:
    """Stems of the quantities the question asks about."""
    return [tokenize(m.group(0), keep_stopwords=True)[0] for m in MEASURE_RE.finditer(question)]


# A question narrowed to a group or a programme ("for PART-TIME employees", "for
# MANAGERS", "on the COTTON programme"): an answer must be about that group or programme.
AUDIENCE_RE = re.compile(
    r"\b(?:for|of|to|by)\s+(?:the\s+|our\s+)?(?P<mod>(?:[\w-]+\s+)?)(?P<noun>employees|staff|customers|members|"
    r"engineers|managers|interns|apprentices|students|drivers|subscribers|dealers|pensioners|retirees|"
    r"trainees|contractors)\b", re.IGNORECASE)
SPECIFIC_ROLES = frozenset("managers interns apprentices students pensioners retirees trainees contractors".split())
PROGRAMME_RE = re.compile(
    r"\b(?:on|in|with|for|using)\s+(?:the|a|an|its|their)\s+(?P<name>[\w-]+(?:\s+[\w-]+)?)\s+"
    r"(?:programme|program|cycle|mode)\b", re.IGNORECASE)


def required_qualifiers(question: str) -> list[set[str]]:
    """Stem sets an answer's context must hold: the group or programme the question is
    narrowed to ("part-time", "managers", "cotton")."""
    out = []
    for m in AUDIENCE_RE.finditer(question):
        words = m.group("mod").strip()
        if not words and m.group("noun").lower() in SPECIFIC_ROLES:
            words = m.group("noun")
        stems = {t for t in tokenize(words) if t not in QUESTION_FILLER}
        if stems:
            out.append(stems)
    for m in PROGRAMME_RE.finditer(question):
        stems = {t for t in tokenize(m.group("name")) if t not in QUESTION_FILLER}
        if stems:
            out.append(stems)
    return out


DETERMINER_NOUN_RE = re.compile(r"\b(?:a|an|the|my|your|our|their|its|this|that|these|those)\s+([a-z][a-z-]{2,})\b",
                                re.IGNORECASE)


AUXILIARY_END_RE = re.compile(r"\b(?:do|does|did|can|could|will|would|should|shall|must|may|might|is|are|was|"
                              r"were|has|have|had)\s*$", re.IGNORECASE)


SINGULAR_DETERMINERS = frozenset({"a", "an", "this", "that"})
# a word in -s that is not a plural noun's ending ("class", "status", "analysis")
VERB_S_RE = re.compile(r"[a-z]{2,}(?<!s|u|i)s$")


def determined_words(question: str) -> list[str]:
    """English words right after an article or possessive ("a DISHWASHER", "the GEARBOX"):
    nouns or their adjectives, so the thing asked about rather than the asking. A singular
    determiner takes no plural noun, so a word in -s after it is a verb: "a drawer that
    GOES under", "after a wash FINISHES" ("that" is then a relative pronoun)."""
    out = []
    for m in DETERMINER_NOUN_RE.finditer(question):
        singular = m.group(0).split()[0].lower() in SINGULAR_DETERMINERS
        if not (singular and VERB_S_RE.fullmatch(m.group(1).lower())):
            out.append(m.group(1))
        nxt = re.match(r"\s+([a-z][a-z-]{2,})\b", question[m.end():])
        # "an old FRIDGE": the noun after its adjective; but in "does the door UNLOCK" the
        # subject after an auxiliary is followed by the verb
        after_auxiliary = AUXILIARY_END_RE.search(question[:m.start()])
        if nxt and nxt.group(1).lower() not in STOPWORDS and not after_auxiliary \
                and not (singular and VERB_S_RE.fullmatch(nxt.group(1).lower())):
            out.append(nxt.group(1))
    return out


# "Do STUDENTS get a discount?", "Can INTERNS claim ...": the subject of a yes/no question
YES_NO_SUBJECT_RE = re.compile(r"^\s*(?:do|does|did|can|could|will|would|should|are|is|may|must)\s+([a-z][a-z-]{2,})\b",
                               re.IGNORECASE | re.MULTILINE)


def yes_no_subject(asking: str) -> list[str]:
    """The noun a yes/no question opens with, when it has no article ("Do STUDENTS get any
    discount?"): what the question is about. Pronouns and articles are not subjects."""
    out = []
    for sentence in re.split(r"(?<=[.?!])\s+", asking):
        m = YES_NO_SUBJECT_RE.match(sentence)
        if m and m.group(1).lower() not in STOPWORDS and not m.group(1)[0].isupper():
            out.append(m.group(1))
    return out


def is_qualifier(stem: str) -> bool:
    """A contrast-group word (top, maximum, monthly...) rather than an attribute."""
    return any(p.search(stem) for group in CONTRAST_GROUPS for p in group.values())


# Words that name the same attribute: a question about the CAPACITY of a tank is answered
# by "the tank HOLDS 7.8 litres". Stems; used only for the asked attribute (focus).
ATTRIBUTE_SYNONYMS: dict[str, frozenset[str]] = {
    k: frozenset(tokenize(v, keep_stopwords=True)) for k, v in {
        "capac": "holds hold takes contains volume fill litres quarts ёмкость объём вмещает",
        "top": "maximum max highest up",
        "maximum": "top max highest up limit",
        "limit": "maximum max up",
        "price": "cost costs fee charge €",
        "cost": "price fee charge €",
        "fee": "price cost charge",
        "charg": "price cost costs fee €",
        "weight": "weighs kg",
        "weigh": "weight kg",
        "time": "once twice",
        "мощност": "вт квт",
        "вес": "весит кг",
        "durat": "takes lasts minutes hours",
        "reimburs": "paid pay refund allowance €",
        "author": "authority authorities office commissioner",
    }.items()
}


def attribute_named(focus: str, tokens: set[str]) -> bool:
    """Is the asked attribute (a stem) named in these tokens, directly or by a synonym?"""
    return focus in tokens or bool(ATTRIBUTE_SYNONYMS.get(focus, frozenset()) & tokens)


_FOCUS_PATTERNS = [
    re.compile(r"^\s*(?:what|which)\s+(?:is|are|was|were)\s+(?:the\s+|an?\s+)?(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
               r"(?:of|for|on|in|at|to|with|per|when|if|from)\b", re.IGNORECASE),
    re.compile(r"\bhow\s+(?:many|much)\s+(?P<focus>\w+)\s+(?:of|does|do|is|are)\b", re.IGNORECASE),
    # "Who is the DATA PROTECTION OFFICER at ...": the role asked about must be named
    re.compile(r"^\s*who\s+(?:is|are|was|were)\s+(?:the\s+|your\s+|our\s+)?(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+"
               r"(?:at|of|for|in|on)\b", re.IGNORECASE),
    # "How big is the DOOR OPENING on the AquaLine 9?": the measured thing, not the model
    re.compile(r"^\s*how\s+(?:big|large|wide|long|tall|high|deep|heavy|thick|strong)\s+(?:is|are)\s+(?:the\s+|an?\s+)?"
               r"(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:of|for|on|in|at)\b", re.IGNORECASE),
    # "How many PEOPLE work...", "How many transport BOLTS...": the counted thing
    re.compile(r"\bhow\s+many\s+(?P<focus>[a-z-]+(?:\s+[a-z-]+)?)\s+(?:are|is|do|does|can|must|have|has|work|"
               r"will|should|may)\b", re.IGNORECASE),
    # "What PRESSURE should...", "Which COLOURS is...", "Which engine oil VISCOSITY is approved"
    re.compile(r"^\s*(?:what|which)\s+(?!is\b|are\b|was\b|were\b|does\b|do\b|did\b|can\b|should\b)"
               r"(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:should|is|are|must|can|will|applies|apply|does|do)\b",
               re.IGNORECASE),
    re.compile(r"^\s*(?:какой|какая|какое|какие|каков|какова|каково|каковы)\s+(?P<focus>[\w-]+(?:\s+[\w-]+)?)\s+"
               r"(?:у|для|в|на|при|с|по|нужн[аоы]?|должн[аоы]?|требуется|необходим[аоы]?)\b", re.IGNORECASE),
    # "What is the maximum room TEMPERATURE the machine can stand in?": a relative clause may
    # follow the attribute without "that"; "the most I can spend" names no attribute
    re.compile(r"^\s*(?:what|which)\s+(?:is|are|was|were)\s+(?:the\s+|an?\s+)?"
               r"(?!(?:(?:the|an?)\s+)?(?:most|least)\b)(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+"
               r"(?:the|a|an|my|your|our|i|you|we)\b", re.IGNORECASE),
]

# "Is there a WAITING PERIOD after ...?", «Есть ли ГАРАНТИЯ на ...?»: what must exist is the topic
_EXISTENCE_PATTERNS = [
    re.compile(r"\b(?:is|are)\s+there\s+(?:a|an|any|some)\s+(?P<focus>[\w'-]+(?:\s+[\w'-]+){0,2}?)"
               r"(?:\s+(?:of|for|on|in|at|to|with|per|when|if|from|after|before|that|between|during|while)\b|\s*\?)",
               re.IGNORECASE),
    re.compile(r"\b(?:есть|существует|предусмотрен[аоы]?)\s+ли\s+(?:у\s+\w+\s+)?(?P<focus>[\w-]+(?:\s+[\w-]+)?)"
               r"(?:\s+(?:у|для|в|на|при|с|по|за|после|перед|до)\b|\s*\?)", re.IGNORECASE),
]

# Nouns that name the form of the answer, not its topic: "What phone NUMBER should I call"
# is answered by "+49 40 5550 1300" without the word "number".
ANSWER_FORM_WORDS = frozenset(tokenize(
    "number phone telephone address e-mail email mail amount value figure name номер телефон адрес",
    keep_stopwords=True))


# Whose attribute a question asks: "What torque does the REAR AXLE HUB NUT need?", "What is
# the capacity OF the WASHER FLUID RESERVOIR?". Up to four words, ended by the question mark
# or a preposition that starts a condition. Not "for": "the core hours FOR OFFICE STAFF"
# names whom a rule applies to (the narrowed-to check's business), often said a sentence before.
_OWNER_PATTERNS = [
    re.compile(r"^\s*(?:what|which)\s+(?:is|are)\s+(?:the\s+)?[\w'-]+(?:\s+[\w'-]+){0,2}?\s+of\s+"
               r"(?:the\s+|an?\s+|my\s+|your\s+|our\s+)?(?P<owner>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
               r"\s*(?:\?|$|\s+(?:on|in|at|when|if|during|with|under|after|before|from)\b)", re.IGNORECASE),
    re.compile(r"^\s*(?:what|which)\s+[\w'-]+(?:\s+[\w'-]+)?\s+(?:does|do|is|are)\s+"
               r"(?:the\s+|an?\s+|my\s+|your\s+|our\s+)?(?P<owner>[\w'-]+(?:\s+[\w'-]+){0,3}?)"
               r"(?:\s+(?:on|in|of|for)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?)?\s+"
               r"(?:need|needs|require|requires|take|takes|use|uses|get|gets)\b", re.IGNORECASE),
]


# "the 9 Steam MODEL", "the Premium TIER": a word that classes the name, not part of it
_CLASSIFIER_NOUNS = frozenset(tokenize("model models type types version versions variant series tier tiers "
                                       "plan plans option options", keep_stopwords=True))


def attribute_owner(question: str) -> list[str]:
    """Stems of what the asked attribute belongs to (see _OWNER_PATTERNS); [] if none is said."""
    for pattern in _OWNER_PATTERNS:
        m = pattern.search(question)
        if m:
            ids = {t for i in identifiers(question) for t in tokenize(i)}  # the identifier check's business
            return [t for t in tokenize(m.group("owner")) if t not in QUESTION_FILLER and t not in ids
                    and not t.isdigit() and t not in _CLASSIFIER_NOUNS]
    return []


def focus_terms(question: str, existence: bool = True) -> list[str]:
    """The attribute a question asks about ("What is the TORQUE for ...", "Какой УРОВЕНЬ
    ШУМА у ..."), or with `existence` what it asks to exist ("Is there a WAITING PERIOD"),
    as stems; the slot, answer-form and filler words are left out."""
    slot = SLOT_WORDS.get(expected_type(question) or "", frozenset()) | ANSWER_FORM_WORDS
    for pattern in [*_FOCUS_PATTERNS, *(_EXISTENCE_PATTERNS if existence else [])]:
        m = pattern.search(question)
        if m:
            return [t for t in tokenize(m.group("focus")) if t not in QUESTION_FILLER and t not in slot]
    return []


SECTION_REF_RE = re.compile(
    r"(?:\bsection|\bparagraph|\bpara|\bclause|\bchapter|\barticle|§|\bпункт\w*|\bраздел\w*|\bглав\w*|"
    r"\bстать\w*|\bп\.)\s*(\d+(?:[.\-]\d+)*)", re.IGNORECASE)


def section_refs(question: str) -> list[str]:
    """Numbers the question cites as a section, paragraph or clause ("section 14", "пункт 9.3")."""
    return SECTION_REF_RE.findall(question)


APPENDIX_RE = re.compile(r"\b(?:appendix|annex|attachment|schedule|приложени\w*)\s+([A-Z]|\d+)\b", re.IGNORECASE)
PAGE_REF_RE = re.compile(r"\b(?:page|p\.|стр\.|страниц\w*)\s*(\d{1,4})\b", re.IGNORECASE)


def appendix_refs(question: str) -> list[str]:
    """Appendices or annexes the question cites ("Appendix C"), as written."""
    return [m.group(0) for m in APPENDIX_RE.finditer(question)]


def page_refs(question: str) -> list[int]:
    """Page numbers the question cites ("on page 12")."""
    return [int(n) for n in PAGE_REF_RE.findall(question)]


MODEL_NAME_RE = re.compile(r"\b([A-ZА-ЯЁ][\w-]*[a-zа-яё][\w-]*)\s+(\d{1,4})\b(?![.,]\d|\s*[%°])")


def model_names(question: str) -> list[str]:
    """A name followed by a number ("AquaLine 10", "Series 5"): a product or model the
    documents must name exactly; "AquaLine 9" is not "AquaLine 10". Months are dates, and
    "section 14" / "page 12" are references handled elsewhere."""
    out = []
    for m in MODEL_NAME_RE.finditer(question):
        word = m.group(1).lower()
        if any(word == mo or (not mo.isascii() and word.startswith(mo)) for mo in MONTHS) or SECTION_REF_RE.match(m.group(0)) \
                or APPENDIX_RE.match(m.group(0)) or PAGE_REF_RE.match(m.group(0)):
            continue
        out.append(f"{m.group(1)} {m.group(2)}")
    return out


MODEL_ALIAS_RE = re.compile(
    r"\b([A-Z][\w-]*[a-z][\w-]*\s+\d{1,4}(?:\s+[A-Z][a-z]+)?)\s*\(([A-Z]{1,5}-?\d+[A-Z\d]*)\)")


def model_aliases(text: str) -> list[set[str]]:
    """Models the text names twice, by name and by code ("AquaLine 7 (WM-700)"): each a
    set of its lowercased spellings ({"aqualine 7", "wm-700"})."""
    return [{" ".join(m.group(1).lower().split()), m.group(2).lower()} for m in MODEL_ALIAS_RE.finditer(text)]


def other_model(question: str, context: str, aliases: list[set[str]]) -> str | None:
    """The model a unit is about when it is another one than the question's: "Maximum
    load (WM-910)" does not answer a question about the AquaLine 7 (WM-700). Only models
    the passages name both ways count; a unit naming the question's model, or none, is
    fine."""
    asked = [n.lower() for n in model_names(question)] + sorted(identifiers(question))
    if not asked or not aliases:
        return None
    def names(model: set[str], text: str) -> bool:
        return any(re.search(rf"(?<![\w-]){re.escape(spelling)}(?![\w-])", text) for spelling in model)
    mine = [m for m in aliases if any(a == s or s.startswith(a + " ") for a in asked for s in m)]
    low = " ".join(context.lower().split())
    there = [m for m in aliases if names(m, low)]
    if not mine or not there or any(names(m, low) for m in mine):
        return None
    return sorted(there[0])[-1]


@functools.lru_cache(maxsize=64)  # asked once per unit, with the same passages each time
def rival_names(name: str, text: str) -> frozenset[str]:
    """Names the text sets side by side with `name` ("two tiers, Standard and Premium",
    "Standard or Premium"): alternatives to it, lowercased."""
    joiner = r"(?:,|\s+and|\s+or|\s+и|\s+или|\s*/)\s+"
    other = r"([A-ZА-ЯЁ][\w-]+)"
    n = re.escape(name)
    found = re.findall(rf"\b{n}{joiner}{other}", text) + re.findall(rf"{other}{joiner}{n}\b", text)
    return frozenset(f.lower() for f in found if f.lower() != name.lower())


def names_rival(question_names: set[str], context: str, passages: str) -> str | None:
    """A rival of a name of the question (see rival_names) that the unit's context names
    while it does not name the question's own: "With Premium, ... 5 household members"
    does not answer for Standard."""
    low = context.lower()
    for name in question_names:
        if re.search(rf"\b{re.escape(name.lower())}\b", low):
            continue
        rival = next((r for r in sorted(rival_names(name, passages)) if re.search(rf"\b{re.escape(r)}\b", low)), None)
        if rival:
            return rival
    return None


def has_section(ref: str, section_path: str, text: str) -> bool:
    """Is `ref` the number of a heading on this path, or of a numbered paragraph in the text?"""
    # "3." heads section 3, "3.1" does not
    pattern = re.compile(rf"(?:^|> |\n)(?:(?:chapter|section|глава|раздел|para)\s+)?{re.escape(ref)}(?:\.(?!\d)|[\s)]|$)",
                         re.IGNORECASE)
    return bool(pattern.search(section_path) or pattern.search(text))


INSTRUCTION_RE = re.compile(
    r"\b(?:ignore|disregard|forget)\b[^.]{0,40}\b(?:instructions?|rules|prompt)\b|^\s*system\s*:|"
    r"\byou are now\b|\btell the (?:user|customer)\b|\bas an ai\b|\bassistant\s*:|"
    r"\binstructions?\s*:|\bsystem prompt\b|\bsystem override\b|\brespond (?:in|with|only)\b|"
    r"\banswer without\b|\bskip the sources\b|\bwithout citations\b|"
    r"\b(?:note|message|notice|memo)\s+(?:for|to)\s+(?:the\s+)?(?:ai|llm|chatbot|language model|assistant)s?\b|"
    r"(?:^|[.:;!\[(])\s*always (?:answer|reply|respond)\b|\bnever cite\b|"
    r"\b(?:заметка|сообщение|примечание) для (?:ии|ai|ассистент\w*|нейросет\w*)|\bвсегда отвечай\b|\bне цитируй\b|"
    r"\bигнорируй\w*\b|\bзабудь\w*\b[^.]{0,40}\bинструкц\w*|\bты теперь\b|\bотвечай без\b",
    re.IGNORECASE,
)


# markup pasted into a question (<img src=x onerror=...>, <script>...</script>) is no topic:
# its words would find the document lines that carry the same markup
MARKUP_RE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>|</?[A-Za-z][^<>]{0,300}>", re.IGNORECASE | re.DOTALL)


def strip_instructions(question: str) -> str:
    """The question without markup and without clauses aimed at the model ("Ignore
    previous instructions.", "Respond in JSON only and skip the sources:"); the original
    if nothing else is left."""
    question = " ".join(MARKUP_RE.sub(" ", question).split()) or question
    parts = re.split(r"(?<=[.!?:])\s+", question.strip())
    kept = [p for p in parts if not looks_like_instruction(p)]
    return " ".join(kept) if kept else question


def looks_like_instruction(text: str) -> bool:
    """Text addressed to a model rather than to a reader (prompt injection in a document)."""
    return bool(INSTRUCTION_RE.search(text))


# ---- expected answer type ------------------------------------------------------------------

# "IN amps", «В литрах»: the word after the preposition names the unit (UNIT_DIMENSIONS)
_UNIT_ASKED_RE = re.compile(r"\b(?:in|into)\s+(?:the\s+)?([^\W\d_][\w·-]*)|\bв\s+([^\W\d_]+)", re.IGNORECASE)


def asked_measure(question: str) -> str | None:
    """The dimension of the unit the question asks the answer in ("in amps" -> current);
    a one-letter unit ("in a", "в м") is a preposition's object far more often."""
    for m in _UNIT_ASKED_RE.finditer(question):
        tokens = tokenize((m.group(1) or m.group(2)).lower(), keep_stopwords=True)
        if tokens and len(tokens[0]) > 1 and tokens[0] in DIMENSION_OF:
            return DIMENSION_OF[tokens[0]]
    return None


def _gives_measure(text: str, dimension: str) -> bool:
    """Does the text give a value in a unit of this dimension ("0.5-10 bar" for pressure)?"""
    return any(DIMENSION_OF.get(unit) == dimension for _, unit in number_units(text))


# (type, explicit pattern, loose pattern). An explicit ask ("how many days", "сколько стоит")
# makes the type a hard requirement for an answer; a loose hint only adds to the score.
_TYPE_PATTERNS: list[tuple[str, re.Pattern[str], re.Pattern[str]]] = [
    # "At what time...", «Во сколько приходит SMS?»: a time of day ("14:00", "9 a.m."), not any
    # number ("a 4-hour window"); «во сколько обойдётся» asks a price, «во сколько раз» a ratio
    ("time of day", re.compile(
        r"\b(?:at|by|until|till|from) what time\b|\bwhat time (?:does|do|is|are|will|should|must|can)\b|"
        r"\bво сколько\b(?!\s+(?:раз|обойд\w*|стоит|стоят|это))|\bв котором часу\b|\bк какому времени\b|"
        r"\bдо скольки\b", re.IGNORECASE),
     re.compile(r"(?!x)x")),
    ("duration", re.compile(
        r"\bhow (?:long|many (?:business )?(?:days|weeks|months|years|hours|minutes))\b|\bwithin how\b|"
        r"\bhow much time\b|"
        r"\bhow (?:far|long|many days|early) in advance\b|\bhow early\b|\bзаранее\b|\bза сколько\b|"
        r"\bсколько (?:\w+ )?(?:дней|недель|месяцев|лет|часов|минут|времени)\b|\bв течение какого\b|"
        r"\bза какое время\b|\bкак долго\b|\bчерез сколько\b|\bсколько (?:\w+ )?(?:длит\w*|продолжа\w*)",
        re.IGNORECASE),
     re.compile(r"\bhow (?:soon|fast|quickly)\b|\b(?:window|period|deadline|timeframe|time frame)\b|\bкакой срок\b|\bсрок\w*\b",
                re.IGNORECASE)),
    ("money", re.compile(
        r"\bhow much (?:does|do|is|are|will|would|did)\b[^?]*\b(?:cost|charge|pay|fee|price|reimburs\w*|allowance)|"
        r"\bwhat (?:does|do|will|would) (?:[\w-]+ ){1,6}cost\b|\bwhat(?: is|'s) the (?:price|fee|cost)\b|"
        # "What are the HomeHub subscription PRICES?": the question ends on what it asks for
        r"\bwhat (?:is|are|were|was) the (?:[\w-]+ ){1,3}(?:prices?|fees?|costs?|charges?)\s*\??\s*$|"
        r"\bhow much (?:is|are) (?:a|an)\b|\bup to what (?:price|amount|value)\b|\bat what price\b|"
        r"\bсколько (?:будет |может )?стои(?:т|ть)\b|\bсколько (?:нужно )?заплатить\b|\bкакова стоимость\b|\bкакая цена\b|"
        r"\bсколько (?:\w+ )?(?:возмеща\w*|компенсиру\w*|доплачива\w*)",
        re.IGNORECASE),
     re.compile(r"\b(?:price|cost|fee|charge)s?\b|\bстоимост\w*\b|\bцен\w\b|\bплат\w+\b", re.IGNORECASE)),
    # "how often": an interval ("every 6 months", "after each wash", "at 60,000 km"), not any number
    ("frequency", re.compile(r"\bhow (?:often|frequently|regularly)\b|\bat what (?:[\w-]+ )?intervals?\b|\bкак часто\b|"
                             r"\bwhat(?: is|'s) the (?:[\w-]+ )?interval\b|"
                             r"\bс какой (?:периодичностью|частотой)\b|\bкак регулярно\b", re.IGNORECASE),
     re.compile(r"(?!x)x")),
    ("number", re.compile(r"\bhow many\b|\bwhat (?:percentage|percent)\b|\bсколько\b", re.IGNORECASE),
     re.compile(
        r"\bhow (?:much|often|far|old|big|heavy|high|large|deep|wide)\b|"
        r"\b(?:capacity|torque|temperature|voltage|weight|pressure|speed|limit|maximum|minimum|rpm)\b|"
        r"\bкакова? (?:ёмкость|емкость|вместимость|температура|скорость|мощность)\b|"
        r"\bмаксимальн\w+\b|\bминимальн\w+\b", re.IGNORECASE)),
    ("weekday", re.compile(r"\b(?:what|which) (?:day of the week|weekdays?)\b|\bв как(?:ой|ие) (?:день|дни) недели\b",
                           re.IGNORECASE), re.compile(r"(?!x)x")),  # never a loose ask: "when" is a date
    # "which day" alone may be answered by an ordinal ("from the third day"): not a hard date ask
    ("date", re.compile(r"\bwhat date\b|\bwhich date\b|\bкакого числа\b", re.IGNORECASE),
     re.compile(r"\bwhen\b|\bкогда\b", re.IGNORECASE)),
    # "UNTIL WHEN can I use it?": an end point ("until the end of the paid term", "to 31 May")
    ("end", re.compile(r"\buntil when\b|\btill when\b|\bдо какого (?:момента|срока)\b", re.IGNORECASE),
     re.compile(r"(?!x)x")),
    # "Where are the motors MADE?", "in which city": a place, which a text names by name
    # (not "where is the sensor": a spot inside the machine)
    ("place", re.compile(
        r"\bwhere\s+(?:is|are|was|were)\b[^?]*\b(?:made|produced|manufactured|assembled|built|based|"
        r"headquartered|put together)\b|\b(?:in\s+)?which\s+(?:city|country|town)\b|"
        r"\bгде\s+(?:\w+\s+)?(?:производ|собира|изготавлива)\w*|\bв\s+каком\s+(?:городе|стране)\b",
        re.IGNORECASE), re.compile(r"(?!x)x")),
    ("person", re.compile(r"^\s*who\b|^\s*кто\b", re.IGNORECASE),
     re.compile(r"\bwho\b|\bк кому\b|\bкто\b", re.IGNORECASE)),
]


def expected_type(question: str) -> str | None:
    """duration | money | number | frequency | weekday | date | end | place | person | None (free-form)."""
    hit = question_type(question)
    return hit[0] if hit else None


def question_type(question: str) -> tuple[str, bool] | None:
    """(type, explicit) of the answer the question asks for; None for free-form questions."""
    if asked_measure(question):  # "What is the cold-cranking current IN AMPS?": a value in amps
        return "measure", True
    for name, explicit, _ in _TYPE_PATTERNS:
        if explicit.search(question):
            return name, True
    for name, _, loose in _TYPE_PATTERNS:
        if loose.search(question):
            return name, False
    return None


# "Which COMPANY / INSURER / AUTHORITY ...": the answer is an organisation, which a text names
ORGANISATION_ASKED_RE = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:company|companies|insurer|insurance company|carrier|courier|"
    r"bank|authority|provider|supplier|manufacturer|partner|firm|agency|organi[sz]ation|regulator)\b|"
    r"\bкак(?:ая|ой|ие)\s+(?:\w+\s+)?(?:компани\w*|перевозчик\w*|страхов\w+ компани\w*|банк\w*|"
    r"организаци\w*|ведомств\w*)", re.IGNORECASE)


# "WHY must treated clothes not be washed?" asks for a reason, which manuals often give in
# the sentence after the rule ("Such items can cause a fire or an explosion.")
REASON_ASKED_RE = re.compile(r"\b(?:why|what for|почему|зачем|для чего|по какой причине)\b", re.IGNORECASE)
REASON_SAID_RE = re.compile(
    r"\b(?:because|since|so that|in order to|to (?:prevent|avoid|protect)|otherwise|reason|"
    r"(?:can|could|may|will|would) (?:cause|lead|result|damage)|causes?|leads? to|results? in|"
    r"потому что|так как|поскольку|чтобы|иначе|из-за|причин\w*|привод\w*|может привести)\b|"
    r"^(?:such|this|these|так|это|этим)\b", re.IGNORECASE)


# "Where are they MADE?" asks where something is produced: an address the company gives for
# its warranty is no place of production
PRODUCTION_ASKED_RE = re.compile(
    r"\b(?:made|produced|manufactured|assembled|built|put together)\b|\b(?:производ|собира|изготавлива)\w*",
    re.IGNORECASE)
PRODUCTION_SAID_RE = re.compile(
    r"\b(?:made|makes?|produc(?!ers?\b)\w*|manufactur(?!ers?\b)\w*|assembl\w*|built|builds?|factor(?:y|ies)|plants?)\b|"
    r"\b(?:производ|собира|собран|изготов|завод|фабрик)\w*", re.IGNORECASE)


def counts(text: str, noun: str) -> bool:
    """Does the text count `noun` (a stem): a number or number word followed within three
    words by it ("4 transport bolts", "five household members"), or it followed by a colon
    and a number ("Household members: 5")?"""
    words = re.findall(r"[^\W_]+(?:[.,-]\d+)*%?|:", text)
    stems = [tokenize(w, keep_stopwords=True)[:1] for w in words]
    amounts = {m.start() for m in re.finditer(r"(?<=[€$£₽])\s?\d", text)}
    positions = [m.start() for m in re.finditer(r"[^\W_]+(?:[.,-]\d+)*%?|:", text)]
    for i, w in enumerate(words):
        if positions[i] in amounts or positions[i] - 1 in amounts:
            continue  # "€30 to employees" is an amount of money, not a count of employees
        if NUMBER_RE.fullmatch(w) or NUMBER_WORD_RE.fullmatch(w):
            at = next((j for j in range(i + 1, min(i + 4, len(words))) if noun in stems[j]), None)
            # "2 bicycles PER employee" counts bicycles, not employees
            if at is not None and not {x.lower() for x in words[i + 1:at]} & {"per", "each", "every", "на"}:
                return True
        if noun in stems[i] and i + 2 < len(words) and words[i + 1] == ":" and NUMBER_RE.match(words[i + 2]):
            return True
    return False


WEEKDAY_RE = re.compile(r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|понедельник|вторник|"
                        r"сред[аыу]|четверг|пятниц|суббот|воскресень)\w*", re.IGNORECASE)


# An interval: "every 6 months", "once a year", "after each wash", "daily", "at 60,000 km",
# or a schedule row whose header names it ("Interval: 12 months", «Как часто: ...»). Not
# "each van", nor "intervals" said in passing ("the manual sets out intervals")
_TIME_NOUN = (r"(?:\d|other\b|day|week|month|year|hour|time|morning|evening|night|wash|cycle|use|service|shift|"
              r"trip|quarter|season|дн|день|недел|месяц|год|час|раз|утр|вечер|смен|стирк|поездк|сезон)")
FREQUENCY_RE = re.compile(
    rf"\b(?:every|each|кажд\w+)\s+{_TIME_NOUN}|\b(?:after|после) (?:every|each|кажд\w+)\b|"
    r"\b(?:once|twice|\d+ times|times a|daily|weekly|monthly|quarterly|annually|yearly|раза? в|ежедневн\w*|"
    r"еженедельн\w*|ежемесячн\w*|ежеквартальн\w*|ежегодн\w*)\b|\d[\d,.]*\s?(?:km|miles|км)\b|"
    r"\b(?:interval|frequency|как часто|периодичность)\w*:\s*\S*\d", re.IGNORECASE)


TIME_OF_DAY_RE = re.compile(
    r"\b\d{1,2}[:.]\d{2}\b(?!\s*(?:%|€|kg|mm|cm|l\b|bar|кг|мм|л\b))|\b\d{1,2}\s?[ap]\.?m\b\.?|"
    r"\b(?:noon|midday|midnight|o'clock|полдень|полудня|полночь|полуночи)\b|"
    r"\b(?:в|до|к|после|с)\s+\d{1,2}\s*(?:час\w*|ч\b)", re.IGNORECASE)


TIME_COUNT_ASKED_RE = re.compile(
    r"\bhow many (?:\w+ )?(?:days|weeks|months|years|hours|minutes)\b|"
    r"\bсколько (?:\w+ )?(?:дней|недель|месяцев|лет|часов|минут|суток)\b", re.IGNORECASE)


SHORT_TIME_RE = re.compile(r"(?:second|minute|hour|секунд|минут|час)\w*\s*$", re.IGNORECASE)
LONG_TIME_RE = re.compile(r"(?:day|week|month|year|дн|день|дня|недел|месяц|год|лет|сут)\w*\s*$", re.IGNORECASE)


def _time_scale(duration: str) -> str | None:
    """"short" (seconds to hours) or "long" (days to years): how many minutes is not
    answered by months."""
    if SHORT_TIME_RE.search(duration):
        return "short"
    return "long" if LONG_TIME_RE.search(duration) else None


# models and technical terms, which are no place names ("AquaLine 9 Steam", "WM-910", "Wi-Fi")
PRODUCT_TERM_RE = re.compile(r"\b[A-Z][\w-]*\s+\d[\w.]*(?:\s+[A-Z][a-z]+)?|\b[A-Za-z]{1,3}-[A-Za-z\d]{1,4}\b")


def without_names(text: str, names: Iterable[str]) -> str:
    """The text with the given names blanked out."""
    for name in names:
        text = text.replace(name, " ")
    return text


def matches_type(text: str, kind: str | None, question: str = "", names: Iterable[str] = ()) -> bool:
    """Does this text contain the kind of thing the question asks for? `names` are the
    question's own names, which are no answer ("Who pays duties to SWITZERLAND?")."""
    if kind is None:
        return True
    if kind == "place":  # models go before the names do: "AquaLine 8 Pro" leaves no "8 Pro"
        text = PRODUCT_TERM_RE.sub(" ", text)
    text = without_names(text, names)
    if kind == "duration":
        asked = TIME_COUNT_ASKED_RE.search(question)
        if asked:  # "how many days": "immediately" is no count, nor "20 minutes" (another scale)
            scale = _time_scale(asked.group(0))
            return any(_time_scale(m.group(0)) in (scale, None) for m in DURATION_RE.finditer(text))
        return bool(DURATION_RE.search(text)) or bool(
            re.search(r"\b(?:immediately|same day|next day|немедленно|сразу)\b", text, re.IGNORECASE)
        )
    if kind == "time of day":
        return bool(TIME_OF_DAY_RE.search(text))
    if kind == "measure":
        dimension = asked_measure(question)
        return dimension is None or _gives_measure(text, dimension)
    if kind == "money":
        return bool(NUMBER_RE.search(text) and (MONEY_RE.search(text) or re.search(r"\bfree\b|бесплатн", text, re.I)))\
            or bool(re.search(r"\bfree of charge\b|\bfree\b|бесплатн", text, re.IGNORECASE))
    if kind == "number":
        return bool(NUMBER_RE.search(text) or NUMBER_WORD_RE.search(text))
    if kind == "frequency":
        return bool(FREQUENCY_RE.search(text))
    if kind == "weekday":
        return bool(WEEKDAY_RE.search(text))
    if kind == "date":
        low = text.lower()
        return bool(NUMBER_RE.search(text)) or any(m in low for m in MONTHS) or bool(
            WEEKDAY_RE.search(low)
        )
    if kind == "end":
        return bool(re.search(r"\b(?:until|till|up to|to the end of|through)\b|\bдо\s+(?:конца|окончания|\d)",
                              text, re.IGNORECASE))
    if kind == "place":  # a name ("in Brno", "Wrocław, Poland"), not a capitalised label or cell,
        # nor a model ("AquaLine 9 Steam", "WM-910") or a technical term ("Wi-Fi"), removed above
        return bool(proper_names(re.sub(r"(^|[;:|]\s*)[^\W\d_]+", r"\1x", text)))
    if kind == "person":
        return bool(proper_names(text)) or bool(
            re.search(r"\b(?:team|department|officer|manager|desk|support|recipient|customer|carrier|buyer|"
                      r"subscriber|employee|driver|commissioner|authority|отдел|служб|менеджер|"
                      r"специалист|инженер|получател|покупател|клиент|перевозчик)\w*", text, re.IGNORECASE)
        )
    return True


CLAUSE_SPLIT_RE = re.compile(r"[,;:()\u2014\u2013]\s|\s[\u2014\u2013-]\s|;")


_ANCHORED_VALUES = {"duration": DURATION_RE, "money": re.compile(MONEY_AMOUNT, re.IGNORECASE)}


def value_anchored(unit: Unit, kind: str | None, anchors: set[str]) -> bool:
    """Is a value of the asked kind said of something the question names? The clause (or
    table cell) holding the value, with a row's first cell (what the row is about), must
    hold one of `anchors` (the question's topic stems): "Included: ...; cycle history for
    90 days" gives a duration of the cycle history, not of a refund."""
    pattern = _ANCHORED_VALUES.get(kind or "")
    if pattern is None or not anchors:
        return True
    parts = CLAUSE_SPLIT_RE.split(unit.text) if unit.kind != "row" else unit.text.split("; ")
    subject = parts[0] if unit.kind == "row" else ""
    valued = [p for p in parts if pattern.search(p)]
    if not valued:
        return True  # "free of charge", "immediately": nothing to anchor
    return any(anchors & set(tokenize(f"{subject} {p}", keep_stopwords=True)) for p in valued)


# "How long does DELIVERY to Germany take?", «Сколько дней идёт ДОСТАВКА в Германию?»: the
# process whose length is asked; a service visit's 3 days are no delivery time
_PROCESS_RE = re.compile(
    r"\bhow\s+long\s+(?:does|do|will|would|did|should|can)\s+(?:the\s+|a\s+|an\s+|my\s+|your\s+|our\s+)?"
    r"(?P<en>[a-z][\w-]*(?:\s+[\w-]+){0,5}?)\s+(?:usually\s+|normally\s+|typically\s+|still\s+)?(?:take|last)\b|"
    r"\bсколько\s+(?:\w+\s+)?(?:идёт|идет|занимает|длится|продолжается)\s+(?P<ru>[а-яё-]+)", re.IGNORECASE)


def process_subject(question: str) -> list[str]:
    """The head noun of the process whose duration the question asks ("delivery",
    «доставка»), as written; empty for other questions."""
    m = _PROCESS_RE.search(question)
    if not m:
        return []
    words: list[str] = []
    for word in (m.group("en") or m.group("ru") or "").split():
        if word.lower() in STOPWORDS:  # "delivery | to Germany": the noun ends at its preposition
            break
        words.append(word)
    return words[-1:]


def identifier_shape(identifier: str) -> str:
    """"e20" -> "a9", "kt-200" -> "a-9", "7-2" -> "9-9": letters and digits, runs merged."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", identifier.lower())))
