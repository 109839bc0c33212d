"""A unit that names a sibling of what the question names: "Wave Unlimited" for "Wave Max".

A question about one member of a family of names (plans, models, editions: "Wave Max",
"Model X", "Server 2016") is not answered by a sentence about another member that never
names the one asked: a QA pass was told, at 0.72, the fair-use slowdown of "Wave
Unlimited" for the 5G speed of "Wave Max". A name here is a run of two or more capitalised
words (leading stop words dropped: "The Wave Max"); a sibling shares its first word and
differs after it. A unit (with its heading) that holds a name of the question's asking
sentence, or whose own text names no sibling of one, is not touched; a possessive ends a
name ("Acme's Data Protection Officer" is two). Tables have their own check
(signals.key_match); this is the prose counterpart, a hard veto like a missing code."""

from __future__ import annotations

from core.answer.units import Unit
from core.lexical import STOPWORDS, tokenize

_EDGE = ",.;:!?()[]«»\"'“”„*|"


def name_runs(text: str) -> set[tuple[str, ...]]:
    """Runs of two or more capitalised words, as stems ("Duty Managers" is "Duty Manager"),
    not broken by punctuation."""
    runs: set[tuple[str, ...]] = set()
    run: list[str] = []

    def close() -> None:
        while run and run[0] in STOPWORDS:  # "The Wave Max"
            run.pop(0)
        if len(run) >= 2:
            runs.add(tuple(run))
        run.clear()

    for raw in text.split():
        word = raw.strip(_EDGE)
        owner = word.endswith(("'s", "’s"))  # "Acme's Data Protection Officer": two names
        word = word[:-2] if owner else word
        if word[:1].isalpha() and word[:1].isupper() or run and word[:1].isdigit():
            run.append((tokenize(word, keep_stopwords=True) or [word.lower()])[0])  # "Server 2016": a number goes on
        else:
            close()
            continue
        if raw != raw.rstrip(_EDGE) or owner:  # a comma, a full stop or a possessive ends a name
            close()
    close()
    return runs


def names_a_sibling(asked: set[tuple[str, ...]], unit: Unit) -> bool:
    """Does `unit` name a sibling of a name in `asked` (the asking sentence's `name_runs`)
    without naming any of them (see the module docstring)?"""
    if not asked:
        return False
    text = f"{unit.context}\n{unit.text}"
    stems = tokenize(text, keep_stopwords=True)
    # two words of a name in a row name it: "Acme Data Protection Officer" (the question's
    # "Acme's" read without its "'s") is named by "... GmbH, Data Protection Officer"
    parts = {name[i:j] for name in asked for i in range(len(name)) for j in range(i + 2, len(name) + 1)}
    if any(tuple(stems[i:i + len(part)]) == part for part in parts for i in range(len(stems))):
        return False
    own = name_runs(unit.text)  # the unit's own words: a heading naming the company ("Acme
    # Services") is no sibling of "Acme Cloud"
    return any(name[0] == other[0] and name != other and other[:len(name)] != name and name[:len(other)] != other
               for name in asked for other in own)
