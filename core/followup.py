"""Follow-up questions in a chat, read as the whole question they stand for.

After "What is the notice period for part-time staff?", a user types "What about full-time
staff?". Asked alone it names no topic; asked together with the previous question it
would be answered about part-time staff again. Read as "What is the notice period for
full-time staff?" it is an ordinary question, and the gate and the generator treat it as
one (here: full-time staff give 30 days' notice, so the 14 days must not be repeated).

Algorithm (deterministic, so the console can show what was asked):
1. Recognise an elliptical follow-up: the whole question is "what/how about X", "and
   (for|in|on|...) X?", "same for X", «а (для|в|на|насчёт|...) X?», «а X?», «то же для X»,
   where X has at most six words and no question word of its own; the frame's preposition,
   if any, is kept. Anything else is asked as typed.
2. X's words without articles; its head is the last one ("full-time STAFF"), unless that is
   "one(s)" (the previous question's thing: "and the rear ONES?").
3. The first reading that applies:
   o. A quantity: X's one number with a unit for the previous question's one with the same
      unit («... груза 40 кг ...» + «а если 300 кг?» -> «... груза 300 кг ...»); "and if X",
      «а если X» ask what if it is X.
   a. Opposites: a word of X whose opposite the previous question has (front/rear,
      full-time/part-time, domestic/international, hot/cold...) replaces it.
   b. A model, an identifier of the same shape, a model variant: "DeskPro 7" for
      "DeskPro 9 Plus", ERR-30 for ERR-20, 7-3 for 7-2, "the 9 Plus" for the 7.
   c. The frame's preposition: the previous question's phrase after the same preposition
      (to the next preposition, the verb of an English question with "does", or the end;
      one Russian adjective takes the place of the phrase's first word only, «при морской
      перевозке» + «а при автомобильной?») becomes X: "the allowance on DeskPro work
      laptops" + "and on accessories?" -> "the allowance on accessories".
   d. The head: the previous question's word with the head's stem keeps its place, the
      modifiers before it become X's ("for part-time staff" + "full-time staff" -> "for
      full-time staff"); brand names ("PeopleDesk") among them stay. A compound whose last
      part is the head ("an e-bike") is replaced whole ("What about a standard bike?").
   e. A day or a month for the previous question's one of that kind (Saturday -> weekday,
      «в субботу» -> «в будни»); else a name for the previous question's one name of that
      kind (Lisbon -> Oslo; with several, the one after a preposition, brands left out;
      days and months are no names).
   f. One Russian adjective for the previous question's one adjective of the same ending
      («Сколько длится ежегодный отпуск?» + «а учебный?» -> «Сколько длится учебный отпуск?»).
   g. X for the subject between an English auxiliary and its verb, both with an article or
      both bare ("How often do the fire alarms get tested?" + "and the smoke detectors?";
      "How many days of leave do full-time employees get?" + "And interns?").
   h. A frame preposition the previous question lacks: X is a condition added to it
      («Сколько стоит парковка у офиса?» + «а в выходные?» -> «... в выходные?»).
   i. X with no preposition for the phrase after the previous question's only preposition,
      when that is "for", "on" or their Russian («для», «на»): "for a senior partner" +
      "And trainees?" -> "for trainees"; but X with an article, where that phrase has none,
      for the thing an English "What is the X ...?" asks about ("the learning budget for
      grade C" + "And the pension contribution?" -> "the pension contribution for grade C").
   j. X for the thing the previous question's one possessive names ("my puppy" + "How about
      kittens?" -> "my kittens").
   k. "for X" for the phrase that ends an English question after its only preposition, "of":
      "the hourly rate of a paralegal" + "And for a partner?" -> "the hourly rate for a
      partner" (before h, which would add "for a partner" as a condition).
   "Same for X", «то же для X» and "what if it's X" replace, never add a condition.
4. When none applies there is no reading: the question is asked as typed; so is a
   follow-up in another language than the previous question (its words would be spliced in).
5. A question that is no elliptical follow-up but leans on the previous one through a
   pronoun ("How much does it cost?") is asked with the previous question before it as its
   scene (`with_previous`), in the same language only.
"""

from __future__ import annotations

import functools
import re

from core.answer.facts import identifier_shape, identifiers, model_names, proper_names
from core.answer.question import Question
from core.config import MAX_QUESTION_CHARS
from core.lang import LANGUAGES, language_of
from core.lexical import STOPWORDS, pair_stems, stem_of

# a Russian adjective; its ending is captured: an adjective is swapped only for one of the same ending
RU_ADJECTIVE_RE = re.compile(r"[а-яё]{3,}(ый|ий|ой|ая|яя|ое|ее|ые|ие|ых|их|ого|его|ому|ему|ую|юю|ыми|ими)$",
                             re.IGNORECASE)

MAX_FOLLOWUP_WORDS = 6
MAX_MODIFIER_RUN = 3  # "for | part-time PeopleDesk staff": a noun's modifiers, not the whole clause

_EN_PREP = r"for|in|on|to|at|from|with|without|under|during|after|before|by|into|within|outside"
_RU_PREP = r"для|в|во|на|с|со|у|по|при|без|из|от|до|к|ко|после|перед|за"
# the asking frame of a follow-up: "x" is what it asks about instead, "prep" the preposition
# the asking frames of a follow-up: "x" is what it asks about instead, "prep" the preposition
# kept from the frame. A frame's mode says what its X may do: "and" any reading, "replace"
# no condition added ("same for X", "what if it's X", "X too?"), "bare" (a short phrase
# alone, "marketing cookies?") only take the place of a word of the same kind.
_FRAMES = [(re.compile(p, re.IGNORECASE), mode) for p, mode in (
    (rf"^(?:and\s+|but\s+|so\s+)?(?:what|how)\s+about\s+(?:(?P<prep>{_EN_PREP})\s+)?(?P<x>.+?)$", "and"),
    (r"^(?:and\s+)?(?:the\s+)?same\s+(?:question\s+|thing\s+)?(?P<prep>for|in|with|on)\s+(?P<x>.+?)$", "replace"),
    (rf"^(?:and\s+|but\s+)?what\s+if\s+(?:it'?s|it\s+is|they'?re|they\s+are|i'?m|i\s+am)\s+"
     rf"(?:(?P<prep>{_EN_PREP})\s+)?(?P<x>.+?)$", "replace"),
    (r"^(?:and\s+)?is\s+it\s+the\s+same\s+(?P<prep>for|with|in)\s+(?P<x>.+?)$", "replace"),
    # "how much is it for a trainee?", «а сколько это стоит для стажёра?»: the same question of another X
    (rf"^(?:and\s+|so\s+)?(?:what|how\s+much|how\s+long|how\s+many)\s+(?:is|does|would|will)\s+(?:it|that|this)\s+"
     rf"(?:be\s+|cost\s+|take\s+|last\s+)?(?P<prep>{_EN_PREP})\s+(?P<x>.+?)$", "replace"),
    (rf"^(?:а\s+|и\s+)?(?:сколько|какой|какая|какое|каков\w*)\s+(?:это|он|она|оно)\s+"
     rf"(?:стоит\s+|будет\s+|длится\s+|составляет\s+)?(?P<prep>{_RU_PREP})\s+(?P<x>.+?)$", "replace"),
    (r"^(?:а|и)?\s*то\s+же\s+(?:самое\s+)?(?:(?P<prep>для|в|на)|про|насч[её]т)\s+(?P<x>.+?)$", "replace"),
    (rf"^(?:and|but)\s+(?:(?P<prep>{_EN_PREP})\s+)?(?P<x>.+?)$", "and"),
    (r"^(?:а|и)\s+(?:как\s+)?(?:что\s+)?(?:насч[её]т|про)\s+(?P<x>.+?)$", "and"),
    (rf"^(?:а|и)\s+(?:как\s+)?(?P<prep>{_RU_PREP})\s+(?P<x>.+?)$", "and"),
    # "does that work on the other site too", «а это действует на другой офис?»: X after the preposition
    (r"^(?:and\s+)?(?:does|do|is|would|will|can)\s+(?:that|it|this|the\s+same)\s+(?:also\s+)?(?:work|apply|count|"
     r"hold|go|exist|work\s+out)?\s*(?P<prep>for|on|to|with|in)\s+(?P<x>.+?)(?:\s+(?:too|as\s+well|also))?$", "replace"),
    (r"^(?:а|и)?\s*(?:это|оно|так)\s+(?:тоже\s+)?(?:работает|действует|распространяется|относится|подходит|будет)?\s*"
     r"(?P<prep>на|для|к|в|у)\s+(?P<x>.+?)(?:\s+тоже)?$", "replace"),
    (r"^(?:and\s+)?(?P<x>.+?)\s+(?:too|as\s+well|also)$", "replace"),
    (r"^(?:и\s+)?(?P<x>.+?)\s+тоже$", "replace"),
    (r"^а\s+(?P<x>.+?)$", "and"),
    (r"^(?P<x>[^\s]+(?:\s+[^\s]+){0,2})$", "bare"),
)]
_INTERJECTION_RE = re.compile(r"^(?:(?:ok(?:ay)?|thanks|thank\s+you|hm+|great|cool|ну|ок|спасибо|понятно)[,!.\s]+)+",
                              re.IGNORECASE)

_QUESTION_WORD_RE = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|do|does|can|could|will|would|should|may|"
    r"что|какой|какая|какое|какие|каков\w*|кто|когда|где|куда|почему|зачем|сколько|как|можно|ли)\b",
    re.IGNORECASE)

# words that end a modifier run or a prepositional phrase in the previous question
_BOUNDARY = frozenset(f"""a an the of and or my our your their its his her this that these those
what which how is are do does can will would should must {_EN_PREP.replace('|', ' ')}
{_RU_PREP.replace('|', ' ')} о об про и или ли не мой мои моя ваш ваши ваша наш наши это этот эта эти
что какой какая какое какие как сколько""".split())

# an English question whose main verb comes last ("how long DOES the probation period ... LAST?")
_DO_SUPPORT_RE = re.compile(r"\b(?:does|do|did|will|would|can|could|should|may|must)\b", re.IGNORECASE)

_FINAL_VERBS = frozenset("""take last cost arrive need apply mean work require include cover happen start end run
stay get go come weigh hold use reach""".split())

_SUBJECT_ENDS = _FINAL_VERBS | frozenset("""be get have need change changed replaced checked cleaned kept paid
covered included allowed required used""".split())
_SUBJECT_RE = re.compile(
    r"\b(?:do|does|did|can|could|will|would|should|must|has|have|is|are|was|were)\s+"
    r"(?P<subject>(?:(?:the|a|an|my|your|our|its|their)\s+)?[\w-]+(?:\s+[\w-]+){0,3}?)"
    r"(?=\s+(?:" + "|".join(sorted(_SUBJECT_ENDS)) + r")\b)",
    re.IGNORECASE)

_PLACE_PREPOSITIONS = r"(?:to|in|into|at|from|for|within|в|во|на|из|для|по)"

# pairs a follow-up swaps ("and the REAR ones?", "what about PART-TIME?"), compared by stem

# "and without a hotel stay?" after "with a hotel stay"; «а без лифта?» after «при наличии лифта»
_OPPOSITE_PREPOSITIONS = {"without": ("with",), "with": ("without",), "без": ("при наличии", "при", "с", "со"),
                          "с": ("без",), "со": ("без",), "при": ("без",)}

_WORD_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")
_ARTICLES = ("the", "a", "an")


def read_followup(question: str, previous: str | None) -> str | None:
    """The whole question an elliptical follow-up stands for, or None (ask it as typed)."""
    if not previous or not previous.strip():
        return None
    frame = _followup_object(question)
    if frame is None:
        return None
    prep, x, mode = frame
    if _other_language(question, previous) and language_of(x).code != language_of(previous).code:
        # "And with a filter change?" after a Russian question: a reading would splice English
        # words into the Russian sentence («... насоса with a filter change?»); a name in the
        # previous question's script is no other language («А для Wave Youth?» after an English
        # question: a QA pass had it asked alone and answered off the topic)
        return None
    words = [w for w in _WORD_RE.findall(x) if w.lower() not in _ARTICLES]
    if not words:
        return None
    previous = " ".join(previous.split())
    readings = [
        lambda: _replace_quantity(previous, words),
        lambda: _replace_opposite(previous, words),
        lambda: _replace_kind(previous, x, words),
        lambda: _replace_after(previous, prep, x) if prep else None,
        lambda: _replace_like(previous, words),
        lambda: _replace_day(previous, words),
        lambda: _replace_name(previous, words, placed_only=mode == "bare"),
        lambda: _replace_adjective(previous, words),
    ]
    if mode != "bare" and prep not in _PLACE_OR_TIME:  # "and in Oslo?" names no subject (a QA pass)
        readings.append(lambda: _replace_subject(previous, x))
    if mode != "bare" and not prep:
        readings.append(lambda: _replace_only_phrase(previous, x, words))
    if mode != "bare":
        readings.append(lambda: _replace_possessed(previous, words))
    if mode != "bare" and prep == "for":
        readings.append(lambda: _replace_of_phrase(previous, prep, x, words))
    if mode == "and":
        readings.append(lambda: _add_condition(previous, prep, x) if prep else None)
    for reading in readings:
        whole = reading()
        if whole and whole != previous:
            return whole
    return None


# a follow-up's preposition that makes X a place or a time, never the subject of the verb
_PLACE_OR_TIME = frozenset("in at into from within during в во из".split())


def _other_language(question: str, previous: str) -> bool:
    """Is the question in another language than the one before it? (Told only with two
    words of three letters or more: «А E30?» has nothing to tell it by.)"""
    return (sum(len(w) >= 3 and w.isalpha() for w in _WORD_RE.findall(question)) >= 2
            and language_of(question).code != language_of(previous).code)


def with_previous(question: str, previous: str | None) -> str | None:
    """A question that leans on the one before through a pronoun ("How much does it cost?"
    after "How long is the kayak tour?"), read with that question before it as its scene:
    "How long is the kayak tour? How much does it cost?". None when it does not lean back,
    or is in another language than the one before it.

    Nothing here resolves the pronoun: the answer step reads a scene before a question as
    it reads any ("My dog is 12 kg. How much paracetamol can I give?"): what is asked comes
    from the last sentence (its answer type, its asking terms), what it is about from the
    whole, so the unit about the tour's price outranks another price. The reading is shown
    to the operator as asked. A scene longer than the question limit keeps its last sentences.
    """
    if not previous or not previous.strip() or not refers_back(question) or _other_language(question, previous):
        return None
    asked = " ".join(question.split())
    if asked[-1] not in "?.!":
        asked += "?"  # the asking sentence is the last one ending in "?": this one, not the scene
    scene = " ".join(previous.split())
    if scene[-1] not in "?.!":
        scene += "?"
    room = MAX_QUESTION_CHARS - len(asked) - 1
    while len(scene) > room:
        cut = min((scene.find(mark + " ") for mark in "?.!" if scene.find(mark + " ") >= 0), default=-1)
        if cut < 0:
            return None
        scene = scene[cut + 2:]
    return f"{scene} {asked}"


# a question naming this many topic terms of its own stands alone even with a pronoun in it:
# "How much does it cost to carry my dog in the hold?" (a dummy "it"), "... an extra bag
# cost if I buy it online?" (an "it" pointing inside the question)
STANDS_ALONE_TERMS = 4


def _points_back(words: list[str], i: int, lang) -> bool:
    """Is words[i] a pronoun of `lang` that points outside its sentence? Not a placeholder
    for a clause that follows ("does IT cost TO freeze ..."; "send IT TO me" points back)."""
    return words[i] in lang.pronouns and not (
        i + 2 < len(words) and words[i + 2] in lang.anticipating and words[i + 1] not in lang.anticipating)


def refers_back(question: str) -> bool:
    """Does the question lean on the one before through a pronoun ("And who else can I
    report it to?")? Such a question is asked with the one before it as its scene
    (`with_previous`). Only a question with little topic of its own leans back
    (`STANDS_ALONE_TERMS`)."""
    words = [w.lower() for w in _WORD_RE.findall(question)]
    if not any(_points_back(words, i, lang) for lang in LANGUAGES.values() for i in range(len(words))):
        return False
    parsed = Question.parse(question)
    if " ".join(parsed.asking.split()) != " ".join(question.split()):
        # a scene of its own ("The driver is 40 minutes late. What should he do?"): the pronoun
        # points to it, not to the chat's previous question (a QA pass asked the two as one)
        return False
    # what it asks for counts as its own ("how much does it COST to ship it abroad"), though
    # it is no topic a passage must hold
    own = parsed.slot - parsed.lang.stopwords - parsed.lang.filler
    return len(parsed.asking_terms) + len(own) < STANDS_ALONE_TERMS


def looks_like_followup(question: str) -> bool:
    """Does the question read as an elliptical follow-up ("and for Porto?"), placed or not?"""
    return _followup_object(question) is not None


def _followup_object(question: str) -> tuple[str | None, str, str] | None:
    """Step 1: (preposition, X, mode) of "and in X?", or None when the question is not an
    elliptical follow-up."""
    text = _INTERJECTION_RE.sub("", " ".join(question.split()).strip()).rstrip("?!.… ").strip()
    for frame, mode in _FRAMES:
        m = frame.match(text)
        if not m:
            continue
        x = m.group("x").strip(" ,")
        first = x.split(maxsplit=1)
        if len(first) == 2 and any(first[0].lower() in lang.conditionals for lang in LANGUAGES.values()):
            x, mode = first[1], "replace"  # «а если 300 кг?», "and if 300 kg?": what if it is X
        if not x or len(_WORD_RE.findall(x)) > MAX_FOLLOWUP_WORDS or _QUESTION_WORD_RE.search(x):
            return None
        prep = m.groupdict().get("prep")
        return (prep.lower() if prep else None), x, mode
    return None


def _is_brand(word: str) -> bool:
    """"PeopleDesk", "DeskPro", "AB-200": a name inside a phrase, not a modifier to swap."""
    return bool(re.search(r"[a-zа-яё][A-ZА-ЯЁ]|\d", word))


@functools.cache
def _opposite_stems() -> dict[str, frozenset[str]]:
    """Stem -> the stems of its opposites, built once."""
    return pair_stems(pair for lang in LANGUAGES.values() for pair in lang.opposites)


_NEGATING_PREFIXES = tuple(p for lang in LANGUAGES.values() for p in lang.negating_prefixes)


def _negated_pair(a: str, b: str) -> bool:
    """One word is the other with a negating prefix: laden / UNladen, «НЕоплачиваемый»."""
    a, b = a.lower(), b.lower()
    return any(a == p + b or b == p + a for p in _NEGATING_PREFIXES)


def _quantities(words: list[str]) -> list[tuple[int, str]]:
    """(index of the number, its unit's stem) of each number followed by a word."""
    return [(i, stem_of(words[i + 1])) for i in range(len(words) - 1)
            if words[i][:1].isdigit() and words[i + 1][:1].isalpha()]


def _replace_quantity(previous: str, words: list[str]) -> str | None:
    """Step 3o: «а если 300 кг?» after «Сколько стоит перевозка груза 40 кг в Самару?": X's one
    number with a unit for the previous question's one number with the same unit (a QA pass
    read it «Сколько стоит если 300 40 кг ...»)."""
    new = _quantities(words)
    if len(new) != 1:
        return None
    found = list(_WORD_RE.finditer(previous))
    old = [(i, unit) for i, unit in _quantities([m.group(0) for m in found]) if unit == new[0][1]]
    if len(old) != 1:
        return None
    i, j = old[0][0], new[0][0]
    return f"{previous[:found[i].start()]}{words[j]} {words[j + 1]}{previous[found[i + 1].end():]}"


def _replace_opposite(previous: str, words: list[str]) -> str | None:
    """Step 3a: "what about PART-TIME?" after "FULL-TIME staff" (the language modules'
    opposites), "and unpaid?" after "paid leave" (a negating prefix)."""
    for new in words:
        wanted = _opposite_stems().get(stem_of(new), frozenset())
        for m in _WORD_RE.finditer(previous):
            if stem_of(m.group(0)) in wanted or _negated_pair(m.group(0), new):
                return f"{previous[:m.start()]}{new}{previous[m.end():]}"
    return None


def _replace_kind(previous: str, x: str, words: list[str]) -> str | None:
    """Step 3b: X's model, identifier or model variant for the previous question's one."""
    old_models = [m for m in model_names(previous) if m not in model_names(x)]
    if len(old_models) == 1:
        # the variant is capitalised ("9 Plus weigh": "weigh" is the question's)
        old = rf"{re.escape(old_models[0])}(?:\s+(?-i:[A-Z])[\w-]*)*"
        if model_names(x):  # "And the DeskPro 7?"
            return _swap(previous, old, " ".join(words))
        if re.match(r"\d", words[0]):  # "And the 9 Plus?": the brand stays
            brand = old_models[0].rsplit(" ", 1)[0]
            return _swap(previous, old, f"{brand} {' '.join(words)}")
    # "and service B" after "Service A": a word with its letter or number
    if len(words) == 2 and re.fullmatch(r"[A-Za-zА-Яа-я]|\d{1,3}", words[1]):
        variant = rf"{re.escape(words[0])}\s+(?:[A-Za-zА-Яа-я]|\d{{1,3}})"
        if re.search(rf"(?<![\w-]){variant}(?![\w-])", previous, re.IGNORECASE):
            return _swap(previous, variant, " ".join(words))
    new_ids = identifiers(x)
    if new_ids:
        # of the same shape: ERR-30 for ERR-20, 7-3 for 7-2; never para 99-1 for the form HR20
        shapes = {identifier_shape(i) for i in new_ids}
        old = [i for i in identifiers(previous) if i not in new_ids and identifier_shape(i) in shapes]
        new = re.search(rf"(?<![\w-]){re.escape(sorted(new_ids)[0])}(?![\w-])", x, re.IGNORECASE)
        if len(old) == 1 and len(new_ids) == 1 and new:
            return _swap(previous, re.escape(old[0]), new.group(0))
    return None


def _replace_after(previous: str, prep: str, x: str) -> str | None:
    """Step 3c: the phrase after the frame's preposition in the previous question (or after
    its opposite, which goes too: "with a hotel stay" -> "without a hotel stay",
    «при наличии лифта» -> «без лифта»)."""
    found = list(_WORD_RE.finditer(previous))
    lowered = [m.group(0).lower() for m in found]
    cut = start = None
    for phrase in (prep, *_OPPOSITE_PREPOSITIONS.get(prep, ())):
        size = len(phrase.split())
        hits = [i for i in range(len(found) - size + 1) if lowered[i:i + size] == phrase.split()]
        # of several ("в Казань в выходные"), the one whose phrase is of X's kind: a name for a
        # name (a QA pass read «а в Екатеринбург?» as «... в Казань в Екатеринбург?»)
        named = [i for i in hits if i + size < len(found)
                 and found[i + size].group(0)[:1].isupper() == x[:1].isupper()]
        hits = named or hits
        if hits:
            start = hits[-1] + size
            # the frame's own preposition stays; an opposite one is replaced by it
            cut, lead = (found[start].start(), "") if phrase == prep else (found[hits[-1]].start(), f"{prep} ")
            break
    if start is None or start >= len(found):
        return None
    end = start + 1
    while end < len(found) and lowered[end] not in _BOUNDARY - set(_ARTICLES):
        end += 1
    if _DO_SUPPORT_RE.search(previous[:found[start - 1].start()]):
        # "how long does the train to Lisbon TAKE?", "how much does groupage to Vienna COST per
        # pallet?": the question's verb and what follows it stay
        end = next((i for i in range(start + 1, end) if lowered[i] in _FINAL_VERBS), end)
    adjective = RU_ADJECTIVE_RE.fullmatch(x) if end - start > 1 else None
    if adjective:
        first = RU_ADJECTIVE_RE.fullmatch(found[start].group(0))
        if first and first.group(1).lower() == adjective.group(1).lower():
            end = start + 1  # «при морской перевозке» + «а при автомобильной?»: the noun stays
    return f"{previous[:cut]}{lead}{x}{previous[found[end - 1].end():]}"


def _russian_noun(word: str) -> bool:
    """A Russian word that is no adjective: in «страховка груза» the noun before the head is
    not its modifier (a QA pass read «а для хрупких грузов?» as «Сколько стоит хрупких груза?»,
    the insurance gone); Russian modifiers are adjectives, before the noun."""
    return any("а" <= ch.lower() <= "я" or ch.lower() == "ё" for ch in word) and not RU_ADJECTIVE_RE.fullmatch(word)


def _replace_like(previous: str, words: list[str]) -> str | None:
    """Step 3d: the head's word of the previous question keeps its place; the modifiers
    before it become X's, brand names among them kept ("for PeopleDesk part-time staff" +
    "full-time staff" -> "for PeopleDesk full-time staff")."""
    head, modifiers = words[-1], words[:-1]
    if not modifiers or head.lower() in ("one", "ones"):
        return None
    found = list(_WORD_RE.finditer(previous))
    head_stem = stem_of(head)
    for i in range(len(found) - 1, -1, -1):
        word = found[i].group(0)
        if "-" in word and stem_of(word.rsplit("-", 1)[1]) == head_stem:
            # a compound holds its own modifier ("e-bike" + "a standard bike"): X takes its place
            cut, x = found[i].start(), " ".join(words)
            if i and found[i - 1].group(0).lower() in ("a", "an"):  # "an e-bike" -> "a standard bike"
                cut = found[i - 1].start()
                x = ("an " if x[:1].lower() in "aeiou" else "a ") + x
            return f"{previous[:cut]}{x}{previous[found[i].end():]}"
        if stem_of(word) != head_stem:
            continue
        start = i
        while start > 0 and found[start - 1].group(0).lower() not in _BOUNDARY and i - start < MAX_MODIFIER_RUN \
                and not _russian_noun(found[start - 1].group(0)):
            start -= 1
        run = [m for m in found[start:i] if not _is_brand(m.group(0))]
        if not run:  # nothing but brands before the head: X's modifiers go in front of it
            cut = found[i].start()
            return f"{previous[:cut]}{' '.join(modifiers)} {previous[cut:]}"
        replaced = run[-len(modifiers):]  # the modifiers nearest the head
        return f"{previous[:replaced[0].start()]}{' '.join(modifiers)}{previous[replaced[-1].end():]}"
    return None


def _calendar(word: str) -> str | None:
    """"day" for a weekday's name or a kind of day ("weekend", «будни»), "month" for a month's
    name, else None: such a capitalised word names no place or person."""
    low = word.lower()
    for lang in LANGUAGES.values():
        if low in lang.weekdays or low in lang.day_kinds:
            return "day"
        if low in lang.months:
            return "month"
    return None


def _replace_day(previous: str, words: list[str]) -> str | None:
    """Step 3e': a day or month for the previous question's one of the same kind: "What about
    on Saturday?" after "What are the weekday opening hours of Northgate?" -> "... the
    Saturday opening hours of Northgate?" (it took the place of the name "Northgate")."""
    kinds = {_calendar(w) for w in words}
    if len(kinds) != 1 or None in kinds:
        return None
    old = [m for m in _WORD_RE.finditer(previous) if _calendar(m.group(0)) in kinds]
    if len({m.group(0).lower() for m in old}) != 1:
        return None
    return f"{previous[:old[0].start()]}{' '.join(words)}{previous[old[0].end():]}"


def _replace_name(previous: str, words: list[str], placed_only: bool = False) -> str | None:
    """Step 3e: X's name for the previous question's one name of that kind. A bare name
    ("Porto?") only takes the place of one after a place preposition ("the train to
    Lisbon"): "Reimbursement?" after a question on the DeskPro is a new question."""
    # a follow-up's first word is capitalised as a sentence start would be: a name only
    # when it is capitalised in the middle of a text ("about Oslo")
    x = " ".join(words)
    new_names = {n for n in proper_names(f"about {x}") | {w for w in words if len(w) >= 2 and w.isupper()
                                                           and w.isalpha()} if not _calendar(n)}
    # a name phrase is capitalised throughout ("Core Hours"), not "Notice period"
    if not new_names or any(w.lower() in STOPWORDS or not (w[0].isupper() or w[0].isdigit()) for w in words):
        return None
    old_names = sorted(n for n in proper_names(previous) if n not in new_names and not _calendar(n))
    if len(old_names) > 1:  # "PeopleDesk Standard": the brand stays
        old_names = [n for n in old_names if not _is_brand(n)] or old_names
    old_names = _name_runs(previous, set(old_names))  # "Santa Clara Valley" is one name (a QA pass)
    if len(old_names) > 1 or placed_only:  # "the train to Lisbon": the name after a preposition
        old_names = [n for n in old_names if re.search(rf"\b{_PLACE_PREPOSITIONS}\s+{re.escape(n)}\b", previous,
                                                       re.IGNORECASE)]
    if len(old_names) == 1:  # with the number that belongs to it: "Flexi 30-70" -> "Core Hours"
        whole = _swap(previous, rf"{re.escape(old_names[0])}(?:\s+[\w-]*\d[\w-]*)?", x)
        # X's first words standing before the name already ("Wave Max" + "And for Wave Plus?"
        # read "the Wave Wave Plus plan": a QA pass) are said once
        lead = x.split()
        for k in range(len(lead) - 1, 0, -1):
            said = " ".join(lead[:k])
            if whole and f"{said} {x}".lower() in whole.lower():
                at = whole.lower().index(f"{said} {x}".lower())
                return whole[:at] + whole[at + len(said) + 1:]
        return whole
    return None


def _name_runs(text: str, names: set[str]) -> list[str]:
    """The names of `text` with those that stand next to each other joined ("Santa Clara Valley"),
    in order of appearance, each once."""
    runs: list[str] = []
    current: list[str] = []
    end = 0
    for m in _WORD_RE.finditer(text):
        word = m.group(0).removesuffix("'s")  # "Riverside's opening hours": the name is Riverside
        if word in names and (not current or text[end:m.start()] == " "):
            current.append(word)
        else:
            if current:
                runs.append(" ".join(current))
            current = [word] if word in names else []
        end = m.end()
    if current:
        runs.append(" ".join(current))
    return list(dict.fromkeys(runs))


def _replace_adjective(previous: str, words: list[str]) -> str | None:
    """Step 3f: «а учебный?» after «Сколько длится ежегодный отпуск?»: one Russian adjective for
    the previous question's one adjective of the same ending (gender, case)."""
    new = RU_ADJECTIVE_RE.fullmatch(words[0].lower()) if len(words) == 1 else None
    if not new:
        return None
    same = [m for m in _WORD_RE.finditer(previous)
            if (a := RU_ADJECTIVE_RE.fullmatch(m.group(0).lower())) and a.group(1) == new.group(1)
            and m.group(0).lower() != words[0].lower() and m.group(0).lower() not in _BOUNDARY]
    if len(same) != 1:
        return None
    return f"{previous[:same[0].start()]}{words[0]}{previous[same[0].end():]}"


def _replace_subject(previous: str, x: str) -> str | None:
    """Step 3g: "and the smoke detectors?" after "How often do the fire alarms get tested?": X
    for the subject between the English auxiliary and the verb ("What is the X?" has none:
    its X is what is asked, and X alone asks the same)."""
    m = _SUBJECT_RE.search(previous)
    if not m:
        return None
    # a bare X ("and interns?") takes the place of a bare subject only ("do full-time employees
    # get"): "and interns?" after "do the fire alarms get tested" is no question of the same thing
    if _determined(x) != _determined(m.group("subject")) or m.group("subject").lower() in ("i", "we"):
        return None  # "can I take my guinea pig": the asker stays; X is what the asker has
    return f"{previous[:m.start('subject')]}{x}{previous[m.end('subject'):]}"


_DETERMINERS = frozenset("the a an my your our its their".split())


def _determined(phrase: str) -> bool:
    return phrase.split(maxsplit=1)[0].lower() in _DETERMINERS if phrase.strip() else False


# prepositions whose phrase names what a question is asked of ("the rate FOR a partner", "the
# fee ON a booking"); not "to", which also opens a verb ("to see a vet": a QA pass read "And
# birds?" as "... my guinea pig to birds?"), nor "in", which also opens a time
_OBJECT_PREPOSITIONS = frozenset(("for", "on", "для", "на"))


def _repeats(previous: str, words: list[str]) -> bool:
    """Does X only repeat the previous question's words ("What about plans?")?"""
    before = {stem_of(w) for w in _WORD_RE.findall(previous)}
    return all(stem_of(w) in before for w in words)


def _replace_only_phrase(previous: str, x: str, words: list[str]) -> str | None:
    """Step 3i: "And trainees?" after "What is the hourly rate for a senior partner?": X with no
    preposition of its own takes the place of the phrase after the previous question's only
    preposition, one that names what the question is asked of, as if asked "and for
    trainees?". Not when X only repeats the previous question's words ("What about plans?")."""
    found = [m.group(0).lower() for m in _WORD_RE.finditer(previous)]
    preps = [w for w in found if w in _OBJECT_PREPOSITIONS or w in _EN_PREP.split("|") or w in _RU_PREP.split("|")]
    if len(preps) != 1 or preps[0] not in _OBJECT_PREPOSITIONS:
        return None
    if _repeats(previous, words):
        return None
    asked = _asked_thing(previous)
    if asked and _determined(x) and not _determined(previous[_found_end(previous, preps[0]):]):
        # "And the pension contribution?" after "What is the learning budget for grade C?": a
        # thing with its article for the thing asked, not for the bare "grade C" (a QA pass)
        start, end = asked
        return f"{previous[:start]}{x}{previous[end:]}"
    return _replace_after(previous, preps[0], x)


def _found_end(previous: str, word: str) -> int:
    """Where the first occurrence of the whole word `word` in `previous` ends (0 when absent)."""
    return next((m.end() for m in _WORD_RE.finditer(previous) if m.group(0).lower() == word), 0)


def _asked_thing(previous: str) -> tuple[int, int] | None:
    """Where the thing an English "What is the X for ...?" asks about stands: "the X", from
    its article to the preposition; None for any other shape."""
    found = list(_WORD_RE.finditer(previous))
    lowered = [m.group(0).lower() for m in found]
    if len(found) < 4 or lowered[0] != "what" or lowered[1] not in ("is", "are", "was", "were") \
            or lowered[2] not in _DETERMINERS:
        return None
    end = next((i for i in range(3, len(found)) if lowered[i] in _BOUNDARY), None)
    if end is None or end == 3:
        return None
    return found[2].start(), found[end - 1].end()


def _replace_possessed(previous: str, words: list[str]) -> str | None:
    """Step 3j: "How about kittens?" after "When should my puppy get its first vaccination?":
    X takes the place of the thing the previous question's one possessive names ("my
    PUPPY"; its words up to the next boundary word, three at most). Not when X only
    repeats the previous question's words."""
    found = list(_WORD_RE.finditer(previous))
    lowered = [m.group(0).lower() for m in found]
    owned = [i for i, w in enumerate(lowered) if any(w in lang.possessives for lang in LANGUAGES.values())]
    if len(owned) != 1 or owned[0] + 1 >= len(found):
        return None
    words = [w for w in words if not any(w.lower() in lang.possessives for lang in LANGUAGES.values())]
    if not words or _repeats(previous, words):
        return None
    start = end = owned[0] + 1
    # the thing ends before a verb: "my tomcat FIXED", "my dog BARKING"
    while end < len(found) and end - start < MAX_MODIFIER_RUN and lowered[end] not in _BOUNDARY \
            and lowered[end] not in _SUBJECT_ENDS and not (end > start and lowered[end].endswith(("ed", "ing"))):
        end += 1
    if end == start:
        return None
    return f"{previous[:found[start].start()]}{' '.join(words)}{previous[found[end - 1].end():]}"


def _replace_of_phrase(previous: str, prep: str, x: str, words: list[str]) -> str | None:
    """Step 3k: "And for a partner?" after "What is the hourly rate of a paralegal?": the
    phrase after the previous question's only preposition, "of", names what it is asked of,
    so "for X" takes its place. Added as a condition it read "the rate of a paralegal for a
    partner" and quoted the paralegal's row at 0.70 (a reliability pass)."""
    found = [m.group(0).lower() for m in _WORD_RE.finditer(previous)]
    preps = [w for w in found if w == "of" or w in _EN_PREP.split("|")]
    if preps != ["of"] or _repeats(previous, words):
        return None
    replaced = _replace_after(previous, "of", x)
    # the phrase ends the question: in "How many days of leave do interns get?" it names no one
    if replaced is None or not replaced.rstrip(" ?!.").endswith(x):
        return None
    at = replaced.lower().rfind(f" of {x.lower()}")
    return f"{replaced[:at]} {prep} {replaced[at + 4:]}" if at >= 0 else None


def _add_condition(previous: str, prep: str, x: str) -> str | None:
    """Step 3h: "and in December?" after a question without "in": a condition added to it."""
    if any(m.group(0).lower() == prep for m in _WORD_RE.finditer(previous)):
        return None
    body = previous.rstrip(" ?!.")
    return f"{body} {prep} {x}?"


def _swap(previous: str, old_pattern: str, new: str) -> str | None:
    m = re.search(rf"(?<![\w-]){old_pattern}(?![\w-])", previous, re.IGNORECASE)
    if not m:
        return None
    return f"{previous[:m.start()]}{new}{previous[m.end():]}"
