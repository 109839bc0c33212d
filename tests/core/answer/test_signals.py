"""Signals of candidate units: what the learned model reads, checked on small passages."""

from __future__ import annotations

import numpy as np

from core.answer.question import Question
from core.answer.signals import LEXICAL, key_match, row_keys, signals, table_cells, unit_candidates
from core.lexical import LexicalIndex, tokenize
from core.retrieve import Candidate

TABLE = (
    "| Plan | Refund | Cancellation |\n|---|---|---|\n"
    "| Monthly | Full refund within 14 days | Cancel any time |\n"
    "| Annual | Non-refundable | Cancel any time |\n\n"
    "For a Monthly plan, the 14-day period starts on the day of the first payment. "
    "Approved refunds are paid within 5 business days."
)


def passage(text: str, lang: str = "en") -> Candidate:
    return Candidate(chunk_id="d:0001", doc_id="d", text=text, source="terms.md", title="Terms", page_start=None,
                     page_end=None, section="Terms > Refunds", kind="table", lang=lang, ordinal=1,
                     dense_score=0.8, dense_rank=1, bm25_score=3.0, bm25_rank=1, fused_score=0.03, rank=1)


def scored(question: str, text: str, lang: str = "en") -> dict[str, dict[str, float]]:
    """Each unit's signals, keyed by the unit's text; vectors are arbitrary (not read here)."""
    passages = [passage(text, lang)]
    candidates = unit_candidates(passages)
    lexicon = LexicalIndex.build([("d:0001", text), ("e:0001", "Office hours and parking.")])
    q = Question.parse(question)
    rng = np.random.default_rng(0)
    q.vector = rng.normal(size=8)
    vectors = rng.normal(size=(len(candidates), 8))
    return {s.unit.text: s.signals for s in signals(q, passages, lexicon, vectors, candidates)}


def test_a_sentence_naming_another_row_key_than_the_question_does_not_match() -> None:
    out = scored("How many days do I have for a refund on an annual plan?", TABLE)
    by_start = {text.split(";")[0].split(",")[0]: s["row_key_match"] for text, s in out.items()}
    assert by_start["Plan: Annual"] == 1.0
    assert by_start["Plan: Monthly"] == 0.0
    assert by_start["For a Monthly plan"] == 0.0  # speaks of the other alternative
    assert by_start["Approved refunds are paid within 5 business days."] == 0.5  # names no key


def test_key_match_without_a_key_in_the_question_compares_nothing() -> None:
    candidates = unit_candidates([passage(TABLE)])
    keys = row_keys(table_cells(candidates))[1]
    sentence = next(u for _, u in candidates if u.text.startswith("For a Monthly"))
    terms = set(tokenize("When does the refund period start?"))
    assert key_match(sentence, set(tokenize(sentence.text)), keys, terms) == 0.5
    assert key_match(sentence, set(tokenize(sentence.text)), keys, terms | set(tokenize("monthly"))) == 1.0



def test_of_two_row_keys_one_inside_the_other_the_longer_the_question_names_is_meant() -> None:
    table = ("| Model | Code | Net price |\n|---|---|---|\n| Burren Trail | KC-201 | 1190.00 |\n"
             "| Burren Trail Pro | KC-202 | 1890.00 |\n| Atlantic Road | KC-301 | 990.00 |")
    out = scored("What is the net price of the Burren Trail Pro?", table)
    by_key = {text.split(";")[0]: s["row_key_match"] for text, s in out.items()}
    assert by_key["Model: Burren Trail Pro"] == 1.0
    assert by_key["Model: Burren Trail"] == 0.0 and by_key["Model: Atlantic Road"] == 0.0
    out = scored("What is the net price of the Burren Trail?", table)
    assert {text.split(";")[0]: s["row_key_match"] for text, s in out.items()}["Model: Burren Trail"] == 1.0

def test_rows_told_apart_only_by_a_range_word_and_a_number_are_two_keys() -> None:
    # "under" and "over" are stop words: without them the two rows had one key, so neither
    # was picked; the question's number is part of what it names
    table = ("| Service | Price |\n|---|---|\n| Dog spay, under 20 kg | 180.00 |\n"
             "| Dog spay, 20 kg and over | 240.00 |\n| Cat spay | 120.00 |")
    out = scored("How much is a spay for a dog under 20 kg?", table)
    by_key = {text.split(";")[0]: s["row_key_match"] for text, s in out.items()}
    assert by_key["Service: Dog spay, under 20 kg"] == 1.0
    assert by_key["Service: Dog spay, 20 kg and over"] == 0.0
    out = scored("What does a dog spay cost?", table)  # no range named: nothing to compare
    assert {text.split(";")[0]: s["row_key_match"] for text, s in out.items()}["Service: Dog spay, under 20 kg"] == 0.5


def test_a_value_several_rows_share_still_tells_the_other_rows_apart() -> None:
    # the QA pass: "What is the peak season surcharge for air freight?" was answered with the
    # Sea row: "Air" stands in two rows, so it named no single row and nothing was compared
    table = ("| Surcharge | Mode | Amount |\n|---|---|---|\n| Fuel surcharge | Road | 14% |\n"
             "| Fuel surcharge | Air | 0.95 EUR per kg |\n| Peak season surcharge | Sea | 300 EUR |\n"
             "| Peak season surcharge | Air | 0.40 EUR per kg |")
    out = scored("What is the peak season surcharge for air freight?", table)
    by_row = {text.split("; Amount")[0]: s["row_key_match"] for text, s in out.items()}
    assert by_row["Surcharge: Peak season surcharge; Mode: Air"] == 1.0
    assert by_row["Surcharge: Peak season surcharge; Mode: Sea"] == 0.0
    assert by_row["Surcharge: Fuel surcharge; Mode: Air"] == 0.0
    # a question naming every value of a column, or none, compares nothing on it
    out = scored("What is the peak season surcharge?", table)
    by_row = {text.split("; Amount")[0]: s["row_key_match"] for text, s in out.items()}
    assert by_row["Surcharge: Peak season surcharge; Mode: Sea"] == by_row["Surcharge: Peak season surcharge; Mode: Air"] == 1.0
    assert by_row["Surcharge: Fuel surcharge; Mode: Road"] == 0.0


def test_a_bare_value_is_no_code_a_unit_must_hold() -> None:
    # "200" (three digits) was read as a code: every unit without it was vetoed and the
    # premise "Why is the deposit 200 EUR?" had nothing to be corrected with
    out = scored("Why is the e-bike deposit 200 EUR?", "For e-bikes the deposit is 350 EUR. Helmets are free.")
    assert out["For e-bikes the deposit is 350 EUR."]["ids_missing"] == 0.0
    assert out["For e-bikes the deposit is 350 EUR."]["numbers_missing"] == 1.0
    # a code still must stand there
    out = scored("What is the deposit for the EB-200?", "For e-bikes the deposit is 350 EUR. Helmets are free.")
    assert out["For e-bikes the deposit is 350 EUR."]["ids_missing"] > 0


def test_a_range_word_in_a_cell_without_a_number_is_no_part_of_its_key() -> None:
    table = "| Route | Price |\n|---|---|\n| Transfer to the airport | 30.00 |\n| City tour | 45.00 |"
    out = scored("How much is the airport transfer?", table)
    assert {text.split(";")[0]: s["row_key_match"] for text, s in out.items()}["Route: Transfer to the airport"] == 1.0


def test_word_overlap_signals_are_zero_across_languages() -> None:
    same = scored("How many days do I have for a refund on a monthly plan?", TABLE)
    across = scored("Сколько дней длится возврат по месячному плану?", TABLE)
    assert all(s["cross_language"] == 1.0 for s in across.values())
    assert all(s[f] == 0.0 for s in across.values() for f in LEXICAL)
    # nothing to compare across languages: no unit is vetoed as "another row"
    assert {s["row_key_match"] for s in across.values()} == {0.5}
    assert all(s["cross_language"] == 0.0 for s in same.values())
    assert max(s["lex_unit"] for s in same.values()) > 0.3


def test_an_english_line_inside_a_russian_passage_is_not_another_language() -> None:
    text = "Установите пакет командой ниже.\n\nnpm install vue-router\n\nЗатем подключите роутер."
    out = scored("Как установить роутер?", text, lang="ru")
    assert out["npm install vue-router"]["cross_language"] == 0.0


def test_a_key_counts_only_when_the_question_names_all_of_it() -> None:
    text = ("| Staff | Leave per year |\n|---|---|\n| Part-time staff | 12 days |\n| Full-time staff | 25 days |\n\n"
            "Full-time staff also get two extra days after five years. Leave is booked in the portal.")
    broad = scored("How much leave do staff get?", text)  # names no whole key: nothing to compare
    assert {s["row_key_match"] for s in broad.values()} == {0.5}
    picked = scored("How many days of leave do part-time staff get?", text)
    assert picked["Staff: Full-time staff; Leave per year: 25 days"]["row_key_match"] == 0.0
    assert picked["Full-time staff also get two extra days after five years."]["row_key_match"] == 0.0
    assert picked["Staff: Part-time staff; Leave per year: 12 days"]["row_key_match"] == 1.0
    assert picked["Leave is booked in the portal."]["row_key_match"] == 0.5


class HashEmbedder:
    """Deterministic stand-in vectors: the veto under test reads no similarity."""

    def embed_passages(self, texts: list[str]) -> list[np.ndarray]:
        return [np.random.default_rng(abs(hash(t)) % 2**32).normal(size=384) for t in texts]


def test_a_cross_language_question_keeps_every_unit() -> None:
    from core.answer.extractive import admissible_units

    q = Question.parse("Сколько дней длится возврат по плану Annual?")
    q.vector = np.ones(384)
    lexicon = LexicalIndex.build([("d:0001", TABLE), ("e:0001", "Office hours and parking.")])
    kept, rejected = admissible_units(q, [passage(TABLE)], lexicon, HashEmbedder())
    assert not rejected and len(kept) == len(unit_candidates([passage(TABLE)]))


def test_the_documents_title_line_is_no_candidate() -> None:
    text = "Terms\n\nRefunds are paid within 5 business days."
    assert [u.text for _, u in unit_candidates([passage(text)])] == ["Refunds are paid within 5 business days."]


def test_a_unit_about_another_row_than_the_question_picks_is_vetoed() -> None:
    from core.answer.extractive import admissible_units

    q = Question.parse("How many days do I have for a refund on an annual plan?")
    q.vector = np.ones(384)
    lexicon = LexicalIndex.build([("d:0001", TABLE), ("e:0001", "Office hours and parking.")])
    kept, rejected = admissible_units(q, [passage(TABLE)], lexicon, HashEmbedder())
    vetoed = {r["text"] for r in rejected if "another row" in r["why"]}
    assert any(t.startswith("Plan: Monthly") for t in vetoed)
    assert any(t.startswith("For a Monthly plan") for t in vetoed)
    assert any(s.unit.text.startswith("Plan: Annual") for s in kept)
    assert any(s.unit.text.startswith("Approved refunds") for s in kept)


def test_a_pipe_inside_a_table_cell_stays_in_its_cell():
    # the parsers write a cell's own pipe as `\|` (blocks.markdown_table); splitting on it
    # shifted every later value under the wrong column name
    from core.answer.units import row_cells, units
    from core.ingest.blocks import markdown_table

    table = markdown_table([["Plan", "Route", "Price"], ["Gold", "A | B", "120 EUR"]])
    row = [u for u in units(table) if u.kind == "row"][0]
    assert row.text == "Plan: Gold; Route: A | B; Price: 120 EUR"
    assert row.quote in table
    assert row_cells("| a \\| b | c |") == ["a | b", "c"]
    assert row_cells("| x | y \\|") == ["x", "y |"]


def test_a_passage_that_copies_an_earlier_one_adds_no_candidate() -> None:
    # a QA pass: a copy of a policy under another name tied with the first as a rival answer,
    # and the answer (0.71) was refused (0.63) until the copy was deleted
    from dataclasses import replace

    first = passage("Late cancellations cost 25 EUR. Call the front desk.")
    copy = replace(first, chunk_id="c:0001", doc_id="c", source="policy copy.md",
                   text="Late  cancellations cost 25 EUR.\nCall the front desk.")
    other = replace(first, chunk_id="e:0001", doc_id="e", text="Late cancellations cost 30 EUR.")
    numbers = [n for n, _ in unit_candidates([first, copy, other])]
    assert numbers == [1, 1, 3]  # the copy's units are left out; the passages keep their numbers
