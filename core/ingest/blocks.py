"""Helpers every parser shares: section paths, table rendering, finishing a document."""

from __future__ import annotations

import re

from core.schema import Block, ParsedDocument, join_blocks

_WS = re.compile(r"\s+")
# a footnote's number as the parsers write it ("within 30 days ¹"), whatever the format
SUPERSCRIPT_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
SUPERSCRIPT = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)


def clean_inline(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces and trim."""
    return _WS.sub(" ", text.replace("\u00ad", "")).strip()


MAX_LABEL_CHARS = 40
MAX_LABEL_WORDS = 6


def is_field_line(line: str) -> bool:
    """A line of a filled form or record, "Label: value": a short label (at most six words,
    forty characters) and a value after ": ". Times ("10:30") and addresses ("https://")
    have no space after their colon."""
    label, colon, value = line.strip().partition(": ")
    return bool(colon and label and value.strip()) and len(label) <= MAX_LABEL_CHARS \
        and len(label.split()) <= MAX_LABEL_WORDS and not label.endswith(":")


def field_lines(lines: list[str]) -> bool:
    """Whether a paragraph's lines are fields, one to a line ("Policy number: HX-2"
    over "Start date: 1 May"): typed so in a text or Markdown file, they are a record, not
    wrapped prose, and each is kept a line of its own (joined, five fields read as one
    sentence that answers none of them alone)."""
    return len(lines) >= 2 and all(is_field_line(line) for line in lines)


def markdown_table(rows: list[list[str]]) -> str:
    """Render rows (header first) as a Markdown table: `| a | b |`, `|---|---|`, ..."""
    width = max(len(r) for r in rows)
    lines = []
    for i, row in enumerate(rows):
        cells = [_cell(c) for c in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "---|" * width)
    return "\n".join(lines)


def _cell(text: str) -> str:
    return clean_inline(text).replace("|", "\\|")


def normalize_rows(rows: list[list[str]]) -> list[list[str]]:
    """Clean cell text, drop empty rows and empty trailing columns, pad to one width."""
    rows = [[clean_inline(c or "") for c in row] for row in rows]
    rows = [r for r in rows if any(r)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    while width > 1 and not any(r[width - 1] for r in rows):
        width -= 1
        rows = [r[:width] for r in rows]
    return rows


def distinct_names(names: list[str]) -> list[str]:
    """Header names with a repeated one numbered ("Price", "Price (2)"); blanks stay blank."""
    taken = set(names)
    seen: set[str] = set()
    out = []
    for name in names:
        if name and name in seen:
            n = 2
            while f"{name} ({n})" in taken:
                n += 1
            name = f"{name} ({n})"
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def table_block(rows: list[list[str]], **kwargs) -> Block:
    return Block(kind="table", text=markdown_table(rows), rows=rows, **kwargs)


def assign_sections(blocks: list[Block]) -> None:
    """Fill `section_path` from heading levels.

    A heading belongs to the section it opens, so its own text ends its path; every other
    block gets the path of the nearest headings above it.
    """
    stack: list[tuple[int, str]] = []
    for block in blocks:
        if block.kind == "heading":
            level = max(block.level, 1)
            block.level = level
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, block.text))
        block.section_path = [text for _, text in stack]


def finish(
    blocks: list[Block],
    *,
    pages: int | None,
    title: str,
    warnings: list[str] | None = None,
) -> ParsedDocument:
    """Drop empty blocks, assign sections and offsets, and build the ParsedDocument."""
    blocks = [b for b in blocks if b.text.strip()]
    assign_sections(blocks)
    text = join_blocks(blocks)
    return ParsedDocument(
        blocks=blocks, pages=pages, title=clean_inline(title), text=text,
        warnings=list(warnings or []),
    )


def first_heading(blocks: list[Block]) -> str:
    headings = [b for b in blocks if b.kind == "heading" and b.text.strip()]
    if not headings:
        return ""
    top = min(b.level or 1 for b in headings)
    return next(b.text for b in headings if (b.level or 1) == top)
