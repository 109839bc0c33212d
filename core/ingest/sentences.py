"""Sentence splitting for English and Russian that errs towards not splitting.

A boundary is sentence punctuation (. ! ? …), optional closing quotes or brackets, then
whitespace, then something that can start a sentence (an upper-case letter, a digit, an
opening quote or bracket). It is NOT a boundary after an abbreviation ("e.g.", "Mr.",
"т.е.", "напр."), an initial ("J. Smith", "А. С. Пушкин") or a bare list or clause number ("1.",
"2.1.", "iv."). Decimals ("4.7") and paragraph ids ("7-2") have no whitespace after the dot, so
they never split. When unsure, two sentences stay one: a chunk may then hold a longer
unit, but no sentence is ever cut.
"""

from __future__ import annotations

import re

# Abbreviations (lower case, without the final dot) after which a sentence never ends.
_NEVER_END = frozenset(
    """
    e.g i.e cf vs mr mrs ms dr prof sr jr st no nos fig figs art sec ch vol pp p approx
    incl est dept univ gen col lt sgt capt rev hon op ed eds al ext
    т.е т.к т.н т.ч напр см рис ул им и.о гл ст п пп ср стр тел доб акад проф доц
    """.split()
)
# After these a sentence may end, but only if the next word starts upper-case (which the
# base rule demands anyway); listed for clarity, they need no special case.
_DIGIT_ABBREVIATIONS = frozenset({"г", "гг", "руб", "коп", "тыс", "млн", "млрд"})
_ROMAN = re.compile(r"^[ivxlcdm]{1,5}$", re.IGNORECASE)

_CANDIDATE = re.compile(r"[.!?…]+[\"'»”’)\]]*(?=\s)")
_STARTER = re.compile(r"[\"'«“(\[]?[A-ZА-ЯЁ0-9]")
_WORD_BEFORE = re.compile(r"([^\s\"'«“(\[]+)$")
# How far back from a dot the word before it is looked for. A regex anchored at the dot but
# searched from the text's start scans the whole prefix for every dot: quadratic, hours for a
# 5 MB single-line file. A longer "word" is cut to its end, which is no abbreviation, initial
# or list number anyway, so the window changes no decision.
_LOOK_BACK = 64


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Return (start, end) spans of the sentences of `text`, whitespace trimmed."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CANDIDATE.finditer(text):
        end = match.end()
        rest = end
        while rest < len(text) and text[rest].isspace():
            rest += 1
        if rest >= len(text) or not _STARTER.match(text, rest):
            continue
        if match.group().startswith(".") and not _may_end_at_dot(text, match.start()):
            continue
        _add(text, start, end, spans)
        start = rest
    _add(text, start, len(text), spans)
    return spans


def sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def _add(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def _may_end_at_dot(text: str, dot: int) -> bool:
    match = _WORD_BEFORE.search(text, max(0, dot - _LOOK_BACK), dot)
    if not match:
        return True
    word = match.group(1)
    core = word.lower().rstrip(".")
    if core in _NEVER_END or core.replace(".", "") in {"eg", "ie"}:
        return False
    if len(core) == 1 and core.isalpha():
        return False  # an initial: "J. Smith", "А. Пушкин"
    if _clause_number(core) and _at_item_start(text, match.start()):
        return False  # list or clause numbering: "1. Open the app", "2.1. Audit logs are kept"
    if _ROMAN.match(core) and _at_item_start(text, match.start()):
        return False
    if core in _DIGIT_ABBREVIATIONS:
        # "в 2020 г. Компания ..." ends a sentence; "в г. Москве" does not.
        return bool(re.search(r"\d\s*$", text[max(0, match.start() - _LOOK_BACK): match.start()]))
    return True


def _clause_number(word: str) -> bool:
    """"1", "2.1", "4.3.2": up to four parts of up to three digits. A clause's own number
    cut off as a sentence of its own was quoted as a claim "2.3." (a QA pass)."""
    parts = word.split(".")
    return len(parts) <= 4 and all(p.isdigit() and len(p) <= 3 for p in parts)


def _at_item_start(text: str, pos: int) -> bool:
    """True if `pos` starts the text, a line, or follows a colon/semicolon or a sentence."""
    while pos > 0 and text[pos - 1] in " \t":  # walk back, not text[:pos]: a copy per dot is quadratic
        pos -= 1
    return pos == 0 or text[pos - 1] in "\n:;.!?"
