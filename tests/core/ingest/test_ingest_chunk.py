"""Chunker properties on real parsed documents."""

from __future__ import annotations

import re

import pytest

from core.config import Settings
from core.ingest import chunk_document, parse_file
from core.ingest.tokens import MAX_CHUNK_TOKENS, count_tokens
from core.schema import Block, ParsedDocument, join_blocks

SETTINGS = Settings(chunk_tokens=120, chunk_overlap=30)

# Sentences written by hand (not by the splitter under test), with traps: abbreviations,
# decimals, initials, a numbered paragraph id.
EN_SENTENCES = [
    "Monthly plans can be refunded within 14 days of purchase.",
    "Annual plans are pro-rated, e.g. after 3 months you get 75% back.",
    "The average rating of the Basic plan is 4.7 out of 5.",
    "Mr. J. Smith from billing approves every refund above 500 EUR.",
    "Refunds are paid to the original payment method, i.e. the card used.",
    "Bank transfers take 3.5 business days on average.",
    "See Fig. 2 for the full approval flow.",
    "Chargebacks are handled separately by the risk team.",
    "Partial refunds are possible for add-ons bought mid-cycle.",
    "A refund cancels the subscription at the end of the day.",
    "Credits on the account expire after 12 months.",
    "Taxes are refunded in proportion to the refunded amount.",
]
RU_SENTENCES = [
    "Ежемесячные планы можно вернуть в течение 14 дней, т.е. две недели.",
    "Годовые планы возвращаются пропорционально, напр. за 3 месяца вернётся 75%.",
    "Средняя оценка тарифа составляет 4.7 из 5.",
    "В 2020 г. Компания изменила правила возврата.",
    "Возврат оформляет А. С. Петров из отдела оплаты.",
    "Деньги поступают на исходную карту за 5 рабочих дней.",
]


def _document(write_file, name: str, markdown: str) -> ParsedDocument:
    return parse_file(write_file(name, markdown))


def _chunks(parsed: ParsedDocument, settings: Settings = SETTINGS):
    return chunk_document(parsed, doc_id="doc1", tenant="acme", source="x.md", settings=settings)


def _long_section_md() -> str:
    en = " ".join(EN_SENTENCES * 3)
    ru = " ".join(RU_SENTENCES * 3)
    return f"# Handbook\n\n## Refund policy\n\n{en}\n\n## Возврат\n\n{ru}\n\n## Contact\n\nMail us.\n"


def test_no_sentence_is_split_across_chunks(write_file):
    parsed = _document(write_file, "long.md", _long_section_md())
    chunks = _chunks(parsed)
    assert len(chunks) > 4  # the long sections really were cut
    for sentence in EN_SENTENCES + RU_SENTENCES:
        assert any(sentence in c.text for c in chunks), sentence
    # and every cut lands on a sentence boundary of the source
    for chunk in chunks:
        body = chunk.text.split("\n\n")[-1]
        assert body.endswith((".", "%.")), body[-40:]


def test_long_sections_slide_with_overlap_and_restart_at_sections(write_file):
    parsed = _document(write_file, "long.md", _long_section_md())
    chunks = _chunks(parsed)
    refund = [c for c in chunks if c.section == "Handbook > Refund policy"]
    assert len(refund) >= 3
    for prev, nxt in zip(refund, refund[1:], strict=False):
        assert nxt.char_start < prev.char_end  # the window overlaps the previous chunk
        overlap = parsed.text[nxt.char_start:prev.char_end]
        assert 0 < len(overlap.split()) <= 40
    ru = [c for c in chunks if c.section == "Handbook > Возврат"]
    assert ru[0].char_start == parsed.text.index("Возврат")  # restarts at the section
    assert all(c.lang == "ru" for c in ru)
    assert all(c.lang == "en" for c in refund)


def test_sections_are_never_mixed(write_file):
    parsed = _document(write_file, "long.md", _long_section_md())
    for chunk in _chunks(parsed):
        covered = [b for b in parsed.blocks
                   if b.char_start < chunk.char_end and b.char_end > chunk.char_start]
        sections = {" > ".join(b.section_path) for b in covered if b.kind != "heading"}
        assert sections <= {chunk.section}, (chunk.section, sections)


def test_metadata_and_limits(write_file):
    parsed = _document(write_file, "long.md", _long_section_md())
    chunks = _chunks(parsed, Settings(chunk_tokens=500))  # above the embedder's limit: capped
    for ordinal, chunk in enumerate(chunks):
        assert chunk.doc_id == "doc1" and chunk.tenant == "acme" and chunk.source == "x.md"
        assert chunk.chunk_id == f"doc1:{ordinal:04d}" and chunk.ordinal == ordinal
        assert chunk.title == "Handbook"
        assert chunk.section.startswith("Handbook")
        assert chunk.lang in ("en", "ru")
        assert chunk.kind in ("paragraph", "list_item", "table", "code", "heading")
        assert 0 <= chunk.char_start < chunk.char_end <= len(parsed.text)
        assert chunk.tokens == count_tokens(chunk.text) <= MAX_CHUNK_TOKENS
        assert chunk.page_start is None and chunk.page_end is None
        assert None not in chunk.metadata().values()


def test_short_section_is_one_chunk_and_empty_parent_heading_joins_child(write_file):
    md = "# Handbook\n\n## Refund policy\n\nRefunds take 14 days. Ask support.\n\n" \
         "## Contact\n\nMail us.\n"
    chunks = _chunks(_document(write_file, "short.md", md))
    assert [c.text for c in chunks] == [
        "Handbook\n\nRefund policy\n\nRefunds take 14 days. Ask support.",
        "Contact\n\nMail us.",
    ]
    assert [c.section for c in chunks] == ["Handbook > Refund policy", "Handbook > Contact"]
    first = chunks[0]
    parsed = _document(write_file, "short.md", md)
    assert parsed.text[first.char_start:first.char_end] == first.text


def test_a_heading_alone_is_no_chunk_its_title_opens_the_next_section(write_file, tmp_path):
    """A title over the first section was a chunk of its own ("Aftercare instructions", a
    .txt's "ПРАВИЛА ДЛЯ ПАЦИЕНТОВ"), taking retrieval slots from passages that answer."""
    import docx

    document = docx.Document()
    document.add_heading("Aftercare instructions", 0)
    document.add_heading("Wound care", 1)
    document.add_paragraph("Keep the dressing dry for 48 hours.")
    document.add_heading("Bathing", 1)
    document.add_paragraph("Showers are fine after two days; no baths for a week.")
    document.add_heading("Questions", 1)  # nothing after it at all: kept, or it would be lost
    document.save(tmp_path / "aftercare.docx")
    parsed = parse_file(tmp_path / "aftercare.docx")
    chunks = _chunks(parsed)
    assert [c.text for c in chunks] == [
        "Aftercare instructions\n\nWound care\n\nKeep the dressing dry for 48 hours.",
        "Bathing\n\nShowers are fine after two days; no baths for a week.",
        "Questions"]
    assert [c.section for c in chunks] == ["Aftercare instructions > Wound care", "Bathing", "Questions"]
    assert parsed.text[chunks[0].char_start:chunks[0].char_end] == chunks[0].text

    text = ("ПРАВИЛА ДЛЯ ПАЦИЕНТОВ\n\n1. Запись на приём\n\nЗаписаться можно по телефону.\n\n"
            "2. Отмена\n\nОтменить приём можно за сутки.\n")
    chunks = _chunks(_document(write_file, "pravila.txt", text))
    assert chunks[0].text == "ПРАВИЛА ДЛЯ ПАЦИЕНТОВ\n\n1. Запись на приём\n\nЗаписаться можно по телефону."
    assert chunks[0].section == "ПРАВИЛА ДЛЯ ПАЦИЕНТОВ > 1. Запись на приём"
    assert chunks[1].text.startswith("2. Отмена\n\n") and len(chunks) == 2


def test_an_empty_sibling_heading_opens_the_next_section_but_is_no_parent_in_its_path(write_file):
    # a QA pass: "3. Fees" with no text of its own, then "4. Refunds", cited as "3. Fees > 4. Refunds"
    md = ("# Terms\n\n## 1. Scope\n\nThese terms cover all bookings.\n\n## 3. Fees\n\n"
          "## 4. Refunds\n\nRefunds are paid within 14 days.\n")
    chunks = _chunks(_document(write_file, "terms.md", md))
    assert [c.section for c in chunks] == ["Terms > 1. Scope", "Terms > 4. Refunds"]
    assert chunks[1].text == "3. Fees\n\n4. Refunds\n\nRefunds are paid within 14 days."


def test_list_items_keep_their_heading(write_file):
    items = "\n".join(f"- Rule {n}: refunds for region {n} are paid within {n + 2} days."
                      for n in range(40))
    chunks = _chunks(_document(write_file, "list.md", f"## Regional rules\n\n{items}\n"))
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.text.startswith("Regional rules\n")
        assert chunk.kind == "list_item"
        assert chunk.tokens <= SETTINGS.chunk_tokens + 10
    for n in range(40):  # each item whole, in exactly one chunk
        item = f"Rule {n}: refunds for region {n} are paid within {n + 2} days."
        assert sum(item in c.text for c in chunks) == 1


def test_long_table_is_split_by_rows_with_header_repeated(write_file):
    rows = "\n".join(f"| Plan {n} | {n}.99 | 4.{n % 10} |" for n in range(80))
    md = f"## Prices\n\n| Plan | Price | Rating |\n|---|---|---|\n{rows}\n"
    parsed = _document(write_file, "table.md", md)
    chunks = _chunks(parsed)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert chunk.kind == "table"
        lines = chunk.text.split("\n")
        start = lines.index("| Plan | Price | Rating |")
        assert lines[start + 1] == "|---|---|---|"
        assert all(re.fullmatch(r"\| Plan \d+ \| \d+\.99 \| 4\.\d \|", ln) for ln in lines[start + 2:])
        assert chunk.tokens <= MAX_CHUNK_TOKENS
    for n in range(80):
        assert sum(f"| Plan {n} | {n}.99 |" in c.text for c in chunks) == 1


def test_small_table_stays_whole(write_file):
    md = "## Prices\n\nAll plans:\n\n| Plan | Price |\n|---|---|\n| Basic | 9.99 |\n| Pro | 19.50 |\n"
    chunks = _chunks(_document(write_file, "t.md", md))
    assert len(chunks) == 1
    assert chunks[0].kind == "table"
    assert "| Basic | 9.99 |\n| Pro | 19.50 |" in chunks[0].text


def test_faq_entries_stay_separate_and_numbered_paragraphs_are_packed(write_file):
    md = (
        "# FAQ\n\nQ: How long do refunds take?\n\nFive business days.\n\n"
        "Q: Can I get a refund for gift cards?\n\nNo, gift cards are final.\n\n"
        "# Terms\n\n## Cancellation\n\n"
        "7-1 The customer may cancel at any time.\n\n"
        "7-2 Cancellation takes effect at the end of the billing period.\n\n"
        "7-3 No fee is charged for cancelling.\n"
    )
    chunks = _chunks(_document(write_file, "faq.md", md))
    texts = [c.text for c in chunks]
    assert "FAQ\n\nQ: How long do refunds take?\n\nFive business days." in texts
    assert "FAQ\n\nQ: Can I get a refund for gift cards?\n\nNo, gift cards are final." in texts
    # a clause leans on its neighbours: one section's numbered paragraphs share a chunk
    assert ("Terms\n\nCancellation\n\n7-1 The customer may cancel at any time.\n\n"
            "7-2 Cancellation takes effect at the end of the billing period.\n\n"
            "7-3 No fee is charged for cancelling.") in texts


def test_small_blocks_of_one_section_are_packed_together(write_file):
    md = "## Billing\n\nInvoices are monthly.\n\nPayment is due in 30 days.\n\nLate fees apply.\n"
    chunks = _chunks(_document(write_file, "b.md", md))
    assert len(chunks) == 1
    assert chunks[0].text == ("Billing\n\nInvoices are monthly.\n\nPayment is due in 30 days."
                              "\n\nLate fees apply.")


@pytest.mark.parametrize("chunk_tokens", [60, 220, 480])
def test_overlong_sentence_is_cut_only_to_fit_the_embedder(chunk_tokens):
    words = " ".join(f"word{n}" for n in range(1500))  # no punctuation at all
    blocks = [Block(kind="heading", text="Dump", level=1),
              Block(kind="paragraph", text=words, section_path=["Dump"])]
    blocks[0].section_path = ["Dump"]
    parsed = ParsedDocument(blocks=blocks, text=join_blocks(blocks), title="Dump")
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source="s",
                            settings=Settings(chunk_tokens=chunk_tokens))
    assert all(c.tokens <= min(chunk_tokens, MAX_CHUNK_TOKENS) + 5 for c in chunks)
    joined = " ".join(c.text.removeprefix("Dump\n\n") for c in chunks)
    assert all(f"word{n} " in joined + " " for n in range(1500))



@pytest.mark.parametrize("chunk_tokens", [60, 220])
def test_a_word_of_forty_thousand_characters_is_cut_to_fit_too(chunk_tokens):
    import random

    blob = "".join(random.Random(7).choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40_000))
    text = f"Serial log: {blob} end of log. The alarm code of the north door is 4471."
    blocks = [Block(kind="heading", text="Log", level=1, section_path=["Log"]),
              Block(kind="paragraph", text=text, section_path=["Log"])]
    parsed = ParsedDocument(blocks=blocks, text=join_blocks(blocks), title="Log")
    chunks = chunk_document(parsed, doc_id="d", tenant="t", source="s", settings=Settings(chunk_tokens=chunk_tokens))
    assert len(chunks) > 10 and all(c.tokens <= min(chunk_tokens, MAX_CHUNK_TOKENS) + 5 for c in chunks)
    joined = "".join(c.text.removeprefix("Log\n\n") for c in chunks)
    assert blob in joined.replace(" ", "")  # every character kept, in order
    assert any("The alarm code of the north door is 4471." in c.text for c in chunks)

def test_pdf_chunks_carry_pages(handbook_pdf):
    parsed = parse_file(handbook_pdf)
    chunks = chunk_document(parsed, doc_id="h", tenant="acme", source="handbook.pdf",
                            settings=Settings())
    by_section = {c.section: c for c in chunks}
    table_chunk = by_section["Customer Handbook > Plans and prices"]
    assert table_chunk.kind == "table"
    assert (table_chunk.page_start, table_chunk.page_end) == (2, 2)
    assert "| Basic | 9.99 | 4.7 |" in table_chunk.text
    assert by_section["Customer Handbook > Contact"].page_start == 3


def test_safety_net_halves_chunks_when_estimates_are_wrong(write_file, monkeypatch):
    import core.ingest.chunk as chunk_module

    parsed = _document(write_file, "long.md", _long_section_md())
    monkeypatch.setattr(chunk_module, "count_content_tokens", lambda text: 1)  # absurdly low
    chunks = _chunks(parsed, Settings(chunk_tokens=480))
    assert len(chunks) > 3
    assert all(c.tokens <= MAX_CHUNK_TOKENS for c in chunks)
    for sentence in EN_SENTENCES + RU_SENTENCES:
        assert any(sentence in c.text for c in chunks), sentence


def test_safety_net_keeps_table_headers(write_file, monkeypatch):
    import core.ingest.chunk as chunk_module

    rows = "\n".join(f"| Plan {n} | {n}.99 | 4.{n % 10} |" for n in range(150))
    parsed = _document(write_file, "t.md", f"## Prices\n\n| Plan | Price | Rating |\n|---|---|---|\n{rows}\n")
    monkeypatch.setattr(chunk_module, "count_content_tokens", lambda text: 1)
    chunks = _chunks(parsed, Settings(chunk_tokens=480))
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.tokens <= MAX_CHUNK_TOKENS
        assert "| Plan | Price | Rating |\n|---|---|---|\n| Plan " in chunk.text
        body = chunk.text.split("|---|---|---|\n")[1]
        assert parsed.text[chunk.char_start:chunk.char_end].endswith(body)
    for n in range(150):
        assert sum(f"| Plan {n} | {n}.99 |" in c.text for c in chunks) == 1


def test_a_cut_row_repeats_its_key_even_when_the_safety_net_halves(monkeypatch):
    import core.ingest.chunk as chunk_module

    text = "Case: A-1; Summary: " + " ".join(EN_SENTENCES * 8)
    blocks = [Block(kind="paragraph", text=text, row_key="Case: A-1")]
    parsed = ParsedDocument(blocks=blocks, text=join_blocks(blocks), title="cases")
    monkeypatch.setattr(chunk_module, "count_content_tokens", lambda text: 1)  # all in one chunk, then halved
    chunks = _chunks(parsed, Settings(chunk_tokens=480))
    assert len(chunks) > 2
    assert all(c.text.startswith("Case: A-1; ") and c.tokens <= MAX_CHUNK_TOKENS for c in chunks)
    assert sum(c.text.startswith("Case: A-1; Summary: ") for c in chunks) == 1
    for sentence in EN_SENTENCES:
        assert any(sentence in c.text for c in chunks), sentence
