"""Does a passage contradict what the question takes for granted?

"Why is paid parental leave 20 weeks long?" against "12 weeks of paid parental leave" should
be answered neither as asked nor with a bare refusal, but with a correction that cites the
passage (status `corrected`). Two deterministic, language-level checks, on the asking
sentence only (a scene, "I've worked here 3 years.", is the user's situation, not a premise):

1. a value: an asserting question (yes/no, why, how) states a number with a unit (20 weeks,
   $500) and a unit that names everything else the asking sentence names states another
   number with that unit, while the passage never states the question's number with that
   unit («за 14 дней» of a notice period is not the length of the leave asked about in
   «Почему отпуск составляет 35 дней?»). In "How many people does
   room 5 seat?" or "What does bed 7 grow?" the number names what is asked about, and
   "Room 13 seats 20 people" is another room, not another value;
2. a negation: a yes/no, why or how question asserts (it is not negated) and a unit that
   holds most of the question's topic says the opposite about one of its topic words (a
   negation within a few words before it: "You aren't able to delete a message",
   "non-transferable"), in a passage that names every topic word of
   the asking sentence: "Badges are not issued to visitors", in a passage that never
   mentions contractors, denies nothing about contractors;
3. a negated word: the unit holds a word of the question with a negating prefix of its
   language ("paid" asked, "UNpaid" said; «оплачиваемый» / «НЕоплачиваемый»);
4. a contrary: an asserting question, not negated, takes a state for granted ("Why is the
   lab OPEN on Sundays?") and a unit naming the rest of the asking sentence's topic (with
   its passage) states the language's contrary instead, and not the state asked ("Sunday:
   CLOSED"). A question that names both states ("Is the form optional or required?")
   takes neither for granted.
5. a bound: an asserting question bounds a number one way ("Do you treat children UNDER
   3?") and a unit naming what the asking sentence names bounds the same number the other
   way only ("We treat children FROM the age of 3"); the bound is the nearest bound word
   of the language within a few words before the number in its clause ("no more than"
   bounds from above).

6. an outdated value: an asserting question states a value that only a row out of force
   holds, its rival in force another (`outdated_value`: "only 7 days?" against the 2025
   rules' 14 that replace the 2023 rules' 7).

A clause the question states as given ("SINCE the branch is open on Sundays, what time does it
open?") is read by the same checks as a yes/no question asserting it (`stated_premise`).

"On the same topic" is the answer model's business: only units it ranks near the top and
that cover at least `MIN_TOPIC` of the question's topic words are read.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from functools import cache

from core.answer.differing import ordered_pair
from core.answer.facts import MONEY_SIGNS, number_units, says_no, tokens
from core.answer.question import Question, words_of
from core.answer.result import Selected
from core.answer.signals import Scored
from core.lang import LANGUAGES, Language, language_of
from core.lexical import expand_contractions, pair_stems, tokenize
from core.retrieve import Candidate
from core.verify import as_written

MIN_TOPIC = 0.6
# questions that take something for granted that a negation can deny: yes/no ("Can I
# delete it?"), why ("Why is it free?"), how ("How do I delete it?"); "Who signs the
# form?" asserts nothing a negated sentence could deny
ASSERTING = ("yesno", "reason", "how")
READ = 3  # top-ranked units read
# check 2's reason: a denial names no value. A marker, not a sentence: the note says it in
# the question's language (core/pipeline.py); the other reasons are said here, in it
OPPOSITE = "the documents say the opposite"
MIN_SCORE = 0.2


def _valued(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(n, u) for n, u in pairs if u and not u[0].isdigit()]


def rival_value(question: Question, text: str, passage_text: str) -> str | None:
    """Check 1: the text states another number with a unit of a number the question states
    (and the passage never states the question's), as "12 weeks, not 20 weeks"."""
    if question.answer_type not in ASSERTING:
        return None
    said = number_units(text)
    for num, word in _valued(number_units(question.asking)):
        rivals = [n for n, w in said if w == word and n != num]
        if rivals and (num, word) not in number_units(passage_text) and names_what_is_asked(question, text, frozenset({word})):
            return question.lang.say("documents_state", said=f"{rivals[0]} {word}", asked=f"{num} {word}")
    return None


def denies(question: Question, text: str) -> bool:
    """Check 2 without its topic condition: an asserting question, not negated, against a
    text that says no about a topic word of the asking sentence (facts.says_no: a case it
    names, "if your name does not match", or a bound, "no later than", is no denial; nor is
    a no about something the question does not ask)."""
    return question.answer_type in ASSERTING and not question.negated and says_no(text, _topic(question))


def _topic(question: Question) -> frozenset[str]:
    """The asking sentence's topic stems: no numbers, no words of asking."""
    asking = _asking_stems(question.lang.code)
    return frozenset(t for t in question.asking_terms if not t[0].isdigit() and t not in asking)


@cache
def _asking_stems(code: str) -> frozenset[str]:
    """The stems of a language's words of asking, computed once (read on every ask)."""
    return frozenset(tokenize(" ".join(LANGUAGES[code].asking_words)))


def names_what_is_asked(question: Question, text: str, besides: frozenset[str] = frozenset()) -> bool:
    """The text names every topic term of the asking sentence (stemmed as the index is)
    but numbers, the words of asking and the stems `besides`: a value's own unit word («за
    14 дней» of a notice period does not name the leave «Почему отпуск составляет 35 дней?»
    asks about), the state a contrary replaces."""
    skip = besides | _asking_stems(question.lang.code)
    said = set(tokenize(text))
    return all(t in said for t in question.asking_terms if not t[0].isdigit() and t not in skip)


def negated_word(question: Question, text: str) -> str | None:
    """Check 3: a word of the question with a negating prefix of its language in the text."""
    said_words = set(words_of(text))
    for word in words_of(question.asking):
        if len(word) < 4:
            continue
        for prefix in question.lang.negating_prefixes:
            if prefix + word in said_words and prefix + word not in question.words:
                return question.lang.say("not_but", said=prefix + word, asked=word)
    return None


@cache
def _contrary_stems(code: str) -> dict[str, frozenset[str]]:
    """Stem -> the stems of its contraries in one language, built once."""
    return pair_stems(LANGUAGES[code].contraries)


def contrary_word(question: Question, text: str, passage_text: str) -> str | None:
    """Check 4: the text states the contrary of a state the question takes for granted."""
    if question.answer_type not in ASSERTING or question.negated:
        return None
    pairs = _contrary_stems(question.lang.code)
    # every word of the asking sentence: a state may be asked with a word that is no topic
    # term (a stop word, filler, the asking phrase's slot)
    stems = list(dict.fromkeys(tokenize(question.asking, keep_stopwords=True)))
    asked = set(stems)
    said = set(tokenize(text))
    for stem in stems:
        contraries = pairs.get(stem, frozenset())
        if not contraries or asked & contraries or stem in said or not contraries & said:
            continue
        if names_what_is_asked(question, f"{text} {passage_text}", frozenset({stem})):
            return question.lang.say("not_but", said=_word_of(text, contraries), asked=_word_of(question.asking, {stem}))
    return None


@cache
def _free_stems(code: str) -> frozenset[str]:
    return frozenset(t for w in LANGUAGES[code].free_words for t in tokenize(w, keep_stopwords=True))


def priced_free(question: Question, text: str, passage_text: str) -> str | None:
    """Check 4b: the question takes for granted that a thing is free ("Why is eSIM activation
    free for prepaid customers?") and the text, naming what is asked, gives it a price
    ("... costs 5 EUR"): a QA pass had two such questions refused, the price shown below."""
    if question.answer_type not in ASSERTING or question.negated:
        return None
    free = _free_stems(question.lang.code)
    asked = set(tokenize(question.asking, keep_stopwords=True)) & free
    if not asked or set(tokenize(text, keep_stopwords=True)) & _free_stems(language_of(text).code):
        return None
    price = _price(text)
    if price and names_what_is_asked(question, f"{text} {passage_text}", frozenset(asked)):
        return question.lang.say("not_but", said=price, asked=_word_of(question.asking, asked))
    return None


def _price(text: str) -> str | None:
    """The first amount of money a text states ("5 EUR", "€5", "12.50 рублей"), as written."""
    words = text.split()
    money = set().union(*(lang.money_words for lang in LANGUAGES.values()))
    for i, word in enumerate(words):
        bare = word.strip(".,;:()")
        if not any(ch.isdigit() for ch in bare):
            continue
        if set(bare) & MONEY_SIGNS:
            return bare
        after = words[i + 1].strip(".,;:()").lower() if i + 1 < len(words) else ""
        if after in money:
            return f"{bare} {words[i + 1].strip('.,;:()')}"
    return None


BOUND_REACH = 4  # words between a bound word and its number: "from the AGE OF 3"
# where a bound's clause ends: only punctuation followed by a space, so "2.5" and "18:00"
# stay whole (facts.CLAUSE_ENDS, for words, cuts at every colon)
BOUND_CLAUSE_ENDS = (". ", "? ", "! ", "; ", ", ", ": ", "(", ")", "\n")


def _clauses(text: str) -> list[str]:
    for end in BOUND_CLAUSE_ENDS:
        text = text.replace(end, "\0")
    return text.split("\0")


def bounded(text: str, lang: Language) -> dict[str, dict[str, str]]:
    """Each number of the text bounded by a word before it in its clause: number ->
    {"lower" | "upper": the phrase as written, "from the age of 3"}."""
    out: dict[str, dict[str, str]] = {}
    for clause in _clauses(expand_contractions(text)):
        toks = tokens(clause)
        for i, tok in enumerate(toks):
            if not tok[0].isdigit():
                continue
            for j in range(i - 1, max(i - 1 - BOUND_REACH, -1), -1):
                word = toks[j]
                if word[0].isdigit() or word in MONEY_SIGNS:
                    break  # another number's bound ("from 8:00 to 18:00")
                phrases = ((f"{toks[j - 1]} {word}", j - 1),) if j else ()  # "at least", "up to"
                found = [(side, start) for phrase, start in (*phrases, (word, j))
                         for side, words in (("lower", lang.lower_bounds), ("upper", lang.upper_bounds))
                         if phrase in words]
                if not found:
                    continue
                side, start = found[0]
                if start and toks[start - 1] in lang.negations:  # "no more than", «не более»
                    side, start = ("upper" if side == "lower" else "lower"), start - 1
                out.setdefault(tok, {}).setdefault(side, " ".join(toks[start:i + 1]))
                break
    return out


def opposite_bound(question: Question, text: str, passage_text: str) -> str | None:
    """Check 5: the text bounds a number of the question only the other way."""
    if question.answer_type not in ASSERTING or question.negated:
        return None
    said = bounded(text, language_of(text))
    for number, sides in bounded(question.asking, question.lang).items():
        there = said.get(number, {})
        for side, phrase in sides.items():
            other = "lower" if side == "upper" else "upper"
            if other in there and side not in there and names_what_is_asked(question, f"{text} {passage_text}"):
                return question.lang.say("not_but", said=there[other], asked=phrase)
    return None


def _word_of(text: str, stems: set[str] | frozenset[str]) -> str:
    """The text's first word written as one of the stems ("Closed" for close)."""
    return next((w for w in words_of(text) if set(tokenize(w, keep_stopwords=True)) & stems), min(stems))


def conflict(question: Question, unit: Scored, passage_text: str) -> str | None:
    """Why the unit contradicts the question's premise, or None."""
    text = unit.unit.text
    value = rival_value(question, text, passage_text)
    if value:
        return value
    if denies(question, text) and unit.signals["lex_unit"] >= MIN_TOPIC \
            and names_what_is_asked(question, f"{text} {passage_text}"):
        return OPPOSITE
    said = negated_word(question, text) or contrary_word(question, text, passage_text) \
        or opposite_bound(question, text, passage_text) or priced_free(question, text, passage_text)
    return question.lang.say("documents_say", said=said) if said else None


def outdated_value(question: Question, pairs: list[tuple[Selected, Scored]], passages: list[Candidate],
                   today: date) -> tuple[Selected, str] | None:
    """Check 6: an asserting question states a value (a number with a unit) that only a
    row or sentence out of force holds, while its rival in force states another: "Why is
    the claim period only 7 days?" against 2025 rules of 14 days that replace the 2023 ones
    of 7 (a QA pass: answered "The documents differ" at 0.93, the premise untouched).
    `pairs` are differing.rival_rows'; the unit in force and why, or None."""
    if question.answer_type not in ASSERTING or question.negated:
        return None
    asked = _valued(number_units(question.asking))
    for sel, rival in pairs:
        rows, states = ordered_pair(sel, rival, passages, today)
        if states[0] is not None or states[1] is None:
            continue
        # numbers compared by value: the word after one may be no unit ("14 календарных дней")
        current, old = [n for n, _ in number_units(rows[0].unit.text)], [n for n, _ in number_units(rows[1].unit.text)]
        for num, word in asked:
            if num not in old or num in current or len(current) != len(old) and len(current) != 1:
                continue
            # the same place in the same sentence or row; or the one value the unit in force
            # gives ("raised to 20 GB" against the older "raised from 2 GB to 4 GB", a QA pass)
            other = current[old.index(num)] if len(current) == len(old) else current[0]
            return rows[0], question.lang.say("in_force_state", said=other, asked=as_written(question.asking, num, word))
    return None


def stated_premise(question: Question) -> Question | None:
    """The clause a question states as given, read as a yes/no question that asserts it:
    "Since the branch is open on Sundays, what time does it open?" takes "the branch is open
    on Sundays" for granted, though "what time" asserts nothing (a QA pass: answered at 0.90
    beside the row "Sunday: closed"). The clause runs from a premise opener of the
    language (`Language.premise_openers`) that starts the asking sentence to its first
    comma, and names two words or more."""
    asking = question.asking.strip()
    low = asking.casefold()
    for opener in sorted(question.lang.premise_openers, key=len, reverse=True):
        comma = asking.find(",")
        if not low.startswith(opener + " ") or comma < 0:
            continue
        clause = asking[len(opener) + 1:comma].strip()
        if len(words_of(clause)) < 2:
            return None
        return replace(Question.parse(clause + "?"), answer_type="yesno")
    return None


def correction(question: Question, ranked: list[Scored],
               passages_text: list[str]) -> tuple[Scored, str] | None:
    """The first of the top-ranked on-topic units that contradicts the premise (the question's,
    or the clause it states as given), and why."""
    premises = [question, *filter(None, [stated_premise(question)])]
    for s in ranked[:READ]:
        if s.score < MIN_SCORE or s.signals["lex_context"] < MIN_TOPIC:
            continue
        for premise in premises:
            why = conflict(premise, s, passages_text[s.passage - 1])
            if why:
                return s, why
    return None


def denials_first(question: Question, selected: list[Selected]) -> list[Selected]:
    """The quoted units with the prohibitions about what the question asks first: "How many
    days should I give my dog paracetamol?" quoted the meloxicam dose "for 5 days" before
    "Never give human painkillers such as paracetamol ..."; a hurried reader stops at the
    first. A prohibition opens with its negation ("Never ...", "Do not ...", «Не давайте ...»)
    and names a topic word of the question; a caveat further in ("It does not apply to ...")
    leans on the sentence before it and keeps its place, as does every other unit."""
    if question.negated or len(selected) < 2:
        return selected
    topic = _topic(question)
    negations = question.lang.negations
    first = [s for s in selected
             if set(tokens(expand_contractions(s.unit.text))[:2]) & negations
             and topic.intersection(tokenize(s.unit.text))]
    return first + [s for s in selected if s not in first] if first else selected
