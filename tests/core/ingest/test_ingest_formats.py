"""Markdown, HTML and plain-text parsers."""

from __future__ import annotations

import random

import pytest
from ingest_helpers import TWO_ROW_HEADER, assert_offsets

from core.ingest import IngestError, detect_format, parse_file
from core.ingest.decode import decode_text, looks_binary

MARKDOWN = """---
title: Front matter title
---
# Customer Handbook

Intro with **bold** text and a [link to docs](https://example.test/docs).

## Refund policy

- Annual plans are refunded *pro rata*.
- Gift cards are not refundable.

1. Open the billing page.
2. Click `Refund`.

| Plan | Price | Rating |
|------|------:|--------|
| Basic | 9.99 | 4.7 |
| Pro | 19.50 | 4.25 |

```python
print("refund")
```

> Quoted note.
"""


def test_markdown_structure_and_plain_text(write_file):
    path = write_file("handbook.md", MARKDOWN)
    parsed = parse_file(path)

    assert detect_format(path) == "markdown"
    assert_offsets(parsed)
    assert parsed.title == "Customer Handbook"
    assert "title:" not in parsed.text
    got = [(b.kind, b.text) for b in parsed.blocks if b.kind != "table"]
    assert got == [
        ("heading", "Customer Handbook"),
        ("paragraph", "Intro with bold text and a link to docs."),
        ("heading", "Refund policy"),
        ("list_item", "Annual plans are refunded pro rata."),
        ("list_item", "Gift cards are not refundable."),
        ("list_item", "1. Open the billing page."),
        ("list_item", "2. Click Refund."),
        ("code", 'print("refund")'),
        ("paragraph", "Quoted note."),
    ]
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert table.rows == [["Plan", "Price", "Rating"], ["Basic", "9.99", "4.7"],
                          ["Pro", "19.50", "4.25"]]
    assert table.text.splitlines()[1] == "|---|---|---|"
    assert table.section_path == ["Customer Handbook", "Refund policy"]
    assert [b.level for b in parsed.blocks if b.kind == "heading"] == [1, 2]


def test_markdown_ordered_lists_read_as_rendered(write_file):
    # "1." on every item is how many guides write a list; a reader of the page sees 1, 2, 3
    text = "3. Third\n1. Fourth\n   1. Inner one\n   1. Inner two\n1. Fifth\n\n- bullet\n\n1) a\n1) b\n"
    parsed = parse_file(write_file("steps.md", text))

    assert [b.text for b in parsed.blocks] == [
        "3. Third", "4. Fourth", "1. Inner one", "2. Inner two", "5. Fifth", "bullet", "1) a", "2) b"]
    assert_offsets(parsed)


HTML = """<!DOCTYPE html>
<html><head><title>Page title</title><style>p { color: red }</style>
<script>var secret = "do not index";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About us</a></nav>
<h1>Customer Handbook</h1>
<p>Monthly plans can be <b>refunded</b> within 14 days.</p>
<div>Loose text in a div.<div hidden>Hidden text.</div></div>
<h2>Plans</h2>
<ol><li>Open billing.</li><li>Click refund.<ul><li>Nested item.</li></ul></li></ol>
<table><tr><th>Plan</th><th>Rating</th></tr><tr><td>Basic</td><td>4.7</td></tr></table>
<pre>line one
line two</pre>
<noscript>Enable JavaScript.</noscript>
<footer>Copyright ACME</footer>
</body></html>"""


def test_html_drops_noise_and_keeps_structure(write_file):
    path = write_file("page.txt", HTML)  # named .txt: sniffed as HTML by content
    parsed = parse_file(path)

    assert detect_format(path) == "html"
    assert_offsets(parsed)
    for noise in ("do not index", "color: red", "Home", "About us", "Copyright",
                  "Enable JavaScript", "Hidden text", "Page title"):
        assert noise not in parsed.text
    got = [(b.kind, b.text) for b in parsed.blocks]
    assert got == [
        ("heading", "Customer Handbook"),
        ("paragraph", "Monthly plans can be refunded within 14 days."),
        ("paragraph", "Loose text in a div."),
        ("heading", "Plans"),
        ("list_item", "1. Open billing."),
        ("list_item", "2. Click refund."),
        ("list_item", "Nested item."),
        ("table", "| Plan | Rating |\n|---|---|\n| Basic | 4.7 |"),
        ("code", "line one\nline two"),
    ]
    assert parsed.blocks[-1].section_path == ["Customer Handbook", "Plans"]
    assert parsed.title == "Customer Handbook"


def test_a_cookie_banner_is_no_part_of_the_page_but_a_consent_section_is(write_file):
    # a QA pass: "We use cookies ... Accept all" was indexed and shown as the closest passage
    page = ("<html><body><div id='cookie-banner'>We use cookies to improve your experience. "
            "<button>Accept all</button></div><div class='gdpr-consent-bar'>Manage your privacy choices.</div>"
            "<main><h1>Clinic</h1><section id='consent'><h2>Consent to treatment</h2>"
            "<p>We ask for written consent before any anaesthetic.</p></section>"
            "<div class='cookie-policy'><h2>Cookies</h2><p>" + "Our cookie policy explains each cookie. " * 40
            + "</p></div></main></body></html>")
    parsed = parse_file(write_file("home.html", page))
    assert "Accept all" not in parsed.text and "improve your experience" not in parsed.text
    assert "privacy choices" not in parsed.text
    assert "written consent before any anaesthetic" in parsed.text  # a section named "consent" is content
    assert "Our cookie policy explains each cookie." in parsed.text  # a long cookie policy is the page itself


def test_html_layout_table_is_read_as_content(write_file):
    html = ("<html><body><table><tr><td><h2>Plans</h2><p>Basic costs 9.99.</p></td></tr>"
            "</table></body></html>")
    parsed = parse_file(write_file("layout.html", html))
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "Plans"), ("paragraph", "Basic costs 9.99.")]


def test_deeply_nested_html_is_refused_in_seconds(write_file):
    # dropping hidden elements asked bs4's `decomposed` of every tag, which searches the tag's
    # whole subtree: 10,000 nested divs took 33 s, 100,000 (1.1 MB) about an hour
    import time

    from core.ingest.base import IngestError

    path = write_file("deep.html", "<html><body>" + "<div>" * 10000 + "deep" + "</div>" * 10000 + "</body></html>")
    started = time.monotonic()
    with pytest.raises(IngestError, match="nests its elements too deeply"):
        parse_file(path)
    assert time.monotonic() - started < 8


def test_hidden_elements_inside_hidden_elements_are_dropped_once(write_file):
    html = ('<html><body><p>Seen.</p><div hidden><p aria-hidden="true">Gone <span style="display:none">'
            "too</span></p></div><p>Also seen.</p></body></html>")
    parsed = parse_file(write_file("hidden.html", html))
    assert [b.text for b in parsed.blocks] == ["Seen.", "Also seen."]


TEXT_EN = """REFUND POLICY

Monthly plans can be refunded within 14 days
of purchase. Refunds are pro-
cessed in 5 days.

- Annual plans are refunded pro rata.
- Gift cards are not refundable.

2.1 Exceptions

7-2 The customer may cancel at any time.
"""


def test_text_utf8_with_bom(write_file):
    path = write_file("policy.txt", b"\xef\xbb\xbf" + TEXT_EN.encode("utf-8"))
    parsed = parse_file(path)

    assert detect_format(path) == "text"
    assert_offsets(parsed)
    got = [(b.kind, b.text, b.level) for b in parsed.blocks]
    assert got == [
        ("heading", "REFUND POLICY", 1),
        ("paragraph", "Monthly plans can be refunded within 14 days of purchase. Refunds are "
                      "processed in 5 days.", 0),
        ("list_item", "Annual plans are refunded pro rata.", 0),
        ("list_item", "Gift cards are not refundable.", 0),
        ("heading", "2.1 Exceptions", 2),
        ("paragraph", "7-2 The customer may cancel at any time.", 0),
    ]
    assert parsed.blocks[-1].section_path == ["REFUND POLICY", "2.1 Exceptions"]
    assert not parsed.text.startswith("\ufeff")


TEXT_RU = """ПОЛИТИКА ВОЗВРАТА

Ежемесячные планы можно вернуть в течение 14 дней, т.е. две недели. Ёлка и щётка.

Годовые планы возвращаются пропорционально.
"""


def test_text_cp1251_russian_is_not_mangled(write_file):
    path = write_file("policy_ru.txt", TEXT_RU.encode("cp1251"))
    parsed = parse_file(path)

    assert_offsets(parsed)
    assert parsed.blocks[0].kind == "heading"
    assert parsed.blocks[0].text == "ПОЛИТИКА ВОЗВРАТА"
    assert parsed.blocks[1].text == (
        "Ежемесячные планы можно вернуть в течение 14 дней, т.е. две недели. Ёлка и щётка.")


def test_short_cp1251_text_is_decoded_as_cyrillic(write_file):
    path = write_file("hello.txt", "Привет, мир.".encode("cp1251"))
    assert parse_file(path).text == "Привет, мир."


def test_utf16_text_with_bom(write_file):
    path = write_file("utf16.txt", "Refunds take 5 days.".encode("utf-16"))
    assert parse_file(path).text == "Refunds take 5 days."


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("policy.txt", TEXT_EN, "Monthly plans can be refunded within 14 days"),
        ("policy_ru.txt", TEXT_RU, "Ежемесячные планы можно вернуть в течение 14 дней"),
        ("hello.md", "# Привет\r\n\r\nСмена начинается в 07:00.\r\n", "Смена начинается в 07:00."),
        ("rates.txt", "name,rate\r\nExpress,12.50\r\nЭконом,4.90\r\n", "Эконом,4.90"),
    ],
)
def test_utf16_text_without_bom_is_decoded(write_file, encoding, name, text, expected):
    # Windows tools save UTF-16 without a byte-order mark; its NUL high bytes are not binary
    path = write_file(name, text.encode(encoding))
    assert detect_format(path) in ("text", "markdown")
    parsed = parse_file(path)
    assert expected in parsed.text
    assert "\x00" not in parsed.text and "\ufffd" not in parsed.text


@pytest.mark.parametrize("seed", range(5))
def test_random_bytes_named_txt_are_still_binary(write_file, seed):
    data = random.Random(seed).randbytes(8192)
    assert data.count(0) > 0
    path = write_file("noise.txt", data)
    with pytest.raises(IngestError, match=r"^The file is named '\.txt' but contains binary data"):
        parse_file(path)


@pytest.mark.parametrize(
    "data",
    [
        b"Hello\x00world, a NUL byte",  # one NUL at an odd position is no UTF-16
        bytes(b for i in range(2000) for b in (i % 256, 0)),  # 16-bit integers: control characters
    ],
)
def test_text_like_binary_is_not_taken_for_utf16(data):
    assert looks_binary(data)
    with pytest.raises(IngestError, match="binary data, not text"):
        decode_text(data)


def test_text_space_aligned_table_becomes_a_table(write_file):
    text = (
        "CARE SCHEDULE\n\n"
        "What to do                 How often\n"
        "-------------------------  -------------\n"
        "Clean the drain filter     every 3 months\n"
        "Check the hoses            once a year\n\n"
        "Clean the filter more often in hard-water areas.\n"
    )
    parsed = parse_file(write_file("care.txt", text.encode("utf-8")))
    assert_offsets(parsed)
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert table.rows == [["What to do", "How often"], ["Clean the drain filter", "every 3 months"],
                          ["Check the hoses", "once a year"]]
    assert table.section_path == ["CARE SCHEDULE"]
    assert parsed.blocks[-1].kind == "paragraph"


def test_markdown_drops_the_code_of_script_and_style_tags(write_file):
    # the body of an inline <script> was indexed as document text and then quoted in
    # answers ("The valve opens at alert(1) 30 bar."); a <script> block's code too
    path = write_file("hostile.md", (
        "# Valves\n\nThe valve opens at <script>alert(1)</script> 30 bar, <STYLE>p{}</STYLE>in <b>May</b>.\n\n"
        "<script>\nfetch('/steal?c=' + document.cookie)\n</script>\n\n<div>Kept <i>text</i>.</div>\n"))
    texts = [b.text for b in parse_file(path).blocks]
    assert texts[:2] == ["Valves", "The valve opens at 30 bar, in May."]
    assert texts[2] == "Kept text." and len(texts) == 3  # no space before the full stop


def test_static_site_template_tags_leave_the_text_a_reader_sees(tmp_path):
    from core.ingest.markdown import MarkdownParser

    page = tmp_path / "page.md"
    page.write_text('# Security\n\nFollow the [incident guidance]({% page "/security/incidents/" %}) at once.\n\n'
                    'Ask in {% slack_channel "help-it" %}. {% image "_img/a.png" "The sign-in screen" %}\n\n'
                    "Templates write {{ message }} literally.\n", encoding="utf-8")
    texts = [b.text for b in MarkdownParser().parse(page).blocks]
    assert "Follow the incident guidance at once." in texts
    assert "Ask in help-it. The sign-in screen" in texts
    assert "Templates write {{ message }} literally." in texts  # only {% %} tags are read
    assert not any("{%" in t or "page " in t for t in texts)


def test_an_xhtml_page_is_read_as_html_without_a_warning():
    """DocBook's XHTML (a page of the Debian handbook, a development corpus) opens with an
    XML declaration: read as HTML it gives its text, and no warning per page in the log."""
    import warnings
    from pathlib import Path

    page = Path(__file__).resolve().parents[3] / "evals" / "corpora" / "debian-handbook-ru" / "apt.html"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = parse_file(page)
    assert parsed.title and len(parsed.blocks) > 20
    assert not [w for w in caught if "XML" in type(w.message).__name__]


def test_a_headings_anchor_attributes_are_no_text(write_file):
    # the Vue guide (VitePress) writes "## Props {#props}" on every heading: the QA pass found
    # "KeepAlive {#keepalive}" in section names, the empty state's topics and passages
    path = write_file("guide.md", "# Директивы {#custom-directives}\n\nТекст.\n\n## Setup {#setup .advanced}\n\n"
                                  "Body.\n\n## Set {x} in braces\n\nMore.\n")
    parsed = parse_file(path)
    assert_offsets(parsed)
    assert parsed.title == "Директивы"
    assert [b.text for b in parsed.blocks if b.kind == "heading"] == ["Директивы", "Setup", "Set {x} in braces"]
    assert "{#" not in parsed.text


FORM = ("Policy number: POL-7731\nPolicyholder: Maria Keller\nStart date: 1 March 2026\n"
        "Excess per claim: 250 EUR\n")
FORM_LINES = ["Policy number: POL-7731", "Policyholder: Maria Keller", "Start date: 1 March 2026",
              "Excess per claim: 250 EUR"]


@pytest.mark.parametrize("name, head", [("schedule.md", "# Policy schedule\n\n"), ("schedule.txt", "POLICY SCHEDULE\n\n")])
def test_a_record_of_fields_keeps_one_field_to_a_line(write_file, name, head):
    # joined as wrapped prose, four fields read as one sentence that answers none of them
    text = head + FORM + "\nThe excess is paid by the policyholder\nfor each claim: not once a year.\n"
    parsed = parse_file(write_file(name, text.encode("utf-8")))
    assert_offsets(parsed)
    paragraphs = [b.text for b in parsed.blocks if b.kind == "paragraph"]
    assert paragraphs == FORM_LINES + ["The excess is paid by the policyholder for each claim: not once a year."]


def test_a_field_standing_alone_is_no_heading(write_file):
    text = "POLICY SCHEDULE\n\nPolicyholder: Maria Keller\n\nThe policy renews every year.\n"
    parsed = parse_file(write_file("schedule.txt", text.encode("utf-8")))
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "POLICY SCHEDULE"), ("paragraph", "Policyholder: Maria Keller"),
        ("paragraph", "The policy renews every year.")]


@pytest.mark.parametrize("lines", [
    ["Meet at 10:30 in the lobby", "and bring your badge."],  # a time, not a label
    ["See https://example.org/help", "for the forms."],  # an address
    ["Policy number: POL-7731", "and the rest of this sentence wraps on."],  # one field, then prose
    ["The rules of this office are simple and they are old: pay on time", "Start date: 1 May"],
])
def test_wrapped_prose_is_still_one_paragraph(write_file, lines):
    parsed = parse_file(write_file("notes.md", ("\n".join(lines) + "\n").encode("utf-8")))
    assert [b.text for b in parsed.blocks if b.kind == "paragraph"] == [" ".join(lines)]


def test_a_form_typed_in_a_text_file_is_cut_at_its_underlined_titles(write_file):
    text = ("JOB CARD\n=========\n\nWork order no.: WO-17\nStatus: Completed\n\n"
            "CUSTOMER\n--------\nCustomer name: Per Nilsen\nPhone: +47 412 33 908\n"
            "VESSEL\n--------\nBoat name: Solgang\n\n"
            "Notes written as a sentence.\n--------\nThe anodes were checked and are fine.\n")
    parsed = parse_file(write_file("card.txt", text.encode("utf-8")))
    assert_offsets(parsed)
    got = [(b.kind, b.text) for b in parsed.blocks]
    assert got == [("heading", "JOB CARD"), ("paragraph", "Work order no.: WO-17"), ("paragraph", "Status: Completed"),
                   ("heading", "CUSTOMER"), ("paragraph", "Customer name: Per Nilsen"),
                   ("paragraph", "Phone: +47 412 33 908"), ("heading", "VESSEL"), ("paragraph", "Boat name: Solgang"),
                   # a sentence over a rule is no title: the rule is only left out
                   ("paragraph", "Notes written as a sentence."),
                   ("paragraph", "The anodes were checked and are fine.")]
    assert next(b for b in parsed.blocks if b.text == "Boat name: Solgang").section_path == ["JOB CARD", "VESSEL"]


def test_titles_in_capitals_with_no_blank_line_under_them_are_headings(write_file):
    # glued to the lines below, "FAULT DESCRIPTION" was a paragraph of its own and the fields
    # under it had no section; the banner over a document's title is a title too
    text = ("LARKFIELD PHYSIOTHERAPY\nSTANDARD OPERATING PROCEDURE SOP-07\nIssued by the clinic manager.\n\n"
            "FAULT DESCRIPTION\nCategory: Plumbing - leak\nUrgency: Urgent\n\n"
            "NOTES\nResponse target for urgent jobs is 24 hours\nfrom instruction.\n")
    parsed = parse_file(write_file("ticket.txt", text.encode("utf-8")))
    assert_offsets(parsed)
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "LARKFIELD PHYSIOTHERAPY"), ("heading", "STANDARD OPERATING PROCEDURE SOP-07"),
        ("paragraph", "Issued by the clinic manager."),
        ("heading", "FAULT DESCRIPTION"), ("paragraph", "Category: Plumbing - leak"), ("paragraph", "Urgency: Urgent"),
        ("heading", "NOTES"), ("paragraph", "Response target for urgent jobs is 24 hours from instruction.")]
    assert next(b for b in parsed.blocks if b.text == "Urgency: Urgent").section_path[-1] == "FAULT DESCRIPTION"


@pytest.mark.parametrize("lines", [
    ["NASA AND ESA", "signed the agreement in 2019."],  # capitals, then the sentence goes on
    ["Monthly plans can be refunded within", "TWO WEEKS of purchase."],
    ["Contact the Customer", "Service team on any weekday."],  # title case may be wrapped prose
    ["Please call our Emergency Line", "Team on 0800 555 0199 at night."],
    ["S0 Available", "S1 Reserved by a customer - do NOT start a check"],  # a list of codes
    ["Room | Item | Condition | Notes", "Hallway | Walls (magnolia emulsion) | G | 2 small scuffs near the door"],
])
def test_capitals_inside_wrapped_prose_stay_in_the_paragraph(write_file, lines):
    parsed = parse_file(write_file("notes.txt", ("\n".join(lines) + "\n").encode("utf-8")))
    assert [(b.kind, b.text) for b in parsed.blocks] == [("paragraph", " ".join(lines))]


def test_a_short_title_over_its_sentence_heads_its_section(write_file):
    # a QA pass: the quote read "What the plan costs The Cat Wellness Plan costs 19 EUR per month."
    from core.ingest.text import parse_plain_text

    blocks = parse_plain_text("Wellness Plan Terms\nValid from 1 January 2024\n\nWhat the plan costs\n"
                              "The Cat Wellness Plan costs 19 EUR per month. The Dog Plan costs 25 EUR.\n\n"
                              "Refund policy\nMonthly plans can be refunded within 14 days.\n")
    assert [(b.kind, b.text) for b in blocks] == [
        ("paragraph", "Wellness Plan Terms Valid from 1 January 2024"),  # a short line over a short line: unsure
        ("heading", "What the plan costs"),
        ("paragraph", "The Cat Wellness Plan costs 19 EUR per month. The Dog Plan costs 25 EUR."),
        ("heading", "Refund policy"), ("paragraph", "Monthly plans can be refunded within 14 days.")]


def test_html_merged_cells_keep_every_column_in_its_place(write_file):
    # read cell by cell, the depot's name spanning two columns put its Saturday hours under
    # Weekdays, and the answer said it opened on weekdays
    html = ("<table><tr><th>Depot</th><th>Weekdays</th><th>Saturday</th></tr>"
            "<tr><td>Waltershof</td><td>06:00-22:00</td><td>08:00-14:00</td></tr>"
            "<tr><td colspan='2'>Altenwerder (closed on weekdays)</td><td>09:00-12:00</td></tr>"
            "<tr><td colspan='3'>Southern depots</td></tr>"
            "<tr><td rowspan='2'>Harburg</td><td>07:00-19:00</td><td>closed</td></tr>"
            "<tr><td>07:00-18:00</td><td>by appointment</td></tr>"
            "<tr><td colspan='999999999'>x</td></tr></table>")
    parsed = parse_file(write_file("depots.html", html.encode("utf-8")))
    table = next(b for b in parsed.blocks if b.kind == "table")
    lines = table.text.splitlines()
    assert lines[3] == "| Altenwerder (closed on weekdays) | Altenwerder (closed on weekdays) | 09:00-12:00 |"
    assert lines[4] == "| Southern depots |  |  |"  # a label over the whole row is said once
    assert lines[5:7] == ["| Harburg | 07:00-19:00 | closed |", "| Harburg | 07:00-18:00 | by appointment |"]
    assert len(lines[0].split("|")) == 5  # a huge colspan is no reason for a hundred empty columns


def test_a_numbered_title_over_its_text_heads_its_section(write_file):
    # a QA pass: "4. Termination" over "Either party may ..." with no blank line was a list
    # item; its clauses had no section of their own and a quote read "4. Termination Either ..."
    from core.ingest.text import parse_plain_text

    blocks = parse_plain_text("ENGAGEMENT LETTER\n\n4. Termination\nEither party may end it on 14 days' notice.\n\n"
                              "5. Complaints\nComplaints go to the Client Care Partner.\n")
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "ENGAGEMENT LETTER"), ("heading", "4. Termination"),
        ("paragraph", "Either party may end it on 14 days' notice."), ("heading", "5. Complaints"),
        ("paragraph", "Complaints go to the Client Care Partner.")]
    # a list stays a list, and a numbered sentence wrapped onto the next line stays one item
    listed = parse_plain_text("Bring:\n1. Passport\n2. Visa\n\n1. The firm acts only in the matter\ndescribed in A.\n")
    assert [b.kind for b in listed if b.text.startswith(("1.", "2."))] == ["list_item", "list_item", "list_item"]


def test_a_numbered_title_over_its_first_numbered_clause_heads_its_section(write_file):
    # a QA pass: "2. Retention" over "2.1. Audit logs ..." was a list item of section 1,
    # and section 2's clauses were cited as section 1
    from core.ingest.text import parse_plain_text

    blocks = parse_plain_text("1. Where data is kept\nData is kept in Frankfurt.\n\n"
                              "2. Retention\n2.1. Audit logs are kept 365 days.\n2.2. Deleted files are kept 30 days.\n")
    assert [(b.kind, b.text) for b in blocks][:4] == [
        ("heading", "1. Where data is kept"), ("paragraph", "Data is kept in Frankfurt."),
        ("heading", "2. Retention"), ("paragraph", "2.1. Audit logs are kept 365 days. 2.2. Deleted files are kept 30 days.")]
    # a list numbered 1., 2. stays a list
    listed = parse_plain_text("Steps:\n1. Stop the agent\n2. Delete the cache\n")
    assert [b.kind for b in listed][-2:] == ["list_item", "list_item"]


def test_a_numbered_title_over_a_bulleted_list_heads_its_section(write_file):
    # a QA pass: "2. СРОКИ РЕАКЦИИ" over "- Устная жалоба ..." was an item of section 1's list,
    # and section 2's and 3's rules were cited as section 1
    from core.ingest.text import parse_plain_text

    blocks = parse_file(write_file("zhaloby.txt", "1. ПРИНЦИПЫ\nМы работаем по схеме:\n- выслушать гостя;\n"
                                   "- извиниться.\n\n2. СРОКИ РЕАКЦИИ\n- Устная жалоба: в течение 15 минут.\n"
                                   "- Письменная: 24 часа.\n")).blocks
    assert [(b.kind, b.section_path[-1]) for b in blocks if "жалоба" in b.text or "Письменная" in b.text] == [
        ("list_item", "2. СРОКИ РЕАКЦИИ"), ("list_item", "2. СРОКИ РЕАКЦИИ")]
    assert ("heading", "2. СРОКИ РЕАКЦИИ") in [(b.kind, b.text) for b in blocks]
    # a numbered step with its sub-items indented under it stays a list
    nested = parse_plain_text("Steps:\n1. Fill in the form\n   - name\n   - date\n2. Sign it\n")
    assert [b.kind for b in nested if b.text.startswith(("1.", "2."))] == ["list_item", "list_item"]


def test_a_short_title_over_label_and_value_lines_heads_its_section(write_file):
    # a QA pass: "E-2001 Storage quota exceeded" over a short "Cause: ..." line ran into the
    # entry above it, so E-2001's fix was cited under E-1042
    from core.ingest.text import parse_plain_text

    blocks = parse_plain_text("E-1042 Token refresh failed\nCause: the computer clock differs from the relay clock.\n\n"
                              "E-2001 Storage quota exceeded\nCause: the seat used its storage.\nFix: delete old versions.\n")
    assert [(b.kind, b.text) for b in blocks] == [
        ("heading", "E-1042 Token refresh failed"), ("paragraph", "Cause: the computer clock differs from the relay clock."),
        ("heading", "E-2001 Storage quota exceeded"), ("paragraph", "Cause: the seat used its storage."),
        ("paragraph", "Fix: delete old versions.")]



def test_a_header_of_two_rows_is_read_as_one(write_file):
    # a QA pass: a group name over three columns left them nameless and the row of their
    # names was read as a data row ("Plan: ; Included allowances: Minutes")
    table = next(b for b in parse_file(write_file("plans.html", TWO_ROW_HEADER.encode())).blocks
                 if b.kind == "table")
    assert table.rows[0] == ["Plan", "Monthly fee", "Included allowances / Data", "Included allowances / Minutes",
                             "Included allowances / SMS", "EU roaming data"]
    assert table.rows[1:] == [["Start", "12.99", "10 GB", "300", "100", "5 GB"],
                              ["Max", "29.99", "120 GB", "Unlimited", "Unlimited", "30 GB"]]


def test_a_second_row_that_holds_data_is_not_merged_into_the_header():
    from core.ingest.blocks import merged_header

    # a repeated header name over a data row: the row's first cell holds a value
    rows = [["Name", "Score", "Score"], ["Alice", "3", "4"], ["Bob", "5", "6"]]
    assert merged_header(rows) == rows
    # the same value under two columns of a group is data, not two names
    rows = [["Item", "Price", "Price"], ["", "10", "10"], ["Tea", "2", "3"]]
    assert merged_header(rows) == rows
    assert merged_header([["A", "B", "B"], ["", "x", "y"]]) == [["A", "B", "B"], ["", "x", "y"]]  # no data under it


def test_a_title_in_capitals_with_an_aside_in_brackets_heads_its_section():
    # a QA pass: "TIER 2 - CUSTOMER RESOLUTION TEAM (ticket code ESC-T2)" over its text was
    # read as the text's first sentence, and Tier 2's passages were cited under Tier 1
    from core.ingest.text import parse_plain_text

    blocks = parse_plain_text(
        "TIER 1 - FRONTLINE\nFrontline staff own the case for 24 hours.\n\n"
        "TIER 2 - CUSTOMER RESOLUTION TEAM (ticket code ESC-T2)\nEscalate to Tier 2 when:\n"
        "  a) the case is unresolved after 24 hours, or\n  b) a refund above 100 EUR is asked for.\n\n"
        "TIER 3 - TECHNICAL OPERATIONS / NETWORK OPERATIONS CENTRE (ticket code ESC-NOC)\n"
        "Escalate when more than 50 customers are affected.\n")
    assert [(b.text, b.level) for b in blocks if b.kind == "heading"] == [
        ("TIER 1 - FRONTLINE", 1), ("TIER 2 - CUSTOMER RESOLUTION TEAM (ticket code ESC-T2)", 1),
        ("TIER 3 - TECHNICAL OPERATIONS / NETWORK OPERATIONS CENTRE (ticket code ESC-NOC)", 1)]
    assert blocks[3].text == "Escalate to Tier 2 when:"
    # a sentence that ends in brackets is no title
    prose = parse_plain_text("Intro line here.\nCALL US ON 0800 123 (free from landlines) if in doubt.\n")
    assert not any(b.kind == "heading" for b in prose)
