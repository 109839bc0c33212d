"""Format sniffing by content and the one-sentence errors users see."""

from __future__ import annotations

import os

import pymupdf
import pytest

from core.config import Settings
from core.ingest import PARSERS, IngestError, detect_format, parse_file


def _pdf_bytes(text: str) -> bytes:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    return doc.tobytes()


def test_registry_has_every_format():
    assert set(PARSERS) == {"pdf", "docx", "markdown", "html", "text", "csv", "xlsx", "pptx", "rtf", "png", "jpeg", "tiff"}
    assert all(callable(getattr(p, "parse", None)) for p in PARSERS.values())


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("report.txt", _pdf_bytes("Real PDF inside."), "pdf"),  # mislabelled PDF
        ("notes.pdf", b"Plain text pretending to be a PDF.\n", "text"),
        ("page.htm", b"<p>Fragment</p>", "html"),
        ("page.dat", b"  <!doctype html><html><body><p>x</p></body></html>", "html"),
        ("readme.md", b"# Title\n\nBody.", "markdown"),
        ("readme.md", b"<!DOCTYPE html><html><body>x</body></html>", "html"),
        ("notes", b"No extension at all.", "text"),
        ("about.md", b"Mentions <html> later, but starts as Markdown.", "markdown"),
        ("spec.txt", b"A PDF file starts with %PDF-1.7 and a binary comment.", "text"),
        ("scan.bin", b"\xff\xd8\xff\xe0\x00\x10JFIF" + b"\x00" * 32, "jpeg"),  # images by their first bytes
        ("photo.txt", b"\x89PNG\r\n\x1a\n" + b"\x00" * 32, "png"),
        ("fax", b"II*\x00" + b"\x00" * 32, "tiff"),
        ("fax.tif", b"MM\x00*" + b"\x00" * 32, "tiff"),
    ],
)
def test_detect_format_by_content(write_file, name, content, expected):
    assert detect_format(write_file(name, content)) == expected


def test_pdf_with_leading_junk_is_still_a_pdf(write_file):
    path = write_file("mail.bin", b"Content-Type: application/pdf\r\n\r\n" + _pdf_bytes("Attached."))
    assert detect_format(path) == "pdf"
    assert "Attached." in parse_file(path).text


def test_mislabelled_files_parse_as_what_they_are(write_file):
    assert "Real PDF inside." in parse_file(write_file("report.txt", _pdf_bytes("Real PDF inside."))).text
    parsed = parse_file(write_file("notes.pdf", b"Plain text pretending to be a PDF.\n"))
    assert parsed.text == "Plain text pretending to be a PDF."
    assert parsed.pages is None
    # read by content, but the upload result says the name misleads
    assert parsed.warnings == ["The file is named '.pdf' but holds text; it was read as text."]
    named_md = parse_file(write_file("notes.md", _pdf_bytes("A PDF saved as notes.")))
    assert named_md.warnings[0] == "The file is named '.md' but holds PDF; it was read as PDF."
    # the QA pass: a .txt holding a PDF or a Word file was read as one with no word said, while a
    # .pdf of text was told; a .txt of Markdown, HTML or CSV is text all the same
    assert parse_file(write_file("notes.txt", _pdf_bytes("A PDF saved as text."))).warnings[0] == \
        "The file is named '.txt' but holds PDF; it was read as PDF."
    for name, content in (("readme.txt", "# Notes\n\nThe key is in the drawer.\n"),
                          ("page.txt", "<html><body><p>The key is in the drawer.</p></body></html>"),
                          ("list.txt", "Name,Bin\nKey,A2\nLock,B1\n")):
        assert not [w for w in parse_file(write_file(name, content)).warnings if "named" in w], name


@pytest.mark.parametrize("name", ["tool.exe", "archive.zip", "report.doc", "clip.gif"])
def test_text_named_as_a_program_or_another_binary_format_is_read_with_a_note(write_file, name):
    """A .pdf of text was noted, a tool.exe of text indexed with no word said (QA pass): a
    name promising a binary format not read here misleads as much; binary, it is refused."""
    parsed = parse_file(write_file(name, b"Restart the pump before noon.\n"))
    assert parsed.text == "Restart the pump before noon."
    suffix = "." + name.rsplit(".", 1)[1]
    assert parsed.warnings == [f"The file is named '{suffix}' but holds text; it was read as text."]
    # text-like names promise nothing else: no note
    for plain in ("notes.log", "config.json", "script.py", "notes"):
        assert not [w for w in parse_file(write_file(plain, "Restart the pump.\n")).warnings if "named" in w]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.txt", b"", r"^The file is empty \(0 bytes\); check that you picked the right file"),
        ("blank.md", b" \n\n \t\n", r"^The file contains no text; check that it is the document you meant"),
        ("tool.exe", b"MZ\x90\x00\x03\x00\x00\x00" + bytes(range(256)) * 4,
         r"^Unsupported file type '\.exe'; upload PDF, DOCX, RTF, PPTX, Markdown, HTML, text, CSV, TSV, XLSX or a PNG, JPEG or TIFF image\.$"),
        ("blob", os.urandom(4096) + b"\x00",
         r"^Unsupported file type \(binary content\); upload PDF"),
        ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 64,  # a PNG cut off in its header
         r"^The file is not a readable image \(it may be damaged\)"),
        ("notes.txt", b"Hello\x00world, a NUL byte", r"named '\.txt' but contains binary data"),
        ("garbage.pdf", b"\x01\x02\x03\x00garbage", r"^The file is not a valid PDF"),
        # a program renamed .docx is no damaged document to open in Word (a QA pass)
        ("pricing_update.docx", b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4,
         r"^The file is named '\.docx' but holds a program \(ELF\), not a document; upload the document itself\.$"),
        ("report.pdf", b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4, r"^The file is named '\.pdf' but holds an archive \(GZ\)"),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512, r"legacy Office file"),
        # an image format not read here says what it is, not "upload a PNG" of a file named .png
        ("photo.png", b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + b"\x00" * 64,
         r"^This file is a GIF image \(named '\.png'\), which is not read here; save it as PNG, JPEG or TIFF"),
        ("photo.png", b"RIFF\x24\x00\x00\x00WEBPVP8 " + b"\x00" * 64, r"^This file is a WEBP image"),
        ("IMG_0001.jpg", b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00" + b"\x00" * 64, r"^This file is a HEIC photo"),
        ("scan.bmp", b"BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00" + b"\x00" * 64, r"^This file is a BMP image"),
    ],
)
def test_clear_errors(write_file, name, content, message):
    with pytest.raises(IngestError, match=message) as info:
        parse_file(write_file(name, content))
    text = str(info.value)
    assert text.endswith(".") and "\n" not in text  # one sentence, no traceback


def test_file_size_limit(write_file):
    path = write_file("big.txt", b"word " * (300 * 1024))  # 1.5 MB
    settings = Settings(max_file_mb=1)
    with pytest.raises(IngestError, match=r"^File is 1\.5 MB; the limit is 1 MB\.$"):
        parse_file(path, settings)


def test_missing_file(tmp_path):
    with pytest.raises(IngestError, match="File not found"):
        parse_file(tmp_path / "nope.pdf")


def test_parser_crash_becomes_ingest_error(write_file, monkeypatch):
    class Exploding:
        def parse(self, path, on_page=None):
            raise RuntimeError("boom")

    monkeypatch.setitem(PARSERS, "text", Exploding())
    with pytest.raises(IngestError, match=r"could not be read as text \(RuntimeError\)"):
        parse_file(write_file("a.txt", "hello"))


def test_encoded_data_saved_as_text_is_refused_as_no_readable_text(write_file):
    """QA pass: a base64 photo saved as a .txt was refused as "too long to index ... split it
    into smaller files", which would only make smaller blobs. Prose with long URLs and a CSV
    of rows without spaces are read."""
    import base64
    import random

    blob = base64.encodebytes(random.Random(3).randbytes(60_000)).decode()  # 76-character lines
    with pytest.raises(IngestError, match=r"no readable text: 100% of it is unbroken runs .*base64"):
        parse_file(write_file("photo.txt", blob))
    with pytest.raises(IngestError, match="no readable text"):
        parse_file(write_file("photo.md", "# Photo\n\n" + blob.replace("\n", "")))
    url = "https://example.org/" + "a" * 80
    prose = " ".join(f"Guests read {url} before arrival, as the desk explains." for _ in range(40))
    assert parse_file(write_file("notes.txt", prose)).blocks
    rows = "\n".join(f"2025-01-{d:02d},ROOM-{d}{'0' * 60},12.50,settled" for d in range(1, 29))
    assert parse_file(write_file("export.csv", "date,room,amount,state\n" + rows)).blocks
