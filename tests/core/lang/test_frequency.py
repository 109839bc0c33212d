"""core/lang/frequency.py: general text's word frequencies as a prior for word weights."""

from __future__ import annotations

from core.lang.frequency import TABLE, build, chunk_probability
from core.lexical import tokenize


def test_the_shipped_table_is_what_the_build_writes() -> None:
    assert TABLE.read_bytes() == build()


def test_everyday_words_are_more_likely_in_a_chunk_than_specialist_ones() -> None:
    def p(word: str) -> float:
        return chunk_probability(tokenize(word)[0])

    assert p("take") > p("long") > p("delivery") > p("reimbursement") > 0
    assert p("время") > p("отпуск") > p("возмещение") > p("стерилизация") > 0
    assert p("Kubernetes") == 0 and chunk_probability("ab12") == 0  # unknown: no prior
    # by stem: the inflections' frequencies add up
    assert chunk_probability(tokenize("отпуска")[0]) == p("отпуск") and p("days") == p("day")
