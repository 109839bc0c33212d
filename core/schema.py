"""Plain dataclasses shared by every stage: Block, Chunk, Citation, Claim, Answer.

They are the contract between parsers, the chunker, the index, the pipeline and the UI.
LlamaIndex objects appear only at the boundaries (embedder adapter, LLM client).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

BLOCK_KINDS = ("heading", "paragraph", "list_item", "table", "code")
ANSWER_STATUSES = ("answered", "narrowed", "refused", "fallback")
VERDICTS = ("supported", "unsupported", "contradicted")
# The formats ingest reads, said by its errors, the uploader, the CLI and the API; here, not in
# core/ingest/, so the console and the API can name them without importing every parser.
# a slide deck's `page` is its slide number (core/ingest/pptx.py): "p. 3" would send a reader
# looking for a page the deck does not have
DECK_SUFFIXES = (".pptx", ".pptm")


def is_deck(source: Any) -> bool:
    return str(source or "").lower().endswith(DECK_SUFFIXES)


def page_label(page: Any, source: str = "") -> str:
    """"p. 3", or "slide 3" when `source` (the file name) is a slide deck; the console and
    the CLI say it alike."""
    if page in (None, -1, ""):
        return "no page"
    return f"slide {page}" if is_deck(source) else f"p. {page}"


SUPPORTED_FORMATS = "PDF, DOCX, RTF, PPTX, Markdown, HTML, text, CSV, TSV, XLSX or a PNG, JPEG or TIFF image"
# kept originals the console shows page by page, and boxes quotes on (an image is a page)
PAGED_SUFFIXES = (".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff")


def is_paged(name: Any) -> bool:
    return str(name or "").lower().endswith(PAGED_SUFFIXES)


@dataclass
class Block:
    """One structural unit of a parsed document, in reading order.

    `char_start/char_end` index into the document's extracted text, which is the
    concatenation of every block's text joined by "\n\n" (see `join_blocks`).
    """

    kind: str
    text: str
    page: int | None = None
    section_path: list[str] = field(default_factory=list)
    bbox: tuple[float, float, float, float] | None = None
    char_start: int = 0
    char_end: int = 0
    level: int = 0  # heading level (1 = top); 0 for non-headings
    rows: list[list[str]] | None = None  # tables: header row first
    # a spreadsheet row read as a paragraph: its key cell ("Case: A-1"), which the chunker
    # puts before every later piece of the block, so a piece cut from the row stays its own
    row_key: str = ""


@dataclass
class ParsedDocument:
    """What a parser returns: blocks plus document-level facts."""

    blocks: list[Block]
    pages: int | None = None
    title: str = ""
    text: str = ""  # the extracted text the blocks' offsets point into
    warnings: list[str] = field(default_factory=list)
    pages_left_out: int = 0  # of `pages`, those whose text is not in the blocks (unreadable, not OCRed)
    # page -> the OCR words of a scanned page (x0, y0, x1, y1, word, block, line), kept so its
    # quotes can be boxed (core/scan_words.py)
    scanned_words: dict[int, list[tuple]] = field(default_factory=dict)
    # page -> degrees clockwise a page fed upside down or sideways was turned to be read
    scanned_turns: dict[int, int] = field(default_factory=dict)


@dataclass
class Chunk:
    doc_id: str
    chunk_id: str
    tenant: str
    text: str
    source: str
    title: str
    page_start: int | None
    page_end: int | None
    section: str
    lang: str
    char_start: int
    char_end: int
    kind: str
    ordinal: int = 0  # position of the chunk within its document
    tokens: int = 0

    def metadata(self) -> dict[str, Any]:
        """Flat metadata for Chroma (no None values: Chroma rejects them)."""
        meta = {k: v for k, v in asdict(self).items() if k != "text"}
        return {k: (-1 if v is None else v) for k, v in meta.items()}


@dataclass
class Citation:
    index: int
    doc_id: str
    chunk_id: str
    source: str
    title: str
    page: int | None
    section: str
    quote: str
    char_start: int  # offsets of `quote` within the chunk text
    char_end: int
    score: float
    rects: list[list[float]] = field(default_factory=list)  # PDF: x0,y0,x1,y1 on `page`


@dataclass
class Claim:
    text: str
    citations: list[int]
    verdict: str
    score: float
    evidence: str
    checks: list[str] = field(default_factory=list)
    reason: str = ""


@dataclass
class Answer:
    question: str
    tenant: str
    status: str
    answer: str
    citations: list[Citation] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    confidence: float = 0.0
    factuality: float = 0.0
    # why it was refused (a refusal only; an answer's caveat is `note`)
    refusal_reason: str | None = None
    # why it was refused, as a code (no_passages, missing_reference, missing_identifier,
    # unknown_name, low_confidence, no_candidate, unknown_tenant) and what it could not find
    refusal_code: str | None = None
    refusal_subject: str | None = None
    closest: list[dict[str, Any]] = field(default_factory=list)
    provider: str = "extractive"
    model: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    trace_id: str = ""
    # top-k passages given to the generator (chunk_id, doc_id, source, rank, page, text);
    # the eval harness scores retrieval from it
    retrieved: list[dict[str, Any]] = field(default_factory=list)
    # a chat follow-up ("What about part-time staff?") read as the whole question it stands
    # for; None when the question was asked as typed
    asked_as: str | None = None
    # what should happen next (core/route.py): auto | human | retry | error
    route: str = "auto"
    # follow-up questions the passages answer (llm provider, llm_suggest_followups)
    suggestions: list[str] = field(default_factory=list)
    # the model-driven steps that ran, with what they did (trace and console)
    steps: dict[str, Any] = field(default_factory=dict)
    # table rows two documents give different values for ("key", and per row its "source" and
    # whether it is out of force: "validity" expired | not_yet | superseded | None, "date", and
    # "by", the document that supersedes it); the note says it
    differences: list[dict[str, Any]] = field(default_factory=list)
    # what to read an answer with: the documents differ, a quoted document is out of force,
    # the premise was corrected, the answer was narrowed or came from quotes because the
    # model failed; None on a refusal
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        data = dict(data)
        data["citations"] = [Citation(**c) for c in data.get("citations", [])]
        data["claims"] = [Claim(**c) for c in data.get("claims", [])]
        if data.get("status") != "refused" and data.get("refusal_reason") and not data.get("note"):
            # stored before answers had a note of their own
            data["note"], data["refusal_reason"] = data["refusal_reason"], None
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def join_blocks(blocks: list[Block]) -> str:
    """Assign char offsets to blocks and return the document text they index into."""
    parts: list[str] = []
    pos = 0
    for block in blocks:
        if parts:
            parts.append("\n\n")
            pos += 2
        block.char_start = pos
        parts.append(block.text)
        pos += len(block.text)
        block.char_end = pos
    return "".join(parts)
