"""Word's list numbers as Word shows them ("1.", "2.", "a)", "1.2.", "iv."), for DOCX.

A numbered paragraph names a list (w:numPr: numId, and its level, ilvl) directly or through
its style ("List Number"); the list's definition (word/numbering.xml) gives each level its
start, format (decimal, letters, roman, bullet) and text ("%1.", "%1.%2."). The number itself
is not in the document: Word counts the paragraphs. Counted here the same way, in document
order: per abstract definition, as Word continues a list across the w:num instances sharing
one unless an instance restarts a level (w:startOverride: Word's "Restart at 1"); a deeper
level restarts after a shallower one (or as w:lvlRestart says). Bullets have no number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from docx.oxml.ns import qn

_NUM_PR = f"{qn('w:pPr')}/{qn('w:numPr')}"
_NUM_ID, _ILVL, _VAL = qn("w:numId"), qn("w:ilvl"), qn("w:val")
_ABSTRACT, _ABSTRACT_ID, _LEVEL, _NUM = qn("w:abstractNum"), qn("w:abstractNumId"), qn("w:lvl"), qn("w:num")
_LINK = qn("w:numStyleLink")  # the definition is a numbering style's: follow it
_UNNUMBERED = ("bullet", "none")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


@dataclass(frozen=True)
class _Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."
    restart: int | None = None  # w:lvlRestart: restarted after a level up to this one (1-based) is used; 0 never
    legal: bool = False  # w:isLgl: every level's number said in decimal ("1.1", not "I.a")


def num_pr(element: Any) -> tuple[str | None, str | None]:
    """(numId, ilvl) of a paragraph's or a style's own w:numPr, each None when not given."""
    found = element.find(_NUM_PR) if element is not None else None
    if found is None:
        return None, None
    num, lvl = found.find(_NUM_ID), found.find(_ILVL)
    return (num.get(_VAL) if num is not None else None), (lvl.get(_VAL) if lvl is not None else None)


def _int(element: Any, default: int | None) -> int | None:
    try:
        return int(element.get(_VAL)) if element is not None else default
    except (TypeError, ValueError):
        return default


def _level(element: Any) -> _Level:
    fmt, text = element.find(qn("w:numFmt")), element.find(qn("w:lvlText"))
    return _Level(start=_int(element.find(qn("w:start")), 1) or 0,
                  fmt=(fmt.get(_VAL) if fmt is not None else None) or "decimal",
                  text=(text.get(_VAL) if text is not None else None) or "",
                  restart=_int(element.find(qn("w:lvlRestart")), None),
                  legal=element.find(qn("w:isLgl")) is not None)


def _letters(n: int) -> str:
    """Word's letters: a..z, then aa, bb, .. zz, then aaa (not a spreadsheet's aa, ab)."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else str(n)


def _roman(n: int) -> str:
    if not 0 < n < 4000:
        return str(n)
    out = ""
    for value, numeral in _ROMAN:
        count, n = divmod(n, value)
        out += numeral * count
    return out


def formatted(n: int, fmt: str) -> str:
    """A level's count as its format writes it; formats not written here are said in decimal."""
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt in ("lowerLetter", "upperLetter"):
        return _letters(n) if fmt == "lowerLetter" else _letters(n).upper()
    if fmt in ("lowerRoman", "upperRoman"):
        return _roman(n) if fmt == "lowerRoman" else _roman(n).upper()
    return str(n)


class Numbering:
    """The numbering definitions of one document and the counts made so far; `label` is
    called for every numbered paragraph in document order."""

    def __init__(self, root: Any, style_num: Any = None) -> None:
        """`root`: word/numbering.xml's element (None: no lists); `style_num(style_id)`: the
        numId a numbering style names (for w:numStyleLink)."""
        self.abstract_of: dict[str, str] = {}  # numId -> abstractNumId
        self.starts: dict[str, dict[int, int]] = {}  # numId -> level -> start it restarts at
        self.levels: dict[str, dict[int, _Level]] = {}  # abstractNumId -> level -> definition
        self.links: dict[str, str] = {}  # abstractNumId -> numbering style it takes its levels from
        self.counts: dict[str, dict[int, int]] = {}  # abstractNumId -> level -> last number given
        self.begun: set[str] = set()  # numIds whose restarts were applied
        self.style_num = style_num or (lambda style_id: None)
        for element in root.iterchildren(_ABSTRACT, _NUM) if root is not None else ():
            self._read(element)

    def _read(self, element: Any) -> None:
        if element.tag == _ABSTRACT:
            key = element.get(_ABSTRACT_ID)
            self.levels[key] = _levels(element)
            link = element.find(_LINK)
            if link is not None:
                self.links[key] = link.get(_VAL)
            return
        num = element.get(_NUM_ID)
        abstract = element.find(_ABSTRACT_ID)
        self.abstract_of[num] = abstract.get(_VAL) if abstract is not None else ""
        self.starts[num] = {int(o.get(_ILVL, "0")): _int(o.find(qn("w:startOverride")), 1) or 0
                            for o in element.iterchildren(qn("w:lvlOverride"))
                            if o.find(qn("w:startOverride")) is not None and o.get(_ILVL, "0").isdigit()}

    def _definition(self, num: str) -> tuple[str, dict[int, _Level]]:
        """The abstract definition a list counts in, and its levels (a numbering style's
        link followed once)."""
        abstract = self.abstract_of.get(num, "")
        linked = self.links.get(abstract)
        if linked and not self.levels.get(abstract):
            other = self.style_num(linked)
            abstract = self.abstract_of.get(other, abstract) if other else abstract
        return abstract, self.levels.get(abstract, {})

    def label(self, num: str | None, ilvl: str | None) -> str:
        """The number Word shows before this paragraph ("3.", "1.2.", "b)"), counting it;
        "" for a bullet, an unknown list, or numId 0 (numbering taken off)."""
        if not num or num == "0" or num not in self.abstract_of:
            return ""
        level = int(ilvl) if ilvl and ilvl.isdigit() else 0
        abstract, levels = self._definition(num)
        definition = levels.get(level)
        if definition is None:
            return ""
        counts = self.counts.setdefault(abstract, {})
        if num not in self.begun:  # "Restart at N" on this instance of the list
            self.begun.add(num)
            for restarted, start in self.starts.get(num, {}).items():
                counts[restarted] = start - 1
        counts[level] = counts.get(level, definition.start - 1) + 1
        for deeper in [k for k in counts if k > level]:
            restart = levels.get(deeper, _Level()).restart
            if restart is None or level <= restart - 1:
                del counts[deeper]
        if definition.fmt in _UNNUMBERED:
            return ""
        return _rendered(definition, levels, counts)


def _levels(abstract: Any) -> dict[int, _Level]:
    """An abstract definition's levels by their number (w:lvl's ilvl, 0 = outermost)."""
    out: dict[int, _Level] = {}
    for element in abstract.iterchildren(_LEVEL):
        ilvl = element.get(_ILVL, "")
        if ilvl.isdigit():
            out[int(ilvl)] = _level(element)
    return out


def _rendered(definition: _Level, levels: dict[int, _Level], counts: dict[int, int]) -> str:
    """The level's text with each "%n" replaced by level n-1's number in its format."""
    out = definition.text
    for n in range(1, 10):  # Word has nine levels, %1 .. %9
        mark = f"%{n}"
        if mark in out:
            shown = levels.get(n - 1, _Level())
            count = counts.get(n - 1, shown.start)
            out = out.replace(mark, formatted(count, "decimal" if definition.legal else shown.fmt))
    return out.strip()
