"""Bytes -> str for the text formats (text, Markdown, HTML), without mangling Cyrillic.

UTF-8 (with or without BOM) and UTF-16 with a BOM are taken as they are; UTF-16 without a
BOM (Windows tools save it) is told from binary by where its NUL bytes fall. Anything else is
decoded with each plausible single-byte codepage (charset-normalizer's guess, cp1251,
koi8-r, cp1252) and the most natural-looking result wins: charset-normalizer alone misreads
short Russian cp1251 texts (e.g. as cp1125 box-drawing characters).
"""

from __future__ import annotations

import codecs
import re

from core.ingest.base import SUPPORTED_HINT, IngestError

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_COMMON_LETTERS = set("оеаинтсрвлкмдпуetaoinshrdlcumwfgypb")
_FALLBACK_CODEPAGES = ("cp1251", "koi8_r", "cp1252")


def looks_binary(data: bytes) -> bool:
    """NUL bytes (outside UTF-16) or many control characters mean "not a text file"."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return False
    if b"\x00" in data:
        return utf16_without_bom(data) is None
    sample = data[:65536]
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13) or b == 127)
    return controls > max(8, len(sample) // 50)


def utf16_without_bom(data: bytes) -> str | None:
    """"utf-16-le" or "utf-16-be" when `data` reads as UTF-16 text without a byte-order
    mark, else None.

    In such text the high byte of every character sits at the same parity (odd for LE,
    even for BE) and takes very few values: NUL for ASCII (spaces, digits, punctuation,
    line ends) and one or two script blocks (0x04 for Cyrillic). Random or structured
    binary spreads its NULs over both parities or its high bytes over many values; what
    passes both must still decode to printable text.
    """
    sample = data[:65536]
    sample = sample[: len(sample) - len(sample) % 2]
    if not sample:
        return None
    evens, odds = sample[0::2], sample[1::2]
    if odds.count(0) >= evens.count(0):
        encoding, high, low = "utf-16-le", odds, evens
    else:
        encoding, high, low = "utf-16-be", evens, odds
    high_nuls = high.count(0)
    if not high_nuls or low.count(0) > high_nuls // 50:
        return None
    # NUL plus the two most common other high bytes (a script block, typographic marks)
    top = sorted((high.count(b) for b in set(high) - {0}), reverse=True)[:2]
    if high_nuls + sum(top) < 0.9 * len(high):
        return None
    text = sample.decode(encoding, errors="replace")
    unprintable = sum(1 for c in text if (not c.isprintable() and c not in "\t\n\r\f") or c == "\ufffd")
    return encoding if unprintable <= max(2, len(text) // 50) else None


def decode_text(data: bytes) -> str:
    """Decode a text file's bytes; raise IngestError for binary content."""
    if looks_binary(data):
        raise IngestError(f"The file contains binary data, not text; {SUPPORTED_HINT}.")
    if data.startswith(codecs.BOM_UTF8):
        text = data[len(codecs.BOM_UTF8):].decode("utf-8", errors="replace")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", errors="replace")
    elif b"\x00" in data and (utf16 := utf16_without_bom(data)):
        text = data.decode(utf16, errors="replace")
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = _decode_legacy(data)
    if "\x00" in text:
        raise IngestError(f"The file contains NUL characters, not text; {SUPPORTED_HINT}.")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def _decode_legacy(data: bytes) -> str:
    candidates: list[str] = []
    try:
        from charset_normalizer import from_bytes

        best = from_bytes(data[:200_000]).best()
        if best is not None and best.encoding:
            candidates.append(best.encoding)
    except Exception:  # noqa: BLE001 - a detector failure must not stop the fallbacks
        pass
    candidates += [c for c in _FALLBACK_CODEPAGES if c not in candidates]
    best_text, best_score = None, -1.0
    for encoding in candidates:
        try:
            text = data.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
        score = _naturalness(text[:20000])
        if score > best_score:
            best_text, best_score = text, score
    if best_text is None:
        best_text = data.decode("utf-8", errors="replace")
    return best_text


def _naturalness(text: str) -> float:
    """How much `text` looks like real prose: letters, lower case, common letters, one
    script per word."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 0.0
    n = len(letters)
    lower = sum(c.islower() for c in letters) / n
    common = sum(c in _COMMON_LETTERS for c in letters) / n
    words = re.findall(r"\w+", text)
    mixed = sum(1 for w in words if _mixes_scripts(w)) / max(len(words), 1)
    return n / len(text) + lower + 2 * common - 3 * mixed


def _mixes_scripts(word: str) -> bool:
    has_cyr = any("\u0400" <= c <= "\u04ff" for c in word)
    has_lat = any(c.isascii() and c.isalpha() for c in word) or any(
        "\u00c0" <= c <= "\u024f" for c in word
    )
    return has_cyr and has_lat
