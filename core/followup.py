"""Follow-up questions in a chat, read as the whole question they stand for.

After "What is the refund window for monthly plans?", a user types "What about annual
plans?". Asked alone it names no topic; asked together with the previous question it would
be answered about monthly plans again. Read as "What is the refund window for annual
plans?" it is an ordinary question, and the gate and the generator treat it as one (here:
annual plans are non-refundable, so the 14 days must not be repeated).

Algorithm (deterministic, so the console can show what was asked):
1. Recognise an elliptical follow-up: the whole question is "what/how about X", "and (for|
   in|with|...) X?", "same for X", «а (для|в|насчёт|про|...) X?», «а X?», «то же для X»,
   where X has at most six words and no question word of its own. Anything else is asked
   as typed.
2. Split X into its words; its head is its last word (a name or noun: "annual PLANS",
   «для годовых ТАРИФОВ»), its modifiers the words before.
3. If the previous question has a word with the head's stem, the modifiers before that word
   there (up to a preposition, article or question word) are replaced by X's modifiers:
   "for monthly plans" + "annual plans" -> "for annual plans". With no modifiers in X, the
   follow-up only repeats a word of the previous question and asks nothing new: no reading.
4. Otherwise X stands for a thing of the same kind in the previous question: an identifier
   for its one identifier (E20 -> E30, para 7-2 -> 7-3), a name for its one name (Germany
   -> Norway). The previous question's word is replaced by X's.
5. When nothing of the previous question can be replaced, there is no reading: the question
   is asked as typed (and, naming no topic, most likely refused).
"""

from __future__ import annotations

import re

from core.analysis import identifiers, model_names, proper_names
from core.lexical import STOPWORDS, tokenize

MAX_FOLLOWUP_WORDS = 6

# the asking frame of a follow-up; group "x" is what it asks about instead
_FRAMES = [re.compile(p, re.IGNORECASE) for p in (
    r"^(?:and|but|ok(?:ay)?|so)?[,\s]*(?:what|how)\s+about\s+(?P<x>.+?)$",
    r"^(?:and|but)\s+(?:for|in|with|on|to|at|from|under)\s+(?P<x>.+?)$",
    r"^(?:and\s+)?(?:the\s+)?same\s+(?:question\s+|thing\s+)?for\s+(?P<x>.+?)$",
    r"^(?:and|but)\s+(?P<x>.+?)$",
    r"^(?:а|и)\s+(?:как\s+)?(?:насч[её]т|для|в|во|на|про|с|со|у|по|при)\s+(?P<x>.+?)$",
    r"^(?:а\s+)?то\s+же\s+(?:самое\s+)?(?:для|про|насч[её]т|в|на)\s+(?P<x>.+?)$",
    r"^а\s+(?P<x>.+?)$",
)]

_QUESTION_WORD_RE = re.compile(
    r"\b(?:what|which|who|whom|whose|when|where|why|how|is|are|do|does|can|could|will|would|should|may|"
    r"что|какой|какая|какое|какие|каков\w*|кто|когда|где|куда|почему|зачем|сколько|как|можно|ли)\b",
    re.IGNORECASE)

# words that end a modifier run in the previous question ("for | monthly plans")
_BOUNDARY = frozenset("""a an the of for in on at to from with by under about and or my our your their its his her
this that these those what which how is are do does can will would should must
в во на для по с со у при о об про за от до из к ко без над под перед через и или ли не
мой мои моя ваш ваши ваша наш наши это этот эта эти что какой какая какое какие как сколько""".split())
MAX_MODIFIER_RUN = 3  # "for | monthly HomeHub plans": a noun's modifiers, not the whole clause

_PLACE_PREPOSITIONS = r"(?:to|in|into|from|for|within|в|во|на|из|для|по)"

_WORD_RE = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*")


def read_followup(question: str, previous: str | None) -> str | None:
    """The whole question an elliptical follow-up stands for, or None (ask it as typed)."""
    if not previous or not previous.strip():
        return None
    x = _followup_object(question)
    if x is None:
        return None
    words = [w for w in _WORD_RE.findall(x) if w.lower() not in ("the", "a", "an")]
    if not words:
        return None
    return _replace_like(previous.strip(), words) or _replace_kind(previous.strip(), x, words)


def _followup_object(question: str) -> str | None:
    """Step 1: X of "what about X?", or None when the question is not an elliptical follow-up."""
    text = " ".join(question.split()).strip().rstrip("?!.… ").strip()
    for frame in _FRAMES:
        m = frame.match(text)
        if not m:
            continue
        x = m.group("x").strip(" ,")
        if not x or len(_WORD_RE.findall(x)) > MAX_FOLLOWUP_WORDS or _QUESTION_WORD_RE.search(x):
            return None
        return x
    return None


def _stem(word: str) -> str:
    stems = tokenize(word, keep_stopwords=True)
    return stems[0] if stems else word.lower()


def _replace_like(previous: str, words: list[str]) -> str | None:
    """Step 3: the head's word of the previous question keeps its place; the first of the
    modifiers before it become X's ("for monthly HomeHub plans" -> "for annual HomeHub plans")."""
    head, modifiers = words[-1], words[:-1]
    if not modifiers:
        return None
    found = list(_WORD_RE.finditer(previous))
    head_stem = _stem(head)
    for i in range(len(found) - 1, -1, -1):
        if _stem(found[i].group(0)) != head_stem:
            continue
        start = i
        while start > 0 and found[start - 1].group(0).lower() not in _BOUNDARY and i - start < MAX_MODIFIER_RUN:
            start -= 1
        run = found[start:i]
        if not run:  # nothing before the head: X's modifiers go in front of it
            cut = found[i].start()
            return f"{previous[:cut]}{' '.join(modifiers)} {previous[cut:]}"
        end = run[min(len(modifiers), len(run)) - 1].end()
        return f"{previous[:run[0].start()]}{' '.join(modifiers)}{previous[end:]}"
    return None


def _replace_kind(previous: str, x: str, words: list[str]) -> str | None:
    """Step 4: X's model, identifier or name for the previous question's one of that kind."""
    # a model with its variant ("AquaLine 9 Steam" -> "AquaLine 8 Pro")
    new_models, old_models = model_names(x), [m for m in model_names(previous) if m not in model_names(x)]
    if new_models and len(old_models) == 1:
        # the variant is capitalised ("9 Steam weigh": "weigh" is the question's)
        return _swap(previous, rf"{re.escape(old_models[0])}(?:\s+(?-i:[A-Z])[\w-]*)*", " ".join(words))
    new_ids = identifiers(x)
    if new_ids:
        # of the same shape: E30 for E20, 7-3 for 7-2; never para 99-1 for the engine KP20
        shapes = {_shape(i) for i in new_ids}
        old = [i for i in identifiers(previous) if i not in new_ids and _shape(i) in shapes]
        new = re.search(rf"(?<![\w-]){re.escape(sorted(new_ids)[0])}(?![\w-])", x, re.IGNORECASE)
        if len(old) == 1 and len(new_ids) == 1 and new:
            return _swap(previous, re.escape(old[0]), new.group(0))
        return None
    # a follow-up's first word is capitalised as a sentence start would be: a name only
    # when it is capitalised in the middle of a text ("about Norway")
    new_names = proper_names(f"about {x}")
    if new_names and all(w.lower() not in STOPWORDS for w in words):
        old_names = sorted(n for n in proper_names(previous) if n not in new_names)
        if len(old_names) > 1:  # "HomeHub delivery to Germany": the name after a preposition
            old_names = [n for n in old_names if re.search(rf"\b{_PLACE_PREPOSITIONS}\s+{re.escape(n)}\b", previous,
                                                           re.IGNORECASE)]
        if len(old_names) == 1:
            return _swap(previous, re.escape(old_names[0]), " ".join(words))
    return None


def _shape(identifier: str) -> str:
    """"e20" -> "a9", "7-2" -> "9-9", "wm-910" -> "a-9": letters and digits, runs merged."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", identifier.lower())))


def _swap(previous: str, old_pattern: str, new: str) -> str | None:
    m = re.search(rf"(?<![\w-]){old_pattern}(?![\w-])", previous, re.IGNORECASE)
    if not m:
        return None
    return f"{previous[:m.start()]}{new}{previous[m.end():]}"
