"""Structure-aware chunking: ParsedDocument -> Chunks for the index.

How a document is cut, in order:
1. Blocks are grouped into sections (a heading and the blocks under it, up to the next
   heading). Chunks never span two sections, with one exception: a heading with no body
   of its own (e.g. "Policies" directly followed by "Leave policy", or a document's title
   directly followed by its first section's heading) is carried into the first chunk of
   the next section when that section is its subsection or opens on the heading's page (a
   title slide carried onto the next would cite slide 2's quotes as slide 1), and stays in
   that section's path when it is a parent or the document's title (an empty sibling is
   text of the chunk, not a parent in its path); a chunk of a heading alone took a
   retrieval slot from passages that answer. Any other heading with nothing after it is a
   chunk of its own.
2. Each block is one unit if it fits the budget. A longer block is cut into sentences
   (see `core.ingest.sentences`; a sentence is never cut, except one longer than the
   embedder's limit, which is cut between words), code into lines, and a table into
   pieces of whole rows, each piece starting with the header row and separator.
3. Units are packed greedily up to `settings.chunk_tokens` (capped at
   `MAX_CHUNK_TOKENS`, the embedder's 512-token input limit minus a margin), so a short
   section is one chunk and small blocks of one section share a chunk. A "Q:" entry
   starts a new chunk so a question and its answer stay one unit (as FAQ templates chunk);
   numbered paragraphs ("7-2 ...", "3.1 ...") are packed like any others: a clause of a
   policy or contract leans on its neighbours, and kept alone it lost them (on six written
   development domains, 665 questions: grounded 0.519 -> 0.541, 18 better / 3 worse).
   Two pieces of one table never share a chunk.
4. When prose continues past a chunk boundary, the next chunk repeats up to
   `settings.chunk_overlap` tokens of trailing sentences (a sliding window); tables, list
   items and code are not repeated.
5. Every chunk that does not contain its section's heading starts with that heading line
   ("Leave policy\\n\\n..."), so a list item or a table piece keeps its heading.
6. A chunk that starts inside a block with a `row_key` (a spreadsheet row too long for one
   passage, core/ingest/sheet.py) starts with that key on the same line ("Case: A-1; ..."):
   the piece stays attributable to its row, and the answer step, which reads a sentence
   with its line, reads every sentence of it with the key.

`char_start/char_end` are the offsets in `parsed.text` of the first and last unit the chunk
covers. Because of the heading prefix (and a table piece's repeated header row, a row
piece's key) the chunk text is not always equal to `parsed.text[char_start:char_end]`;
without them it is.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from core.config import Settings
from core.ingest.lang import detect_lang
from core.ingest.sentences import split_sentences
from core.ingest.tokens import (
    MAX_CHUNK_TOKENS,
    count_content_tokens,
    count_tokens,
    token_overhead,
)
from core.schema import Chunk, ParsedDocument

_SELF_CONTAINED = re.compile(
    r"^(?:Q|Question|FAQ|Вопрос)\s*[:.]\s", re.IGNORECASE
)
_WORDS = re.compile(r"\S+")
BLOCK_SEP = "\n\n"
PROGRESS_EVERY = 25  # sections or chunks between progress reports


@dataclass
class _Unit:
    text: str
    start: int  # offsets into parsed.text
    end: int
    block: int  # index of the source block
    kind: str
    page: int | None
    tokens: int  # content tokens (without the embedder's fixed overhead)
    piece: bool = False  # part of a block that was cut (sentence, line, table rows)
    starts_entry: bool = False  # begins a self-contained entry (a "Q:" of an FAQ)


@dataclass
class _Section:
    path: list[str]
    heading: int | None  # block index of the heading that opens the section
    blocks: list[int]  # body block indices


def chunk_document(
    parsed: ParsedDocument,
    *,
    doc_id: str,
    tenant: str,
    source: str,
    settings: Settings | None = None,
    on_progress: Callable[[float], None] | None = None,
) -> list[Chunk]:
    """Cut a parsed document into chunks (see the module docstring for the rules).
    `on_progress(fraction)` is called as sections are packed and chunks counted: a long
    file takes seconds here (the embedder's tokenizer counts every chunk, ~0.6 ms each)."""
    settings = settings or Settings()
    chunker = _Chunker(parsed, settings, on_progress)
    chunks = []
    for ordinal, (units, section, text, tokens) in enumerate(chunker.fitted()):
        pages = [u.page for u in units if u.page is not None]
        chunks.append(Chunk(
            doc_id=doc_id,
            chunk_id=f"{doc_id}:{ordinal:04d}",
            tenant=tenant,
            text=text,
            source=source,
            title=parsed.title,
            page_start=min(pages) if pages else None,
            page_end=max(pages) if pages else None,
            section=" > ".join(section.path),
            lang=detect_lang(text),
            char_start=units[0].start,
            char_end=units[-1].end,
            kind=_dominant_kind(units),
            ordinal=ordinal,
            tokens=tokens,
        ))
    return chunks


class _Chunker:
    def __init__(self, parsed: ParsedDocument, settings: Settings,
                 on_progress: Callable[[float], None] | None = None) -> None:
        self.report = on_progress or (lambda fraction: None)
        self.parsed = parsed
        self.blocks = parsed.blocks
        self.overhead = token_overhead()
        self.limit = max(min(settings.chunk_tokens, MAX_CHUNK_TOKENS), self.overhead + 20)
        self.overlap = max(settings.chunk_overlap, 0)
        self.drafts: list[tuple[list[_Unit], _Section, str]] = []
        self.key_tokens: dict[int, int] = {}  # block index -> tokens of its repeated row key

    def fitted(self):
        """The drafts rendered and counted exactly. Packing uses additive estimates; should
        a chunk still exceed the embedder's limit, it is halved (a safety net)."""
        pending = deque(self.run())
        total, done = len(pending), 0
        while pending:
            units, section, prefix = pending.popleft()
            done += 1
            if done % PROGRESS_EVERY == 0:  # packing was the first half of the work, counting is the second
                self.report(0.5 + 0.5 * min(done / max(total, 1), 1.0))
            text = self.render(units, prefix)
            tokens = count_tokens(text)
            if tokens > MAX_CHUNK_TOKENS:
                body = [i for i, u in enumerate(units) if u.kind != "heading"]
                parts = [units]
                if len(body) > 1:  # split between body units; headings stay with the first
                    half = body[len(body) // 2]
                    parts = [units[:half], units[half:]]
                elif body:
                    i = body[0]
                    pieces = _halve(units[i])
                    if len(pieces) == 2:
                        parts = [units[:i] + pieces[:1], pieces[1:] + units[i + 1:]]
                if len(parts) > 1:
                    pending.extendleft((p, section, self.prefix(p, section)) for p in reversed(parts))
                    continue
            yield units, section, text, tokens

    # --- sections ----------------------------------------------------------------------

    def sections(self) -> list[_Section]:
        sections: list[_Section] = []
        for i, block in enumerate(self.blocks):
            path = list(block.section_path)
            if block.kind == "heading" or not sections or sections[-1].path != path:
                heading = i if block.kind == "heading" else None
                sections.append(_Section(path=path, heading=heading, blocks=[]))
                if heading is not None:
                    continue
            sections[-1].blocks.append(i)
        return sections

    def same_page(self, section: _Section, following: _Section) -> bool:
        """Does the next section open on the heading's page (or are there no pages)? A
        heading carried onto another page or slide would cite the next section's quotes by
        its own page: a deck's title slide made its second slide's quotes read "slide 1"."""
        first = following.heading if following.heading is not None else following.blocks[0]
        return section.heading is None or self.blocks[section.heading].page == self.blocks[first].page

    def run(self) -> list[tuple[list[_Unit], _Section, str]]:
        sections = self.sections()
        carried: list[_Unit] = []  # body-less headings waiting for the next section
        above: list[str] = []  # their section path, kept over the next section's
        for n, section in enumerate(sections):
            head = [self.whole_unit(section.heading)] if section.heading is not None else []
            if not section.blocks and n + 1 < len(sections) and (
                    self.same_page(section, sections[n + 1]) or _is_descendant(sections[n + 1].path, section.path)):
                # a heading alone took a retrieval slot from passages that answer; it opens
                # the next section's first chunk instead ("Policies" over "Leave policy", a
                # document's title over its first section)
                carried += head
                if n == 0 or _is_descendant(sections[n + 1].path, section.path):
                    # a title, or a parent: the path goes on under it. An empty sibling
                    # ("3. Fees" with no text, then "4. Terms") is no parent: its path
                    # read "3. Fees > 4. Terms" (a QA pass)
                    above = _nested(above, section.path)
                continue
            section = _Section(_nested(above, section.path), section.heading, section.blocks)
            if not section.blocks:  # the last section: a heading with nothing after it
                self.drafts.append((carried + head, section, ""))
            else:
                self.pack(section, carried + head)
            carried, above = [], []
            if n % PROGRESS_EVERY == 0:
                self.report(0.5 * n / len(sections))
        return self.drafts

    # --- units ---------------------------------------------------------------------------

    def whole_unit(self, index: int) -> _Unit:
        block = self.blocks[index]
        return _Unit(
            text=block.text, start=block.char_start, end=block.char_end, block=index,
            kind=block.kind, page=block.page, tokens=count_content_tokens(block.text),
            starts_entry=block.kind in ("paragraph", "list_item")
            and bool(_SELF_CONTAINED.match(block.text)),
        )

    def units(self, index: int, budget: int) -> list[_Unit]:
        unit = self.whole_unit(index)
        if unit.tokens <= budget:
            return [unit]
        block = self.blocks[index]
        if block.kind == "table":
            return self.table_pieces(index, budget)
        if block.kind == "code":
            spans = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*\S[^\n]*", block.text)]
        else:
            spans = split_sentences(block.text)
        pieces: list[_Unit] = []
        for start, end in spans:
            pieces.extend(self.span_units(index, start, end, budget))
        if pieces:
            pieces[0].starts_entry = unit.starts_entry
        return pieces

    def span_units(self, index: int, start: int, end: int, budget: int) -> list[_Unit]:
        """One unit for a sentence (or code line); cut between words only if it alone
        exceeds the budget."""
        block = self.blocks[index]
        text = block.text[start:end]
        tokens = count_content_tokens(text)
        if tokens <= budget:
            return [self.piece(index, start, end, tokens)]
        out: list[_Unit] = []
        words = [cut for m in _WORDS.finditer(text)
                 for cut in _word_cuts(block.text, m.start() + start, m.end() + start, budget)]
        run_start, run_tokens, prev_end = None, 0, start
        for w_start, w_end in words:
            cost = count_content_tokens(block.text[w_start:w_end]) + 1
            if run_start is not None and run_tokens + cost > budget:
                out.append(self.piece(index, run_start, prev_end, run_tokens))
                run_start, run_tokens = None, 0
            if run_start is None:
                run_start = w_start
            run_tokens += cost
            prev_end = w_end
        if run_start is not None:
            out.append(self.piece(index, run_start, prev_end, run_tokens))
        return out

    def piece(self, index: int, start: int, end: int, tokens: int) -> _Unit:
        block = self.blocks[index]
        return _Unit(
            text=block.text[start:end], start=block.char_start + start,
            end=block.char_start + end, block=index, kind=block.kind, page=block.page,
            tokens=tokens, piece=True,
        )

    def table_pieces(self, index: int, budget: int) -> list[_Unit]:
        """Whole rows per piece; every piece starts with the header row and separator."""
        block = self.blocks[index]
        lines = block.text.split("\n")
        offsets, pos = [], 0
        for line in lines:
            offsets.append(pos)
            pos += len(line) + 1
        header_lines = 2 if len(lines) > 2 and set(lines[1]) <= set("|-: ") else 1
        header = "\n".join(lines[:header_lines])
        header_tokens = count_content_tokens(header) + 1
        pieces: list[_Unit] = []
        rows: list[int] = []
        rows_tokens = 0

        def flush() -> None:
            first, last = rows[0], rows[-1]
            start = 0 if not pieces else offsets[first]
            end = offsets[last] + len(lines[last])
            text = header + "\n" + "\n".join(lines[first:last + 1])
            pieces.append(_Unit(
                text=text, start=block.char_start + start, end=block.char_start + end,
                block=index, kind="table", page=block.page,
                tokens=header_tokens + rows_tokens, piece=True,
            ))

        for r in range(header_lines, len(lines)):
            cost = count_content_tokens(lines[r]) + 1
            if rows and header_tokens + rows_tokens + cost > budget:
                flush()
                rows, rows_tokens = [], 0
            rows.append(r)
            rows_tokens += cost
        if rows:
            flush()
        return pieces or [self.whole_unit(index)]

    # --- packing -------------------------------------------------------------------------

    def pack(self, section: _Section, lead: list[_Unit]) -> None:
        heading_text = section.path[-1] if section.path else ""
        prefix_tokens = count_content_tokens(heading_text) + 2 if heading_text else 0
        budget = self.limit - self.overhead - prefix_tokens  # what a chunk's body may hold
        # a piece of a long row may be preceded by the row's key: room is kept for it
        units = [u for i in section.blocks for u in self.units(i, budget - self.key_cost(i))]
        current: list[_Unit] = list(lead)
        for unit in units:
            body = [u for u in current if u.kind != "heading"]
            fits = self.cost(current, section) + unit.tokens + 1 <= self.limit - self.overhead
            same_table = unit.kind == "table" and any(
                u.block == unit.block and u.kind == "table" for u in current)
            if body and (not fits or unit.starts_entry or same_table):
                self.emit(current, section)
                current = [] if (unit.starts_entry or same_table) else self.carry(body, unit)
            elif not body and current and not fits:
                self.emit(current, section)  # only carried headings: let them stand alone
                current = []
            current.append(unit)
        if current:
            self.emit(current, section)

    def cost(self, units: list[_Unit], section: _Section) -> int:
        tokens = sum(u.tokens + 1 for u in units)
        if self.prefix(units, section):
            tokens += count_content_tokens(section.path[-1]) + 2
        if self.row_key(units):
            tokens += self.key_cost(units[0].block)
        return tokens

    def row_key(self, units: list[_Unit]) -> str:
        """The row key to start the chunk with ("Case: A-1; "): its first unit is a later
        piece of a block that has one."""
        if not units:
            return ""
        block = self.blocks[units[0].block]
        return f"{block.row_key}; " if block.row_key and units[0].start > block.char_start else ""

    def key_cost(self, index: int) -> int:
        if index not in self.key_tokens:
            key = self.blocks[index].row_key
            self.key_tokens[index] = count_content_tokens(f"{key};") + 1 if key else 0
        return self.key_tokens[index]

    def carry(self, body: list[_Unit], unit: _Unit) -> list[_Unit]:
        """Trailing prose of the previous chunk to repeat before `unit` (the overlap)."""
        if unit.kind != "paragraph" or self.overlap <= 0:
            return []
        carried: list[_Unit] = []
        tokens = 0
        for prev in reversed(body[1:]):  # never the whole previous chunk
            if prev.kind != "paragraph" or tokens + prev.tokens > self.overlap:
                break
            carried.insert(0, prev)
            tokens += prev.tokens
        while carried and tokens + unit.tokens + 2 + self.key_cost(carried[0].block) > \
                self.limit - self.overhead - 12:
            tokens -= carried.pop(0).tokens
        return carried

    def prefix(self, units: list[_Unit], section: _Section) -> str:
        """The heading line to put first, unless the chunk holds the heading itself."""
        if not section.path:
            return ""
        if section.heading is not None and any(u.block == section.heading for u in units):
            return ""
        if units and units[0].kind == "heading":
            return ""
        return section.path[-1]

    def emit(self, units: list[_Unit], section: _Section) -> None:
        if units:
            self.drafts.append((units, section, self.prefix(units, section)))

    def render(self, units: list[_Unit], prefix: str) -> str:
        parts = [units[0].text]
        for prev, unit in zip(units, units[1:], strict=False):
            gap = self.parsed.text[prev.end:unit.start]
            parts.append(gap if gap and not gap.strip() else BLOCK_SEP)
            parts.append(unit.text)
        body = self.row_key(units) + "".join(parts)
        return f"{prefix}{BLOCK_SEP}{body}" if prefix else body


def _halve(unit: _Unit) -> list[_Unit]:
    """Cut one unit in two: between sentences if it has several, else between words;
    a table between rows, both halves keeping the header. Offsets stay exact."""
    if unit.kind == "table":
        lines = unit.text.split("\n")
        header = 2 if len(lines) > 2 and set(lines[1]) <= set("|-: ") else 1
        rows = lines[header:]
        if len(rows) < 2:
            return [unit]
        mid = len(rows) // 2
        head = "\n".join(lines[:header])
        first_rows, second_rows = "\n".join(rows[:mid]), "\n".join(rows[mid:])
        second_start = unit.end - len(second_rows)
        return [
            _Unit(f"{head}\n{first_rows}", unit.start, second_start - 1, unit.block, "table",
                  unit.page, unit.tokens // 2, piece=True),
            _Unit(f"{head}\n{second_rows}", second_start, unit.end, unit.block, "table",
                  unit.page, unit.tokens // 2, piece=True),
        ]
    spans = split_sentences(unit.text)
    if len(spans) < 2:
        spans = [(m.start(), m.end()) for m in _WORDS.finditer(unit.text)]
    if len(spans) < 2 and len(unit.text) > 1:  # one "word" (a log line, a base64 blob): its halves
        half = len(unit.text) // 2
        spans = [(0, half), (half, len(unit.text))]
    if len(spans) < 2:
        return [unit]
    mid = len(spans) // 2
    cuts = [(spans[0][0], spans[mid - 1][1]), (spans[mid][0], spans[-1][1])]
    return [
        _Unit(unit.text[a:b], unit.start + a, unit.start + b, unit.block, unit.kind, unit.page,
              unit.tokens // 2, piece=True, starts_entry=unit.starts_entry and a == 0)
        for a, b in cuts
    ]


def _word_cuts(text: str, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """A word as one span, or, when it alone is over the budget (40,000 characters without a
    space: a log line, an encoded blob), as runs of characters that fit: else it became one
    chunk of 30,000 tokens, shown whole as a "closest passage"."""
    tokens = count_content_tokens(text[start:end])
    if tokens <= budget:
        return [(start, end)]
    step = max(1, (end - start) * budget * 4 // (5 * tokens))
    return [(a, min(a + step, end)) for a in range(start, end, step)]


def _is_descendant(path: list[str], parent: list[str]) -> bool:
    return len(path) > len(parent) and path[: len(parent)] == parent


def _nested(above: list[str], path: list[str]) -> list[str]:
    """`path` under the path of body-less headings before it: ["Policies"] and ["Policies",
    "Leave"] give ["Policies", "Leave"]; a title's ["Aftercare"] and ["Wound care"] give
    ["Aftercare", "Wound care"]."""
    shared = 0
    while shared < min(len(above), len(path)) and above[shared] == path[shared]:
        shared += 1
    return above + path[shared:]


def _dominant_kind(units: list[_Unit]) -> str:
    if any(u.kind == "table" for u in units):
        return "table"
    weights: dict[str, int] = {}
    for u in units:
        if u.kind != "heading":
            weights[u.kind] = weights.get(u.kind, 0) + u.tokens + 1
    return max(weights, key=weights.get) if weights else "heading"

