"""Ingest: file -> Blocks (one parser per format) -> Chunks (structure-aware).

    fmt = detect_format(path)              # what the bytes are, not what the name says
    parsed = parse_file(path, settings)    # ParsedDocument, or IngestError (one sentence)
    chunks = chunk_document(parsed, doc_id=..., tenant=..., source=path.name,
                            settings=settings)

Parsers are registered in `PARSERS` by format name; a new format is a class with one
`parse(path, on_page=None) -> ParsedDocument` method and a line in that dict (plus a rule in
`detect_format`).
"""

from __future__ import annotations

import codecs
import re
import zipfile
from pathlib import Path

import filetype

from core.config import Settings
from core.ingest.base import (
    NOT_DOCX,
    NOT_PDF,
    NOT_PPTX,
    NOT_XLSX,
    SUPPORTED_HINT,
    IngestCancelled,
    IngestError,
    PageProgress,
    Parser,
)
from core.ingest.chunk import chunk_document
from core.ingest.decode import looks_binary
from core.ingest.docx import DocxParser
from core.ingest.encoded import encoded_message, looks_encoded
from core.ingest.html import HtmlParser
from core.ingest.image import ImageParser
from core.ingest.markdown import MarkdownParser
from core.ingest.ocr import page_reader, why_no_reader
from core.ingest.pdf import PdfParser
from core.ingest.pptx import PptxParser
from core.ingest.rtf import MAGIC as RTF_MAGIC
from core.ingest.rtf import NOT_RTF, RtfParser
from core.ingest.sheet import CsvParser
from core.ingest.text import TextParser
from core.ingest.xlsx import XlsxParser
from core.schema import ParsedDocument

__all__ = [
    "FOLDER_SUFFIXES", "FORMAT_NAMES", "PARSERS", "IngestCancelled", "IngestError", "Parser", "chunk_document",
    "detect_format", "parse_file",
]

PARSERS: dict[str, Parser] = {
    "pdf": PdfParser(),
    "docx": DocxParser(),
    "markdown": MarkdownParser(),
    "html": HtmlParser(),
    "text": TextParser(),
    "csv": CsvParser(),  # CSV and TSV: the delimiter is found in the text, not the name
    "xlsx": XlsxParser(),
    "pptx": PptxParser(),
    "rtf": RtfParser(),  # Word's "Rich Text", and many an old .doc
    # photos and scans of pages: read by OCR only, so parse_file gives them the settings' reader
    "png": ImageParser(),
    "jpeg": ImageParser(),
    "tiff": ImageParser(),
}
FORMAT_NAMES = {"pdf": "PDF", "docx": "DOCX", "markdown": "Markdown", "html": "HTML",
                "text": "text", "csv": "CSV", "xlsx": "XLSX", "pptx": "PPTX", "rtf": "RTF", "png": "PNG image", "jpeg": "JPEG image", "tiff": "TIFF image"}

MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdown", ".mkd"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
SHEET_SUFFIXES = {".csv", ".tsv"}
XLSX_SUFFIXES = {".xlsx", ".xlsm"}
PPTX_SUFFIXES = {".pptx", ".pptm"}
_TEXT_SUFFIXES = {".txt", ".text", ""} | MARKDOWN_SUFFIXES | HTML_SUFFIXES | SHEET_SUFFIXES
_SNIFF_BYTES = 65536
# Said with what to do: "The file is empty." alone left the user guessing whether to retry.
EMPTY = "The file is empty (0 bytes); check that you picked the right file and upload it again."
NO_TEXT = "The file contains no text; check that it is the document you meant and upload it again."
# A name that promises a binary format: when the bytes are read as text instead and fail,
# the file is a damaged PDF/DOCX, and "not text" would only confuse the user.
_NAMED_BINARY = {".pdf": ("pdf", NOT_PDF), ".docx": ("docx", NOT_DOCX), ".xlsx": ("xlsx", NOT_XLSX),
                 ".xlsm": ("xlsx", NOT_XLSX), ".pptx": ("pptx", NOT_PPTX), ".pptm": ("pptx", NOT_PPTX),
                 ".rtf": ("rtf", NOT_RTF)}
# Office names that promise a zip
_NAMED_ZIP = {".docx": NOT_DOCX, ".xlsx": NOT_XLSX, ".xlsm": NOT_XLSX, ".pptx": NOT_PPTX, ".pptm": NOT_PPTX}
_PDF_OBJECT = re.compile(rb"\d+\s+\d+\s+obj\b")
# photos and scans of pages, by their first bytes (JPEG, PNG, TIFF in both byte orders)
_IMAGE_MAGIC = ((b"\xff\xd8\xff", "jpeg"), (b"\x89PNG\r\n\x1a\n", "png"), (b"II*\x00", "tiff"), (b"MM\x00*", "tiff"))
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}
IMAGE_FORMATS = {"png", "jpeg", "tiff"}
# documents whose formats are not read here (an old ".doc" is often RTF, and read)
UNREAD_DOCUMENTS = (".doc", ".xls", ".ppt", ".pps", ".ppsx", ".odt", ".ods", ".odp", ".epub")
# the names a folder ingest picks up: every name a format read here goes by, and the
# documents not read here, each refused in one sentence saying what to save it as: better
# than being skipped without a word while the same file named directly is refused
FOLDER_SUFFIXES = frozenset((_TEXT_SUFFIXES - {""}) | set(_NAMED_BINARY) | IMAGE_SUFFIXES | set(UNREAD_DOCUMENTS))
# the format a file's name promises, for the note when its bytes hold another (a TIFF named
# .png, a workbook named .csv); .txt and a missing suffix promise nothing in particular
_PROMISED = {**{suffix: fmt for suffix, (fmt, _) in _NAMED_BINARY.items()},
             ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg", ".tif": "tiff", ".tiff": "tiff",
             **dict.fromkeys(SHEET_SUFFIXES, "csv"), **dict.fromkeys(MARKDOWN_SUFFIXES, "markdown"),
             ".txt": "text"}
# names of programs, archives and media (binary formats not read here): a file so named that
# holds text is read as the text it is, with the same note as a .pdf of text, since the
# admin should know the name misleads (a log renamed .exe, notes saved as .doc); holding
# binary data, it is refused ("Unsupported file type '.exe'; ...")
_BINARY_NAMES = frozenset({
    ".exe", ".dll", ".msi", ".sys", ".so", ".dylib", ".bin", ".class", ".jar", ".war", ".apk", ".ipa",
    ".dmg", ".iso", ".img", ".pyc", ".wasm", ".deb", ".rpm",  # programs, libraries, disk images
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".cab",  # archives
    *UNREAD_DOCUMENTS,
    ".gif", ".webp", ".bmp", ".heic", ".heif", ".avif", ".ico", ".psd",  # images not read here
    ".mp3", ".mp4", ".m4a", ".wav", ".flac", ".ogg", ".mov", ".avi", ".mkv", ".webm", ".sqlite",
})
_TEXT_FORMATS = ("text", "markdown", "html", "csv")
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_HTML_START = re.compile(
    rb"^(?:\s|<\?xml[^>]*>|<!--.*?-->)*<(?:!doctype\s+html|html[\s>])", re.IGNORECASE | re.DOTALL
)


def _binary_kind(head: bytes) -> str | None:
    """What binary data is, when its magic bytes say ("a program (ELF)", "an archive (GZ)",
    "audio (MP3)"), or None (data no signature names: a damaged document, say)."""
    kind = filetype.guess(head)
    if kind is None:
        return None
    name = kind.extension.upper()
    if kind.mime in ("application/x-executable", "application/x-msdownload", "application/x-mach-binary",
                     "application/x-sharedlib", "application/wasm"):
        return f"a program ({name})"
    if kind.mime.startswith(("audio/", "video/")):
        return f"{kind.mime.split('/')[0]} ({name})"
    if kind.mime.startswith("application/") and kind.extension in (
            "gz", "bz2", "xz", "zst", "7z", "rar", "tar", "cab", "lz", "lz4", "Z"):
        return f"an archive ({name})"
    return None


def detect_format(path: Path) -> str:
    """Format of the file by its content: "pdf", "docx", "xlsx", "pptx", "png", "jpeg",
    "tiff", "markdown", "html", "csv" or "text".

    Magic bytes win over the file name (a PDF named .txt is a PDF; a .pdf holding plain
    text is text, as is a .exe or .zip of text; DOCX, XLSX and PPTX, all zips, by the part
    they hold). Markdown and CSV/TSV are told from text by the extension only. Raises
    IngestError for empty, binary or unsupported files. `parse_file` notes a name that
    promises another format than the bytes hold.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        with path.open("rb") as f:
            head = f.read(_SNIFF_BYTES)
    except FileNotFoundError:
        raise IngestError(f"File not found: {path.name}.") from None
    except IsADirectoryError:
        raise IngestError(f"{path.name} is a folder, not a file.") from None
    except OSError as exc:
        raise IngestError(f"The file could not be read ({exc.strerror}).") from None
    if not head.strip():
        raise IngestError(EMPTY if not head else NO_TEXT)
    marker = head.find(b"%PDF-", 0, 1024)
    # A PDF may start with some junk bytes; a text that merely mentions "%PDF-" is no PDF.
    if marker == 0 or (marker > 0 and _PDF_OBJECT.search(head, marker)):
        return "pdf"
    if head.lstrip().startswith(RTF_MAGIC):  # by its bytes, whatever the name: an old ".doc" is often RTF
        return "rtf"
    if head.startswith(b"PK\x03\x04"):
        return _sniff_zip(path, suffix)
    for magic, fmt in _IMAGE_MAGIC:
        if head.startswith(magic):
            return fmt
    if head.startswith(_OLE2_MAGIC):  # also what Office makes of a password-protected file
        if suffix in XLSX_SUFFIXES | {".xls"}:
            raise IngestError(
                "This is a legacy Excel file (.xls) or a password-protected workbook; save it as "
                "an unprotected XLSX (or CSV) and upload it again."
            )
        if suffix in PPTX_SUFFIXES | {".ppt", ".pps", ".ppsx"}:
            raise IngestError(
                "This is a legacy PowerPoint file (.ppt) or a password-protected presentation; save it as "
                "an unprotected PPTX and upload it again."
            )
        raise IngestError(
            "This is a legacy Office file (.doc/.xls) or a password-protected document; "
            "save it as an unprotected DOCX and upload it again."
        )
    if looks_binary(head):
        other = _other_image(head)
        if other:
            named = f" (named '{suffix}')" if suffix in _PROMISED else ""  # a name promising a format read here
            raise IngestError(f"This file is {other}{named}, which is not read here; save it as PNG, JPEG "
                              "or TIFF and upload that.")
        if suffix in _NAMED_BINARY:
            actual = _binary_kind(head)
            if actual:  # "it may be damaged, open it in Word" sent the admin to repair a program
                raise IngestError(f"The file is named '{suffix}' but holds {actual}, not a document; "
                                  "upload the document itself.")
            raise IngestError(_NAMED_BINARY[suffix][1])
        if suffix in SHEET_SUFFIXES and not looks_binary(head.replace(b"\x00", b"")):
            return "csv"  # text with a stray NUL: the parser says on which line
        if suffix in _TEXT_SUFFIXES and suffix:
            raise IngestError(
                f"The file is named '{suffix}' but contains binary data; {SUPPORTED_HINT}."
            )
        return _unsupported(suffix)
    start = head
    for bom in (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        if start.startswith(bom):
            start = start[len(bom):]
            break
    if start[:2] and b"\x00" in start[:200]:
        start = start.replace(b"\x00", b"")  # UTF-16: sniff the ASCII-compatible bytes
    if _HTML_START.match(start[:4096]) or suffix in HTML_SUFFIXES:
        return "html"
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in SHEET_SUFFIXES:
        return "csv"
    return "text"


def parse_file(path: Path, settings: Settings | None = None, on_page: PageProgress | None = None,
               name: str | None = None) -> ParsedDocument:
    """Parse a file into a ParsedDocument; every failure is an IngestError (one sentence).
    `on_page(done, pages)` follows a paged file (PDF) page by page. `name` is the name the
    file was given, when `path` is a copy under another (a re-index reads the kept original,
    saved under its true extension): the note that a name misleads is about that name."""
    settings = settings or Settings()
    path = Path(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise IngestError(f"File not found: {path.name}.") from None
    limit = settings.max_file_mb * 1024 * 1024
    if size > limit:
        raise IngestError(
            f"File is {_megabytes(size)} MB; the limit is {settings.max_file_mb} MB."
        )
    fmt = detect_format(path)
    # the PDF and image parsers read scans with the OCR the settings allow; the others need no settings
    parser = (PdfParser(page_reader(settings), why_no_reader(settings)) if fmt == "pdf"
              else ImageParser(page_reader(settings), why_no_reader(settings)) if fmt in IMAGE_FORMATS
              else PARSERS[fmt])
    try:
        parsed = parser.parse(path, on_page)
    except IngestCancelled:
        raise  # the client's cancel, between two pages: no failure of the file's
    except IngestError:
        named, damaged = _NAMED_BINARY.get(path.suffix.lower(), (fmt, ""))
        if named != fmt:
            raise IngestError(damaged) from None
        raise
    except MemoryError:
        raise IngestError("The file is too large to process; split it and upload the parts.") \
            from None
    except Exception as exc:  # noqa: BLE001 - user files must fail with a message, not crash
        raise IngestError(
            f"The file could not be read as {FORMAT_NAMES[fmt]} ({type(exc).__name__}); "
            "check that it opens in its usual program and upload it again."
        ) from exc
    if not parsed.blocks:
        raise IngestError(NO_TEXT)
    if fmt in ("text", "markdown", "html") and looks_encoded(parsed.text):  # a CSV's rows may hold no space
        raise IngestError(encoded_message(parsed.text))
    suffix = Path(name).suffix.lower() if name else path.suffix.lower()
    named = _PROMISED.get(suffix) or ("binary" if suffix in _BINARY_NAMES else fmt)
    # a ".txt" of Markdown, HTML or CSV is text all the same; one holding a Word file is not
    if named != fmt and not (named == "text" and fmt in _TEXT_FORMATS):  # the admin should know the name misleads
        parsed.warnings.insert(0, f"The file is named '{suffix}' but holds {_a(FORMAT_NAMES[fmt])}; "
                                  f"it was read as {_a(FORMAT_NAMES[fmt])}.")  # about the whole file: first
    return parsed


def _a(format_name: str) -> str:
    """"a TIFF image", but "XLSX", "PDF", "text" as they are."""
    return f"a {format_name}" if format_name.endswith(" image") else format_name


def _sniff_zip(path: Path, suffix: str) -> str:
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        if suffix in _NAMED_ZIP:
            raise IngestError(_NAMED_ZIP[suffix]) from None
        return _unsupported(suffix or ".zip")
    if "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names:
        return "xlsx"
    if "ppt/presentation.xml" in names:
        return "pptx"
    if suffix in _NAMED_ZIP:
        raise IngestError(_NAMED_ZIP[suffix])
    return _unsupported(suffix or ".zip")


def _other_image(head: bytes) -> str:
    """The kind of an image format not read here, by its magic bytes: a GIF or WEBP named
    .png was told "upload a PNG" (QA pass), and phones save HEIC."""
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "a GIF image"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "a WEBP image"
    if head[:2] == b"BM" and len(head) > 26 and head[6:10] == b"\0\0\0\0":  # reserved bytes are zero
        return "a BMP image"
    if head[4:8] == b"ftyp" and head[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"hevc", b"avif"):
        return "an AVIF image" if head[8:12] == b"avif" else "a HEIC photo"
    return ""


def _unsupported(suffix: str) -> str:
    kind = f"'{suffix}'" if suffix else "(binary content)"
    raise IngestError(f"Unsupported file type {kind}; {SUPPORTED_HINT}.")


def _megabytes(size: int) -> str:
    mb = size / (1024 * 1024)
    return f"{mb:.0f}" if mb >= 10 else f"{mb:.1f}"
