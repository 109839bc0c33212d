"""References a question makes to the documents' structure: a numbered section,
paragraph or clause ("section 14", «пункт 9.3»), an appendix, a page."""

from __future__ import annotations

import re

SECTION_REF_RE = re.compile(
    r"(?:\bsection|\bparagraph|\bpara|\bclause|\bchapter|\barticle|§|\bпункт\w*|\bраздел\w*|\bглав\w*|"
    r"\bстать\w*|\bп\.)\s*(\d+(?:[.\-]\d+)*)", re.IGNORECASE)


def section_refs(question: str) -> list[str]:
    """Numbers the question cites as a section, paragraph or clause ("section 14", "пункт 9.3")."""
    return SECTION_REF_RE.findall(question)


APPENDIX_RE = re.compile(r"\b(?:appendix|annex|attachment|schedule|приложени\w*)\s+([A-Z]|\d+)\b", re.IGNORECASE)
PAGE_REF_RE = re.compile(r"\b(?:page|p\.|стр\.|страниц\w*)\s*(\d{1,4})\b", re.IGNORECASE)


def appendix_refs(question: str) -> list[str]:
    """Appendices or annexes the question cites ("Appendix C"), as written."""
    return [m.group(0) for m in APPENDIX_RE.finditer(question)]


def page_refs(question: str) -> list[int]:
    """Page numbers the question cites ("on page 12")."""
    return [int(n) for n in PAGE_REF_RE.findall(question)]


def without_references(text: str) -> str:
    """The text with its references to the documents' structure blanked ("What does section 4
    say?" -> "What does  say?"): "section" or «пункте» there names a place, not a topic."""
    for pattern in (SECTION_REF_RE, APPENDIX_RE, PAGE_REF_RE):
        text = pattern.sub(" ", text)
    return text


def has_section(ref: str, section_path: str, text: str) -> bool:
    """Is `ref` the number of a heading on this path, or of a numbered paragraph in the text?"""
    # "3." heads section 3, "3.1" does not
    pattern = re.compile(rf"(?:^|> |\n)(?:(?:chapter|section|глава|раздел|para)\s+)?{re.escape(ref)}(?:\.(?!\d)|[\s)]|$)",
                         re.IGNORECASE)
    return bool(pattern.search(section_path) or pattern.search(text))
