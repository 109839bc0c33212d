"""The column a question asks for, shown first in a quoted table row.

A row is shown whole ("Plan: Max; Monthly fee: EUR 35; Data: Unlimited; ...; EU roaming
data: 30 GB"), and a reader asked for one cell had to find it (QA pass: "the answer quotes
the whole row without singling out the column asked"). When the question's asking sentence
names one or more of the row's columns, those cells follow the row's first cell (what names
the row) and the others come after them, in the table's order. Nothing is dropped: the row
stays the quote it cites, read in another order.

A column is named by its header's words: all of them, or one no other header of the table
holds ("roaming" names "EU roaming data" beside "Data"), or, when no header is named so,
more of them than any other header holds (two at least). Of two named headers one inside
the other ("Data", "EU roaming data"), the longer is meant. A question naming every column
but the first, or none, leaves the row as it is."""

from __future__ import annotations

from dataclasses import replace

from core.answer.question import Question
from core.answer.signals import key_words
from core.answer.units import Unit, row_cells, row_text
from core.lexical import tokenize

LEAST_COLUMNS = 3  # a two-column row is its name and its one value already


def named_columns(header: tuple[str, ...], asked: set[str]) -> tuple[list[int], bool]:
    """The columns after the first whose header the asked words name (see the docstring),
    and whether every column after the first is named (before the longer is preferred)."""
    words = {i: key_words(h) for i, h in enumerate(header) if i > 0 and h}
    named = []
    for i, own in words.items():
        hit = own & asked
        others = set().union(*(w for j, w in words.items() if j != i))
        if own and hit and (own <= asked or hit - others):
            named.append(i)
    hits = {i: len(own & asked) for i, own in words.items()}
    most = max(hits.values(), default=0)
    if not named and most >= 2 and list(hits.values()).count(most) == 1:
        # no header named whole or by its own word, one by more of the asked words than any
        # other: «исходящие звонки» names "Исходящие звонки, EUR/мин" beside "Входящие
        # звонки" and "Исходящие SMS"
        named = [i for i, n in hits.items() if n == most]
    every = len(named) == len(header) - 1
    return [i for i in named if not any(words[i] < words[j] for j in named)], every


def asked_column_first(question: Question, unit: Unit) -> Unit:
    """`unit` with the cells of the columns its question names right after its first cell;
    `unit` itself when it is no row, or names none of its columns, or all of them."""
    if unit.kind != "row" or len(unit.header) < LEAST_COLUMNS:
        return unit
    cells = row_cells(unit.quote)
    if len(cells) != len(unit.header):
        return unit
    # the asking sentence's words, the answer-type ones too ("fee"): a header names a kind of value
    named, every = named_columns(unit.header, set(tokenize(question.asking)))
    if not named or every:
        return unit
    order = [0, *named, *(i for i in range(1, len(cells)) if i not in named)]
    return replace(unit, text=row_text(unit.header, cells, order))
