"""RTF: Word's "Rich Text" (and the old .doc files that really are RTF) read as the text it
shows, with headings, paragraphs and tables; no control word ever reaches a passage."""

from __future__ import annotations

import pytest
from ingest_helpers import assert_offsets

from core.answer.units import units
from core.ingest import IngestError, chunk_document, detect_format, parse_file

# as Word writes it: a font table, a style sheet, document info, a code page for \'xx bytes
WORD_RTF = r"""{\rtf1\ansi\ansicpg1252\deff0\nouicompat\deflang1033{\fonttbl{\f0\fnil\fcharset0 Calibri;}}
{\*\generator Riched20 10.0.19041}{\stylesheet{\s0 Normal;}{\s1 heading 1;}}
{\info{\title Secret title}{\author Nobody}}
\viewkind4\uc1\pard\sa200\sl276\slmult1\b\f0\fs28 CANCELLATION POLICY\b0\fs22\par
Appointments cancelled less than 24 hours before they start cost 40 EUR.\par
A caf\'e9 voucher is refunded in full.\par
\trowd\trgaph108\cellx3000\cellx6000 Treatment\cell Price\cell\row
\trowd\trgaph108\cellx3000\cellx6000 Filling\cell 90 EUR\cell\row
\trowd\trgaph108\cellx3000\cellx6000 Whitening\cell 250 EUR\cell\row
\pard After the table: bring your insurance card.\par
}"""

# a Russian document: \'xx bytes in the declared code page 1251, and \uN escapes
RUSSIAN_RTF = (r"{\rtf1\ansi\ansicpg1251\deff0{\fonttbl{\f0\fswiss\fcharset204 Arial;}}"
               r"\pard\f0 \'cf\'ee\'eb\'e8\'f2\'e8\'ea\'e0 \'ee\'f2\'ec\'e5\'ed\'fb\par "
               r"\u1054?\u1090?\u1084?\u1077?\u1085?\u1072? \u1079?\u1072? 24 \u1095?\u1072?\u1089?\u1072?.\par}")


def test_word_rtf_reads_as_headings_paragraphs_and_a_table(write_file):
    path = write_file("policy.rtf", WORD_RTF.encode("ascii"))
    assert detect_format(path) == "rtf"
    parsed = parse_file(path)
    assert_offsets(parsed)
    assert parsed.warnings == []
    assert parsed.title == "CANCELLATION POLICY"
    kinds = [(b.kind, b.text) for b in parsed.blocks if b.kind != "table"]
    assert kinds == [
        ("heading", "CANCELLATION POLICY"),
        ("paragraph", "Appointments cancelled less than 24 hours before they start cost 40 EUR."),
        ("paragraph", "A café voucher is refunded in full."),
        ("paragraph", "After the table: bring your insurance card."),
    ]
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert table.rows == [["Treatment", "Price"], ["Filling", "90 EUR"], ["Whitening", "250 EUR"]]
    # no control word, font name or document-info text reaches the text a passage quotes
    for leak in ("\\", "{", "Calibri", "Riched20", "Secret title", "Normal;"):
        assert leak not in parsed.text, leak


def test_an_rtf_table_row_is_a_unit_with_its_column_names(write_file):
    parsed = parse_file(write_file("prices.rtf", WORD_RTF.encode("ascii")))
    chunks = chunk_document(parsed, doc_id="d1", tenant="t", source="prices.rtf")
    texts = [u.text for c in chunks for u in units(c.text, c.kind)]
    assert any("Filling" in t and "90 EUR" in t and "Whitening" not in t for t in texts), texts


def test_russian_rtf_is_decoded_in_its_code_page(write_file):
    parsed = parse_file(write_file("otmena.rtf", RUSSIAN_RTF.encode("ascii")))
    assert [b.text for b in parsed.blocks] == ["Политика отмены", "Отмена за 24 часа."]


def test_an_old_doc_that_is_rtf_is_read_as_rtf_with_a_note(write_file):
    """An old ".doc" saved as Rich Text was indexed as text full of control codes (QA pass)."""
    parsed = parse_file(write_file("policy.doc", WORD_RTF.encode("ascii")))
    assert parsed.warnings == ["The file is named '.doc' but holds RTF; it was read as RTF."]
    assert "Appointments cancelled less than 24 hours" in parsed.text
    assert "\\" not in parsed.text


def test_an_rtf_name_over_plain_text_is_read_as_text_with_a_note(write_file):
    parsed = parse_file(write_file("notes.rtf", b"Restart the pump before noon.\n"))
    assert parsed.text == "Restart the pump before noon."
    assert parsed.warnings == ["The file is named '.rtf' but holds text; it was read as text."]


@pytest.mark.parametrize("content", [
    b"{\\rtf1\\ansi }",  # a document with nothing in it
    b"{\\rtf1\\ansi {\\fonttbl{\\f0 Arial;}}{\\*\\generator x;}}",  # only groups a reader never sees
])
def test_an_rtf_with_no_text_is_refused_in_one_sentence(write_file, content):
    with pytest.raises(IngestError, match=r"^The file contains no text"):
        parse_file(write_file("empty.rtf", content))


def test_hostile_rtf_gives_text_or_one_sentence(write_file):
    """Deep nesting, binary runs, pictures and stray braces: text without control characters,
    or the sentence of a file with no text."""
    nested = b"{\\rtf1\\ansi " + b"{" * 100_000 + b"Deep text." + b"}" * 100_000 + b"}"
    assert parse_file(write_file("deep.rtf", nested)).text == "Deep text."
    binary = b"{\\rtf1\\ansi Before \\bin8 \x00\x01\x02\x03\x1b\x7f\x00\x00 after.\\par}"
    text = parse_file(write_file("bin.rtf", binary)).text
    assert text.startswith("Before") and text.endswith("after.")
    assert not any(ord(c) < 32 or ord(c) == 127 for c in text), repr(text)
    picture = b"{\\rtf1\\ansi Before {\\pict\\pngblip " + b"89abcdef" * 10_000 + b"} after.\\par}"
    assert "89abcdef" not in parse_file(write_file("pict.rtf", picture)).text
    with pytest.raises(IngestError, match=r"^The file contains no text"):
        parse_file(write_file("stray.rtf", b"{\\rtf1\\ansi }}}} text after the end"))
