"""A document that says of itself that it is out of force (core/withdrawn.py)."""

import pytest

from core.withdrawn import status_line


@pytest.mark.parametrize("text, line", [
    ("# Leave Policy v2.1\nStatus: SUPERSEDED by Leave Policy v3.0\n\nStaff get 25 days.",
     "Status: SUPERSEDED by Leave Policy v3.0"),
    ("# Expenses\n\nThis policy is no longer in force.\n", "This policy is no longer in force."),
    ("OBSOLETE - do not use\n\nThe rate is 0.25 EUR per km.", "OBSOLETE - do not use"),
    ("Superseded by the 2025 price list\n\n| Item | Price |", "Superseded by the 2025 price list"),
    ("Leave Policy (superseded)\nStaff get 25 days.", "Leave Policy (superseded)"),
    ("# Положение об отпусках\nСтатус: утратило силу с 1 марта 2025 г.\n", "Статус: утратило силу с 1 марта 2025 г."),
    ("Регламент\nНастоящий регламент не действует.\n", "Настоящий регламент не действует."),
    ("Travel Policy\nVersion 2.1 of 1 March 2022, owned by the finance team. Status: superseded by v3.0.\n",
     "Status: superseded by v3.0."),
])
def test_a_document_saying_it_is_out_of_force_is_read_so(text, line):
    assert status_line(text) == line


@pytest.mark.parametrize("text", [
    "# Leave Policy v3.0\nSupersedes: v2.1 (2022)\n\nStaff get 30 days.",  # the new edition's line
    "Archived files are kept for 7 years.",  # the word, but of the content
    "Access is withdrawn when you leave.",
    "This document is not obsolete.",
    "Список\nПриказ отменён приказом №5.",
    "Поездка отменена, если рейс задержан.",
    "# Handbook\n" + "Intro line.\n" * 12 + "Status: superseded\n",  # past the opening
    "Status: this long line of content talks about many things and mentions superseded equipment in passing today",
])
def test_content_that_uses_the_words_is_no_status(text):
    assert status_line(text) == ""


@pytest.mark.parametrize("text, line, named", [
    ("# Annual Leave Policy\n**Version:** 3.0\n**Supersedes:** Leave Policy v2.1 (2022)\n",
     "Supersedes: Leave Policy v2.1 (2022)", {"2.1", "2022"}),
    ("# Form HR20\nThis form replaces form HR19 (2019).\n", "This form replaces form HR19 (2019).", {"hr19", "2019"}),
    ("# Положение об отпусках\nВзамен редакции 2.1 от 2022 г.\n", "Взамен редакции 2.1 от 2022 г.", {"2.1", "2022"}),
    ("# Policy\nSupersedes the previous policy.\n", "", set()),  # no edition named: nothing to tell it by
    # a line of several sentences is content as a whole; its last sentence names the edition (QA pass)
    ("STAFF BENEFITS POLICY\nVersion 2025. Effective 1 January 2025. This policy supersedes the Staff Benefits "
     "Policy of 2022.\n", "This policy supersedes the Staff Benefits Policy of 2022.", {"2022"}),
    # a title block a PDF ran into one long line: the clause the phrase opens names the edition (QA pass)
    ("Acme Works SOP-14 Isolation of Energy Revision 3 - effective 1 March 2024 Revision 3 replaces Revision 2 "
     "of 14 June 2022, which is withdrawn and must not be used.\n",
     "Acme Works SOP-14 Isolation of Energy Revision 3 - effective 1 March 2024 Revision 3 replaces Revision 2 "
     "of 14 June 2022", {"2", "14", "2022"}),
    # what a long clause replaces is no edition to tell a document by
    ("Site rules\nFrom this spring the badge system replaces the paper passes, the visitor book and the sign-in "
     "sheets that the reception desk kept for every visitor in 2019 and before.\n", "", set()),
])
def test_a_new_edition_names_the_one_it_replaces(text, line, named):
    from core.withdrawn import superseding_line

    assert superseding_line(text) == (line, named)


def test_the_new_editions_own_day_in_its_line_names_no_old_edition(settings, write_file):
    """A QA pass: "This edition replaces the 2024 edition (DC-2024) from 1 April 2025" named
    2024, 2025 and 1, and no old edition holds its successor's year: the 2024 policy stayed
    in force, quoted beside the 2025 one."""
    from core import store
    from core.documents import ingest_file
    from core.withdrawn import out_of_force

    old = write_file("care_2024.txt", "DEVICE CARE POLICY\nEdition 2024 (effective 1 January 2024)\n\n"
                                      "Screen repair excess: 49 EUR.\n")
    new = write_file("care_2025.md", "# Device Care Policy\n\nEdition 2025. Effective 1 April 2025. This edition "
                                     "replaces the 2024 edition (DC-2024) from 1 April 2025.\n\n"
                                     "Screen repair excess: 59 EUR.\n")
    for path in (old, new):
        assert ingest_file(settings, "acme", path).status == "ready"
    docs = {d["file_name"]: d["doc_id"] for d in store.list_documents(settings, "acme")}
    found = out_of_force(settings, "acme", set(docs.values()))
    assert set(found) == {docs["care_2024.txt"]}
    assert found[docs["care_2024.txt"]].startswith("care_2025.md replaces it: “This edition replaces the 2024")
