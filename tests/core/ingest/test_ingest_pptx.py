"""PPTX: each slide a section (its title a heading, `page` its number), text in reading order,
tables as Markdown tables, groups walked, speaker notes under their own heading, and bad
decks refused in one sentence."""

from __future__ import annotations

import io
import time
from pathlib import Path

import docx
import pytest
from ingest_helpers import TABLE_ROWS, assert_offsets, rewritten
from PIL import Image
from pptx import Presentation
from pptx.oxml.ns import qn
from pptx.util import Inches

from core.answer.units import units
from core.ingest import IngestError, chunk_document, detect_format, parse_file
from core.ingest import pptx as pptx_parser

TITLE_AND_CONTENT, TITLE_ONLY, BLANK = 1, 5, 6


def _bullet(paragraph, tag: str, **attrs: str) -> None:
    """Give a paragraph its own bullet element (python-pptx has no API for it)."""
    pPr = paragraph._p.get_or_add_pPr()
    element = pPr.makeelement(qn(f"a:{tag}"), attrs)
    pPr.append(element)


def _hide(shape) -> None:
    shape._element[0].find(qn("p:cNvPr")).set("hidden", "1")


@pytest.fixture
def handbook_pptx(tmp_path: Path) -> Path:
    """Six slides: a title slide, bullets at two levels with a text box and speaker notes, a
    table with a group of shapes, an empty slide, an untitled slide, a title-only slide."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[0])
    slide.shapes.title.text = "Customer Handbook"
    slide.placeholders[1].text = "Support team, 2025 edition"
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_AND_CONTENT])
    slide.shapes.title.text = "Cancellation policy"
    frame = slide.placeholders[1].text_frame
    frame.text = "Monthly plans can be cancelled within 14 days of purchase."
    for text, level in (("Annual plans are repaid pro rata.", 1), ("Gift cards are final.", 0)):
        paragraph = frame.add_paragraph()
        paragraph.text, paragraph.level = text, level
    box = slide.shapes.add_textbox(Inches(1), Inches(6.6), Inches(8), Inches(0.5))
    box.text_frame.text = "Ask the desk for the form."
    hidden = slide.shapes.add_textbox(Inches(1), Inches(7), Inches(8), Inches(0.5))
    hidden.text_frame.text = "Draft wording, not for customers."
    _hide(hidden)
    slide.notes_slide.notes_text_frame.text = "Mention the 14 days first.\nThen the gift cards."
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Plans and prices"
    table = slide.shapes.add_table(len(TABLE_ROWS), 3, Inches(1), Inches(2), Inches(8), Inches(1.6)).table
    for r, row in enumerate(TABLE_ROWS):
        for c, cell in enumerate(row):
            table.cell(r, c).text = cell
    group = slide.shapes.add_group_shape()
    # placed right first and a little higher: still one row, read left to right
    group.shapes.add_textbox(Inches(5), Inches(4.95), Inches(4), Inches(0.5)).text_frame.text = "Prices include VAT."
    inner = group.shapes.add_group_shape()
    inner.shapes.add_textbox(Inches(1), Inches(5), Inches(3), Inches(0.5)).text_frame.text = "Billed monthly."
    deck.slides.add_slide(deck.slide_layouts[BLANK])  # nothing on it: skipped
    slide = deck.slides.add_slide(deck.slide_layouts[BLANK])
    slide.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(1)).text_frame.text = \
        "Write to support@acme.test for help."
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Questions?"
    path = tmp_path / "handbook.pptx"
    deck.save(str(path))
    return path


def test_each_slide_is_a_section_read_in_order(handbook_pptx):
    assert detect_format(handbook_pptx) == "pptx"
    parsed = parse_file(handbook_pptx)
    assert parsed.pages == 6
    assert parsed.title == "Customer Handbook"
    assert not parsed.warnings
    assert_offsets(parsed)
    assert [(b.page, b.kind, b.text if b.kind != "table" else "<table>") for b in parsed.blocks] == [
        (1, "heading", "Customer Handbook"),
        (1, "paragraph", "Support team, 2025 edition"),  # a subtitle has no bullet
        (2, "heading", "Cancellation policy"),
        (2, "list_item", "Monthly plans can be cancelled within 14 days of purchase."),
        (2, "list_item", "Annual plans are repaid pro rata."),  # level 2 of the list: still an item
        (2, "list_item", "Gift cards are final."),
        (2, "paragraph", "Ask the desk for the form."),  # a text box: no bullet
        (2, "heading", "Speaker notes"),
        (2, "paragraph", "Mention the 14 days first."),
        (2, "paragraph", "Then the gift cards."),
        (3, "heading", "Plans and prices"),
        (3, "table", "<table>"),
        (3, "paragraph", "Billed monthly."),  # the nested group's member, left of the other
        (3, "paragraph", "Prices include VAT."),
        (5, "heading", "Slide 5"),  # untitled: named by its number; the empty slide 4 is skipped
        (5, "paragraph", "Write to support@acme.test for help."),
        (6, "heading", "Questions?"),
    ]
    assert "Draft wording" not in parsed.text  # hidden in the selection pane: nobody sees it
    table = next(b for b in parsed.blocks if b.kind == "table")
    assert table.rows == TABLE_ROWS
    assert "| Basic | 9.99 | 4.7 |" in table.text
    assert table.section_path == ["Plans and prices"]
    notes = [b for b in parsed.blocks if b.text == "Then the gift cards."][0]
    assert notes.section_path == ["Cancellation policy", "Speaker notes"]


def test_chunks_carry_the_slide_number_and_rows_read_as_units(handbook_pptx):
    chunks = chunk_document(parse_file(handbook_pptx), doc_id="d", tenant="t", source="handbook.pptx")
    assert [(c.page_start, c.page_end, c.section) for c in chunks] == [
        (1, 1, "Customer Handbook"),
        (2, 2, "Cancellation policy"),
        (2, 2, "Cancellation policy > Speaker notes"),
        (3, 3, "Plans and prices"),
        (5, 5, "Slide 5"),
        (6, 6, "Questions?"),
    ]
    rows = [u.text for c in chunks for u in units(c.text, c.section) if u.kind == "row"]
    assert rows[0] == "Plan: Basic; Price: 9.99; Rating: 4.7"


def test_bullets_and_numbers_come_from_the_paragraph_or_what_it_inherits(tmp_path):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_AND_CONTENT])
    slide.shapes.title.text = "Steps"
    frame = slide.placeholders[1].text_frame
    frame.text = "Open the case."
    _bullet(frame.paragraphs[0], "buAutoNum", type="arabicPeriod")
    for text, level, bullet in (("Check the seal.", 1, {"type": "alphaLcParenR"}),
                                ("Look for cracks.", 1, {"type": "alphaLcParenR"}),
                                ("Close the case.", 0, {"type": "arabicPeriod"}),
                                ("A plain line.", 0, None)):
        paragraph = frame.add_paragraph()
        paragraph.text, paragraph.level = text, level
        if bullet:
            _bullet(paragraph, "buAutoNum", **bullet)
        else:
            _bullet(paragraph, "buNone")  # the placeholder's bullet switched off
    box = slide.shapes.add_textbox(Inches(1), Inches(6), Inches(8), Inches(1))
    box.text_frame.text = "A bulleted note in a text box."
    _bullet(box.text_frame.paragraphs[0], "buChar", char="•")
    parsed = parse_file(_saved(deck, tmp_path / "steps.pptx"))
    assert [(b.kind, b.text) for b in parsed.blocks[1:]] == [
        ("list_item", "1. Open the case."),
        ("list_item", "a) Check the seal."),
        ("list_item", "b) Look for cracks."),
        ("list_item", "2. Close the case."),
        ("paragraph", "A plain line."),
        ("list_item", "A bulleted note in a text box."),
    ]


@pytest.mark.parametrize(("scheme", "n", "shown"), [
    ("arabicPeriod", 3, "3."), ("arabicParenR", 2, "2)"), ("arabicParenBoth", 5, "(5)"), ("arabicPlain", 7, "7"),
    ("alphaLcPeriod", 2, "b."), ("alphaUcParenR", 28, "BB)"), ("romanUcPeriod", 4, "IV."),
    ("romanLcParenBoth", 9, "(ix)"), ("circleNumDbPlain", 3, "3"),
])
def test_auto_numbers_read_as_shown(scheme, n, shown):
    assert pptx_parser._number(scheme, n) == shown


def test_running_text_and_merged_cells(tmp_path):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Regions"
    table = slide.shapes.add_table(3, 3, Inches(1), Inches(2), Inches(8), Inches(1.5)).table
    for r, row in enumerate([["Region", "Sales", ""], ["EU", "1.5", "2.5"], ["US", "3.0", "4.0"]]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    table.cell(0, 1).merge(table.cell(0, 2))
    column = slide.shapes.add_table(2, 1, Inches(1), Inches(4), Inches(4), Inches(1)).table
    column.cell(0, 0).text, column.cell(1, 0).text = "A one-column box.", "Its second line."
    # a footer placeholder copied onto the slide: the same on every slide, so not read
    footer = deck.slide_layouts[TITLE_ONLY].placeholders.get(idx=11)
    slide.shapes._spTree.append(footer._element.__copy__())
    slide.placeholders[11].text = "Confidential"
    parsed = parse_file(_saved(deck, tmp_path / "regions.pptx"))
    assert [(b.kind, b.rows or b.text) for b in parsed.blocks[1:]] == [
        ("table", [["Region", "Sales", ""], ["EU", "1.5", "2.5"], ["US", "3.0", "4.0"]]),
        ("paragraph", "A one-column box."),
        ("paragraph", "Its second line."),
    ]
    assert "Confidential" not in parsed.text


def test_decks_are_told_apart_from_documents_and_workbooks_by_content(handbook_pptx, tmp_path):
    named_docx = tmp_path / "slides.docx"
    named_docx.write_bytes(handbook_pptx.read_bytes())
    assert detect_format(named_docx) == "pptx"
    assert parse_file(named_docx).warnings[0] == "The file is named '.docx' but holds PPTX; it was read as PPTX."
    document = docx.Document()
    document.add_paragraph("A Word document.")
    named_pptx = tmp_path / "letter.pptx"
    document.save(str(named_pptx))
    assert detect_format(named_pptx) == "docx"
    other = tmp_path / "export.bin"
    other.write_bytes(handbook_pptx.read_bytes())
    assert parse_file(other).blocks[0].text == "Customer Handbook"
    # a macro-enabled deck: read like any other, its macros never run
    macro = tmp_path / "macro.pptm"
    macro.write_bytes(handbook_pptx.read_bytes())
    rewritten(macro, "[Content_Types].xml", lambda xml: xml.replace(
        "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml",
        "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml"))
    assert detect_format(macro) == "pptx" and parse_file(macro).blocks[0].text == "Customer Handbook"


def _saved(deck, path: Path) -> Path:
    deck.save(str(path))
    return path


def _picture_only(path: Path) -> None:
    image = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 30, 30)).save(image, format="PNG")
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[BLANK]).shapes.add_picture(image, Inches(1), Inches(1))
    deck.save(str(path))


def _ole2(path: Path) -> None:  # what Office writes for a password-protected deck, and what a .ppt is
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 1024)


def _show(path: Path) -> None:
    rewritten(path, "[Content_Types].xml", lambda xml: xml.replace(
        "presentationml.presentation.main+xml", "presentationml.slideshow.main+xml"))


LEGACY = (r"^This is a legacy PowerPoint file \(\.ppt\) or a password-protected presentation; save it as an "
          r"unprotected PPTX and upload it again\.$")
NOT_PPTX = (r"^The file is not a valid PowerPoint presentation \(PPTX\); it may be damaged, so open it in "
            r"PowerPoint, save it again and upload it\.$")
BAD = [
    ("encrypted.pptx", _ole2, LEGACY),
    ("old.ppt", _ole2, LEGACY),
    ("truncated.pptx", lambda p: p.write_bytes(p.read_bytes()[:600]), NOT_PPTX),
    ("noise.pptx", lambda p: p.write_bytes(bytes(range(256)) * 16), NOT_PPTX),
    ("no-presentation.pptx", lambda p: rewritten(p, "ppt/presentation.xml", lambda xml: "<broken"), NOT_PPTX),
    ("show.ppsx", _show, r"^This is a PowerPoint show \(\.ppsx\) or template \(\.potx\); open it in PowerPoint, "
                         r"save it as a presentation \(\.pptx\) and upload that\.$"),
    ("pictures.pptx", _picture_only, r"^The presentation has no text on its slides or in their speaker notes "
                                     r"\(only pictures or charts\?\); save it as PDF from PowerPoint and upload "
                                     r"that instead\.$"),
]


@pytest.mark.parametrize(("name", "spoil", "message"), BAD, ids=[b[0] for b in BAD])
def test_bad_decks_get_one_sentence(handbook_pptx, tmp_path, name, spoil, message):
    path = tmp_path / name
    path.write_bytes(handbook_pptx.read_bytes())
    spoil(path)
    with pytest.raises(IngestError, match=message) as info:
        parse_file(path)
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text


def test_a_zip_bomb_is_refused_before_it_is_unpacked(handbook_pptx, monkeypatch):
    monkeypatch.setattr(pptx_parser, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(IngestError, match=r"^The PPTX unpacks to 0 MB \(a zip bomb\?\); it was not processed\.$"):
        parse_file(handbook_pptx)


def test_a_slide_with_an_entity_bomb_is_refused_unexpanded(handbook_pptx):
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10 if i else "lol"}">' for i in range(10))
    rewritten(handbook_pptx, "ppt/slides/slide2.xml",
               lambda xml: xml.replace("<?xml version='1.0' encoding='UTF-8' standalone='yes'?>",
                                       f'<?xml version="1.0"?><!DOCTYPE d [{laughs}]>')
               .replace("Gift cards are final.", "&l9;"))
    start = time.perf_counter()
    with pytest.raises(IngestError, match=NOT_PPTX):
        parse_file(handbook_pptx)
    assert time.perf_counter() - start < 5


def test_shapes_read_top_to_bottom_then_left_to_right(tmp_path):
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Opening hours"
    for text, left, top in (("Closed on public holidays.", 1, 6), ("Weekends: 10:00-14:00.", 5, 1.95),
                            ("Weekdays: 08:00-18:00.", 1, 2), ("Hotline 0800 123.", 7, 0.1)):
        slide.shapes.add_textbox(Inches(left), Inches(top), Inches(3), Inches(0.5)).text_frame.text = text
    parsed = parse_file(_saved(deck, tmp_path / "hours.pptx"))
    # the title first wherever it stands; the two columns' tops 0.05 inch apart are one row
    assert [b.text for b in parsed.blocks] == ["Opening hours", "Hotline 0800 123.", "Weekdays: 08:00-18:00.",
                                               "Weekends: 10:00-14:00.", "Closed on public holidays."]


def test_a_chart_is_read_as_its_title_and_a_table_of_its_data(tmp_path):
    """A chart's numbers are what a reader of the slide sees, and were not read at all."""
    from pptx.chart.data import CategoryChartData
    from pptx.enum.chart import XL_CHART_TYPE

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Results 2024"
    data = CategoryChartData()
    data.categories = ["Q1", "Q2", "Q3"]
    data.add_series("Revenue", (120, 140.5, 133))
    data.add_series("Costs", (80, 90, None))
    chart = slide.shapes.add_chart(XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4),
                                   data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Revenue and costs, kEUR"
    parsed = parse_file(_saved(deck, tmp_path / "results.pptx"))
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "Results 2024"), ("paragraph", "Revenue and costs, kEUR"),
        ("table", "| Category | Revenue | Costs |\n|---|---|---|\n| Q1 | 120 | 80 |\n| Q2 | 140.5 | 90 |\n| Q3 | 133 |  |"),
    ]
    assert all(b.page == 1 for b in parsed.blocks) and parsed.warnings == []


def test_slides_with_charts_not_read_or_diagrams_are_named_in_a_warning(tmp_path):
    from pptx.chart.data import XyChartData
    from pptx.enum.chart import XL_CHART_TYPE

    deck = Presentation()
    for title in ("Sales", "Outlook", "Team", "Targets"):
        slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
        slide.shapes.title.text = title
    data = XyChartData()  # a scatter chart has no categories to make a table's rows of
    points = data.add_series("Units")
    points.add_data_point(1, 120)
    points.add_data_point(2, 140)
    for number in (0, 1, 3):
        deck.slides[number].shapes.add_chart(XL_CHART_TYPE.XY_SCATTER, Inches(1), Inches(2), Inches(6),
                                             Inches(4), data)
    parsed = parse_file(_saved(deck, tmp_path / "sales.pptx"))
    assert [b.text for b in parsed.blocks] == ["Sales", "Outlook", "Team", "Targets"]
    assert parsed.warnings == ["Slides 1-2, 4 hold charts or SmartArt diagrams, whose text is not read; if "
                               "questions need it, save the deck as PDF from PowerPoint and upload that instead."]


def test_a_deck_is_titled_by_its_properties_its_first_slide_title_or_its_name(tmp_path):
    deck = Presentation()
    deck.slides.add_slide(deck.slide_layouts[BLANK])  # empty: skipped
    slide = deck.slides.add_slide(deck.slide_layouts[BLANK])
    slide.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1)).text_frame.text = "No title here."
    deck.core_properties.title = "PowerPoint Presentation"  # what PowerPoint writes when nobody named it
    parsed = parse_file(_saved(deck, tmp_path / "untitled-deck.pptx"))
    assert parsed.title == "untitled-deck" and parsed.blocks[0].text == "Slide 2"
    deck.core_properties.title = "Quarterly review"
    assert parse_file(_saved(deck, tmp_path / "named.pptx")).title == "Quarterly review"


def _with_diagram(slide, nodes: list[tuple[str, str, str, int]]) -> None:
    """Put a SmartArt diagram on the slide as PowerPoint stores it: a graphic frame naming a
    data part, which lists the points (id, text) and their "parent of" connections (parent id,
    the place among the parent's children)."""
    from lxml import etree
    from pptx.opc.constants import RELATIONSHIP_TYPE as RT
    from pptx.opc.package import Part
    from pptx.opc.packuri import PackURI

    dgm = "http://schemas.openxmlformats.org/drawingml/2006/diagram"
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    points = "".join(f'<dgm:pt modelId="{key}"><dgm:t><a:bodyPr/><a:p><a:r><a:t>{text}</a:t></a:r></a:p></dgm:t></dgm:pt>'
                     for key, text, _, _ in nodes)
    links = "".join(f'<dgm:cxn modelId="c{key}" srcId="{parent}" destId="{key}" srcOrd="{place}" destOrd="0"/>'
                    for key, _, parent, place in nodes)
    data = (f'<dgm:dataModel xmlns:dgm="{dgm}" xmlns:a="{a}"><dgm:ptLst><dgm:pt modelId="doc" type="doc"/>'
            f"{points}</dgm:ptLst><dgm:cxnLst>{links}</dgm:cxnLst></dgm:dataModel>")
    part = Part(PackURI("/ppt/diagrams/data1.xml"),
                "application/vnd.openxmlformats-officedocument.drawingml.diagramData+xml", slide.part.package,
                data.encode())
    rid = slide.part.relate_to(part, RT.DIAGRAM_DATA)
    frame = etree.fromstring(
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        f'xmlns:a="{a}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<p:nvGraphicFramePr><p:cNvPr id="99" name="Diagram 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm><a:off x="914400" y="1828800"/><a:ext cx="5486400" cy="3657600"/></p:xfrm>'
        f'<a:graphic><a:graphicData uri="{dgm}"><dgm:relIds xmlns:dgm="{dgm}" r:dm="{rid}" r:lo="" r:qs="" r:cs=""/>'
        "</a:graphicData></a:graphic></p:graphicFrame>")
    slide.shapes._spTree.append(frame)


def test_a_smartart_diagram_is_read_node_by_node_in_its_order(tmp_path):
    """A process drawn as SmartArt held the steps a question asks for, and was not read."""
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[TITLE_ONLY])
    slide.shapes.title.text = "Claims process"
    # listed out of order, as PowerPoint often stores them; the connections give the order
    _with_diagram(slide, [("3", "Pay within 10 days", "doc", 2), ("1", "Submit the claim form", "doc", 0),
                          ("2a", "Photos under 5 MB", "2", 0), ("2", "Adjuster reviews the photos", "doc", 1)])
    parsed = parse_file(_saved(deck, tmp_path / "claims.pptx"))
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        ("heading", "Claims process"), ("list_item", "Submit the claim form"),
        ("list_item", "Adjuster reviews the photos"), ("list_item", "Photos under 5 MB"),
        ("list_item", "Pay within 10 days")]
    assert parsed.warnings == []
