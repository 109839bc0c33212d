"""Questions that name a numbered section: "What does para 7-2 say?", «Что сказано в разделе 1.1?».

Lawyers, auditors and technicians cite clauses by number. Such a question names its
answer's place exactly, so it is found by structure, not by similarity:

1. Read the numbers the question cites (core/answer/references.py `section_refs`: "para 7-2",
   "section 1.1", «пункт 9.3»).
2. Look the tenant's chunks up in the registry for each number: a chunk belongs to it when
   a heading on its section path carries the number ("... > 1.1 Ежегодный отпуск"), or, for a
   number with parts (7-2, 1.1), when one of its lines starts with it ("7-2. Annual
   leave. ..."). A line that merely refers to it ("as described in para 7-2") is no
   match, and a bare number ("section 4") matches headings only, since list steps start
   with "4." too. Per document the first such chunk counts (where the section starts).
   Documents whose title or file name shares the most words with the question come first
   ("... of the travel policy"), then retrieval's order; the first `MAX_PINNED` are pinned
   first among the passages (core/retrieve.py step 6).
3. A question that asks what the section says ("what does ... say / state", "quote",
   "summarise", «что сказано / говорится / написано в», «перескажи») is answered by
   reading the section: its first `READ_SENTENCES` sentences or rows after the number and
   its caption, each cited. If the question narrows the ask ("... say about carry-
   over", «... о переносе отпуска») to words the section's caption or heading does not
   hold, the ordinary sentence selection answers instead, restricted to that section.
   When several documents carry the number and the question names none of them more than
   the others ("What does section 3 say?"), the answer is a refusal that names them, so
   the user can say which one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core import store
from core.answer.references import has_section, section_refs
from core.answer.units import Unit, units
from core.config import Settings
from core.ingest.text import WORD_EDGE
from core.lang import LANGUAGES, language_of
from core.lexical import tokenize

READ_SENTENCES = 3  # sentences quoted when a section is read out
MAX_PINNED = 2  # documents whose referenced chunk is pinned among the passages

ASKS_CONTENT_RE = re.compile(
    r"\bwhat\s+(?:does|do|did)\b.{0,80}?\b(?:say|says|state|states|cover|covers|contain|contains|provide|"
    r"provides|specify|specifies)\b|"
    r"\bwhat\s+is\s+(?:stated|said|written|set\s+out|laid\s+down)\s+(?:in|under|by)\b|"
    r"\bwhat(?:'s|\s+is)\s+in\b|\b(?:quote|summari[sz]e|paraphrase|read\s+out|recite)\b|"
    r"\b(?:exact\s+)?(?:wording|text)\s+of\b|"
    r"\bчто\s+(?:сказано|говорится|написано|указано|изложено|предусмотрено|содержится)\b|"
    r"\bо\s+ч[её]м\s+(?:говорится|гласит|речь)\b|\bчто\s+гласит\b|"
    r"\b(?:процитируй|перескажи|приведи\s+текст|зачитай)\w*",
    re.IGNORECASE,
)
# what the ask is narrowed to: "... say ABOUT carry-over", «... О ПЕРЕНОСЕ отпуска»
ABOUT_RE = re.compile(r"\b(?:about|regarding|concerning|on\s+the\s+subject\s+of|as\s+to)\s+(.+)$|"
                      r"(?:^|\s)(?:о|об|обо|про|насч[её]т|относительно)\s+(.+)$", re.IGNORECASE)
NUMBER_LINE = r"^[ \t]*{ref}\.?(?=\s|$)"


@dataclass
class Reading:
    """A section read out: the passage (1-based index into the passages) and its units."""

    passage: int
    units: list[Unit]
    ref: str = ""
    ambiguous: list[str] = field(default_factory=list)  # documents that all carry the number
    narrowed: bool = False  # the ask is narrowed past the caption: `units` is where to choose, not the answer
    amended_by: list[tuple[int, Unit]] = field(default_factory=list)  # (passage, unit) saying it was changed


def asks_section_content(question: str) -> bool:
    """Does the question ask what a numbered section says (not a fact inside it)?"""
    return bool(section_refs(question)) and bool(ASKS_CONTENT_RE.search(question))


def _multi_part(ref: str) -> bool:
    return bool(re.search(r"\d[.\-]\d", ref))


def _number_line(ref: str, text: str) -> re.Match[str] | None:
    return re.search(NUMBER_LINE.format(ref=re.escape(ref)), text, re.MULTILINE)


def carries(ref: str, section_path: str, text: str) -> bool:
    """Step 2: is this chunk numbered `ref`, by a heading on its path or (a number with
    parts only) by a line that starts with it? (`has_section`, the generator's own test of
    a unit's section, with a bare number kept off the text.)"""
    return has_section(ref, section_path, "") or (_multi_part(ref) and has_section(ref, "", text))


def _title_overlap(question_tokens: set[str], row: dict[str, Any]) -> int:
    name = f"{row.get('title', '')} {re.sub(r'[-_.]', ' ', row.get('source', ''))}"
    return len(question_tokens & set(tokenize(name)))


@dataclass
class Referenced:
    """What the registry holds for the numbers a question cites (step 2)."""

    numbered: list[dict[str, Any]]  # per document, its first chunk numbered so, with `overlap`
    amending: list[dict[str, Any]]  # per number, a chunk of another document saying it was changed


def referenced_chunks(settings: Settings, tenant: str, question: str) -> Referenced:
    """Step 2: per document, the first of the tenant's chunks numbered as the question
    cites (where the section starts), with `overlap`: how many words its document's title
    or file name shares with the question; and, from the same rows, per number with parts,
    the first chunk of a document not numbered so that says the section was deleted,
    replaced or amended (`amends`), so the section's reading can say so. (A bare number is
    looked up in headings only: every chunk holding the digit is no row to read.)"""
    refs = section_refs(question)
    if not refs:  # retrieve() asks this of every question: no number, no work
        return Referenced([], [])
    question_tokens = set(tokenize(question))
    first: dict[str, dict[str, Any]] = {}
    amending: list[dict[str, Any]] = []
    for ref in dict.fromkeys(refs):
        rows = store.chunks_numbered(settings, tenant, ref, in_text=_multi_part(ref))
        numbered = [row for row in rows if carries(ref, row.get("section", ""), row["text"])]
        for row in numbered:
            held = first.get(row["doc_id"])
            if held is None or int(row.get("ordinal", 0)) < int(held.get("ordinal", 0)):
                first[row["doc_id"]] = {**row, "overlap": _title_overlap(question_tokens, row)}
        owners = {row["doc_id"] for row in numbered}
        amending.extend(next(([row] for row in rows if row["doc_id"] not in owners and any(
            amends(ref, u.text, row.get("lang")) for u in units(row["text"], ""))), []))
    return Referenced(list(first.values()), amending)


def _narrowing_terms(question: str) -> set[str]:
    match = ABOUT_RE.search(question.rstrip(" ?.!"))
    if not match:
        return set()
    return set(tokenize(match.group(1) or match.group(2) or ""))


def _read(ref: str, passage: Any) -> tuple[str, list[Unit]] | None:
    """The section's caption or heading, and its sentences and rows (not its numbers,
    headings or paragraph captions)."""
    path = passage.section.split(" > ") if passage.section else []
    heading = path[-1] if path else ""
    chunk_units = [u for u in units(passage.text, heading) if u.kind != "heading"]
    if has_section(ref, passage.section, ""):  # a numbered heading: the text under it
        shown = {h.strip() for h in path}
        return heading, _body([u for u in chunk_units if u.text.strip() not in shown])[1]
    line = _number_line(ref, passage.text) if _multi_part(ref) else None
    if line is not None:  # a numbered paragraph: its own line, "7-2. Annual leave. ..."
        end = passage.text.find("\n", line.start())
        end = len(passage.text) if end < 0 else end
        return _body([u for u in chunk_units if line.start() <= u.start < end])
    return None


def _body(own: list[Unit]) -> tuple[str, list[Unit]]:
    """Drop paragraph numbers ("7-2.") and the caption after each ("Annual leave.")."""
    caption, body, after_number = "", [], False
    for unit in own:
        if re.fullmatch(r"[\d.\-)\s]+", unit.text):
            after_number = True
            continue
        if after_number and _is_caption(unit.text):
            caption = caption or unit.text
        else:
            body.append(unit)
        after_number = False
    return caption, body


def _is_caption(text: str) -> bool:
    return len(text.split()) <= 6 and not re.search(r"\d", text)


def amends(ref: str, sentence: str, lang_code: str | None = None) -> bool:
    """Does the sentence say clause `ref` is deleted, replaced or amended? It names the
    number as a reference, not as its own (it does not start with it: "2.1 Clause 7.4 of
    the agreement is deleted and replaced by ..."), beside an amending word of its language."""
    words = [w.strip(WORD_EDGE) for w in sentence.split()]
    if not words or words[0] == ref or ref not in words[1:]:
        return False
    lang = LANGUAGES.get(lang_code or "") or language_of(sentence)
    return bool({w.lower() for w in words} & lang.amending)


def _amendments(ref: str, read: Any, passages: list[Any]) -> list[tuple[int, Unit]]:
    """Sentences of the other documents among the passages that say the read section was
    changed, naming its document (a word of its title or file name): a clause quoted as it
    stood was read as in force (a QA pass: an agreement's period, which an addendum replaced)."""
    named = {"title": read.title, "source": read.source}
    found = []
    for n, p in enumerate(passages, start=1):
        if p.doc_id == read.doc_id:
            continue
        for u in units(p.text, ""):
            if u.kind != "heading" and amends(ref, u.text, p.lang) and _title_overlap(set(tokenize(u.text)), named):
                found.append((n, u))
    return found


def own_number(unit_text: str) -> str:
    """The number with parts a unit opens with, as its own ("5.2 A permit is valid ...",
    "7-2. Annual leave"), or ""."""
    first = (unit_text.split() or [""])[0].strip(WORD_EDGE).rstrip(".")
    return first if first[:1].isdigit() and _multi_part(first) else ""


def quoted_section_amended(unit_text: str, passage: int, passages: list[Any]) -> tuple[str, list[tuple[int, Unit]]]:
    """Step 4: the number of the quoted numbered clause, and the sentences of another
    document among the passages that change it (`amends`, naming its document), with the
    sentences around them citing the number ("Clause 5.2 now reads: ..."): a clause an
    amending memo replaced was quoted as in force when the question never cited its number
    (a QA pass). ("", []) when the unit has no number of its own or nothing changes it."""
    ref = own_number(unit_text)
    if not ref:
        return "", []
    read = passages[passage - 1]
    found = _amendments(ref, read, passages)
    if not found:
        return ref, []
    amending = {n for n, _ in found}
    citing = [(n, u) for n in sorted(amending) for u in units(passages[n - 1].text, "")
              if u.kind != "heading" and ref in [w.strip(WORD_EDGE) for w in u.text.split()[1:]]]
    return ref, citing


def section_reading(question: str, passages: list[Any]) -> Reading | None:
    """Step 3: the first sentences of the cited section, or None when the question does not
    ask what it says or the section is not among the passages. An ask narrowed to words its
    caption does not hold reads the section's sentences holding them when together they hold
    them all; else it gives all the section's sentences, marked `narrowed`, to choose among. `Reading.ambiguous` names the documents when several
    carry the number and the question names none of them more than the others."""
    if not asks_section_content(question):
        return None
    narrowed = _narrowing_terms(question)
    question_tokens = set(tokenize(question))
    for ref in section_refs(question):
        found = [(n, p) for n, p in enumerate(passages, start=1) if carries(ref, p.section, p.text)]
        if not found:
            continue
        overlap = {p.doc_id: _title_overlap(question_tokens, {"title": p.title, "source": p.source})
                   for _, p in found}
        best = max(overlap.values())
        named = [(n, p) for n, p in found if overlap[p.doc_id] == best]
        sources = list(dict.fromkeys(p.source for _, p in named))
        if len(sources) > 1:
            return Reading(named[0][0], [], ref=ref, ambiguous=sources)
        for n, passage in named:
            read = _read(ref, passage)
            if read is None or not read[1]:
                continue
            caption, body = read
            if narrowed and not narrowed <= set(tokenize(caption)):
                holding = [u for u in body if narrowed & set(tokenize(u.text))]
                if narrowed <= set(tokenize(" ".join(u.text for u in holding))):
                    # the place and the topic both stand in the section as asked: its sentences
                    # on that topic are read out ("what does clause 10.1 say about notice")
                    return Reading(n, holding[:READ_SENTENCES], ref=ref,
                                   amended_by=_amendments(ref, passage, passages))
                # chosen among the section's own sentences: another document's "not the cap in
                # clause 5.2" holds every word of "what does clause 5.2 say about limits" (QA pass)
                return Reading(n, body, ref=ref, narrowed=True)
            return Reading(n, body[:READ_SENTENCES], ref=ref, amended_by=_amendments(ref, passage, passages))
    return None
