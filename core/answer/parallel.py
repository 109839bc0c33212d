"""One statement a document makes once per section, with other values in each.

An overview says "A budget of 800 EUR a year." under one heading (a tier, a grade band, a
region) and "A budget of 2,500 EUR a year." under another. Asked "What is the budget?",
quoting the best-scored one alone answered for one section as if it were the only one (a
QA pass). So, after the answer's units are chosen:

1. The best chosen unit's parallels are the ranked units of the same document, under
   another section, that say the same thing with other values (a sentence with the same
   words but its numbers, a row with the same first cell: `differing.rival_test`).
2. When the question names a word of one of the two sections' headings that the other
   lacks ("for grade C", "in the northern region"), it picks its section: nothing is added.
3. Otherwise up to `MAX_PARALLEL` parallels are quoted with the best unit, all in the
   document's order, each cited with its own passage, whose heading the citation shows.
"""

from __future__ import annotations

from core.answer.differing import rival_test
from core.answer.question import Question
from core.answer.result import Selected
from core.answer.signals import Scored
from core.lexical import tokenize
from core.retrieve import Candidate

MAX_PARALLEL = 3


def _heading(passage: Candidate) -> frozenset[str]:
    return frozenset(tokenize(passage.section.split(" > ")[-1])) if passage.section else frozenset()


def parallel_units(question: Question, chosen: list[Selected], ranked: list[Scored],
                   passages: list[Candidate]) -> list[Selected]:
    """The units to quote besides `chosen` (steps 1-3), or none."""
    if not chosen:
        return []
    best = chosen[0]
    home = passages[best.passage - 1]
    own = _heading(home)
    if not own:
        return []
    is_parallel = rival_test(best.unit)
    asked = set(question.terms)
    quoted = {(s.passage, s.unit.start) for s in chosen}
    found: list[Selected] = []
    for s in ranked:
        there = passages[s.passage - 1]
        if there.doc_id != home.doc_id or there.section == home.section or (s.passage, s.unit.start) in quoted \
                or not is_parallel(s.unit):
            continue
        if asked & (own ^ _heading(there)):
            return []  # the question picks a section
        found.append(Selected(s.passage, s.unit, round(s.score, 4)))
        quoted.add((s.passage, s.unit.start))
        if len(found) >= MAX_PARALLEL:
            break
    return found
