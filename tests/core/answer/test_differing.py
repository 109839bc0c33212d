"""core/answer/differing.py: rows two documents disagree on, and which of them is in force."""

from __future__ import annotations

from datetime import date

from core.answer.differing import (
    in_force_first,
    later_versions,
    note,
    read_date,
    rival_rows,
    series,
    validity,
)
from core.answer.result import Selected
from core.answer.signals import Scored
from core.answer.units import units
from core.lang import LANGUAGES
from core.retrieve import Candidate

OLD = ("Prices 2025\n\n| Service | Price EUR | Valid until |\n|---|---|---|\n"
       "| Microchipping | 22.00 | 31 January 2026 |\n| Nail clipping | 10.00 | 31 January 2026 |")
NEW = ("Price list 2026. Effective from 1 February 2026.\n\n| Service | Riverside | Northgate |\n|---|---|---|\n"
       "| Microchipping | 25.00 | 25.00 |\n| Nail clipping | 12.00 | 14.00 |")
COPY = ("Prices\n\n| Service | Riverside | Northgate |\n|---|---|---|\n"
        "| Microchipping | 25.00 | 25.00 |")
AFTER = date(2026, 11, 29)
BEFORE = date(2025, 12, 1)


def passage(doc: str, text: str) -> Candidate:
    return Candidate(f"{doc}:0", doc, text, f"{doc}.pdf", doc, None, None, "", "table", "en", 0)


def rows(n: int, p: Candidate, score: float) -> list[Scored]:
    return [Scored(n, u, {}, score) for u in units(p.text) if u.kind == "row"]


def test_dates_in_the_forms_documents_write_them() -> None:
    en, ru = LANGUAGES["en"], LANGUAGES["ru"]
    assert read_date(": 31 January 2026 |", en) == date(2026, 1, 31)
    assert read_date("January 31st, 2026.", en) == date(2026, 1, 31)
    assert read_date("2026-01-31", en) == date(2026, 1, 31)
    assert read_date("31.01.2026", en) == date(2026, 1, 31)
    assert read_date("01/31/2026", en) == date(2026, 1, 31)  # 31 cannot be a month
    assert read_date("March 2026", en) == date(2026, 3, 31)
    assert read_date("March 2026", en, end=False) == date(2026, 3, 1)  # "effective from March 2026"
    assert read_date(" 31 января 2026 г.", ru) == date(2026, 1, 31)
    assert read_date("your first visit", en) is None
    assert read_date("31 January", en) is None  # no year: no date to compare with today
    assert read_date("32.01.2026", en) is None


def test_a_row_valid_until_a_past_day_is_expired_and_one_from_a_later_day_not_yet() -> None:
    old, new = passage("old", OLD), passage("new", NEW)
    chip_old, chip_new = rows(1, old, 0.9)[0].unit, rows(2, new, 0.8)[0].unit
    assert validity(chip_old, old.text, AFTER).state == "expired"
    assert validity(chip_old, old.text, BEFORE) is None  # still in force then
    assert validity(chip_new, new.text, AFTER) is None  # the passage: effective since February
    assert validity(chip_new, new.text, BEFORE).state == "not_yet"
    ru = passage("ru", "| Услуга | Цена | Действует до |\n|---|---|---|\n| Чипирование | 22 | 31 января 2026 г. |")
    assert validity(rows(1, ru, 0.9)[0].unit, ru.text, AFTER).state == "expired"


def test_the_same_row_of_another_document_with_other_values_is_its_rival() -> None:
    passages = [passage("old", OLD), passage("new", NEW)]
    ranked = sorted(rows(1, passages[0], 0.9) + rows(2, passages[1], 0.7), key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]  # the old Microchipping row ranked first
    pairs = rival_rows(chosen, ranked, passages)
    assert [(a.unit.text, b.unit.text) for a, b in pairs] == [(
        "Service: Microchipping; Price EUR: 22.00; Valid until: 31 January 2026",
        "Service: Microchipping; Riverside: 25.00; Northgate: 25.00")]
    # a row of the same name the model scores far below the chosen one is another thing
    low = sorted(rows(1, passages[0], 0.9) + rows(2, passages[1], 0.4), key=lambda s: -s.score)
    assert rival_rows(chosen, low, passages) == []
    out, differences = in_force_first(pairs, chosen, passages, AFTER)
    # the row in force is quoted first, the expired one after it
    assert [s.passage for s in out] == [2, 1]
    assert differences == [{"key": "Microchipping", "rows": [
        {"passage": 2, "source": "new.pdf", "validity": None, "date": None, "by": ""},
        {"passage": 1, "source": "old.pdf", "validity": "expired", "date": "2026-01-31", "by": ""}]}]
    assert note(differences) == ("The documents give different values for “Microchipping”: new.pdf and "
                                 "old.pdf (valid until 2026-01-31, a day now past).")
    # before the old list ran out neither is out of force: the best row stays first
    out, _ = in_force_first(pairs, chosen, passages, BEFORE)
    assert [s.passage for s in out] == [1, 2]


def test_no_rival_in_the_same_document_nor_in_a_copy_with_the_same_values() -> None:
    passages = [passage("new", NEW), passage("copy", COPY)]
    ranked = rows(1, passages[0], 0.9) + rows(2, passages[1], 0.8)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    assert rival_rows(chosen, ranked, passages) == []
    # a sentence is no row's rival
    sentence = Scored(1, units("Microchipping costs 25 EUR.")[0], {}, 0.9)
    assert rival_rows([Selected(1, sentence.unit, 0.9)], ranked, passages) == []


def sentences(n: int, p: Candidate, score: float) -> list[Scored]:
    return [Scored(n, u, {}, score) for u in units(p.text) if u.kind == "sentence"]


def test_the_same_sentence_of_another_document_with_other_numbers_is_its_rival() -> None:
    # two versions of a policy in prose: only table rows were compared, so the old payment
    # term was quoted as the answer without a word that the new policy says otherwise
    old = passage("policy-2024", "Invoices are payable within 14 days. Interest is 5% a year.")
    new = passage("policy-2025", "Effective from 1 January 2025. Invoices are payable within 30 days of receipt.")
    passages = [old, new]
    ranked = sorted(sentences(1, old, 0.9) + sentences(2, new, 0.8), key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    pairs = rival_rows(chosen, ranked, passages)
    assert [(a.unit.text, b.unit.text) for a, b in pairs] == [
        ("Invoices are payable within 14 days.", "Invoices are payable within 30 days of receipt.")]
    _, differences = in_force_first(pairs, chosen, passages, AFTER)
    # the 2025 policy, the later edition, first; it says since when it holds
    assert note(differences) == ("The documents give different values for “Invoices are payable within 14 days.”: "
                                 "policy-2025.pdf and policy-2024.pdf (replaced by policy-2025.pdf, valid from "
                                 "2025-01-01).")


def test_sentences_about_two_things_or_with_the_same_numbers_are_no_rivals() -> None:
    riga = passage("riga", "The Riga clinic is open Monday to Friday from 8:00 to 20:00.")
    tallinn = passage("tallinn", "The Tallinn clinic is open Monday to Friday from 9:00 to 18:00.")
    copy = passage("copy", "The Riga clinic is open Monday to Friday from 8:00 to 20:00.")
    for other in (tallinn, copy):
        passages = [riga, other]
        ranked = sentences(1, riga, 0.9) + sentences(2, other, 0.85)
        assert rival_rows([Selected(1, ranked[0].unit, 0.9)], ranked, passages) == []


def test_a_sentence_saying_part_of_what_another_says_is_no_rival() -> None:
    # a QA pass: "What time is check-out?" opened "The documents differ:" for a FAQ and a
    # handbook that agree, the handbook saying only the Sunday hour the FAQ also gives
    faq = passage("faq", "Check-in starts at 15:00 and check-out is by 11:00 (12:00 on Sundays and public holidays).")
    handbook = passage("handbook", "On Sundays and public holidays check-out is at 12:00.")
    passages = [faq, handbook]
    ranked = sentences(1, faq, 0.9) + sentences(2, handbook, 0.85)
    assert rival_rows([Selected(1, ranked[0].unit, 0.9)], ranked, passages) == []
    # ...while another Sunday hour is a rival
    other = passage("handbook", "On Sundays and public holidays check-out is at 13:00.")
    ranked = sentences(1, faq, 0.9) + sentences(2, other, 0.85)
    assert len(rival_rows([Selected(1, ranked[0].unit, 0.9)], ranked, [faq, other])) == 1


def test_an_expired_row_without_a_rival_is_still_said_to_be_so() -> None:
    passages = [passage("old", OLD)]
    ranked = rows(1, passages[0], 0.9)
    chosen = [Selected(1, ranked[1].unit, 0.9)]
    out, differences = in_force_first([], chosen, passages, AFTER)
    assert out == chosen
    assert note(differences) == "“Nail clipping” of old.pdf (valid until 2026-01-31, a day now past) may no longer apply."
    # said in the question's language
    assert note(differences, LANGUAGES["ru"]) == ("Значение «Nail clipping» из old.pdf (срок действия до 2026-01-31 "
                                                  "уже истёк) может быть уже неактуально.")
    assert in_force_first([], chosen, passages, BEFORE)[1] == []


def test_of_two_rows_in_force_the_later_edition_comes_first() -> None:
    # a QA pass: the 2024 wellness terms were quoted before the 2025 ones that replace them
    old = Candidate("o:0", "o", "| Plan | Price |\n|---|---|\n| Cat | 19 EUR |", "wellness_plan_2024.txt",
                    "Wellness Plan", None, None, "", "table", "en", 0)
    new = Candidate("n:0", "n", "| Plan | Price |\n|---|---|\n| Cat | 22 EUR |", "wellness_plan_2025.md",
                    "Wellness Plan 2025", None, None, "", "table", "en", 0)
    ranked = sorted(rows(1, old, 0.9) + rows(2, new, 0.8), key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    out, differences = in_force_first(rival_rows(chosen, ranked, [old, new]), chosen, [old, new], AFTER)
    assert [s.passage for s in out] == [2, 1]
    assert differences[0]["rows"][1] == {"passage": 1, "source": "wellness_plan_2024.txt", "validity": "superseded",
                                         "date": None, "by": "wellness_plan_2025.md"}
    assert note(differences).endswith("wellness_plan_2025.md and wellness_plan_2024.txt (an older edition than "
                                      "wellness_plan_2025.md).")
    # valid-from days decide before the years in the names: the later start is in force
    dated = [Candidate(c.chunk_id, c.doc_id, f"Valid from {day}.\n\n{c.text}", c.source, c.title, None, None, "",
                       "table", "en", 0) for c, day in ((old, "1 March 2025"), (new, "1 January 2024"))]
    ranked = sorted(rows(1, dated[0], 0.8) + rows(2, dated[1], 0.9), key=lambda s: -s.score)
    chosen = [Selected(2, ranked[0].unit, 0.9)]
    out, differences = in_force_first(rival_rows(chosen, ranked, dated), chosen, dated, AFTER)
    assert [s.passage for s in out] == [1, 2]
    assert differences[0]["rows"][1]["validity"] == "superseded" and differences[0]["rows"][1]["date"] == "2025-03-01"
    assert "(replaced by wellness_plan_2024.txt, valid from 2025-03-01)" in note(differences)
    russian = note(differences, LANGUAGES["ru"])
    assert russian.startswith("Документы указывают разные значения для «") and " и " in russian
    assert "(заменён документом wellness_plan_2024.txt, который действует с 2025-03-01)." in russian
    # no dates and no years: the best row stays first, neither said to be replaced
    plain = [Candidate(c.chunk_id, c.doc_id, c.text, f"{c.doc_id}.txt", "Plan", None, None, "", "table", "en", 0)
             for c in (old, new)]
    ranked = sorted(rows(1, plain[0], 0.9) + rows(2, plain[1], 0.8), key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    out, differences = in_force_first(rival_rows(chosen, ranked, plain), chosen, plain, AFTER)
    assert [s.passage for s in out] == [1, 2] and [r["validity"] for r in differences[0]["rows"]] == [None, None]


def _notes(source: str, text: str) -> Candidate:
    return Candidate(f"{source}:0", source, text, source, "", None, None, "", "paragraph", "en", 0)


def test_a_later_version_restating_a_value_in_other_words_is_the_rival_in_force() -> None:
    # a QA pass: "What is the maximum file size for sync?" was answered 2 GB from the 4.2
    # release notes at 0.96, while 4.3 keeps 4 GB and 5.0 raises it to 20 GB in other words
    old = _notes("release_notes_4.2.md", "The default sync interval is 15 minutes. The maximum file size for sync is 2 GB.")
    mid = _notes("release_notes_4.3.pdf", "The maximum file size stays at 4 GB.")
    new = _notes("release_notes_5.0.html", "The maximum file size was raised to 20 GB. Agents need 4 GB of RAM.")
    other = _notes("sizing_guide.md", "The maximum file size for archives is 8 GB.")
    passages = [old, mid, new, other]
    # the unit model scores the restatements far below the chosen sentence
    ranked = sorted(sentences(1, old, 0.9) + sentences(2, mid, 0.3) + sentences(3, new, 0.2)
                    + sentences(4, other, 0.25), key=lambda s: -s.score)
    chosen = [Selected(1, next(s.unit for s in ranked if "2 GB" in s.unit.text), 0.9)]
    pairs = rival_rows(chosen, ranked, passages)
    # the latest version's restatement, not 4.3's, nor another series' sentence
    assert [(a.unit.text, b.unit.text) for a, b in pairs] == [
        ("The maximum file size for sync is 2 GB.", "The maximum file size was raised to 20 GB.")]
    out, differences = in_force_first(pairs, chosen, passages, AFTER)
    assert [s.unit.text for s in out] == ["The maximum file size was raised to 20 GB.",
                                          "The maximum file size for sync is 2 GB."]
    assert differences[0]["rows"][1]["validity"] == "superseded"
    assert note(differences).endswith("(an older edition than release_notes_5.0.html).")
    # a sentence of the later version about another quantity is no rival
    chosen = [Selected(1, next(s.unit for s in ranked if "15 minutes" in s.unit.text), 0.9)]
    assert rival_rows(chosen, ranked, passages) == []


def test_a_series_and_its_version_are_read_off_the_file_name_else_the_title() -> None:
    assert series(_notes("release_notes_4.2.1.md", "")) == ("release notes", (4, 2, 1))
    assert series(_notes("Admin-Guide-v3.pdf", "")) == ("admin guide", (3,))
    # a bare number or a year is no version; the title is read when the name has none
    assert series(_notes("step_2_2025.md", "")) == ("", None)
    titled = Candidate("t:0", "t", "", "notes.html", "Cobalt Relay 5.0 Release Notes", None, None, "", "paragraph", "en", 0)
    assert series(titled) == ("cobalt relay release notes", (5, 0))


def test_of_two_rows_the_only_one_saying_since_when_it_holds_is_in_force() -> None:
    # a QA pass: a price list with a "Valid from" column beside an undated one; the old
    # $15 row was quoted first and neither was said to be in force
    old = Candidate("o:0", "o", "| Tier | Price |\n|---|---|\n| Team | 15 |", "pricing_tiers.csv", "pricing_tiers",
                    None, None, "", "table", "en", 0)
    new = Candidate("n:0", "n", "| Tier | Price | Valid from |\n|---|---|---|\n| Team | 17 | 1 March 2025 |",
                    "pricing_tiers_2025.csv", "pricing_tiers_2025", None, None, "", "table", "en", 0)
    ranked = sorted(rows(1, old, 0.9) + rows(2, new, 0.8), key=lambda s: -s.score)
    chosen = [Selected(1, ranked[0].unit, 0.9)]
    out, differences = in_force_first(rival_rows(chosen, ranked, [old, new]), chosen, [old, new], AFTER)
    assert [s.passage for s in out] == [2, 1]
    assert differences[0]["rows"][1]["validity"] == "superseded" and differences[0]["rows"][1]["date"] == "2025-03-01"
    # not yet valid: the undated row stays in force, first
    out, _ = in_force_first(rival_rows(chosen, ranked, [old, new]), chosen, [old, new], date(2025, 1, 1))
    assert [s.passage for s in out] == [1, 2]


def test_the_later_versions_of_a_series_latest_first() -> None:
    names = ["release_notes_4.2.md", "release_notes_5.0.html", "release_notes_4.10.pdf", "admin_guide_6.0.md", "faq.md"]
    assert later_versions("release_notes_4.2.md", "", names) == ["release_notes_5.0.html", "release_notes_4.10.pdf"]
    assert later_versions("release_notes_5.0.html", "", names) == []
    assert later_versions("faq.md", "", names) == []
