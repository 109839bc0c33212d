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
    """Clean cell text, drop empty rows and empty trailing columns, pad to one width, and
    read a header of two rows as one (`merged_header`)."""
    rows = [[clean_inline(c or "") for c in row] for row in rows]
    rows = [r for r in rows if any(r)]
    if not rows:
        return []
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    while width > 1 and not any(r[width - 1] for r in rows):
        width -= 1
        rows = [r[:width] for r in rows]
    return merged_header(rows)


def merged_header(rows: list[list[str]]) -> list[list[str]]:
    """A header of two rows, a group name over the columns it spans ("Included allowances"
    over "Data | Minutes | SMS"), read as one row: "Included allowances / Data", ... (a QA
    pass: the second row was read as a data row, and the columns under the group had no
    names). The parsers write a spanned cell into each column it covers, so a group is a
    name repeated in adjacent columns of the first row, over different names in the second;
    every other cell of the second row is blank or repeats the name above it (a cell
    spanning both rows). Anything else is left as it is: the second row is data."""
    if len(rows) < 3 or len(rows[0]) < 3:
        return rows
    top, sub = rows[0], rows[1]
    width = len(top)
    grouped = [j for j in range(width) if top[j] and any(
        0 <= k < width and top[k] == top[j] for k in (j - 1, j + 1))]
    if not grouped or any(not sub[j] or sub[j] == top[j] for j in grouped):
        return rows
    if any(sub[j] and sub[j] != top[j] for j in range(width) if j not in grouped):
        return rows
    if any(sub[j] == sub[k] for j in grouped for k in grouped if j < k and top[j] == top[k]):
        return rows  # one value under each column of a group: a repeated one is data
    merged = [f"{top[j]} / {sub[j]}" if j in grouped else top[j] or sub[j] for j in range(width)]
    return [merged, *rows[2:]]


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
