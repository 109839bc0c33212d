"""ui.safe: untrusted text rendered through Markdown stays text.

Checked with a real CommonMark parser (markdown-it-py, HTML enabled: the worst case): the
escaped Markdown produces no tags but paragraphs and line breaks, and its text is the input.
"""

import html
import re

import pytest
from markdown_it import MarkdownIt

from ui.format import answer_md, parse_pipe_table
from ui.safe import MAX_RENDER_CHARS, clean, csv_cell, escape_md, highlight_md

PAYLOADS = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned=2">',
    "[click me](javascript:alert(1)) and ![img](javascript:alert(2))",
    "<https://evil.example> and www.evil.example and mailto:a@b.c",
    "# heading\n- list\n1. numbered\n> quote\n    indented code\n```\nfence\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "**bold** _it_ `code` ~~strike~~ $x^2$ $$y$$ :red[red] :material/home: :smile:",
    "a\\*b \\\\ trailing backslash\\",
    "[x]: javascript:alert(1)\n[x]",
    "&lt;script&gt; &#x3C;img&#x3E; &amp;",
    "text<!-- comment --> <div onclick=x>div</div>",
    "setext\n===\nrule\n***",
]


def render(markdown: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(markdown)


def text_of(rendered: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", rendered)).split())


@pytest.mark.parametrize("payload", PAYLOADS)
def test_escaped_markdown_renders_as_the_literal_text(payload):
    rendered = render(escape_md(payload))
    tags = set(re.findall(r"</?([a-zA-Z0-9]+)", rendered))
    assert tags <= {"p", "br"}, (tags, rendered)
    assert text_of(rendered) == " ".join(payload.split()).replace("\\\n", " ").strip() or \
        text_of(rendered) == " ".join(" ".join(line.strip() for line in payload.split("\n")).split())


@pytest.mark.parametrize("payload", PAYLOADS)
def test_inline_escape_is_one_line_and_inert(payload):
    out = escape_md(payload, inline=True)
    assert "\n" not in out
    rendered = render(out)
    assert set(re.findall(r"</?([a-zA-Z0-9]+)", rendered)) <= {"p"}


def test_highlight_wraps_only_the_quote_and_cannot_be_broken_out_of():
    chunk = "Before ] ) text. The quote [with] brackets](javascript:x) ends. After <b>x</b>."
    start = chunk.index("The quote")
    end = chunk.index(" After")
    out = highlight_md(chunk, start, end)
    assert out.count(":orange-background[") == 1
    inner = out.split(":orange-background[", 1)[1]
    # the directive's label ends at the first unescaped "]"
    close = re.search(r"(?<!\\)\]", inner)
    assert close is not None
    assert text_of(render(inner[: close.start()])) == "The quote [with] brackets](javascript:x) ends."
    rendered = render(out)
    assert "<a" not in rendered and "<b>" not in rendered


def test_highlight_across_lines_and_paragraphs():
    chunk = "Heading\n\nfirst line of quote\nsecond line\n\nother"
    start = chunk.index("first")
    end = chunk.index("\n\nother")
    out = highlight_md(chunk, start, end)
    assert ":orange-background[first line of quote]  \n:orange-background[second line]" in out
    assert out.startswith("Heading\n\n") and out.endswith("\n\nother")


def test_giant_single_line_is_clipped_around_the_quote():
    giant = "A" * 200_000 + " the quote here " + "B" * 200_000
    start = giant.index("the quote")
    out = highlight_md(giant, start, start + len("the quote here"))
    assert len(out) < MAX_RENDER_CHARS + 200
    assert ":orange-background[the quote here]" in out and "characters before" in out
    assert len(escape_md("x" * 1_000_000)) < MAX_RENDER_CHARS + 100


def test_control_and_bidi_characters_are_dropped():
    assert clean("safe\u202eexe.pdf\x00\x07") == "safeexe.pdf"


def test_answer_markers_become_pills_and_text_is_escaped():
    out = answer_md("Refunds within 14 days [1]. See <b>x</b> [2].")
    assert out == "Refunds within 14 days :blue-badge[1]\\. See \\<b\\>x\\<\\/b\\> :blue-badge[2]\\."


def test_csv_cells_cannot_start_a_formula():
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("-2") == "'-2" and csv_cell("ok") == "ok"
    assert csv_cell(3) == 3


def test_pipe_tables_parse_with_escaped_pipes():
    before, rows, after = parse_pipe_table("Tyres\n\n| Axle | Pressure |\n|---|---|\n| Front | 2.4 \\| 35 psi |")
    assert before == ["Tyres"] and after == []
    assert rows == [["Axle", "Pressure"], ["Front", "2.4 | 35 psi"]]


def test_the_lines_after_a_pipe_table_are_kept():
    """Seen in the QA pass: a price list's sentences under its table ("Helmets are free ...")
    were dropped, so neither the chunk view nor a quote of them showed them."""
    before, rows, after = parse_pipe_table("Price list\n\n| Bike | 1 day |\n|---|---|\n| City bike | 15 EUR |\n\n"
                                           "Helmets are free. A child seat costs 5 EUR per day.\nGroups get 10%.")
    assert before == ["Price list"] and rows == [["Bike", "1 day"], ["City bike", "15 EUR"]]
    assert after == ["Helmets are free. A child seat costs 5 EUR per day.", "Groups get 10%."]
    assert parse_pipe_table("No table here.\nNone at all.") == (["No table here.", "None at all."], [], [])


def test_numbered_steps_of_an_answer_start_their_own_lines_and_markers_keep_their_space():
    out = answer_md("Steps: [1] 1. Unplug it. [1] 2. Open the flap. [2] It holds 5 quarts [3].")
    assert out.split("  \n") == ["Steps\\: :blue-badge[1]", "1\\. Unplug it\\. :blue-badge[1]",
                                 "2\\. Open the flap\\. :blue-badge[2] It holds 5 quarts :blue-badge[3]\\."]
    # a number inside a sentence after a marker is no step
    assert "  \n" not in answer_md("It is cited [1] 5 times.")


def test_a_marker_with_its_quote_shows_it_on_hover_and_cannot_break_out():
    out = answer_md('Oil: 4.5 l [1].', {1: 'He said "stop" \\ then\nleft'}, "gw-sources-k")
    assert out == 'Oil\\: 4\\.5 l [\\[1\\]](#gw-sources-k "He said \'stop\' / then left")\\.'
    assert answer_md("x [2].", {1: "q"}, "a") == "x :blue-badge[2]\\."  # no quote known: a plain pill
