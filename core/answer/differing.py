"""Rows of two documents that give different values for one thing, and which one is in force.

An old and a new price list both hold a "Microchipping" row: quoting the first one found as
*the* answer hides that the knowledge base disagrees with itself, and a reader who trusts a
cited answer pays the old price. So, after the answer's units are chosen:

1. Each chosen table row's key is its first cell (what a price list, register or schedule
   names its rows by), compared casefolded with whitespace collapsed. A chosen sentence's
   key is its words but its numbers (stems, stop words left out), and its values its
   numbers: "Invoices are payable within 14 days." of an old policy and "Invoices are
   payable within 30 days of receipt." of the new one say one thing with two values.
2. Among every admissible unit of the passages, the best-scored unit of *another document*
   with the same key and different values is its rival (a re-uploaded copy with the same
   values is no rival, nor one whose values are all among the other's: it says less, not
   otherwise), when the unit model scores it at least `RIVAL_SHARE` of the chosen
   one: a "Gold" row of another product's table, which the question's other words do not
   fit, is another thing of the same name, not a rival. Two sentences have the same key
   when the words of the shorter (at least `MIN_SENTENCE_KEY`) all stand in the longer and
   the longer adds at most `MAX_ADDED` ("of receipt"): "The Riga clinic opens at 8:00" and
   "The Tallinn clinic opens at 9:00" name two things.
3. Both rows are quoted and the answer says the documents differ.
4. Which is in force: a row, or else its passage, that bounds its validity with the
   language's phrases ("valid until 31 January 2026", «действует до 31 января 2026 г.»)
   to a day before today is no longer in force; one valid from a day after today is not
   yet. Of two rows in force, one is superseded when the other is valid from a later day
   (or is the only one to say since when it holds), or, when neither says, comes from a later year's edition (the latest year its file name
   or title names: "terms_2025.pdf"), or a later version of one series ("release_notes_5.0"
   after "release_notes_4.2": the same file name but for its version). A row in force is
   quoted before one that is not.
5. Editions of one series restate a thing in other words ("The maximum file size for sync is
   2 GB." in 4.2, "The maximum file size was raised to 20 GB." in 5.0; a QA pass was answered
   the 4.2 value at 0.96): between two versions of a series, a sentence is also a rival when
   it gives a number with the same unit word another value and shares MIN_SENTENCE_KEY
   other words with the chosen sentence, whatever the unit model scores it (a restatement's
   words are not the question's), and of such rivals the latest version's is taken.

Dates are read from the words after the phrase: "31 January 2026", "January 31, 2026",
"2026-01-31", "31.01.2026" (day first unless the second number cannot be a month).
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from functools import cache

from core.answer.facts import number_units, numbers
from core.answer.result import Selected
from core.answer.signals import Scored
from core.answer.units import Unit, row_cells
from core.lang import DEFAULT, LANGUAGES, Language, language_of
from core.lexical import tokenize
from core.retrieve import Candidate

RIVAL_SHARE = 0.5
MIN_SENTENCE_KEY = 3  # words a sentence must name besides its numbers to be compared
MAX_ADDED = 1  # words the longer of two sentences may add to the shorter's and say the same
KEY_CHARS = 60  # of a sentence, to name it in the note
SKIPPED = frozenset({"the", "of", "on", "г", "года"})  # "the 31st of January", «2026 г.»


@dataclass(frozen=True)
class Validity:
    # "expired" (valid until a day before today) | "not_yet" (valid from a later day) |
    # "superseded" (its rival is in force from a later day, or is a later year's edition)
    state: str
    day: date | None
    by: str = ""  # the superseding document


def row_key(unit: Unit) -> str:
    """A row's first cell, casefolded, spaces collapsed ("" for a sentence or an empty cell)."""
    if unit.kind != "row":
        return ""
    cells = row_cells(unit.quote)
    return " ".join(cells[0].casefold().split()) if cells else ""


def row_values(unit: Unit) -> frozenset[str]:
    return frozenset(" ".join(c.casefold().split()) for c in row_cells(unit.quote)[1:] if c.strip())


def sentence_key(unit: Unit) -> frozenset[str]:
    """A sentence's words but its numbers, as stems (empty for a row)."""
    if unit.kind == "row":
        return frozenset()
    return frozenset(t for t in tokenize(unit.text) if not t[0].isdigit())


def same_sentence(a: frozenset[str], b: frozenset[str]) -> bool:
    short, long = sorted((a, b), key=len)
    return len(short) >= MIN_SENTENCE_KEY and short <= long and len(long - short) <= MAX_ADDED


def rival_test(chosen: Unit) -> Callable[[Unit], bool]:
    """Does another unit give `chosen`'s thing other values (the module docstring, 1-2)?
    What the chosen unit says is read once: the test runs over every ranked unit."""
    if chosen.kind == "row":
        key, values = row_key(chosen), row_values(chosen)
        if not key or not any(ch.isalpha() for ch in key):
            return lambda other: False
        return lambda other: row_key(other) == key and _differ(row_values(other), values)
    said, words = frozenset(numbers(chosen.text)), sentence_key(chosen)
    if not said or len(words) < MIN_SENTENCE_KEY:
        return lambda other: False

    def rival(other: Unit) -> bool:
        if other.kind == "row":
            return False
        there = frozenset(numbers(other.text))
        return bool(there) and _differ(there, said) and same_sentence(words, sentence_key(other))
    return rival


def _differ(these: frozenset[str], those: frozenset[str]) -> bool:
    """Do two units' values disagree? Each must hold one the other lacks: "the office closes
    at 12:00 on Sundays" says less than "the office opens at 8:00 and closes at 18:00 (12:00
    on Sundays)", not otherwise (a QA pass read such two as "The documents differ")."""
    return not (these <= those or those <= these)


def key_of(unit: Unit) -> str:
    """What the note names: a row's first cell, a sentence's opening."""
    if unit.kind == "row":
        return row_cells(unit.quote)[0].strip()
    return key_text(unit.text)


def key_text(text: str) -> str:
    """A sentence's opening, to name it in a note."""
    text = " ".join(text.split())
    return text if len(text) <= KEY_CHARS else text[:KEY_CHARS].rsplit(" ", 1)[0] + "…"


def restated_rival(chosen: Unit, other: Unit) -> bool:
    """Does a sentence of another edition give one of the chosen sentence's quantities
    another value (step 5)? A number with the same unit word on both sides, the numbers
    differing, and MIN_SENTENCE_KEY words in common."""
    if chosen.kind == "row" or other.kind == "row":
        return False
    mine = {(n, u) for n, u in number_units(chosen.text) if u and not u[0].isdigit()}
    theirs = {(n, u) for n, u in number_units(other.text) if u and not u[0].isdigit()}
    units = {u for _, u in mine} & {u for _, u in theirs}
    changed = any({n for n, v in mine if v == u} != {n for n, v in theirs if v == u} for u in units)
    return changed and len((sentence_key(chosen) & sentence_key(other)) - units) >= MIN_SENTENCE_KEY


def rival_rows(chosen: list[Selected], ranked: list[Scored], passages: list[Candidate]) -> list[tuple[Selected, Scored]]:
    """(chosen unit, its rival) for each chosen row or sentence another document gives other
    values for (another edition's restatement: the latest version's, step 5)."""
    out: list[tuple[Selected, Scored]] = []
    quoted = {(s.passage, s.unit.start) for s in chosen}
    for sel in chosen:
        home = passages[sel.passage - 1]
        is_rival = rival_test(sel.unit)
        restated: list[tuple[tuple[int, ...], Scored]] = []
        for s in ranked:
            there = passages[s.passage - 1]
            if (s.passage, s.unit.start) in quoted or there.doc_id == home.doc_id:
                continue
            # the unit model scores a restatement low (its words are not the question's):
            # the test's shared quantity and words carry it, at any score
            versions = series_versions(home, there)
            if versions and restated_rival(sel.unit, s.unit):
                restated.append((versions[1], s))
            elif s.score >= RIVAL_SHARE * sel.score and is_rival(s.unit):
                out.append((sel, s))
                quoted.add((s.passage, s.unit.start))
                break
        else:
            if restated:
                latest = max(restated, key=lambda r: r[0])[1]
                out.append((sel, latest))
                quoted.add((latest.passage, latest.unit.start))
    return out


def read_date(text: str, lang: Language, *, end: bool = True) -> date | None:
    """The date the text starts with, or None. A month without a day is its last day for
    the end of a validity ("valid until March 2026"), its first for a start (`end=False`)."""
    words = [w for w in "".join(c if c.isalnum() else " " for c in text.casefold()).split()[:6]
             if w not in SKIPPED][:3]
    month = next((lang.month_numbers[w] for w in words if w in lang.month_numbers), None)
    numbers = []
    for w in words:
        digits = w.rstrip("stndrh") if w[:1].isdigit() else w  # "31st"
        if digits.isdigit():
            numbers.append(digits)
        elif w not in lang.month_numbers:
            break
    years = [int(n) for n in numbers if len(n) == 4]
    small = [int(n) for n in numbers if len(n) <= 2]
    if month is not None:
        if not years:
            return None
        day = small[0] if small else None
    elif len(numbers) >= 3 and len(numbers[0]) == 4:  # 2026-01-31
        years, month, day = [int(numbers[0])], int(numbers[1]), int(numbers[2])
    elif len(numbers) >= 3:  # 31.01.2026; 01/31/2026 when 31 cannot be a month
        day, month = int(numbers[0]), int(numbers[1])
        if month > 12 >= day:
            day, month = month, day
        year = int(numbers[2])
        years = [year + 2000 if year < 100 else year]
    else:
        return None
    if not 1 <= month <= 12 or not 1900 <= years[0] <= 2200:
        return None
    last = calendar.monthrange(years[0], month)[1]
    if day is None:
        day = last if end else 1
    return date(years[0], month, day) if 1 <= day <= last else None


def _bound(text: str, phrases: tuple[str, ...], lang: Language, *, end: bool) -> date | None:
    low = text.casefold()
    for phrase in sorted(phrases, key=len, reverse=True):
        at = low.find(phrase)
        while at >= 0:
            before = low[at - 1] if at else " "
            after = at + len(phrase)
            if not before.isalnum() and (after >= len(low) or not low[after].isalnum()):
                found = read_date(text[after:], lang, end=end)
                if found:
                    return found
            at = low.find(phrase, at + 1)
    return None


def validity(unit: Unit, passage_text: str, today: date) -> Validity | None:
    """Whether the unit (or, when it says nothing, its passage) is out of force today."""
    lang = language_of(unit.text + " " + passage_text)
    for text in (unit.text, passage_text):
        until = _bound(text, lang.valid_until, lang, end=True)
        since = _bound(text, lang.valid_from, lang, end=False)
        if until and until < today:
            return Validity("expired", until)
        if since and since > today:
            return Validity("not_yet", since)
        if until or since:
            return None
    return None


def valid_since(unit: Unit, passage_text: str) -> date | None:
    """The day the unit (or, when it says nothing, its passage) is valid from, if it says."""
    lang = language_of(unit.text + " " + passage_text)
    for text in (unit.text, passage_text):
        since = _bound(text, lang.valid_from, lang, end=False)
        if since:
            return since
    return None


def edition(candidate: Candidate) -> int | None:
    """The latest year its file name or title names ("terms_2025.pdf", "Terms
    2025"): which of two editions of a document is the later one."""
    years = [int(t) for t in tokenize(f"{candidate.source} {candidate.title}".replace("_", " "))
             if t.isdigit() and len(t) == 4 and 1900 <= int(t) <= 2200]
    return max(years, default=None)


def series(candidate: Candidate) -> tuple[str, tuple[int, ...] | None]:
    """The document's series and version, read off its file name, else its title:
    "release_notes_4.2.md" -> ("release notes", (4, 2)); "v3" is a version, a bare "3" is not."""
    return _series(candidate.source, candidate.title)


@cache  # asked of every ranked unit's document
def _series(source: str, title: str) -> tuple[str, tuple[int, ...] | None]:
    for name in (source.rsplit(".", 1)[0], title):
        words = "".join(c if c.isalnum() or c == "." else " " for c in name).split()
        version = next((v for v in map(_version, words) if v), None)
        if version:
            return " ".join(w.casefold() for w in words if not _version(w) and not w.isdigit()), version
    return "", None


def _version(word: str) -> tuple[int, ...] | None:
    bare = word.strip(".")
    marked = bare[:1] in "vV" and bare[1:2].isdigit()
    parts = (bare[1:] if marked else bare).split(".")
    if not all(p.isdigit() for p in parts) or not (marked or len(parts) > 1):
        return None
    return tuple(int(p) for p in parts)


def series_versions(a: Candidate, b: Candidate) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """(a's version, b's) when the two are versions of one series, else None."""
    (name_a, ver_a), (name_b, ver_b) = series(a), series(b)
    if not ver_a or not ver_b or name_a != name_b or ver_a == ver_b:
        return None
    return ver_a, ver_b


def series_version(source: str, title: str) -> tuple[int, ...] | None:
    """The version a document's file name (else title) gives it, or None."""
    return _series(source, title)[1]


def later_versions(source: str, title: str, names: Iterable[str]) -> list[str]:
    """The file names of the same series as the document with a later version, latest first
    ("release_notes_5.0.html" for "release_notes_4.2.md"): an answer quoting 4.2's "The FTP
    connector now supports passive mode." said nothing of 5.0, which removes the connector
    (a QA pass), and what changed is not always a number a rival sentence could show."""
    name, version = _series(source, title)
    if not version:
        return []
    later = [(v, n) for n in names for s, v in [_series(n, "")] if v and s == name and v > version]
    return [n for _, n in sorted(later, reverse=True)]


def superseded(rows: list[Selected], passages: list[Candidate]) -> int | None:
    """Which of two rows in force (0 or 1) the other supersedes: the other is valid from a
    later day, or, when neither says, is a later year's edition. A QA pass: the 2024 terms
    were quoted first, with nothing to say that the 2025 ones replace them."""
    since = [valid_since(s.unit, passages[s.passage - 1].text) for s in rows]
    if since[0] and since[1] and since[0] != since[1]:
        return 0 if since[0] < since[1] else 1
    if bool(since[0]) != bool(since[1]):
        # one says since when it holds, the other nothing: the dated one is the edition that
        # took over (a QA pass: "Valid from: 1 March 2025" beside an undated price list, and
        # neither was said to be in force)
        return 0 if since[1] else 1
    years = [edition(passages[s.passage - 1]) for s in rows]
    if years[0] and years[1] and years[0] != years[1]:
        return 0 if years[0] < years[1] else 1
    versions = series_versions(passages[rows[0].passage - 1], passages[rows[1].passage - 1])
    if versions:
        return 0 if versions[0] < versions[1] else 1
    return None


def _row(sel: Selected, passages: list[Candidate], state: Validity | None) -> dict:
    return {"passage": sel.passage, "source": passages[sel.passage - 1].source,
            "validity": state.state if state else None,
            "date": state.day.isoformat() if state and state.day else None, "by": state.by if state else ""}


def ordered_pair(sel: Selected, rival: Scored, passages: list[Candidate],
                 today: date) -> tuple[list[Selected], list[Validity | None]]:
    """A chosen unit and its rival, the one in force first, with what each says of its
    validity (step 4)."""
    rows = [sel, Selected(rival.passage, rival.unit, round(rival.score, 4))]
    states = [validity(s.unit, passages[s.passage - 1].text, today) for s in rows]
    if states[0] is None and states[1] is None and (old := superseded(rows, passages)) is not None:
        newer = rows[1 - old]
        states[old] = Validity("superseded", valid_since(newer.unit, passages[newer.passage - 1].text),
                               passages[newer.passage - 1].source)
    if states[0] is not None and states[1] is None:
        rows, states = rows[::-1], states[::-1]
    return rows, states


def in_force_first(pairs: list[tuple[Selected, Scored]], chosen: list[Selected], passages: list[Candidate],
                   today: date) -> tuple[list[Selected], list[dict]]:
    """The answer's units with each rival beside its row (the one in force first), and what
    each pair's rows say of their validity, for the note; a chosen row out of force with no
    rival is said to be so too."""
    out = list(chosen)
    differences = []
    paired = {id(sel) for sel, _ in pairs}
    for sel in chosen:
        state = validity(sel.unit, passages[sel.passage - 1].text, today) if sel.unit.kind == "row" else None
        if state is not None and id(sel) not in paired:
            differences.append({"key": row_cells(sel.unit.quote)[0].strip(), "rows": [_row(sel, passages, state)]})
    for sel, rival in pairs:
        rows, states = ordered_pair(sel, rival, passages, today)
        at = out.index(sel)
        out[at:at + 1] = rows
        differences.append({"key": key_of(sel.unit),
                            "rows": [_row(s, passages, v) for s, v in zip(rows, states)]})
    return out, differences


def note(differences: list[dict], lang: Language | None = None) -> str:
    """One sentence per differing row: which documents, and which of them is out of force;
    or, for a row out of force with no rival, that it may no longer apply. Said in `lang`,
    the question's (English when None)."""
    lang = lang or LANGUAGES[DEFAULT]
    said = []
    for d in differences:
        parts = []
        for row in d["rows"]:
            when = ""
            if row["validity"] == "expired":
                when = lang.say("valid_until_past", date=row["date"])
            elif row["validity"] == "not_yet":
                when = lang.say("valid_from_only", date=row["date"])
            elif row["validity"] == "superseded":
                when = (lang.say("replaced_by", by=row["by"], date=row["date"]) if row["date"]
                        else lang.say("older_edition", by=row["by"]))
            parts.append(f"{row['source']} ({when})" if when else row["source"])
        if len(parts) == 1:
            said.append(lang.say("may_no_longer_apply", key=d["key"], source=parts[0]))
        else:
            said.append(lang.say("different_values", key=d["key"], sources=lang.say("and").join(parts)))
    return " ".join(said)
