"""Plain text: paragraphs split on blank lines, list lines as items, simple heading rules,
and space-aligned tables (a header line over a rule of dash runs, one run per column).

A paragraph is a heading when it is one short line without closing punctuation that is
ALL CAPS, numbered ("1. Scope", "2.3 Limits"), Markdown-style ("# Title"), underlined
("Title" over "====="), or a short title-like line followed by more text. A paragraph's
first line is a heading when it is such a line in capitals, or numbered over a line that
starts a sentence and is no list item ("4. Termination" over "Either party may ..."), or a
short title line under half the length of the sentence under it. Everything else
is a paragraph; hard-wrapped lines are joined with spaces (words broken with a hyphen at
a line end are re-joined; an e-mail address, URL or domain broken at its own hyphen keeps it).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from pathlib import Path

from core.ingest.base import PageProgress
from core.ingest.blocks import (
    clean_inline,
    field_lines,
    finish,
    first_heading,
    is_field_line,
    normalize_rows,
    table_block,
)
from core.ingest.decode import decode_text
from core.lexical import STOPWORDS
from core.schema import Block, ParsedDocument

_BLANK = re.compile(r"\n[ \t\f\v]*\n+")
LIST_MARKER = re.compile(r"^\s*(?:[•·▪‣◦●○■□►▶➢✓✔*\-–—]|\(?\d{1,3}[.)]|\(?[a-zа-я][.)])\s+")
_NUMBERED_HEADING = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")
_HASH_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*$")
_UNDERLINE = re.compile(r"^(=+|-+)$")
_BULLET_GLYPH = re.compile(r"^\s*[•·▪‣◦●○■□►▶➢✓✔*\-–—]\s+")
_COLUMN_RULE = re.compile(r"^\s*-{3,}(?:\s+-{3,})+\s*$")


class TextParser:
    def parse(self, path: Path, on_page: PageProgress | None = None) -> ParsedDocument:
        text = decode_text(Path(path).read_bytes())
        blocks = parse_plain_text(text)
        return finish(blocks, pages=None, title=first_heading(blocks) or Path(path).stem)


def parse_plain_text(text: str) -> list[Block]:
    paragraphs = [p.strip("\n") for p in _BLANK.split(text)]
    paragraphs = [p for p in paragraphs if p.strip()]
    blocks: list[Block] = []
    for i, para in enumerate(paragraphs):
        lines = [ln.rstrip() for ln in para.split("\n") if ln.strip()]
        blocks.extend(_paragraph_blocks(lines, has_next=i + 1 < len(paragraphs)))
    return blocks


def _paragraph_blocks(lines: list[str], has_next: bool, cut: bool = True) -> list[Block]:
    table = _aligned_table(lines)
    if table:
        return [table_block(table)]
    heading = _heading(lines, has_next)
    if heading:
        return [Block(kind="heading", text=heading[1], level=heading[0])]
    if cut and any(_is_rule(line) for line in lines):
        return _cut_at_rules(lines)
    titles = _capital_titles(lines)
    if titles:
        rest = _paragraph_blocks(lines[len(titles):], has_next, cut)
        return [Block(kind="heading", text=title, level=1) for title in titles] + rest
    numbered = _numbered_title(lines)
    if numbered:
        return [Block(kind="heading", text=numbered[1], level=numbered[0]),
                *_paragraph_blocks(lines[1:], has_next, cut)]
    title = _short_title(lines)
    if title:
        return [Block(kind="heading", text=title, level=2), *_paragraph_blocks(lines[1:], has_next, cut)]
    return _body_blocks(lines)


def _short_title(lines: list[str]) -> str | None:
    """A short title line over a sentence, with no blank line between ("What the plan costs"
    over "The monthly fee is 19 EUR. ..."): joined, the quote read "What the plan
    costs The monthly fee is 19 EUR." (a QA pass). Hard-wrapped prose breaks
    its lines near one width, so a first line under half the next one's length is no
    wrapped sentence; nor is one ending in a word that cannot end a title ("Contact the" over
    "Customer Service team ..."). Over a "Label: value" line ("E-2001 Storage quota exceeded"
    over "Cause: the seat has used ..."), no sentence goes on, whatever the lengths: a QA
    pass had an error code's entry run into the entry above it."""
    if len(lines) < 2:
        return None
    text, after = clean_inline(lines[0]), lines[1].strip()
    words = text.split()
    if (not _title_like(text) or len(words) > 8 or not text[:1].isupper() or LIST_MARKER.match(lines[0])
            or is_field_line(text) or words[-1].lower() in STOPWORDS or "|" in text):
        return None  # "Room | Item | Condition": a table's header, not a title
    if not after[:1].isupper() or LIST_MARKER.match(lines[1]) \
            or 2 * len(text) > len(after) and not is_field_line(after):
        return None
    first, next_first = words[0], after.split()[0]
    if any(ch.isdigit() for ch in first) and _shape(first) == _shape(next_first):
        return None  # "S0 Available" over "S1 Reserved by a customer ...": a list of codes
    return text


def _numbered_title(lines: list[str]) -> tuple[int, str] | None:
    """A numbered title line over its text with no blank line between ("4. Termination" over
    "Either party may ..."): it was read as a list item, so its clauses had no section and
    a quote began "4. Termination Either party ..." (a QA pass). Not when the next line is
    a numbered or bulleted line too (a list), nor when it goes on in lower case (a wrapped
    sentence). A line numbered under the title's number ("2. Retention" over "2.1. Audit
    logs are kept ...") is its first clause: a QA pass had section 2 read as a list item of
    section 1, and its clauses cited as section 1."""
    if len(lines) < 2:
        return None
    text = clean_inline(lines[0])
    numbered = _NUMBERED_HEADING.match(text)
    if not numbered or not _title_like(text) or len(text.split()) > 8 or is_field_line(text):
        return None
    after = lines[1].lstrip()
    under = after.startswith(numbered.group(1).rstrip(".") + ".") and _NUMBERED_HEADING.match(after)
    # a bulleted list right under it, not indented more, is its text ("2. СРОКИ РЕАКЦИИ" over
    # "- Устная жалоба ...": a QA pass had section 2 read as an item of section 1's list)
    bullets = after[:1] in BULLETS and after[1:2].isspace() and _indent(lines[1]) <= _indent(lines[0])
    if not under and not bullets and (LIST_MARKER.match(lines[1]) or not after[:1].isupper()):
        return None
    return numbered.group(1).count(".") + 1, text


BULLETS = "•·▪‣◦●○■□►▶➢✓✔*-–—"  # LIST_MARKER's glyphs: an unnumbered item


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _shape(word: str) -> str:
    """"S0" -> "a9", "A-12" -> "a-99": a code's letters and digits."""
    return "".join("9" if ch.isdigit() else "a" if ch.isalpha() else ch for ch in word.lower())


def _capital_titles(lines: list[str]) -> list[str]:
    """The title lines in capitals that open a paragraph with no blank line under them
    ("FAULT DESCRIPTION" over "Category: Plumbing"): a line of prose is rarely all capitals,
    and one whose next line goes on in lower case is a wrapped sentence; a title-case line
    may be a wrapped one too, and stays."""
    titles: list[str] = []
    for line in lines[:-1]:
        text = clean_inline(line)
        if not _capitals_title(text) or is_field_line(text):
            break
        titles.append(text)
    if titles and lines[len(titles)].lstrip()[:1].islower():  # "NASA AND ESA" over "signed it."
        return []
    return titles


def _title_like(line: str) -> bool:
    """Short, with letters, not ending as a sentence or a clause does."""
    return len(line) <= 80 and len(line.split()) <= 12 and not line.endswith((".", ",", ";", ":", "!")) \
        and any(ch.isalpha() for ch in line)


def _capitals_title(line: str) -> bool:
    """A title in capitals, an aside after it in brackets or not ("TIER 2 - CUSTOMER
    RESOLUTION TEAM (ticket code ESC-T2)"): a QA pass had every such title after the first
    read as its section's first sentence, and their passages cited under the section above."""
    main = line[:line.rindex("(")].strip() if line.endswith(")") and "(" in line else line
    return _in_capitals(main) and _title_like(main) and len(main.split()) <= 10 and "|" not in line \
        and not LIST_MARKER.match(line)


def _in_capitals(line: str) -> bool:
    """Three letters or more, all capitals ("FAULT DESCRIPTION", "SOP-07 SCOPE")."""
    letters = [ch for ch in line if ch.isalpha()]
    return len(letters) >= 3 and all(ch.isupper() for ch in letters)


def _is_rule(line: str) -> bool:
    return len(line.strip()) >= 3 and bool(_UNDERLINE.match(line.strip()))


def _cut_at_rules(lines: list[str]) -> list[Block]:
    """A paragraph with rules inside: a form typed in a text file runs its sections'
    titles, their underlines and their fields together without blank lines ("CUSTOMER"
    over "------" over "Customer name: ..."). The line a rule underlines is a heading when
    it reads like a title; the rule itself is decoration and is left out."""
    blocks: list[Block] = []
    current: list[str] = []
    for line in lines:
        if not _is_rule(line):
            current.append(line)
            continue
        title = clean_inline(current[-1]) if current else ""
        if _title_like(title):
            current.pop()
            if current:
                blocks.extend(_paragraph_blocks(current, has_next=True, cut=False))
            blocks.append(Block(kind="heading", text=title, level=1 if line.strip()[0] == "=" else 2))
        elif current:
            blocks.extend(_paragraph_blocks(current, has_next=True, cut=False))
        current = []
    if current:
        blocks.extend(_paragraph_blocks(current, has_next=False, cut=False))
    return blocks


def _aligned_table(lines: list[str]) -> list[list[str]] | None:
    """Rows of a space-aligned table: header line(s), then a rule such as
    "-------  -----" whose dash runs mark where each column starts; None if not a table."""
    rule_at = next((i for i, line in enumerate(lines[:4]) if _COLUMN_RULE.match(line)), None)
    if not rule_at or rule_at + 1 >= len(lines):
        return None
    starts = [m.start() for m in re.finditer(r"-{3,}", lines[rule_at])]

    def cut(line: str) -> list[str]:
        ends = starts[1:] + [max(len(line), starts[-1]) + 1]
        return [line[a:b].strip() for a, b in zip(starts, ends)]

    header = [" ".join(cell for cell in column if cell) for column in zip(*(cut(ln) for ln in lines[:rule_at]))]
    rows = [cut(line) for line in lines[rule_at + 1:] if not _COLUMN_RULE.match(line)]
    table = normalize_rows([header, *rows])
    return table if len(table) >= 2 and len(table[0]) >= 2 else None


def _heading(lines: list[str], has_next: bool) -> tuple[int, str] | None:
    if len(lines) == 2 and _UNDERLINE.match(lines[1].strip()) and len(lines[0]) <= 120:
        return (1 if lines[1].strip()[0] == "=" else 2), clean_inline(lines[0])
    if len(lines) != 1:
        return None
    line = clean_inline(lines[0])
    match = _HASH_HEADING.match(line)
    if match:
        return len(match.group(1)), match.group(2)
    words = line.split()
    if _capitals_title(line):
        return 1, line
    if not _title_like(line):
        return None
    numbered = _NUMBERED_HEADING.match(line)
    if numbered:
        return numbered.group(1).count(".") + 1, line
    if _in_capitals(line):
        return 1, line
    if has_next and line[0].isupper() and not LIST_MARKER.match(line) and len(words) <= 10 \
            and not is_field_line(line):  # "Policyholder: Maria Keller" is a field, not a title
        return 2, line
    return None


WRAPPED_LINE = 40  # characters: a line this long that stops mid-sentence was wrapped, not ended


def _body_blocks(lines: list[str]) -> list[Block]:
    """A paragraph's lines: list items where lines start with a marker, prose otherwise."""
    groups: list[tuple[str, list[str]]] = []
    for line in lines:
        # a hard-wrapped line starting "(14) days" carries on the full line above it
        wrapped = bool(groups) and len(groups[-1][1][-1]) >= WRAPPED_LINE and continues_sentence(groups[-1][1][-1], line)
        if LIST_MARKER.match(line) and not wrapped:
            groups.append(("list_item", [line]))
        elif wrapped:
            groups[-1][1].append(line)
        elif groups and groups[-1][0] == "list_item" and line[:1].isspace():
            groups[-1][1].append(line)  # an indented continuation of the item above
        elif groups and groups[-1][0] == "paragraph":
            groups[-1][1].append(line)
        else:
            groups.append(("paragraph", [line]))
    blocks = []
    for kind, group in groups:
        if kind == "paragraph" and field_lines(group):
            blocks.extend(Block(kind="paragraph", text=clean_inline(line)) for line in group)
            continue
        text = join_lines(group)
        if kind == "list_item":
            text = _BULLET_GLYPH.sub("", text, count=1)
        blocks.append(Block(kind=kind, text=text))
    return blocks


def join_lines(lines: list[str], hyphenated: Collection[str] = ()) -> str:
    """Join wrapped lines with spaces; re-join words hyphenated at a line end, but keep the
    hyphen of an address broken there (`address_broken_at_hyphen`) and of a word the document
    writes with one elsewhere (`hyphenated`, from `hyphenated_words`: "sub-" over "processor"
    read "subcontractor" beside the document's own "sub-contractor", QA pass). Parts are
    collected in a list: growing one string line by line made a 10 MB file take 18 s."""
    parts: list[str] = []
    for line in lines:
        line = clean_inline(line)
        if not line:
            continue
        last = parts[-1] if parts else ""
        if last.endswith("-") and len(last) > 1 and (address_broken_at_hyphen(last, line)
                                                     or _hyphen_kept(last, line, hyphenated)):
            parts[-1] = last + line
        elif last.endswith("-") and len(last) > 1 and last[-2].isalpha() and line[:1].islower():
            parts[-1] = last[:-1] + line
        else:
            parts.append(line)
    return " ".join(parts)


def hyphenated_words(lines: Iterable[str]) -> frozenset[str]:
    """The words a document writes with an inner hyphen ("sub-contractor"), lowercase: where
    one is broken at a line end, its hyphen is the word's own, not the typesetter's."""
    found = set()
    for line in lines:
        for word in line.split():
            word = word.strip(WORD_EDGE).lower()
            pieces = word.split("-")
            if len(pieces) > 1 and all(piece.isalpha() for piece in pieces):
                found.add(word)
    return frozenset(found)


WORD_EDGE = "\"'“”‘’«»()[]{}.,;:!?"  # what stands around a word, not in it


def _hyphen_kept(last: str, line: str, hyphenated: Collection[str]) -> bool:
    if not hyphenated:
        return False
    stub = last.rsplit(" ", 1)[-1].lstrip(WORD_EDGE).lower()
    rest = line.split(" ", 1)[0].strip(WORD_EDGE).lower()
    return f"{stub}{rest}" in hyphenated


def continues_sentence(previous: str, line: str) -> bool:
    """Does `line`, which starts like a numbered list item, carry on the sentence of the line
    above? Legal drafting writes a number twice, "within fourteen" over "(14) days of the
    notice": read as an item, the quote stopped at "fourteen" (a QA pass). Told by the line
    above ending inside a sentence (a letter or digit last, no closing punctuation) and the
    marker being a bracketed number followed by a lowercase word; "(a) the Client" after
    "as follows:" stays an item."""
    head, _, rest = line.strip().partition(" ")
    number = head.removeprefix("(").removesuffix(")")
    return (previous.rstrip()[-1:].isalnum() and head.endswith(")") and number.isdigit()
            and rest[:1].islower())


def address_broken_at_hyphen(line: str, next_line: str) -> bool:
    """A line ending in a hyphen inside an e-mail address, a URL or a domain: the hyphen is
    the address's own ("info@city-" over "library.example"), and dropping it made
    another address. Told by the word before it (holding "@", "://" or "www.") or by the
    word after it reading as a domain."""
    before = line.rsplit(" ", 1)[-1].lower()
    if "@" in before or "://" in before or before.startswith("www."):
        return True
    return _reads_as_domain(next_line.split(" ", 1)[0])


def _reads_as_domain(word: str) -> bool:
    """"library.example", "example.org/help,": labels of letters, digits and hyphens
    joined by dots, the last of letters (so "ment." or "3.5" is no domain)."""
    host = word.rstrip(".,;:!?)]\"'»”").split("/", 1)[0]
    labels = host.split(".")
    return len(labels) >= 2 and labels[-1].isalpha() and \
        all(label and all(ch.isalnum() or ch == "-" for ch in label) for label in labels)
